-- Ratings per account and game, the results already rated (each once), and what finds an
-- account's latest match (matchmaking does not pair the same accounts again).
CREATE TABLE ratings (
    game   text NOT NULL,
    player text NOT NULL,
    rating jsonb NOT NULL,        -- croupier.lobby.adapters.rows.rating_to_json
    PRIMARY KEY (game, player)
);

CREATE TABLE rated_results (
    result_id text PRIMARY KEY,   -- the envelope id of the host's event
    rated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX lobby_tickets_player ON lobby_tickets (player, created);
CREATE INDEX lobby_tickets_match ON lobby_tickets ((record->>'match_id')) WHERE status = 'seated';
