-- Keep the latest version of each user profile (event time), upsert into Kafka.
CREATE TABLE ods_user_profile (
  user_id      BIGINT,
  nick_name    STRING,
  gender       STRING,
  birthday     DATE,
  level        INT,
  update_time  TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'ods_user_profile',
  'format' = 'debezium-json'
);

CREATE TABLE dim_user_latest (
  user_id   BIGINT,
  nick_name STRING,
  gender    STRING,
  age       INT,
  level     INT,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'dim_user_latest',
  'key.format' = 'raw',
  'value.format' = 'avro-confluent'
);

INSERT INTO dim_user_latest
SELECT user_id, nick_name, gender,
       YEAR(CURRENT_DATE) - YEAR(birthday) AS age,
       level
FROM (
  SELECT user_id, nick_name, gender, birthday, level,
         ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY update_time DESC) AS rn
  FROM ods_user_profile
) t
WHERE rn = 1;
