-- Tags (an array of strings) and attributes (a map) exploded into rows.
CREATE TABLE articles (
  article_id BIGINT,
  title      STRING,
  tags       ARRAY<STRING>,
  attributes MAP<STRING, STRING>
) WITH ('connector' = 'kafka', 'topic' = 'articles', 'format' = 'json');

CREATE TABLE article_tags (
  article_id BIGINT,
  tag        STRING
) WITH ('connector' = 'kafka', 'topic' = 'article_tags', 'format' = 'json');

CREATE TABLE article_attributes (
  article_id BIGINT,
  attr_key   STRING,
  attr_value STRING
) WITH ('connector' = 'kafka', 'topic' = 'article_attributes', 'format' = 'json');

INSERT INTO article_tags
SELECT article_id, LOWER(tag)
FROM articles CROSS JOIN UNNEST(tags) AS t (tag);

INSERT INTO article_attributes
SELECT a.article_id, m.k, m.v
FROM articles a CROSS JOIN UNNEST(a.attributes) AS m (k, v)
WHERE m.k <> '';
