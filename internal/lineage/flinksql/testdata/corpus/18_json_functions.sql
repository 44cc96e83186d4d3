-- Raw JSON strings parsed with JSON_VALUE / JSON_QUERY, and rebuilt with JSON_OBJECT.
CREATE TABLE raw_events (
  `key`    STRING,
  payload  STRING,
  ingest_ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL
) WITH (
  'connector' = 'kafka',
  'topic' = 'raw_events',
  'format' = 'raw'
);

CREATE TABLE parsed_events (
  event_id   STRING,
  event_type STRING,
  amount     DOUBLE,
  tags       STRING,
  summary    STRING,
  ingest_ts  TIMESTAMP_LTZ(3)
) WITH ('connector' = 'kafka', 'topic' = 'parsed_events', 'format' = 'json');

INSERT INTO parsed_events
SELECT
  JSON_VALUE(payload, '$.id'),
  JSON_VALUE(payload, '$.type' DEFAULT 'unknown' ON EMPTY),
  JSON_VALUE(payload, '$.amount' RETURNING DOUBLE NULL ON ERROR),
  JSON_QUERY(payload, '$.tags' WITH CONDITIONAL ARRAY WRAPPER),
  JSON_OBJECT(KEY 'key' VALUE `key`, KEY 'size' VALUE CHAR_LENGTH(payload) ABSENT ON NULL),
  ingest_ts
FROM raw_events
WHERE JSON_EXISTS(payload, '$.id') AND payload IS JSON;
