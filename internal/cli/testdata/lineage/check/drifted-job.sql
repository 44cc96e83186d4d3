-- A job whose DDL drifted from the contracts of its topics, as hand-written source
-- tables do: each table below disagrees with orders.order-created-value or
-- dw.order-detail-value in one way that lineage check must locate.
SET 'pipeline.name' = 'dwd-order-detail';

CREATE TABLE ods_order_events (
  order_id     STRING,
  user_id      INT,                      -- the schema says long: narrower
  channel      STRING,
  amount       STRING,                   -- the schema says long
  currency     STRING,
  coupon_code  STRING NOT NULL,          -- the schema says ["null", "string"]
  x0           STRING,                   -- no such field
  product_info ROW<
    product_id STRING,
    detail     ROW<skux STRING, price DECIMAL(10, 2)>
  >,
  created_at   TIMESTAMP_LTZ(3),
  `offset`     BIGINT METADATA VIRTUAL,
  kafka_ts     TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  proc_time AS PROCTIME(),
  WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'ods_order_events',
  'key.format' = 'raw',
  'key.fields' = 'user_id',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = 'http://registry:8081'
);

CREATE TABLE dwd_order_detail (
  order_id     STRING NOT NULL,
  user_id      BIGINT NOT NULL,
  channel      STRING NOT NULL,
  amount_cents BIGINT NOT NULL,
  currency     STRING NOT NULL,
  coupon_code  STRING,
  sku          STRING NOT NULL,
  price        DECIMAL(12, 2) NOT NULL,
  order_date   DATE NOT NULL,
  created_at   TIMESTAMP_LTZ(3) NOT NULL,
  CONSTRAINT pk PRIMARY KEY (user_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'dwd_order_detail',
  'key.format' = 'raw',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = 'http://registry:8081'
);

CREATE TABLE audit_log (order_id STRING, note STRING) WITH (
  'connector' = 'kafka', 'topic' = 'audit_log', 'format' = 'json');

INSERT INTO dwd_order_detail
SELECT order_id, CAST(user_id AS BIGINT), channel, CAST(amount AS BIGINT), currency, coupon_code,
  product_info.detail.skux, CAST(product_info.detail.price AS DECIMAL(12, 2)),
  CAST(created_at AS DATE), created_at
FROM ods_order_events;

INSERT INTO audit_log SELECT order_id, x0 FROM ods_order_events;
