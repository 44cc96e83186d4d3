-- Session windows per user with a 30-minute gap (Flink 1.19+ SESSION TVF).
CREATE TABLE clicks (
  user_id  STRING,
  url      STRING,
  click_ts TIMESTAMP(3),
  WATERMARK FOR click_ts AS click_ts - INTERVAL '10' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'format' = 'json');

CREATE TABLE user_sessions (
  user_id       STRING,
  session_start TIMESTAMP(3),
  session_end   TIMESTAMP(3),
  clicks        BIGINT,
  distinct_urls BIGINT
) WITH ('connector' = 'kafka', 'topic' = 'user_sessions', 'format' = 'json');

INSERT INTO user_sessions
SELECT user_id, window_start, window_end, COUNT(*), COUNT(DISTINCT url)
FROM TABLE(
  SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(click_ts), INTERVAL '30' MINUTES))
GROUP BY user_id, window_start, window_end;
