-- The lobby's tables, tickets and account limits, and the outbox relayed to croupier.lobby.events.
CREATE SEQUENCE lobby_changes;

CREATE TABLE lobby_tables (
    table_id    text PRIMARY KEY,
    request_key text NOT NULL UNIQUE,
    state       jsonb NOT NULL,   -- croupier.lobby.adapters.rows.table_to_json
    closed      boolean NOT NULL,
    version     bigint NOT NULL,
    change      bigint NOT NULL DEFAULT nextval('lobby_changes'),
    opened_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lobby_tables_open ON lobby_tables (opened_at) WHERE NOT closed;
CREATE INDEX lobby_tables_change ON lobby_tables (change);

CREATE TABLE lobby_tickets (
    ticket_id   text PRIMARY KEY,
    request_key text NOT NULL UNIQUE,
    player      text NOT NULL,
    status      text NOT NULL,
    created     timestamptz NOT NULL,
    record      jsonb NOT NULL,   -- croupier.lobby.adapters.rows.ticket_to_json
    version     bigint NOT NULL
);
CREATE INDEX lobby_tickets_status ON lobby_tickets (status, created, ticket_id);

CREATE TABLE account_limits (
    player text PRIMARY KEY,
    limits jsonb NOT NULL        -- croupier.lobby.adapters.rows.limits_to_json
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
