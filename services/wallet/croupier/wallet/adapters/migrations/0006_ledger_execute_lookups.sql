-- 0006: ledger_execute() as in 0004, with less work per transfer while the accounts are
-- locked (measured: PostgreSQL CPU per transfer in batches of 100, see the wallet README):
-- - each new transfer's two accounts are found by one hash join over the batch, instead of
--   two linear array_position() scans per transfer (7% of the database's time in a batch);
-- - the balances are written through the row versions locked in step 4 (a TID scan), not
--   looked up again in the accounts' index; the number of rows written is checked.
-- Everything else (rules, errors, messages, results) is unchanged: the 0004 comments apply.

CREATE OR REPLACE FUNCTION ledger_execute(
    p_op text[], p_id text[], p_debit text[], p_credit text[], p_amount bigint[],
    p_currency text[], p_kind text[], p_pending boolean[], p_game text[], p_table text[],
    p_hand text[], p_tournament text[], p_metadata text[], p_ref text[], p_event bytea[],
    p_batch_id text, p_now timestamptz, p_topic text
) RETURNS TABLE (
    r_op integer, r_transfer_id text, r_debit_account_id text, r_credit_account_id text,
    r_currency text, r_amount bigint, r_kind text, r_status text, r_is_hold boolean,
    r_posted_amount bigint, r_game text, r_table_id text, r_hand_id text,
    r_tournament_id text, r_metadata text, r_reversal_of text, r_created_at timestamptz,
    r_resolved_at timestamptz, r_sequence bigint, r_replayed boolean
)
LANGUAGE plpgsql
-- Plan each statement once per connection: with array parameters, custom plans were re-made
-- on every call (most of the time of a single transfer). Without bitmap scans, the accounts
-- and holds are locked through their primary key's index scan, which returns them in id order:
-- no sort (a generic plan otherwise chose a bitmap heap scan and a sort, costlier for a few
-- rows).
SET plan_cache_mode = force_generic_plan
SET enable_bitmapscan = off
AS $$
DECLARE
    n integer := cardinality(p_op);
    op text;
    has_new boolean := false;
    only_apply boolean;
    fk_message text;
    fk_detail text;
    fk_constraint text;
    refs text[];
    -- the accounts involved, locked, in id order, and their balances as the batch proceeds
    a_id text[];
    a_cur text[];
    a_neg boolean[];
    a_posted bigint[];
    a_dp bigint[];
    a_cp bigint[];
    a_cnt bigint[];
    a_dirty boolean[];
    a_tid tid[];  -- the locked rows, updated in place at the end (no index look-up)
    n_updated integer;
    -- per operation, where its debit and credit accounts are in a_id (new transfers)
    op_d integer[];
    op_c integer[];
    -- post/void/reverse targets, locked, in id order, as the batch proceeds
    h transfers[] := '{}';
    h_ids text[] := '{}';
    h_changed boolean[] := '{}';
    h_seq bigint[] := '{}';
    hr transfers;
    rv transfers;
    reversed text[] := '{}';
    -- postings and events, in order
    np integer := 0;
    q_transfer text[] := '{}';
    q_account text[] := '{}';
    q_currency text[] := '{}';
    q_amount bigint[] := '{}';
    q_balance bigint[] := '{}';
    ne integer := 0;
    e_key text[] := '{}';
    e_body bytea[] := '{}';
    -- reversing transfers (inserted after the new ones) and result rows
    v_op integer[] := '{}';
    v_seq bigint[] := '{}';
    v_tr transfers[] := '{}';
    res_op integer[] := '{}';
    res_k integer[] := '{}';
    -- the operation being applied
    x_id text;
    x_debit text;
    x_credit text;
    x_amount bigint;
    x_currency text;
    x_pending boolean;
    seq bigint;
    ev bytea;
    d integer;
    c integer;
    k integer;
    i integer;
BEGIN
    -- 0. The new transfers of a batch first, before any account lock: a reused id fails here
    --    at once (the caller replays), and their foreign-key checks (which only share-lock the
    --    accounts' keys) stay out of the time the accounts are locked. An unknown account or
    --    a currency mismatch is reported by the checks below, in operation order. (A single
    --    transfer is inserted with its postings instead: one statement less, nothing to gain.)
    IF n > 1 THEN
        BEGIN
            INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id, currency,
                                   amount, kind, status, is_hold, posted_amount, game,
                                   table_id, hand_id, tournament_id, metadata, batch_id,
                                   reversal_of, created_at, resolved_at)
            SELECT * FROM ledger_new_transfers(p_op, p_id, p_debit, p_credit, p_amount,
                p_currency, p_kind, p_pending, p_game, p_table, p_hand, p_tournament,
                p_metadata, p_ref, p_batch_id, p_now);
        EXCEPTION WHEN foreign_key_violation THEN
            GET STACKED DIAGNOSTICS fk_message = MESSAGE_TEXT, fk_detail = PG_EXCEPTION_DETAIL,
                                    fk_constraint = CONSTRAINT_NAME;
        END;
    END IF;

    -- 1. Holds and originals referenced by the batch: they must exist; locked in id order.
    only_apply := NOT ('post' = ANY (p_op) OR 'void' = ANY (p_op) OR 'reverse' = ANY (p_op)
                       OR 'expect' = ANY (p_op));
    IF NOT only_apply THEN
        SELECT array_agg(DISTINCT r ORDER BY r) INTO refs
        FROM unnest(p_op, p_id, p_ref) AS u(o, t, f),
             LATERAL (SELECT CASE WHEN u.o IN ('post', 'void') THEN u.t
                                  WHEN u.o = 'reverse' THEN u.f END AS r) AS x
        WHERE r IS NOT NULL;
    END IF;
    IF refs IS NOT NULL THEN
        FOR hr IN SELECT * FROM transfers WHERE transfer_id = ANY (refs)
                  ORDER BY transfer_id FOR NO KEY UPDATE LOOP
            h := h || hr;
            h_ids := h_ids || hr.transfer_id;
            h_changed := h_changed || false;
            h_seq := h_seq || NULL::bigint;
        END LOOP;
        FOREACH x_id IN ARRAY refs LOOP
            IF NOT x_id = ANY (h_ids) THEN
                RAISE EXCEPTION USING ERRCODE = 'WL004',
                    MESSAGE = format('transfer %L does not exist', x_id);
            END IF;
        END LOOP;
    END IF;
    has_new := 'apply' = ANY (p_op) OR 'reverse' = ANY (p_op);

    -- 2. A batch of only post/void whose holds are all in the requested end state already
    --    was applied before: a replay.
    IF NOT has_new THEN
        FOR i IN 1 .. n LOOP
            op := p_op[i];
            CONTINUE WHEN op NOT IN ('post', 'void');
            hr := h[array_position(h_ids, p_id[i])];
            x_amount := coalesce(p_amount[i], hr.amount);
            IF op = 'post' AND NOT (hr.status = 'posted' AND hr.posted_amount = x_amount) THEN
                IF hr.status <> 'pending' THEN
                    RAISE EXCEPTION USING ERRCODE = 'WL005', MESSAGE = format(
                        'transfer %L is already %s%s; it cannot be posted for %s',
                        hr.transfer_id, hr.status,
                        CASE WHEN hr.posted_amount IS NOT NULL
                             THEN ' for ' || hr.posted_amount ELSE '' END,
                        x_amount);
                END IF;
                has_new := true;  -- at least one hold still to resolve: not a replay
                EXIT;
            ELSIF op = 'void' AND hr.status <> 'voided' THEN
                IF hr.status <> 'pending' THEN
                    RAISE EXCEPTION USING ERRCODE = 'WL005', MESSAGE = format(
                        'transfer %L is already posted; it cannot be voided '
                        '(reverse it instead)', hr.transfer_id);
                END IF;
                has_new := true;
                EXIT;
            END IF;
        END LOOP;
        IF NOT has_new THEN
            RETURN QUERY
                SELECT u.o::integer, t.transfer_id, t.debit_account_id, t.credit_account_id,
                       t.currency, t.amount, t.kind, t.status, t.is_hold, t.posted_amount,
                       t.game, t.table_id, t.hand_id, t.tournament_id, t.metadata::text,
                       coalesce(t.reversal_of, ''), t.created_at, t.resolved_at,
                       NULL::bigint, true
                FROM unnest(p_op, p_id) WITH ORDINALITY AS u(op, id, o)
                JOIN unnest(h) AS t ON t.transfer_id = u.id
                WHERE u.op IN ('post', 'void')
                ORDER BY u.o;
            IF refs IS NULL THEN  -- only 'expect' operations: a replay with nothing to return
                r_replayed := true;
                RETURN NEXT;
            END IF;
            RETURN;
        END IF;
    END IF;

    -- 3. Originals already reversed.
    IF 'reverse' = ANY (p_op) THEN
        SELECT coalesce(array_agg(t.reversal_of), '{}') INTO reversed
        FROM transfers t WHERE t.reversal_of = ANY (refs);
    END IF;

    -- 4. Lock the accounts (id order: two batches never deadlock) and read their balances.
    IF only_apply THEN
        SELECT array_agg(s.account_id), array_agg(s.currency), array_agg(s.may_go_negative),
               array_agg(s.posted), array_agg(s.debits_pending), array_agg(s.credits_pending),
               array_agg(s.posting_count), array_agg(false), array_agg(s.ctid)
        INTO a_id, a_cur, a_neg, a_posted, a_dp, a_cp, a_cnt, a_dirty, a_tid
        FROM (SELECT a.account_id, a.currency, a.may_go_negative, a.posted, a.debits_pending,
                     a.credits_pending, a.posting_count, a.ctid
              FROM accounts a
              WHERE a.account_id = ANY (p_debit || p_credit)
              ORDER BY a.account_id
              FOR NO KEY UPDATE OF a) AS s;
    ELSE
        SELECT array_agg(s.account_id), array_agg(s.currency), array_agg(s.may_go_negative),
               array_agg(s.posted), array_agg(s.debits_pending), array_agg(s.credits_pending),
               array_agg(s.posting_count), array_agg(false), array_agg(s.ctid)
        INTO a_id, a_cur, a_neg, a_posted, a_dp, a_cp, a_cnt, a_dirty, a_tid
        FROM (SELECT a.account_id, a.currency, a.may_go_negative, a.posted, a.debits_pending,
                     a.credits_pending, a.posting_count, a.ctid
              FROM accounts a
              WHERE a.account_id IN (
                        SELECT unnest(p_debit) UNION SELECT unnest(p_credit)
                        UNION SELECT u.id FROM unnest(p_op, p_id) AS u(op, id)
                              WHERE u.op = 'expect'
                        UNION SELECT t.debit_account_id FROM unnest(h) AS t
                        UNION SELECT t.credit_account_id FROM unnest(h) AS t)
              ORDER BY a.account_id
              FOR NO KEY UPDATE OF a) AS s;
    END IF;
    a_id := coalesce(a_id, '{}');
    -- One hash join finds every new transfer's two accounts (two linear array_position
    -- scans per transfer cost more than the rest of the loop).
    SELECT array_agg(dx.k::integer ORDER BY u.o), array_agg(cx.k::integer ORDER BY u.o)
    INTO op_d, op_c
    FROM unnest(p_debit, p_credit) WITH ORDINALITY AS u(d, c, o)
    LEFT JOIN unnest(a_id) WITH ORDINALITY AS dx(id, k) ON dx.id = u.d
    LEFT JOIN unnest(a_id) WITH ORDINALITY AS cx(id, k) ON cx.id = u.c;

    -- 5. The operations, in order.
    FOR i IN 1 .. n LOOP
        op := p_op[i];
        IF op = 'apply' THEN
            x_id := p_id[i];
            x_debit := p_debit[i];
            x_credit := p_credit[i];
            x_amount := p_amount[i];
            x_currency := p_currency[i];
            x_pending := coalesce(p_pending[i], false);
        ELSIF op = 'reverse' THEN
            k := array_position(h_ids, p_ref[i]);
            hr := h[k];
            IF hr.status <> 'posted' OR hr.posted_amount IS NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'WL005', MESSAGE = format(
                    'transfer %L is %s; only posted transfers can be reversed '
                    '(void a pending one instead)', hr.transfer_id, hr.status);
            END IF;
            IF hr.kind = 'reversal' THEN
                RAISE EXCEPTION USING ERRCODE = 'WL006',
                    MESSAGE = format('transfer %L is itself a reversal', hr.transfer_id);
            END IF;
            IF hr.transfer_id = ANY (reversed) THEN
                RAISE EXCEPTION USING ERRCODE = 'WL007',
                    MESSAGE = format('transfer %L was already reversed', hr.transfer_id);
            END IF;
            reversed := reversed || hr.transfer_id;
            x_id := p_id[i];
            x_debit := hr.credit_account_id;
            x_credit := hr.debit_account_id;
            x_amount := hr.posted_amount;
            x_currency := hr.currency;
            x_pending := false;
        END IF;

        IF op IN ('apply', 'reverse') THEN
            -- a new transfer: posted at once, or a hold
            IF op = 'apply' THEN
                d := op_d[i];
                c := op_c[i];
            ELSE
                d := array_position(a_id, x_debit);
                c := array_position(a_id, x_credit);
            END IF;
            IF d IS NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'WL001',
                    MESSAGE = format('account %L does not exist', x_debit);
            END IF;
            IF c IS NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'WL001',
                    MESSAGE = format('account %L does not exist', x_credit);
            END IF;
            IF a_cur[d] <> x_currency THEN
                RAISE EXCEPTION USING ERRCODE = 'WL002', MESSAGE = format(
                    'account %L holds %s, but the transfer is in %s', x_debit, a_cur[d],
                    x_currency);
            END IF;
            IF a_cur[c] <> x_currency THEN
                RAISE EXCEPTION USING ERRCODE = 'WL002', MESSAGE = format(
                    'account %L holds %s, but the transfer is in %s', x_credit, a_cur[c],
                    x_currency);
            END IF;
            IF NOT a_neg[d] AND a_posted[d] - a_dp[d] < x_amount THEN
                RAISE EXCEPTION USING ERRCODE = 'WL003', MESSAGE = format(
                    'account %L has %s available (%s minor units), %s needed', x_debit,
                    a_posted[d] - a_dp[d], a_cur[d], x_amount);
            END IF;
            a_dirty[d] := true;
            a_dirty[c] := true;
            IF x_pending THEN
                a_dp[d] := a_dp[d] + x_amount;
                a_cp[c] := a_cp[c] + x_amount;
                CONTINUE;
            END IF;
        ELSIF op IN ('post', 'void') THEN
            k := array_position(h_ids, p_id[i]);
            hr := h[k];
            IF hr.status <> 'pending' THEN
                RAISE EXCEPTION USING ERRCODE = 'WL005', MESSAGE = format(
                    'transfer %L is %s, not pending; a hold can be posted or voided only once',
                    hr.transfer_id, hr.status);
            END IF;
            x_amount := coalesce(p_amount[i], hr.amount);
            IF op = 'post' AND x_amount <= 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'WL006', MESSAGE = format(
                    'amount to post must be greater than zero, got %s', x_amount);
            END IF;
            IF op = 'post' AND x_amount > hr.amount THEN
                RAISE EXCEPTION USING ERRCODE = 'WL006', MESSAGE = format(
                    'cannot post %s: transfer %L holds only %s', x_amount, hr.transfer_id,
                    hr.amount);
            END IF;
            -- release the hold
            d := array_position(a_id, hr.debit_account_id);
            c := array_position(a_id, hr.credit_account_id);
            a_dp[d] := a_dp[d] - hr.amount;
            a_cp[c] := a_cp[c] - hr.amount;
            a_dirty[d] := true;
            a_dirty[c] := true;
            hr.resolved_at := p_now;
            h_changed[k] := true;
            res_op := res_op || i;
            res_k := res_k || k;
            IF op = 'void' THEN
                hr.status := 'voided';
                h[k] := hr;
                CONTINUE;
            END IF;
            hr.status := 'posted';
            hr.posted_amount := x_amount;
            h[k] := hr;
            x_id := hr.transfer_id;
            x_debit := hr.debit_account_id;
            x_credit := hr.credit_account_id;
            x_currency := hr.currency;
            -- the hold guaranteed the amount: released, it cannot fail the funds check
            IF NOT a_neg[d] AND a_posted[d] - a_dp[d] < x_amount THEN
                RAISE EXCEPTION USING ERRCODE = 'WL003', MESSAGE = format(
                    'account %L has %s available (%s minor units), %s needed', x_debit,
                    a_posted[d] - a_dp[d], a_cur[d], x_amount);
            END IF;
        ELSIF op = 'expect' THEN
            d := array_position(a_id, p_id[i]);
            IF d IS NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'WL001',
                    MESSAGE = format('account %L does not exist', p_id[i]);
            END IF;
            IF a_posted[d] <> p_amount[i] THEN
                RAISE EXCEPTION USING ERRCODE = 'WL008', MESSAGE = format(
                    'account %L would hold %s, expected %s', p_id[i], a_posted[d],
                    p_amount[i]);
            END IF;
            CONTINUE;
        ELSE
            RAISE EXCEPTION USING ERRCODE = 'WL006',
                MESSAGE = format('unknown ledger operation %L', op);
        END IF;

        -- move posted money: x_amount from x_debit (index d) to x_credit (index c)
        a_posted[d] := a_posted[d] - x_amount;
        a_cnt[d] := a_cnt[d] + 1;
        a_posted[c] := a_posted[c] + x_amount;
        a_cnt[c] := a_cnt[c] + 1;
        np := np + 2;
        q_transfer[np - 1] := x_id;
        q_account[np - 1] := x_debit;
        q_currency[np - 1] := x_currency;
        q_amount[np - 1] := -x_amount;
        q_balance[np - 1] := a_posted[d];
        q_transfer[np] := x_id;
        q_account[np] := x_credit;
        q_currency[np] := x_currency;
        q_amount[np] := x_amount;
        q_balance[np] := a_posted[c];
        IF op = 'apply' THEN
            IF p_event[i] IS NOT NULL THEN
                ne := ne + 1;
                e_key[ne] := x_debit;
                seq := a_cnt[d];
                ev := p_event[i] || '\x28'::bytea;  -- field 5, wire type 0 (varint)
                WHILE seq >= 128 LOOP
                    ev := ev || set_byte('\x00'::bytea, 0, ((seq & 127) | 128)::integer);
                    seq := seq >> 7;
                END LOOP;
                e_body[ne] := ev || set_byte('\x00'::bytea, 0, seq::integer);
            END IF;
        ELSIF op = 'post' THEN
            h_seq[k] := a_cnt[d];
        ELSE  -- reverse
            rv.transfer_id := x_id;
            rv.debit_account_id := x_debit;
            rv.credit_account_id := x_credit;
            rv.currency := x_currency;
            rv.amount := x_amount;
            rv.kind := p_kind[i];
            rv.status := 'posted';
            rv.is_hold := false;
            rv.posted_amount := x_amount;
            rv.game := hr.game;
            rv.table_id := hr.table_id;
            rv.hand_id := hr.hand_id;
            rv.tournament_id := hr.tournament_id;
            rv.metadata := coalesce(p_metadata[i], '{}')::jsonb;
            rv.batch_id := p_batch_id;
            rv.reversal_of := hr.transfer_id;
            rv.created_at := p_now;
            rv.resolved_at := p_now;
            v_op := v_op || i;
            v_seq := v_seq || a_cnt[d];
            v_tr := v_tr || rv;
        END IF;
    END LOOP;

    -- 6. Write: reversing transfers and resolved holds (rare), then in one statement the
    --    postings, the balances and the events.
    IF fk_message IS NOT NULL THEN  -- not an account: e.g. reversal_of names no transfer
        RAISE EXCEPTION USING ERRCODE = 'foreign_key_violation', MESSAGE = fk_message,
            DETAIL = fk_detail, CONSTRAINT = fk_constraint;
    END IF;
    IF cardinality(v_op) > 0 THEN
        INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id, currency,
                               amount, kind, status, is_hold, posted_amount, game, table_id,
                               hand_id, tournament_id, metadata, batch_id, reversal_of,
                               created_at, resolved_at)
        SELECT (t).transfer_id, (t).debit_account_id, (t).credit_account_id, (t).currency,
               (t).amount, (t).kind, (t).status, (t).is_hold, (t).posted_amount, (t).game,
               (t).table_id, (t).hand_id, (t).tournament_id, (t).metadata, (t).batch_id,
               (t).reversal_of, (t).created_at, (t).resolved_at
        FROM (SELECT v_tr[j] AS t FROM generate_subscripts(v_tr, 1) AS j ORDER BY j) AS v;
    END IF;
    IF cardinality(res_k) > 0 THEN
        UPDATE transfers t
        SET status = (u.r).status, posted_amount = (u.r).posted_amount,
            resolved_at = (u.r).resolved_at
        FROM (SELECT h[j] AS r FROM generate_subscripts(h, 1) AS j WHERE h_changed[j]) AS u
        WHERE t.transfer_id = (u.r).transfer_id;
    END IF;
    WITH new_transfer AS (
        INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id, currency,
                               amount, kind, status, is_hold, posted_amount, game, table_id,
                               hand_id, tournament_id, metadata, batch_id, reversal_of,
                               created_at, resolved_at)
        SELECT * FROM ledger_new_transfers(p_op, p_id, p_debit, p_credit, p_amount, p_currency,
            p_kind, p_pending, p_game, p_table, p_hand, p_tournament, p_metadata, p_ref,
            p_batch_id, p_now)
        WHERE n = 1
    ), new_postings AS (
        INSERT INTO postings (transfer_id, account_id, currency, amount, balance_after,
                              posted_at)
        SELECT u.t, u.a, u.c, u.m, u.b, p_now  -- in array order: unnest returns it
        FROM unnest(q_transfer, q_account, q_currency, q_amount, q_balance)
             AS u(t, a, c, m, b)
    )
    INSERT INTO outbox (topic, key, envelope)
    SELECT p_topic, u.k, u.b FROM unnest(e_key, e_body) AS u(k, b);
    -- The balances, through the row versions locked in step 4 (TID scan: none can have
    -- changed since, the locks are ours).
    UPDATE accounts a
    SET posted = u.p, debits_pending = u.dp, credits_pending = u.cp, posting_count = u.n
    FROM unnest(a_tid, a_posted, a_dp, a_cp, a_cnt, a_dirty) AS u(t, p, dp, cp, n, dirty)
    WHERE a.ctid = u.t AND u.dirty;
    GET DIAGNOSTICS n_updated = ROW_COUNT;
    IF n_updated <> cardinality(array_positions(a_dirty, true)) THEN
        RAISE EXCEPTION 'ledger_execute: % of % account balances written', n_updated,
            cardinality(array_positions(a_dirty, true)) USING ERRCODE = 'internal_error';
    END IF;

    -- 7. What the caller cannot know: holds after post/void, reversing transfers.
    IF only_apply THEN
        RETURN;
    END IF;
    RETURN QUERY
        SELECT r.o, (r.t).transfer_id, (r.t).debit_account_id, (r.t).credit_account_id,
               (r.t).currency, (r.t).amount, (r.t).kind, (r.t).status, (r.t).is_hold,
               (r.t).posted_amount, (r.t).game, (r.t).table_id, (r.t).hand_id,
               (r.t).tournament_id, (r.t).metadata::text, coalesce((r.t).reversal_of, ''),
               (r.t).created_at, (r.t).resolved_at, r.seq, false
        FROM (SELECT u.o, h[u.k] AS t, h_seq[u.k] AS seq
              FROM unnest(res_op, res_k) AS u(o, k)
              UNION ALL
              SELECT v_op[j], v_tr[j], v_seq[j] FROM generate_subscripts(v_op, 1) AS j) AS r
        ORDER BY r.o;
END $$;
