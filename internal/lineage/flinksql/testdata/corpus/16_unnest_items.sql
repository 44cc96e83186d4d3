-- One row per order item: CROSS JOIN UNNEST over an array of rows.
CREATE TABLE ods_orders (
  order_id   STRING,
  user_id    BIGINT,
  items      ARRAY<ROW<sku STRING, quantity INT, unit_price DECIMAL(10, 2)>>,
  order_time TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'ods_orders', 'format' = 'json');

CREATE TABLE dwd_order_item (
  order_id    STRING,
  sku         STRING,
  quantity    INT,
  line_amount DECIMAL(12, 2),
  order_time  TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'dwd_order_item', 'format' = 'json');

INSERT INTO dwd_order_item
SELECT o.order_id, i.sku, i.quantity, i.quantity * i.unit_price, o.order_time
FROM ods_orders AS o
CROSS JOIN UNNEST(o.items) AS i (sku, quantity, unit_price)
WHERE i.quantity > 0;
