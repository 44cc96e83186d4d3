-- Cumulative daily unique visitors, updated every ten minutes.
CREATE TABLE page_views (
  user_id  BIGINT,
  page_id  BIGINT,
  ts       BIGINT,
  rowtime AS TO_TIMESTAMP_LTZ(ts, 3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'page_views', 'format' = 'json');

CREATE TABLE cumulative_uv (
  stat_day  STRING,
  stat_time STRING,
  pv        BIGINT,
  uv        BIGINT
) WITH ('connector' = 'elasticsearch-7', 'hosts' = 'http://es:9200', 'index' = 'cumulative_uv');

INSERT INTO cumulative_uv
SELECT
  DATE_FORMAT(window_start, 'yyyy-MM-dd') AS stat_day,
  DATE_FORMAT(window_end, 'HH:mm') AS stat_time,
  COUNT(*) AS pv,
  COUNT(DISTINCT user_id) AS uv
FROM TABLE(
  CUMULATE(TABLE page_views, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES, INTERVAL '1' DAY))
GROUP BY window_start, window_end;
