CREATE TABLE ticker (
  symbol STRING, price DOUBLE, tax DOUBLE, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'ticker');
CREATE TEMPORARY VIEW v_ticker AS SELECT symbol, price * (1 + tax) AS gross, rowtime FROM ticker WHERE price > 0;
INSERT INTO dips
SELECT *
FROM v_ticker
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            START_ROW.rowtime AS start_tstamp,
            LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
            LAST(PRICE_UP.gross) AS end_price,
            MATCH_ROWTIME() AS mr
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO LAST PRICE_UP
        PATTERN (START_ROW PRICE_DOWN+ PRICE_UP) WITHIN INTERVAL '1' HOUR
        DEFINE
            PRICE_DOWN AS
                (LAST(PRICE_DOWN.gross, 1) IS NULL AND PRICE_DOWN.gross < START_ROW.gross) OR
                    PRICE_DOWN.gross < LAST(PRICE_DOWN.gross, 1),
            PRICE_UP AS
                PRICE_UP.gross > LAST(PRICE_DOWN.gross, 1)
    ) MR;
INSERT INTO top3
WITH ranked AS (
  SELECT symbol, price, ROW_NUMBER() OVER (PARTITION BY symbol ORDER BY price DESC) AS rk FROM ticker
)
SELECT symbol, price FROM ranked WHERE rk <= 3;
-- a WITH before the INSERT (as Spark and Hive write it)
WITH cheap AS (SELECT symbol, price FROM ticker WHERE price < 10)
INSERT INTO cheap_ticks SELECT symbol, price FROM cheap;
REPLACE TABLE ticker_copy WITH ('connector' = 'print') AS SELECT symbol, tax FROM ticker;
