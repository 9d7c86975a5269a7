-- 0003: fewer index entries per transfer (measured with pg_waldump: B-tree inserts were
-- 30% of the WAL of a transfer). Same guarantees:
-- - reversal_of stays unique, but only rows that reverse something are indexed;
-- - transfers.seq keeps ordering transfers, without a unique index of its own (an
--   identity column never repeats);
-- - the journal's time lookups use a BRIN index (postings arrive in time order).
ALTER TABLE transfers DROP CONSTRAINT transfers_reversal_of_key;
CREATE UNIQUE INDEX transfers_reversal_of ON transfers (reversal_of) WHERE reversal_of IS NOT NULL;
ALTER TABLE transfers DROP CONSTRAINT transfers_seq_key;
DROP INDEX postings_by_time;
CREATE INDEX postings_by_time ON postings USING brin (posted_at);
