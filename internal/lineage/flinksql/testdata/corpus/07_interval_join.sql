-- Orders shipped within four hours of being placed (interval join).
CREATE TABLE orders (
  id         INT,
  order_time TIMESTAMP(3),
  amount     DOUBLE,
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE shipments (
  id        INT,
  order_id  INT,
  ship_time TIMESTAMP(3),
  carrier   STRING,
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'shipments', 'format' = 'json');

CREATE TABLE fast_shipments (
  order_id   INT,
  carrier    STRING,
  amount     DOUBLE,
  delay_min  BIGINT
) WITH ('connector' = 'kafka', 'topic' = 'fast_shipments', 'format' = 'json');

INSERT INTO fast_shipments
SELECT o.id, s.carrier, o.amount,
       TIMESTAMPDIFF(MINUTE, o.order_time, s.ship_time)
FROM orders o, shipments s
WHERE o.id = s.order_id
  AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
