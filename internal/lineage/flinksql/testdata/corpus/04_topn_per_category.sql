-- Top-3 products by sales per category (non-window Top-N).
CREATE TABLE shop_sales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'shop_sales',
  'format' = 'json'
);

CREATE TABLE top_products (
  category     STRING,
  row_num      BIGINT,
  product_id   STRING,
  product_name STRING,
  sales        BIGINT,
  PRIMARY KEY (category, row_num) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:mysql://mysql:3306/report',
  'table-name' = 'top_products'
);

INSERT INTO top_products
SELECT category, row_num, product_id, product_name, sales
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM shop_sales)
WHERE row_num <= 3;
