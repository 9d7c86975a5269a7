"""The checks after a run, each a named finding (passed or not, with what it saw): the
ledger's own audit, money movements applied exactly once, chips conserved per table,
tournaments' entries, rebuys and prizes paid once, no player seated twice, no acknowledged
action lost, every table a host voided refunded."""

from __future__ import annotations

import asyncio
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from croupier.table.core.log_entry import LogEntry, applicable
from tests.e2e.harness.events import RecordedEvents
from tests.e2e.harness.history import History
from tests.e2e.harness.processes import CROUPIER
from tests.e2e.harness.scenarios import TableOutcome
from tests.e2e.harness.tournaments import TournamentOutcome


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str


def ledger_audit(dsn: str, schema: str) -> Finding:
    """`croupier ledger audit`, the operator's command: every currency sums to zero, no
    player account negative (exit 0), else the broken invariants (exit 1)."""
    done = subprocess.run(
        [CROUPIER, "ledger", "--dsn", dsn, "--schema", schema, "audit"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    verdict = "balanced" if done.returncode == 0 else done.stdout.strip()[-300:]
    detail = f"croupier ledger audit: exit {done.returncode}, {verdict} {done.stderr.strip()}"
    return Finding("ledger zero-sum audit", done.returncode == 0, detail[:400])


def exactly_once(transfers: list[Any], outcomes: list[TableOutcome], players: set[str]) -> Finding:
    """One deposit per player; at each cash poker table one buy-in per player seated and,
    once he left, one cash-out; at a backgammon money game at most one stake per player
    per game (the idempotency keys make a retried or redelivered request a replay)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in transfers:
        # The player's side of it: a buy-in debits his cash, the others credit it.
        owner = row["debit_owner"] if row["kind"] == "buy_in" else row["credit_owner"]
        counts[(row["kind"], row["table_id"], owner)] += 1
    wrong = [
        f"deposit {p}: {counts[('deposit', '', p)]}"
        for p in sorted(players)
        if counts[("deposit", "", p)] != 1
    ]
    for outcome in outcomes:
        if outcome.plan.game != "poker" or not outcome.table_id:
            continue
        for player in outcome.plan.players[: outcome.seated]:
            buy_ins = counts[("buy_in", outcome.table_id, player)]
            if buy_ins != 1:
                wrong.append(f"buy-in {player}@{outcome.plan.name}: {buy_ins}")
        if outcome.left == outcome.seated:
            for player in outcome.plan.players:
                cash_outs = counts[("cash_out", outcome.table_id, player)]
                if cash_outs != 1:
                    wrong.append(f"cash-out {player}@{outcome.plan.name}: {cash_outs}")
    kinds = Counter(row["kind"] for row in transfers)
    detail = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    return Finding(
        "every deposit, buy-in and cash-out applied exactly once",
        not wrong,
        "; ".join(wrong) or detail,
    )


def tournaments_paid_once(
    transfers: list[Any], pools: dict[str, int], outcomes: list[TournamentOutcome]
) -> Finding:
    """Each tournament finished; from the ledger, one entry and one fee per player
    registered, as many rebuys as the final standings count, each prize the director
    announced paid once to its player and nothing else paid, the pool emptied."""
    counts: Counter[tuple[str, str, str]] = Counter()
    paid: Counter[tuple[str, str]] = Counter()
    for row in transfers:
        if not row["tournament_id"]:
            continue
        payout = row["kind"] == "tournament_payout"
        owner = row["credit_owner"] if payout else row["debit_owner"]
        counts[(row["kind"], row["tournament_id"], owner)] += 1
        if payout:
            paid[(row["tournament_id"], owner)] += row["amount"]
    wrong: list[str] = []
    for outcome in outcomes:
        tid, name = outcome.tournament_id, outcome.plan.name
        if not outcome.finished:
            wrong.append(f"{name}: not finished ({outcome.error})")
            continue
        for player in outcome.registered:
            for kind, expected in (
                ("tournament_entry", 1),
                ("tournament_fee", 1),
                ("tournament_rebuy", outcome.rebuys.get(player, 0)),
                ("tournament_payout", 1 if outcome.prizes.get(player) else 0),
            ):
                if counts[(kind, tid, player)] != expected:
                    wrong.append(f"{name} {kind} {player}: {counts[(kind, tid, player)]}")
            if paid[(tid, player)] != outcome.prizes.get(player, 0):
                wrong.append(f"{name} prize {player}: {paid[(tid, player)]}")
        if pools.get(tid, 0) != 0:
            wrong.append(f"{name} pool left {pools[tid]}")
    detail = ", ".join(
        f"{o.plan.name} {len(o.registered)} players {o.tables} tables {o.actions} actions "
        f"{sum(o.rebuys.values())} rebuys, prizes {o.prizes}"
        for o in outcomes
    )
    return Finding(
        "tournaments: entries, rebuys and prizes paid once, pools emptied",
        not wrong,
        "; ".join(wrong[:8]) or detail or "no tournament",
    )


def chips_conserved(escrows: dict[str, int], outcomes: list[TableOutcome]) -> Finding:
    """Every table everyone left holds nothing in the wallet: what was bought in went back
    out (less commission), nothing created or lost on the way."""
    left = {o.table_id for o in outcomes if o.table_id and o.left == o.seated and o.left}
    wrong = [
        f"{table}: {amount}" for table, amount in escrows.items() if table in left and amount != 0
    ]
    return Finding(
        "chips conserved per table (escrow back to 0)",
        not wrong,
        "; ".join(wrong) or f"{len(left)} tables emptied",
    )


def money_conserved(balances: dict[str, int], deposited: int) -> Finding:
    """The players' cash, what the tables and pools still hold, the house's commission
    and its prize fund add up to what the cashier paid in (deposits and the fund)."""
    total = sum(balances.values())
    return Finding(
        "money conserved (players + tables + commission = deposits)",
        total == deposited,
        f"{total} held, {deposited} deposited: {balances}",
    )


def no_seat_twice(events: RecordedEvents) -> Finding:
    """In every table's log as a replay reads it, a player is seated only when not
    already seated there, and no seat number is given to two players at once. A replay
    applies each command once (`log_entry.applicable`): an append retried while the
    broker was away may be stored twice, and its second copy is not a second seating."""
    logs: dict[str, list[LogEntry]] = defaultdict(list)
    for entry in events.commands:  # each table's log in its order (one partition)
        logs[entry.table_id].append(entry)
    seated: dict[str, dict[str, int]] = {}
    wrong: list[str] = []
    for entry in (e for log in logs.values() for e in applicable(log)):
        table = seated.setdefault(entry.table_id, {})
        if entry.kind == "seat":
            seat = int(entry.body.get("seat", -1))
            if entry.player in table or seat in table.values():
                wrong.append(f"{entry.table_id}#{entry.index}: {entry.player} seat {seat}")
            table[entry.player] = seat
        elif entry.kind == "unseat":
            table.pop(entry.player, None)
    return Finding(
        "no player seated twice",
        not wrong,
        "; ".join(wrong[:5]) or f"{sum(e.kind == 'seat' for e in events.commands)} seatings",
    )


def no_acknowledged_action_lost(history: History, events: RecordedEvents) -> Finding:
    """Every Act the gateway answered OK is in the table's command log (where the host
    keeps a player's command id in his own namespace, `act:<player>:<id>`)."""
    logged = {(e.table_id, e.command_id) for e in events.commands}
    acknowledged = history.acknowledged("Act")
    lost = [c for c in acknowledged if (c.table_id, f"act:{c.player}:{c.command_id}") not in logged]
    return Finding(
        "no acknowledged action lost",
        not lost and not events.unreadable_commands,
        f"{len(lost)} of {len(acknowledged)} acknowledged actions missing "
        f"({[c.command_id for c in lost[:5]]}); {dict(events.unreadable_commands)} "
        "unreadable log entries",
    )


def nothing_dead_lettered(events: RecordedEvents) -> Finding:
    """No message any service could not apply (a settlement the wallet refused, ...)."""
    letters = events.dead_letters
    return Finding(
        "nothing dead-lettered",
        not letters,
        "; ".join(f"{n}x {what}" for what, n in letters.items()) or "no DLQ message",
    )


async def _ledger_rows(
    dsn: str, schema: str
) -> tuple[list[Any], dict[str, int], dict[str, int], dict[str, int]]:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(f'SET search_path TO "{schema}"')
        transfers = await connection.fetch(
            "SELECT t.kind, t.table_id, t.tournament_id, coalesce(t.posted_amount, t.amount)"
            " AS amount, d.owner AS debit_owner, c.owner AS credit_owner"
            " FROM transfers t JOIN accounts d ON d.account_id = t.debit_account_id"
            " JOIN accounts c ON c.account_id = t.credit_account_id"
            " WHERE t.status <> 'voided'"
        )
        accounts = await connection.fetch("SELECT kind, owner, posted FROM accounts")
    finally:
        await connection.close()
    escrows: Counter[str] = Counter()
    pools: Counter[str] = Counter()  # by tournament
    held: Counter[str] = Counter()  # by account kind
    for account in accounts:
        if account["kind"] == "table_escrow":
            escrows[account["owner"].split("/")[0]] += account["posted"]
        if account["kind"] == "tournament_pool":
            pools[account["owner"]] += account["posted"]
        if account["kind"] != "house_clearing":  # where the deposits came from
            held[account["kind"]] += account["posted"]
    return list(transfers), dict(escrows), dict(pools), dict(held)


def crash_refunds(transfers: list[Any], escrows: dict[str, int], requested: set[str]) -> Finding:
    """Every table a host voided (asked the wallet to refund) holds nothing in escrow any
    more, and the ledger refunded no table that was not voided."""
    refunded = {row["table_id"] for row in transfers if row["kind"] == "crash_refund"}
    unasked = sorted(refunded - requested)
    kept = sorted(t for t in requested if escrows.get(t, 0))
    refunds = sum(row["kind"] == "crash_refund" for row in transfers)
    return Finding(
        "every table that could not resume refunded",
        not unasked and not kept,
        f"{len(requested)} tables voided by their hosts, {refunds} crash refunds in the "
        f"ledger; refunded without a void: {unasked or 'none'}; "
        f"voided with money left in escrow: {kept or 'none'}",
    )


async def wallet_settled(
    dsn: str,
    schema: str,
    outcomes: list[TableOutcome],
    voided: set[str],
    within: float = 60.0,
) -> dict[str, int]:
    """The tables' escrow balances once the wallet's consumer has applied what the tables
    asked (settlements, cash-outs and the crash refunds of `voided` tables travel over
    Kafka), or as they are after `within`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        _, escrows, _, _ = await _ledger_rows(dsn, schema)
        emptied = [o.table_id for o in outcomes if o.left and o.left == o.seated]
        emptied += voided
        if all(escrows.get(t, 0) == 0 for t in emptied) or loop.time() > deadline:
            return escrows
        await asyncio.sleep(0.5)


async def run_checks(
    *,
    dsn: str,
    schema: str,
    history: History,
    events: RecordedEvents,
    outcomes: list[TableOutcome],
    tournaments: list[TournamentOutcome],
    deposits: dict[str, int],
    prize_fund: int = 0,
) -> list[Finding]:
    await wallet_settled(dsn, schema, outcomes, events.crash_refunds_requested)
    transfers, escrows, pools, held = await _ledger_rows(dsn, schema)
    return [
        ledger_audit(dsn, schema),
        exactly_once(transfers, outcomes, set(deposits)),
        chips_conserved(escrows, outcomes),
        tournaments_paid_once(transfers, pools, tournaments),
        money_conserved(held, sum(deposits.values()) + prize_fund),
        no_seat_twice(events),
        no_acknowledged_action_lost(history, events),
        nothing_dead_lettered(events),
        crash_refunds(transfers, escrows, events.crash_refunds_requested),
        Finding(
            "every table played",
            all(not o.error for o in outcomes),
            "; ".join(f"{o.plan.name}: {o.error}" for o in outcomes if o.error)
            or f"{len(outcomes)} tables, {sum(o.actions for o in outcomes)} actions",
        ),
    ]
