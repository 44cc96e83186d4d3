-- One source, three sinks in one job (EXECUTE STATEMENT SET).
CREATE TABLE clicks (
  user_id  BIGINT,
  page_id  STRING,
  referrer STRING,
  country  STRING,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'format' = 'json');

CREATE TABLE pageview_pv (page_id STRING, pv BIGINT, PRIMARY KEY (page_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'pageview_pv', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE pageview_uv (page_id STRING, uv BIGINT, PRIMARY KEY (page_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'pageview_uv', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE external_clicks (user_id BIGINT, page_id STRING, referrer STRING)
  WITH ('connector' = 'kafka', 'topic' = 'external_clicks', 'format' = 'json');

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO pageview_pv
  SELECT page_id, COUNT(1) FROM clicks GROUP BY page_id;
  INSERT INTO pageview_uv
  SELECT page_id, COUNT(DISTINCT user_id) FROM clicks GROUP BY page_id;
  INSERT INTO external_clicks
  SELECT user_id, page_id, referrer FROM clicks
  WHERE referrer NOT LIKE '%example.com%' AND country = 'DE';
END;
