-- Kafka metadata columns (headers, partition, offset, timestamp) and key fields.
CREATE TABLE kafka_in (
  `event_time` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition`  BIGINT METADATA VIRTUAL,
  `offset`     BIGINT METADATA VIRTUAL,
  `headers`    MAP<STRING, BYTES> METADATA,
  `k_user_id`  BIGINT,
  `item_id`    BIGINT,
  `behavior`   STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior_raw',
  'key.format' = 'json',
  'key.fields' = 'k_user_id',
  'key.fields-prefix' = 'k_',
  'value.format' = 'json',
  'value.fields-include' = 'EXCEPT_KEY'
);

CREATE TABLE kafka_out (
  `event_time` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `user_id`    BIGINT,
  `item_id`    BIGINT,
  `behavior`   STRING,
  `source_pos` STRING,
  `trace_id`   STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior_clean',
  'format' = 'json'
);

INSERT INTO kafka_out
SELECT event_time, k_user_id, item_id, LOWER(behavior),
       CONCAT(CAST(`partition` AS STRING), '-', CAST(`offset` AS STRING)),
       CAST(headers['trace-id'] AS STRING)
FROM kafka_in
WHERE behavior IS NOT NULL;
