-- Cash-table waiting lists: one row per account waiting for a seat at tables of one kind
-- and stake (list_key), served oldest first.
CREATE TABLE waiting_lists (
    list_key text NOT NULL,
    player   text NOT NULL,
    created  timestamptz NOT NULL,
    entry    jsonb NOT NULL,      -- croupier.lobby.adapters.rows.waiting_to_json
    PRIMARY KEY (list_key, player)
);
CREATE INDEX waiting_lists_order ON waiting_lists (created, list_key, player);
