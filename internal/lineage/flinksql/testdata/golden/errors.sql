CREATE TABLE src (a INT, b STRING) WITH ('connector' = 'kafka', 'topic' = 't');
-- a broken statement is reported and skipped; the next one still counts
INSERT INTO sink SELECT a, FROM src;
INSERT INTO sink2 SELECT a, b, c FROM src WHERE CAST(b AS INT) > 1;
INSERT INTO sink3 SELECT * FROM catalog_db.unknown_table;
INSERT INTO sink4 SELECT x.id, y.id FROM hive1 x JOIN hive2 y ON x.k = y.k WHERE flag;
CREATE TABLE bad (a INT WITH ('connector' = 'kafka');
