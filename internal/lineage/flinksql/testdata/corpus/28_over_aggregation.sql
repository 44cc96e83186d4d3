-- Running one-hour totals per product with OVER aggregations.
CREATE TABLE orders (
  order_id   BIGINT,
  product    STRING,
  amount     INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE product_running (
  order_id        BIGINT,
  product         STRING,
  amount          INT,
  one_hour_amount BIGINT,
  one_hour_avg    DOUBLE
) WITH ('connector' = 'print');

INSERT INTO product_running
SELECT order_id, product, amount,
  SUM(amount) OVER w AS one_hour_amount,
  AVG(CAST(amount AS DOUBLE)) OVER w AS one_hour_avg
FROM orders
WINDOW w AS (
  PARTITION BY product
  ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW);
