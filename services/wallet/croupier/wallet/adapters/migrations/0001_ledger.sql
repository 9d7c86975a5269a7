-- 0001: the double-entry ledger. Forward-only: never edit an applied migration, add a new one.
-- Runs with search_path set to the wallet's schema (see adapters/migrations.py).

CREATE TABLE currencies (
    code      text PRIMARY KEY CHECK (code ~ '^[A-Z]{3,4}$'),
    exponent  smallint NOT NULL CHECK (exponent BETWEEN 0 AND 6),
    kind      text NOT NULL CHECK (kind IN ('real', 'play', 'chip'))
);

INSERT INTO currencies (code, exponent, kind) VALUES
    ('USD', 2, 'real'), ('EUR', 2, 'real'), ('GBP', 2, 'real'), ('ILS', 2, 'real'),
    ('JPY', 0, 'real'), ('PLAY', 0, 'play'), ('CHIP', 0, 'chip');

CREATE TABLE accounts (
    account_id       text PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN (
                         'player_cash', 'player_chips', 'table_escrow', 'tournament_pool',
                         'house_commission', 'house_promotions', 'house_float', 'house_clearing')),
    currency         text NOT NULL REFERENCES currencies (code),
    owner            text NOT NULL,
    may_go_negative  boolean NOT NULL,
    posted           bigint NOT NULL DEFAULT 0,
    debits_pending   bigint NOT NULL DEFAULT 0 CHECK (debits_pending >= 0),
    credits_pending  bigint NOT NULL DEFAULT 0 CHECK (credits_pending >= 0),
    -- Number of postings so far: the per-account sequence of published transfer events.
    posting_count    bigint NOT NULL DEFAULT 0 CHECK (posting_count >= 0),
    opened_at        timestamptz NOT NULL,
    UNIQUE (account_id, currency),
    UNIQUE (kind, owner, currency),
    -- Only house accounts may go below zero; everyone else, counting held money, never.
    CONSTRAINT only_house_may_go_negative CHECK (NOT may_go_negative OR kind LIKE 'house\_%'),
    CONSTRAINT balance_not_negative CHECK (may_go_negative OR posted - debits_pending >= 0)
);

CREATE TABLE transfers (
    transfer_id        text PRIMARY KEY CHECK (length(transfer_id) BETWEEN 1 AND 200),
    seq                bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    debit_account_id   text NOT NULL,
    credit_account_id  text NOT NULL,
    currency           text NOT NULL REFERENCES currencies (code),
    amount             bigint NOT NULL CHECK (amount > 0),
    kind               text NOT NULL,
    status             text NOT NULL CHECK (status IN ('pending', 'posted', 'voided')),
    is_hold            boolean NOT NULL,
    posted_amount      bigint CHECK (posted_amount > 0 AND posted_amount <= amount),
    game               text NOT NULL DEFAULT '',
    table_id           text NOT NULL DEFAULT '',
    hand_id            text NOT NULL DEFAULT '',
    tournament_id      text NOT NULL DEFAULT '',
    metadata           jsonb NOT NULL DEFAULT '{}'::jsonb,
    batch_id           text NOT NULL DEFAULT '',
    reversal_of        text UNIQUE REFERENCES transfers (transfer_id),
    created_at         timestamptz NOT NULL,
    resolved_at        timestamptz,
    CHECK (debit_account_id <> credit_account_id),
    -- The currency must match both accounts': enforced by composite foreign keys.
    FOREIGN KEY (debit_account_id, currency) REFERENCES accounts (account_id, currency),
    FOREIGN KEY (credit_account_id, currency) REFERENCES accounts (account_id, currency),
    CHECK ((status = 'posted') = (posted_amount IS NOT NULL)),
    CHECK (is_hold OR (status = 'posted' AND posted_amount = amount)),
    CHECK ((status = 'pending') = (resolved_at IS NULL))
);

CREATE INDEX transfers_pending_by_table ON transfers (table_id) WHERE status = 'pending';
CREATE INDEX transfers_by_tournament ON transfers (tournament_id) WHERE tournament_id <> '';
CREATE INDEX transfers_by_table ON transfers (table_id) WHERE table_id <> '';

-- One journal line per account per posted movement: + credit, − debit.
CREATE TABLE postings (
    posting_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transfer_id    text NOT NULL REFERENCES transfers (transfer_id),
    account_id     text NOT NULL,
    currency       text NOT NULL,
    amount         bigint NOT NULL CHECK (amount <> 0),
    balance_after  bigint NOT NULL,
    posted_at      timestamptz NOT NULL,
    FOREIGN KEY (account_id, currency) REFERENCES accounts (account_id, currency)
);

CREATE INDEX postings_by_account ON postings (account_id, posting_id);
CREATE INDEX postings_by_time ON postings (posted_at, posting_id);

-- Posted and voided transfers never change; pending ones change only their status once.
CREATE FUNCTION transfers_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'transfer % cannot be deleted: the ledger is append-only', OLD.transfer_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status <> 'pending' THEN
        RAISE EXCEPTION 'transfer % is %: posted and voided transfers never change',
            OLD.transfer_id, OLD.status USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.status = 'pending'
       OR (NEW.transfer_id, NEW.seq, NEW.debit_account_id, NEW.credit_account_id, NEW.currency,
           NEW.amount, NEW.kind, NEW.is_hold, NEW.game, NEW.table_id, NEW.hand_id,
           NEW.tournament_id, NEW.metadata, NEW.batch_id, NEW.reversal_of, NEW.created_at)
          IS DISTINCT FROM
          (OLD.transfer_id, OLD.seq, OLD.debit_account_id, OLD.credit_account_id, OLD.currency,
           OLD.amount, OLD.kind, OLD.is_hold, OLD.game, OLD.table_id, OLD.hand_id,
           OLD.tournament_id, OLD.metadata, OLD.batch_id, OLD.reversal_of, OLD.created_at)
    THEN
        RAISE EXCEPTION 'pending transfer % may only be posted or voided', OLD.transfer_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER transfers_immutable BEFORE UPDATE OR DELETE ON transfers
    FOR EACH ROW EXECUTE FUNCTION transfers_guard();

CREATE FUNCTION append_only_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER postings_immutable BEFORE UPDATE OR DELETE ON postings
    FOR EACH ROW EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER transfers_no_truncate BEFORE TRUNCATE ON transfers
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();

-- Transactional outbox (layout of croupier.kit.outbox, relayed by its OutboxRelay) for
-- croupier.wallet.transfers: one envelope per posted transfer.
CREATE TABLE outbox (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    topic         text NOT NULL,
    key           text NOT NULL,
    envelope      bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    published_at  timestamptz
);

CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;

-- Kafka requests already handled (by envelope id), and the ones dead-lettered.
CREATE TABLE handled_requests (
    envelope_id   text PRIMARY KEY,
    request_type  text NOT NULL,
    outcome       text NOT NULL CHECK (outcome IN ('applied', 'replayed', 'dead_lettered')),
    reason        text NOT NULL DEFAULT '',
    handled_at    timestamptz NOT NULL
);
