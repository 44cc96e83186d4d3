-- Deduplication keeping the first row per order (processing time), as in Flink's docs.
CREATE TABLE order_events (
  order_id   STRING,
  user_name  STRING,
  product    STRING,
  num        BIGINT,
  proctime AS PROCTIME()
) WITH (
  'connector' = 'kafka',
  'topic' = 'order_events',
  'format' = 'json'
);

CREATE TABLE order_first (
  order_id  STRING,
  user_name STRING,
  product   STRING,
  num       BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'order_first',
  'format' = 'json'
);

INSERT INTO order_first
SELECT order_id, user_name, product, num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) AS row_num
  FROM order_events)
WHERE row_num = 1;
