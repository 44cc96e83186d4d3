-- Enrich orders with customer data from MySQL through a lookup join.
CREATE TEMPORARY TABLE orders (
  order_id    INT,
  total       DECIMAL(10, 2),
  customer_id INT,
  proc_time AS PROCTIME()
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '10'
);

CREATE TEMPORARY TABLE customers (
  id      INT,
  name    STRING,
  country STRING,
  zip     STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:mysql://mysqlhost:3306/customerdb',
  'table-name' = 'customers',
  'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '10000'
);

CREATE TEMPORARY TABLE enriched_orders (
  order_id INT,
  total    DECIMAL(10, 2),
  country  STRING,
  zip      STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'enriched_orders',
  'format' = 'json'
);

INSERT INTO enriched_orders
SELECT o.order_id, o.total, c.country, c.zip
FROM orders AS o
  JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c
    ON o.customer_id = c.id;
