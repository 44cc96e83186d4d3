-- The SQL client's older statement-set syntax.
CREATE TABLE src (id BIGINT, name STRING, score INT, dt STRING)
  WITH ('connector' = 'kafka', 'topic' = 'scores', 'format' = 'csv');
CREATE TABLE high_scores (id BIGINT, name STRING, score INT)
  WITH ('connector' = 'kafka', 'topic' = 'high_scores', 'format' = 'csv');
CREATE TABLE low_scores (id BIGINT, score INT)
  WITH ('connector' = 'kafka', 'topic' = 'low_scores', 'format' = 'csv');

BEGIN STATEMENT SET;
INSERT INTO high_scores SELECT id, name, score FROM src WHERE score >= 90;
INSERT INTO low_scores (id, score) SELECT id, score FROM src WHERE score < 60 AND dt = '2024-01-01';
END;
