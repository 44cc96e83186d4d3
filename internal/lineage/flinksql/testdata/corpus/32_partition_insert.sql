-- Writing a partitioned filesystem table: a static partition and a column list.
CREATE TABLE user_actions (
  user_id BIGINT,
  action  STRING,
  item_id BIGINT,
  ts      TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'user_actions', 'format' = 'json');

CREATE TABLE fs_actions (
  user_id BIGINT,
  action  STRING,
  item_id BIGINT,
  dt      STRING,
  hr      STRING
) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem',
  'path' = 'hdfs:///warehouse/fs_actions',
  'format' = 'orc',
  'sink.partition-commit.policy.kind' = 'success-file'
);

INSERT INTO fs_actions PARTITION (dt = '2024-05-01')
SELECT user_id, action, item_id, DATE_FORMAT(ts, 'HH') FROM user_actions;

INSERT OVERWRITE fs_actions (user_id, item_id, dt, hr)
SELECT user_id, item_id, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH')
FROM user_actions WHERE action = 'buy';
