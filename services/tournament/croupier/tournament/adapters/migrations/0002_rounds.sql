-- The rounds (#18): the points core's actions since the start (conformance notation), the
-- open rebuy offers and the running rounds' tables on the table host.
ALTER TABLE tournaments
    ADD COLUMN actions jsonb NOT NULL DEFAULT '[]',  -- [{"action": "round_start", ...}, ...]
    ADD COLUMN offers  jsonb NOT NULL DEFAULT '[]',  -- [[player, until (ISO 8601)], ...]
    ADD COLUMN hosted  jsonb NOT NULL DEFAULT '[]';  -- [[round_id, table_id], ...]
CREATE INDEX tournaments_running ON tournaments (tournament_id) WHERE status = 'running';
