-- A user-defined table function splitting sentences into words.
CREATE TEMPORARY FUNCTION split_words AS 'com.example.udf.SplitWords';

CREATE TABLE sentences (
  doc_id   BIGINT,
  sentence STRING,
  lang     STRING
) WITH ('connector' = 'kafka', 'topic' = 'sentences', 'format' = 'json');

CREATE TABLE word_counts (
  word STRING,
  cnt  BIGINT,
  PRIMARY KEY (word) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'word_counts', 'key.format' = 'json', 'value.format' = 'json');

INSERT INTO word_counts
SELECT word, COUNT(*)
FROM sentences
LEFT JOIN LATERAL TABLE(split_words(sentence)) AS T(word, word_length) ON TRUE
WHERE lang = 'en'
GROUP BY word;
