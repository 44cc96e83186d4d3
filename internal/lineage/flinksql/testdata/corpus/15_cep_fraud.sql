-- CEP: a small payment followed by a large one on the same card within ten minutes.
CREATE TABLE payments (
  card_id    STRING,
  merchant   STRING,
  amount     DECIMAL(12, 2),
  country    STRING,
  pay_time   TIMESTAMP(3),
  WATERMARK FOR pay_time AS pay_time - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'payments', 'format' = 'avro-confluent');

CREATE TABLE fraud_alerts (
  card_id      STRING,
  small_amount DECIMAL(12, 2),
  large_amount DECIMAL(12, 2),
  merchant     STRING,
  first_time   TIMESTAMP(3),
  alert_time   TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'fraud_alerts', 'format' = 'json');

INSERT INTO fraud_alerts
SELECT card_id, small_amount, large_amount, merchant, first_time, alert_time
FROM payments
MATCH_RECOGNIZE (
  PARTITION BY card_id
  ORDER BY pay_time
  MEASURES
    S.amount AS small_amount,
    L.amount AS large_amount,
    L.merchant AS merchant,
    FIRST(S.pay_time) AS first_time,
    LAST(L.pay_time) AS alert_time
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S L) WITHIN INTERVAL '10' MINUTE
  DEFINE
    S AS S.amount < 1.00,
    L AS L.amount > 500.00 AND L.country <> S.country
) AS T;
