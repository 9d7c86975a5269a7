-- 0002: leave room in account pages so that balance updates are HOT (heap-only tuple)
-- updates: no new entries in the three account indexes per transfer, less WAL. Balances
-- change on every transfer while the indexed columns never do.
ALTER TABLE accounts SET (fillfactor = 50);
