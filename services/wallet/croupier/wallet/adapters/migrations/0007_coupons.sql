-- 0007: coupons (seed 000 rule 48, OQ 29): tournament tickets a player holds. A coupon is
-- an asset of the wallet, not money: it has no account and no posting. Redeemed for a
-- tournament entry, the prize fund pays the entry's buy-in into the pool in its stead
-- (a ledger transfer, 'tournament_coupon_entry'); the row says which entry it paid, and
-- goes back to 'held' when that entry is refunded (unregister, crash refund).
CREATE TABLE coupons (
    coupon_id      text COLLATE "C" PRIMARY KEY CHECK (length(coupon_id) BETWEEN 1 AND 200),
    player         text NOT NULL,
    game           text NOT NULL,
    currency       text NOT NULL REFERENCES currencies (code),
    -- the entry price (buy-in + fee, minor units) it pays at most
    value          bigint NOT NULL CHECK (value > 0),
    issued_at      timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    status         text NOT NULL CHECK (status IN ('held', 'redeemed', 'voided')),
    -- while redeemed: the entry it paid and that entry's tournament
    entry_id       text NOT NULL DEFAULT '',
    tournament_id  text NOT NULL DEFAULT '',
    changed_at     timestamptz NOT NULL,
    CHECK ((status = 'redeemed') = (entry_id <> ''))
);

CREATE INDEX coupons_by_player ON coupons (player, coupon_id);
CREATE INDEX coupons_by_entry ON coupons (entry_id) WHERE entry_id <> '';
CREATE INDEX coupons_by_tournament ON coupons (tournament_id) WHERE tournament_id <> '';
