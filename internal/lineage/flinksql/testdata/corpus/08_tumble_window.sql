-- One-minute tumbling-window GMV per channel (window TVF).
CREATE TABLE dwd_order_detail (
  order_id     STRING,
  user_id      BIGINT,
  channel      STRING,
  amount_cents BIGINT,
  created_at   TIMESTAMP_LTZ(3),
  WATERMARK FOR created_at AS created_at - INTERVAL '30' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'dwd_order_detail',
  'value.format' = 'avro-confluent'
);

CREATE TABLE dws_gmv_1min (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  channel      STRING,
  gmv_cents    BIGINT,
  order_count  BIGINT,
  buyer_count  BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'dws_gmv_1min',
  'value.format' = 'avro-confluent'
);

INSERT INTO dws_gmv_1min
SELECT window_start, window_end, channel,
       SUM(amount_cents) AS gmv_cents,
       COUNT(order_id) AS order_count,
       COUNT(DISTINCT user_id) AS buyer_count
FROM TABLE(
  TUMBLE(TABLE dwd_order_detail, DESCRIPTOR(created_at), INTERVAL '1' MINUTES))
GROUP BY window_start, window_end, channel;
