-- Top-3 suppliers per ten-minute window (window Top-N over a window aggregation).
CREATE TABLE bid (
  bidtime     TIMESTAMP(3),
  price       DECIMAL(10, 2),
  item        STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'bid', 'format' = 'json');

CREATE TABLE top_suppliers (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  supplier_id  STRING,
  price        DECIMAL(10, 2),
  cnt          BIGINT,
  rownum       BIGINT
) WITH ('connector' = 'print');

INSERT INTO top_suppliers
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rownum
    FROM (
      SELECT window_start, window_end, supplier_id, SUM(price) as price, COUNT(*) as cnt
      FROM TABLE(
        TUMBLE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      GROUP BY window_start, window_end, supplier_id
    )
  ) WHERE rownum <= 3;
