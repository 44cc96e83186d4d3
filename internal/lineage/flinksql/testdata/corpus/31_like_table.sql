-- A table declared LIKE another, adding a watermark and changing the topic.
CREATE TABLE base_orders (
  order_id STRING,
  user_id  BIGINT,
  amount   DOUBLE,
  ts       TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders_v1',
  'format' = 'json'
);

CREATE TABLE orders_v2 (
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'topic' = 'orders_v2'
) LIKE base_orders (EXCLUDING OPTIONS);

CREATE TABLE big_orders (order_id STRING, amount DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'big_orders', 'format' = 'json');

INSERT INTO big_orders
SELECT order_id, amount FROM orders_v2 WHERE amount > 1000;
