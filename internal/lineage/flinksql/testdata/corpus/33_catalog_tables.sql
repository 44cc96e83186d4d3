-- Tables from a Hive catalog are not declared here: their columns are taken by name.
CREATE CATALOG hive WITH ('type' = 'hive', 'hive-conf-dir' = '/opt/hive-conf');
USE CATALOG hive;
SET table.sql-dialect = default;

CREATE TEMPORARY TABLE kafka_clicks (
  user_id BIGINT,
  url     STRING,
  ts      TIMESTAMP(3),
  proc AS PROCTIME()
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'format' = 'json');

INSERT INTO hive.dw.dwd_clicks
SELECT c.user_id, c.url, u.segment, DATE_FORMAT(c.ts, 'yyyy-MM-dd')
FROM kafka_clicks c
LEFT JOIN hive.dim.dim_user /*+ OPTIONS('lookup.join.cache.ttl'='12 h') */ FOR SYSTEM_TIME AS OF c.proc AS u
  ON c.user_id = u.user_id;

INSERT INTO hive.dw.dws_url_day
SELECT url, dt, COUNT(*) FROM hive.dw.dwd_clicks GROUP BY url, dt;
