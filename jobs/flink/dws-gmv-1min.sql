-- dws-gmv-1min: gross merchandise value per sales channel per minute, from the DWD
-- order detail stream (event time created_at, 30 s allowed lateness).
-- Its consumer file, contracts/dw/order-detail/consumers/dws-gmv-1min.yaml, is checked
-- against this script in CI: contractbot lineage sync --check.
SET 'pipeline.name' = 'dws-gmv-1min';

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
  WATERMARK FOR created_at AS created_at - INTERVAL '30' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'dwd_order_detail',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'dws-gmv-1min',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = '${SCHEMA_REGISTRY_URL}'
);

CREATE TABLE dws_gmv_1min (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  channel      STRING,
  gmv_cents    BIGINT,
  order_count  INT,
  buyer_count  BIGINT,
  currency     STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'dws_gmv_1min',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = '${SCHEMA_REGISTRY_URL}'
);

-- currency is left to its default: the dashboard reads one currency per channel.
INSERT INTO dws_gmv_1min (window_start, window_end, channel, gmv_cents, order_count, buyer_count)
SELECT
  window_start,
  window_end,
  channel,
  SUM(amount_cents) AS gmv_cents,
  CAST(COUNT(order_id) AS INT) AS order_count,
  COUNT(DISTINCT user_id) AS buyer_count
FROM TABLE(
  TUMBLE(TABLE dwd_order_detail, DESCRIPTOR(created_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, channel;
