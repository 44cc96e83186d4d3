-- Event-time temporal join against a versioned currency rate table.
CREATE TABLE orders (
  order_id    STRING,
  price       DECIMAL(32, 2),
  currency    STRING,
  order_time  TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'format' = 'json'
);

CREATE TABLE currency_rates (
  currency        STRING,
  conversion_rate DECIMAL(32, 2),
  update_time     TIMESTAMP(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
  WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH (
  'connector' = 'kafka',
  'topic' = 'currency_rates',
  'value.format' = 'debezium-json'
);

CREATE TABLE orders_in_usd (
  order_id   STRING,
  price_usd  DECIMAL(32, 2),
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders_in_usd',
  'format' = 'json'
);

INSERT INTO orders_in_usd
SELECT
  orders.order_id,
  orders.price * currency_rates.conversion_rate,
  orders.order_time
FROM orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;
