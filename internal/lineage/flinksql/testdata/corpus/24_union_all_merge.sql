-- Merge app and web events into one stream.
CREATE TABLE app_events (
  device_id STRING, user_id BIGINT, event_name STRING, event_ts BIGINT
) WITH ('connector' = 'kafka', 'topic' = 'app_events', 'format' = 'json');

CREATE TABLE web_events (
  cookie_id STRING, uid BIGINT, action STRING, `timestamp` TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'web_events', 'format' = 'json');

CREATE TABLE all_events (
  source     STRING,
  client_id  STRING,
  user_id    BIGINT,
  event_name STRING,
  event_time TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'all_events', 'format' = 'json');

INSERT INTO all_events
SELECT 'app', device_id, user_id, event_name, TO_TIMESTAMP(FROM_UNIXTIME(event_ts / 1000))
FROM app_events
UNION ALL
SELECT 'web', cookie_id, uid, UPPER(action), `timestamp`
FROM web_events
WHERE uid IS NOT NULL;
