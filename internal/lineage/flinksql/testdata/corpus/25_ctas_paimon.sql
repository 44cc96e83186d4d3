-- CREATE TABLE AS SELECT into a lake table, then a second job reads it.
CREATE TABLE ods_orders (
  order_id STRING,
  shop_id  BIGINT,
  amount   DECIMAL(10, 2),
  dt       STRING
) WITH ('connector' = 'kafka', 'topic' = 'ods_orders', 'format' = 'json');

CREATE TABLE dwd_shop_orders WITH ('connector' = 'filesystem', 'path' = 's3://lake/dwd_shop_orders', 'format' = 'parquet')
AS SELECT order_id, shop_id, amount * 100 AS amount_cents, dt FROM ods_orders WHERE shop_id IS NOT NULL;

CREATE TABLE dws_shop_day (
  shop_id BIGINT,
  dt      STRING,
  gmv     DECIMAL(20, 2)
) WITH ('connector' = 'print');

INSERT INTO dws_shop_day
SELECT shop_id, dt, SUM(amount_cents) FROM dwd_shop_orders GROUP BY shop_id, dt;
