-- DWD order detail
SET 'pipeline.name' = 'dwd-order-detail';
SET table.exec.mini-batch.enabled = true;
CREATE TABLE ods_order_events (
  order_id STRING,
  user_id BIGINT,
  channel STRING,
  amount BIGINT,
  currency STRING,
  coupon_code STRING,
  product_info ROW<detail ROW<sku STRING, price DECIMAL(10, 2)>>,
  items ARRAY<ROW<sku STRING, qty INT, unit_price BIGINT>>,
  created_at BIGINT,
  `offset` BIGINT METADATA VIRTUAL,
  ts AS TO_TIMESTAMP_LTZ(created_at, 3),
  proc AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'ods_order_events', 'format' = 'avro-confluent');

CREATE TABLE dwd_order_detail (
  order_id STRING, user_id BIGINT, channel STRING, amount_cents BIGINT, currency STRING,
  coupon_code STRING, sku STRING, price DECIMAL(10,2), order_date STRING, created_at TIMESTAMP_LTZ(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'dwd_order_detail');

INSERT INTO dwd_order_detail
SELECT order_id, user_id, COALESCE(channel, 'unknown'), amount, UPPER(currency), coupon_code,
  o.product_info.detail.sku, product_info.detail.price,
  DATE_FORMAT(ts, 'yyyy-MM-dd'), ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proc ASC) AS rn
  FROM ods_order_events
) o WHERE rn = 1 AND amount > 0;

EXECUTE STATEMENT SET BEGIN
INSERT INTO item_sink SELECT o.order_id, i.sku, i.qty * i.unit_price FROM ods_order_events AS o CROSS JOIN UNNEST(o.items) AS i(sku, qty, unit_price);
INSERT INTO gmv SELECT window_start, window_end, channel, SUM(amount), COUNT(*), COUNT(DISTINCT user_id)
FROM TABLE(TUMBLE(TABLE ods_order_events, DESCRIPTOR(ts), INTERVAL '1' MINUTES)) GROUP BY window_start, window_end, channel;
END;
