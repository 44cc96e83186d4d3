-- Two CTEs, one built on the other, joined back.
CREATE TABLE orders (
  order_id    STRING,
  user_id     BIGINT,
  amount      DECIMAL(10, 2),
  status      STRING,
  order_time  TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE user_order_stats (
  user_id     BIGINT,
  order_count BIGINT,
  total       DECIMAL(20, 2),
  big_orders  BIGINT
) WITH ('connector' = 'upsert-kafka', 'topic' = 'user_order_stats', 'key.format' = 'json', 'value.format' = 'json');

INSERT INTO user_order_stats
WITH valid AS (
  SELECT order_id, user_id, amount FROM orders WHERE status <> 'CANCELLED'
),
per_user AS (
  SELECT user_id, COUNT(*) AS order_count, SUM(amount) AS total
  FROM valid GROUP BY user_id
)
SELECT p.user_id, p.order_count, p.total,
       (SELECT COUNT(*) FROM valid v WHERE v.user_id = p.user_id AND v.amount > 1000) AS big_orders
FROM per_user p;
