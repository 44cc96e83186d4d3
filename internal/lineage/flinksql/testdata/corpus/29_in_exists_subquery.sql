-- Orders of VIP users (IN subquery) that have a payment (EXISTS).
CREATE TABLE orders (order_id STRING, user_id BIGINT, amount DOUBLE, channel STRING)
  WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');
CREATE TABLE vip_users (user_id BIGINT, tier STRING, since DATE)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://pg/crm', 'table-name' = 'vip_users');
CREATE TABLE payments (payment_id STRING, order_id STRING, status STRING)
  WITH ('connector' = 'kafka', 'topic' = 'payments', 'format' = 'json');
CREATE TABLE vip_paid_orders (order_id STRING, amount DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'vip_paid_orders', 'format' = 'json');

INSERT INTO vip_paid_orders
SELECT o.order_id, o.amount
FROM orders o
WHERE o.user_id IN (SELECT user_id FROM vip_users WHERE tier = 'gold')
  AND EXISTS (SELECT * FROM payments p WHERE p.order_id = o.order_id AND p.status = 'OK');
