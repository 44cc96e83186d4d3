-- dwd-order-detail: cleans and flattens ODS orders into the DWD order detail stream,
-- one row per order (the first event of each order wins), the primary product's SKU
-- and price pulled up to the top level.
-- Its consumer file, contracts/orders/order-created/consumers/dwd-order-detail.yaml,
-- is checked against this script in CI: contractbot lineage sync --check.
SET 'pipeline.name' = 'dwd-order-detail';
SET 'table.exec.state.ttl' = '36 h';

CREATE TABLE ods_order_events (
  order_id     STRING,
  user_id      BIGINT,
  channel      STRING,
  amount       BIGINT,
  currency     STRING,
  coupon_code  STRING,
  product_info ROW<
    product_id STRING,
    category   STRING,
    detail     ROW<sku STRING, title STRING, price DECIMAL(12, 2)>
  >,
  items        ARRAY<ROW<sku STRING, quantity INT, unit_price DECIMAL(12, 2)>>,
  attributes   MAP<STRING, STRING>,
  created_at   TIMESTAMP_LTZ(3),
  event_time   TIMESTAMP_LTZ(6),
  proc_time AS PROCTIME(),
  WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'ods_order_events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'dwd-order-detail',
  'scan.startup.mode' = 'group-offsets',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = '${SCHEMA_REGISTRY_URL}'
);

CREATE TABLE dwd_order_detail (
  order_id     STRING,
  user_id      BIGINT,
  channel      STRING,
  amount_cents BIGINT,
  currency     STRING,
  coupon_code  STRING,
  sku          STRING,
  price        DECIMAL(12, 2),
  order_date   DATE,
  created_at   TIMESTAMP_LTZ(3),
  etl_time     TIMESTAMP_LTZ(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'dwd_order_detail',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'key.format' = 'raw',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = '${SCHEMA_REGISTRY_URL}'
);

INSERT INTO dwd_order_detail
SELECT
  order_id,
  user_id,
  channel,
  amount AS amount_cents,
  UPPER(currency) AS currency,
  NULLIF(TRIM(coupon_code), '') AS coupon_code,
  product_info.detail.sku AS sku,
  product_info.detail.price AS price,
  CAST(created_at AS DATE) AS order_date,
  created_at,
  CURRENT_TIMESTAMP AS etl_time
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proc_time ASC) AS rn
  FROM ods_order_events
)
WHERE rn = 1;
