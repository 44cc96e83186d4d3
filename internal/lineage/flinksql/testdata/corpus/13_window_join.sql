-- Window join: left and right rows in the same five-minute window with the same id.
CREATE TABLE left_table (
  row_time TIMESTAMP(3),
  num      INT,
  id       STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'left_events', 'format' = 'json');

CREATE TABLE right_table (
  row_time TIMESTAMP(3),
  num      INT,
  id       STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'right_events', 'format' = 'json');

CREATE TABLE joined (
  l_num        INT,
  l_id         STRING,
  r_num        INT,
  r_id         STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3)
) WITH ('connector' = 'print');

INSERT INTO joined
SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id,
       COALESCE(L.window_start, R.window_start) as window_start,
       COALESCE(L.window_end, R.window_end) as window_end
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE left_table, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L
FULL JOIN (
    SELECT * FROM TABLE(TUMBLE(TABLE right_table, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
