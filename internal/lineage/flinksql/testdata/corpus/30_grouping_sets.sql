-- Sales cube by region and product with GROUPING SETS and ROLLUP.
CREATE TABLE sales (
  region   STRING,
  product  STRING,
  channel  STRING,
  units    INT,
  revenue  DECIMAL(12, 2)
) WITH ('connector' = 'kafka', 'topic' = 'sales', 'format' = 'json');

CREATE TABLE sales_cube (
  region  STRING,
  product STRING,
  units   BIGINT,
  revenue DECIMAL(20, 2)
) WITH ('connector' = 'print');

CREATE TABLE sales_rollup (
  region  STRING,
  channel STRING,
  revenue DECIMAL(20, 2)
) WITH ('connector' = 'print');

INSERT INTO sales_cube
SELECT COALESCE(region, 'ALL'), COALESCE(product, 'ALL'), SUM(units), SUM(revenue)
FROM sales
GROUP BY GROUPING SETS ((region, product), (region), ());

INSERT INTO sales_rollup
SELECT region, channel, SUM(revenue)
FROM sales
GROUP BY ROLLUP (region, channel)
HAVING SUM(units) > 10;
