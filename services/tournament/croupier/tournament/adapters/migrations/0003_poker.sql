-- Poker tournaments (#25): the inputs the director gave the poker core since the start and
-- the hands in play on the table host, as one JSON document
-- ({"inputs": [...], "hands": [...]}, `croupier.tournament.adapters.poker_json`).
ALTER TABLE tournaments ADD COLUMN poker jsonb NOT NULL DEFAULT '{}';
