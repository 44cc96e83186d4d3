-- Statements that write tables without a plain INSERT, in the forms Flink's SQL
-- reference (COMPILE/EXECUTE PLAN, materialized tables, CTAS with a schema) and
-- Alibaba's Realtime Compute docs (CTAS AS TABLE, CDAS) give them.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE orders (
  order_id   BIGINT,
  user_id    BIGINT,
  price      DECIMAL(10, 2),
  quantity   INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE order_totals (user_id BIGINT, total DECIMAL(10, 2))
WITH ('connector' = 'print');

COMPILE PLAN 'file:///opt/flink/plans/totals.json' FOR
INSERT INTO order_totals SELECT user_id, price * quantity FROM orders;

COMPILE PLAN 'file:///opt/flink/plans/both.json' IF NOT EXISTS FOR STATEMENT SET
BEGIN
  INSERT INTO order_totals SELECT user_id, price FROM orders;
END;

COMPILE AND EXECUTE PLAN 'file:///opt/flink/plans/totals.json' FOR
INSERT INTO order_totals SELECT user_id, SUM(price) FROM orders GROUP BY user_id;

EXECUTE PLAN 'file:///opt/flink/plans/totals.json';

CREATE MATERIALIZED TABLE user_spend
  (PRIMARY KEY (user_id) NOT ENFORCED)
  PARTITIONED BY (ds)
  WITH ('format' = 'debezium-json')
  FRESHNESS = INTERVAL '3' MINUTE
  REFRESH_MODE = CONTINUOUS
AS SELECT
  DATE_FORMAT(order_time, 'yyyy-MM-dd') AS ds,
  user_id,
  SUM(price * quantity) AS spend
FROM orders
GROUP BY DATE_FORMAT(order_time, 'yyyy-MM-dd'), user_id;

-- CTAS with a schema: `note` is new (first, written nothing), `quantity` re-typed
CREATE TABLE order_copy (
  note     STRING,
  quantity DOUBLE,
  cost AS price * quantity
) WITH ('connector' = 'blackhole')
AS SELECT order_id, price, quantity, order_time FROM orders;

-- CTAS that only reorders the query's columns
CREATE TABLE order_reordered (order_time, price, order_id)
WITH ('connector' = 'blackhole')
AS SELECT order_id, price, order_time FROM orders;

CREATE TABLE IF NOT EXISTS holo.shop.orders_copy
WITH ('connector' = 'hologres')
AS TABLE orders
/*+ OPTIONS('server-id' = '8001-8004') */;

CREATE DATABASE IF NOT EXISTS holo.tpcds
AS DATABASE mysql.tpcds INCLUDING TABLE 'web_sales|store_sales|item' EXCLUDING TABLE 'item'
/*+ OPTIONS('server-id' = '8001-8004') */;

CREATE DATABASE IF NOT EXISTS holo.shop_all
WITH ('sink.parallelism' = '4')
AS DATABASE mysql.shop INCLUDING ALL TABLES;

CREATE DATABASE IF NOT EXISTS holo.logs
AS DATABASE mysql.logs INCLUDING TABLE 'log_.*';
