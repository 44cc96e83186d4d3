-- Queries in the style of the Nexmark benchmark's Flink SQL: one generated stream of
-- events (persons, auctions, bids as nested rows), views that split it, and queries
-- written into blackhole sinks. Written for this test after the benchmark's shapes
-- (projection, filter, join, windows, dedup, top-N, UDFs, CASE), not copied.
CREATE TABLE datagen (
    event_type INT,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR,
               city VARCHAR, state VARCHAR, dateTime TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT,
                reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT,
                category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
            dateTime TIMESTAMP(3), extra VARCHAR>,
    dateTime AS
        CASE
            WHEN event_type = 0 THEN person.dateTime
            WHEN event_type = 1 THEN auction.dateTime
            ELSE bid.dateTime
        END,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '10000000',
    'events.num' = '100000000'
);

CREATE VIEW person AS
SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city,
       person.state, dateTime, person.extra
FROM datagen WHERE event_type = 0;

CREATE VIEW auction AS
SELECT auction.id, auction.itemName, auction.description, auction.initialBid,
       auction.reserve, dateTime, auction.expires, auction.seller, auction.category,
       auction.extra
FROM datagen WHERE event_type = 1;

CREATE VIEW bid AS
SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, dateTime, bid.extra
FROM datagen WHERE event_type = 2;

-- currency conversion
CREATE TABLE nexmark_q1 (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3),
    dateTime TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q1
SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid;

-- local item suggestion
CREATE TABLE nexmark_q3 (name VARCHAR, city VARCHAR, state VARCHAR, id BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q3
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');

-- highest bid per tumbling window
CREATE TABLE nexmark_q7 (auction BIGINT, price BIGINT, bidder BIGINT,
    dateTime TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q7
SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
FROM bid B
JOIN (
    SELECT MAX(price) AS maxprice, window_end AS dateTime
    FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL '10' SECOND AND B1.dateTime;

-- winning bids: the first highest bid of each auction before it expires
CREATE TABLE nexmark_q9 (id BIGINT, itemName VARCHAR, seller BIGINT, category BIGINT,
    auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q9
SELECT id, itemName, seller, category, auction, bidder, price
FROM (
    SELECT A.*, B.auction, B.bidder, B.price,
        ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC) AS rownum
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
)
WHERE rownum <= 1;

-- user sessions
CREATE TABLE nexmark_q11 (bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3),
    endtime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q11
SELECT B.bidder, COUNT(*) AS bid_count,
    SESSION_START(B.dateTime, INTERVAL '10' SECOND) AS starttime,
    SESSION_END(B.dateTime, INTERVAL '10' SECOND) AS endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND);

-- bids per day and channel, split by price range
CREATE TABLE nexmark_q15 (`day` VARCHAR, total_bids BIGINT, rank1_bids BIGINT,
    total_bidders BIGINT, rank1_bidders BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q15
SELECT DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
    COUNT(*) AS total_bids,
    COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
    COUNT(DISTINCT bidder) AS total_bidders,
    COUNT(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders
FROM bid
GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd');

-- a user-defined function over a column
CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';
CREATE TABLE nexmark_q14 (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3),
    bidTimeType VARCHAR, dateTime TIMESTAMP(3), extra VARCHAR, c_counts BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q14
SELECT auction, bidder, 0.908 * price AS price,
    CASE
        WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
        WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    dateTime, extra, count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;

-- the channel of each bid, from its URL
CREATE TABLE nexmark_q21 (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR,
    channel_id VARCHAR) WITH ('connector' = 'blackhole');
INSERT INTO nexmark_q21
SELECT auction, bidder, price, channel,
    CASE
        WHEN LOWER(channel) = 'apple' THEN '0'
        WHEN LOWER(channel) = 'google' THEN '1'
        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
    END AS channel_id
FROM bid
WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL OR LOWER(channel) IN ('apple', 'google');
