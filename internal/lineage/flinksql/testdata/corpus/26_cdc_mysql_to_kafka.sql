-- MySQL CDC into Kafka with metadata columns (database, table, operation time).
CREATE TABLE mysql_products (
  db_name    STRING METADATA FROM 'database_name' VIRTUAL,
  table_name STRING METADATA FROM 'table_name' VIRTUAL,
  op_ts      TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL,
  id         INT,
  name       STRING,
  description STRING,
  weight     DECIMAL(10, 3),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc',
  'hostname' = 'mysql',
  'port' = '3306',
  'username' = 'flinkuser',
  'password' = 'flinkpw',
  'database-name' = 'inventory',
  'table-name' = 'products'
);

CREATE TABLE kafka_products (
  id           INT,
  name         STRING,
  weight_kg    DECIMAL(10, 3),
  origin_table STRING,
  changed_at   TIMESTAMP_LTZ(3),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'inventory.products',
  'properties.bootstrap.servers' = 'kafka:9092',
  'key.format' = 'json',
  'value.format' = 'json'
);

INSERT INTO kafka_products
SELECT id, TRIM(BOTH ' ' FROM name), weight, CONCAT_WS('.', db_name, table_name), op_ts
FROM mysql_products;
