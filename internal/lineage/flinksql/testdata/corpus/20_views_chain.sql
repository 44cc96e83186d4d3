-- A view on a view: filtering and projection happen in the views.
CREATE TABLE ods_payment (
  payment_id  STRING,
  order_id    STRING,
  user_id     BIGINT,
  amount      DECIMAL(16, 2),
  method      STRING,
  status      STRING,
  pay_time    TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'ods_payment', 'format' = 'json');

CREATE TEMPORARY VIEW v_paid AS
SELECT payment_id, order_id, user_id, amount, method, pay_time
FROM ods_payment
WHERE status = 'SUCCESS';

CREATE TEMPORARY VIEW v_paid_card (pid, oid, amt, paid_at) AS
SELECT payment_id, order_id, amount * 100, pay_time
FROM v_paid
WHERE method IN ('visa', 'mastercard');

CREATE TABLE dwd_card_payment (
  payment_id   STRING,
  order_id     STRING,
  amount_cents DECIMAL(18, 0),
  paid_at      TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'dwd_card_payment', 'format' = 'json');

INSERT INTO dwd_card_payment
SELECT pid, oid, amt, paid_at FROM v_paid_card;
