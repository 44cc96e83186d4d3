-- Ten-minute hopping windows every five minutes, with named arguments.
CREATE TABLE bid (
  bidtime  TIMESTAMP(3),
  price    DECIMAL(10, 2),
  item     STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'bid', 'format' = 'json');

CREATE TABLE bid_hop_summary (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  total_price  DECIMAL(10, 2),
  max_price    DECIMAL(10, 2)
) WITH ('connector' = 'print');

INSERT INTO bid_hop_summary
SELECT window_start, window_end, SUM(price), MAX(price)
FROM TABLE(
    HOP(
      DATA => TABLE bid,
      TIMECOL => DESCRIPTOR(bidtime),
      SLIDE => INTERVAL '5' MINUTES,
      SIZE => INTERVAL '10' MINUTES))
WHERE item <> 'test'
GROUP BY window_start, window_end;
