-- ODS -> DWD: clean raw order events from Kafka (JSON) into a DWD order stream.
SET 'pipeline.name' = 'dwd_trade_order';
SET 'table.exec.sink.not-null-enforcer' = 'DROP';

CREATE TABLE ods_trade_order (
  `id`            BIGINT,
  `user_id`       BIGINT,
  `province_id`   INT,
  `order_status`  STRING,
  `total_amount`  DECIMAL(16, 2),
  `coupon_reduce` DECIMAL(16, 2),
  `create_time`   STRING,
  `event_ts` AS TO_TIMESTAMP(create_time, 'yyyy-MM-dd HH:mm:ss'),
  WATERMARK FOR event_ts AS event_ts - INTERVAL '3' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'ods_trade_order',
  'properties.bootstrap.servers' = 'kafka:9092',
  'properties.group.id' = 'dwd_trade_order',
  'scan.startup.mode' = 'group-offsets',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);

CREATE TABLE dwd_trade_order (
  order_id      BIGINT,
  user_id       BIGINT,
  province_id   INT,
  status_name   STRING,
  pay_amount    DECIMAL(16, 2),
  create_date   STRING,
  create_ts     TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'dwd_trade_order',
  'properties.bootstrap.servers' = 'kafka:9092',
  'key.format' = 'json',
  'value.format' = 'json'
);

INSERT INTO dwd_trade_order
SELECT
  id AS order_id,
  user_id,
  CAST(province_id AS INT),
  CASE order_status
    WHEN '1001' THEN 'created'
    WHEN '1002' THEN 'paid'
    ELSE 'other'
  END AS status_name,
  total_amount - COALESCE(coupon_reduce, 0) AS pay_amount,
  DATE_FORMAT(event_ts, 'yyyy-MM-dd') AS create_date,
  event_ts
FROM ods_trade_order
WHERE order_status IS NOT NULL
  AND user_id > 0;
