-- The director's tournaments, their events, and the outbox relayed to croupier.tournament.events.
CREATE TABLE tournaments (
    tournament_id text PRIMARY KEY,
    request_key   text NOT NULL UNIQUE,
    settings      bytea NOT NULL,            -- croupier.tournament.v1.TournamentSettings
    status        text NOT NULL,
    start_time    timestamptz NOT NULL,
    entries       jsonb NOT NULL DEFAULT '[]',  -- [[player, entry_id, refunded], ...]
    seats         jsonb NOT NULL DEFAULT '[]',  -- [[table, seat, player], ...]
    seating_seed  bytea NOT NULL DEFAULT '',
    events        bigint NOT NULL,
    version       bigint NOT NULL
);
CREATE INDEX tournaments_due ON tournaments (start_time) WHERE status = 'registering';

CREATE TABLE tournament_events (
    tournament_id text NOT NULL REFERENCES tournaments,
    sequence      bigint NOT NULL,
    event         bytea NOT NULL,            -- croupier.tournament.v1.TournamentEvent
    PRIMARY KEY (tournament_id, sequence)
);

CREATE TABLE outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    topic text NOT NULL,
    key text NOT NULL,
    envelope bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
