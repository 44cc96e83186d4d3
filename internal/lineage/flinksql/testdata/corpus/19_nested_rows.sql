-- Nested ROW fields read as dotted paths, and a nested ROW built for the sink.
CREATE TABLE ods_order_created (
  order_id     STRING,
  buyer        ROW<id BIGINT, name STRING, address ROW<city STRING, zip STRING>>,
  product_info ROW<detail ROW<sku STRING, price DECIMAL(10, 2)>, tags ARRAY<STRING>>,
  amount       BIGINT,
  created_at   BIGINT
) WITH ('connector' = 'kafka', 'topic' = 'ods_order_created', 'format' = 'avro-confluent');

CREATE TABLE dwd_order_flat (
  order_id   STRING,
  buyer_id   BIGINT,
  city       STRING,
  sku        STRING,
  price      DECIMAL(10, 2),
  shipping   ROW<city STRING, zip STRING>,
  amount     BIGINT
) WITH ('connector' = 'kafka', 'topic' = 'dwd_order_flat', 'format' = 'avro-confluent');

INSERT INTO dwd_order_flat
SELECT
  order_id,
  buyer.id,
  o.buyer.address.city,
  product_info.detail.sku,
  `product_info`.`detail`.`price`,
  ROW(buyer.address.city, buyer.address.zip),
  amount
FROM ods_order_created AS o
WHERE o.product_info.detail.price > 0;
