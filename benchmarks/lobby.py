"""Lobby matchmaker: matches/s and time-to-match with 100,000 queued tickets across games,
against a naive O(n²) matcher over the same tickets; quick-seat latency through gRPC.

    deploy/local/with-infra.sh .venv/bin/python -m benchmarks.lobby [--queued 100000] \
        [--arrivals 20000] [--tick 0.5] [--peer-tickets 10000] [--quick-seats 500] [--seed 7]

The matchmaker is `croupier.lobby.core.matchmaker.process` (pure: the service calls it on
its ticker, every `CROUPIER_LOBBY_TICK_SECONDS`, 0.5 s). The queue: `--queued` tickets
waiting at once, across backgammon (single games, 5-point matches), Joker and 6-max
poker, in three currencies, at stake ranges over ten stake levels (a ticket accepts one to
three adjacent levels); a fifth of them come from accounts whose rating range accepts
nobody waiting (they stay queued: the pass must still look at them). Then `--arrivals`
more tickets arrive at 4,000/s while the ticker runs on a simulated clock that advances by
the ticker interval plus each pass's measured duration. Time-to-match of a ticket that has
a compatible partner: from its arrival to the end of the pass that matched it (what a
player waits, the gRPC hop aside); p50/p99 over the matched tickets of the first queue and
over those that arrived later (goal: p99 < 1 s).

Measured (2 cores shared with other work, 100,000 queued, 20,000 arrivals): the first pass
over the 100,000 took 0.95 s to 1.58 s over runs for 28,244 matches (17,900 to 29,900
matches/s); every ticket of that queue waits the whole pass, so its p99 is the pass: at
the goal or above it. Later arrivals, with about 24,000 tickets still queued (passes of
~0.4 s), p99 1.6 s: a ticket arriving just after a pass starts waits for it, the tick and
the next pass; the goal is not met for them yet. The naive peer over 10,000 tickets took
10.0 s vs 0.065 s (154x). Quick-seat latency through gRPC at 500 concurrent requests is
measured as `--quick-seats` concurrent `JoinWaitingList` calls (a seat at any Joker table
with one free) against as many `SeatPlayer` calls straight to the host: at 500, p99 12-19 s
vs 0.25-0.34 s (48-58x over runs) before the free-seat index. With it, and 100,000 other
tables open (`--tables`: other lists, and full tables of its own): p99 4.0 s vs 0.59 s
(6.8x) on a machine at load 9-15; the index built from the 100,000 tables in 2.5-3.3 s at
start. The matchmaker after reading only the ranged tickets whose range takes a rating:
first pass 0.75 s, arrivals p99 0.83-0.85 s (goal met).

Peer: the naive matcher (for each ticket, oldest first, scan every other waiting ticket),
the lobby's first version, over the same `--peer-tickets` tickets as the matchmaker in the
same run (at 100,000 it would compare billions of pairs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc

from croupier.joker.v1 import joker_pb2
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.lobby.adapters import rows
from croupier.lobby.adapters.host_grpc import GrpcTableHost
from croupier.lobby.bootstrap import build_lobby, open_database
from croupier.lobby.core.matchmaker import (
    Match,
    MatchmakerSettings,
    Ticket,
    counts_for,
    process,
)
from croupier.lobby.core.ratings import RatingRange
from croupier.lobby.core.seats import LobbyTable
from croupier.lobby.core.terms import terms_of
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc

T0 = datetime(2026, 12, 5, tzinfo=UTC)
SETTINGS = MatchmakerSettings(widen_after=timedelta(seconds=10), ttl=timedelta(minutes=10))
TEMPLATES: list[tuple[str, dict[str, object]]] = [
    ("backgammon", {"mode": "single"}),
    ("backgammon", {"mode": "match", "points": 5}),
    ("joker", {}),
    ("poker", {"variant": "nlhe", "seats": 6, "min_buy_in": 40, "max_buy_in": 200}),
]
CURRENCIES = ("PLAY", "CHIP", "EUR")
LEVELS = [10 * 2**n for n in range(10)]


def make_tickets(count: int, start: datetime, rng: random.Random, prefix: str) -> list[Ticket]:
    tickets = []
    for n in range(count):
        game, options = rng.choice(TEMPLATES)
        currency = rng.choice(CURRENCIES)
        terms = terms_of(game, {**options, "currency": currency})
        low = rng.randrange(len(LEVELS))
        high = min(len(LEVELS) - 1, low + rng.randrange(3))
        lonely = rng.random() < 0.2  # a rating range nobody waiting is in
        min_count, max_count = counts_for(terms, LEVELS[low], LEVELS[high])
        tickets.append(
            Ticket(
                ticket_id=f"{prefix}{n:07d}",
                player=f"{prefix}{n:07d}",
                game=game,
                shape=terms.shape,
                currency=terms.currency,
                min_stake=LEVELS[low],
                max_stake=LEVELS[high],
                min_count=min_count,
                max_count=max_count,
                created=start + timedelta(seconds=n / 4000),
                rating=1500,
                rating_range=RatingRange(9000, 9001) if lonely else None,
            )
        )
    return tickets


def naive(tickets: Sequence[Ticket], now: datetime) -> list[Match]:
    """The peer: every ticket against every other waiting one, oldest first."""
    ordered = sorted(tickets, key=lambda t: (t.created, t.ticket_id))
    used: set[str] = set()
    matches = []
    for first in ordered:
        if first.ticket_id in used:
            continue
        group, low, high = [first], first.min_stake, first.max_stake
        for other in ordered:
            if len(group) == first.max_count:
                break
            if other.ticket_id in used or other is first:
                continue
            if not all(member.compatible(other) for member in group):
                continue
            if max(low, other.min_stake) <= min(high, other.max_stake):
                group.append(other)
                low, high = max(low, other.min_stake), min(high, other.max_stake)
        wanted = first.min_count if now - first.created >= SETTINGS.widen_after else first.max_count
        if len(group) >= wanted:
            matches.append(Match(tuple(group), low))
            used.update(t.ticket_id for t in group)
    return matches


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_ticker(queued: list[Ticket], arrivals: list[Ticket], tick: float) -> None:
    """The ticker on a simulated clock: the queue, then arrivals between passes."""
    waiting = {t.ticket_id: t for t in queued}
    pending = sorted(arrivals, key=lambda t: t.created)
    now = max(t.created for t in queued)
    waits: dict[bool, list[float]] = {True: [], False: []}  # arrived later or queued
    passes: list[float] = []
    matched_tickets = matches = 0
    first_pass: tuple[float, int] | None = None
    while pending or first_pass is None:
        while pending and pending[0].created <= now:
            ticket = pending.pop(0)
            waiting[ticket.ticket_id] = ticket
        started = time.perf_counter()
        processed = process(list(waiting.values()), now, SETTINGS)
        took = time.perf_counter() - started
        passes.append(took)
        done = now + timedelta(seconds=took)
        for match in processed.matches:
            for ticket in match.tickets:
                del waiting[ticket.ticket_id]
                waits[ticket.ticket_id.startswith("a")].append(
                    (done - ticket.created).total_seconds()
                )
            matched_tickets += len(match.tickets)
        matches += len(processed.matches)
        if first_pass is None:
            first_pass = (took, len(processed.matches))
        now = done + timedelta(seconds=tick)
    assert first_pass is not None
    took, made = first_pass
    print(f"first pass over {len(queued):,} queued: {took:.3f} s, {made:,} matches "
          f"({made / took:,.0f} matches/s, {len(queued) / took:,.0f} tickets/s)")  # fmt: skip
    total = sum(passes)
    print(f"{len(passes)} passes, {matches:,} matches of {matched_tickets:,} tickets in "
          f"{total:.2f} s of matching: {matches / total:,.0f} matches/s; "
          f"{len(waiting):,} still waiting (no compatible partner)")  # fmt: skip
    for arrived, label in ((False, "queued at the start"), (True, "arriving later")):
        found = waits[arrived]
        print(f"time-to-match, {label} (ticker {tick} s): p50 {percentile(found, 0.5):.3f} s, "
              f"p99 {percentile(found, 0.99):.3f} s (goal p99 < 1 s)")  # fmt: skip
    print(f"slowest pass {max(passes):.3f} s")


def compare_with_peer(count: int, rng: random.Random) -> None:
    tickets = make_tickets(count, T0, rng, "p")
    now = max(t.created for t in tickets)
    started = time.perf_counter()
    ours = process(tickets, now, SETTINGS).matches
    ours_s = time.perf_counter() - started
    started = time.perf_counter()
    theirs = naive(tickets, now)
    theirs_s = time.perf_counter() - started
    assert len(ours) == len(theirs), "the peer must find as many matches"
    print()
    print(f"| {count:,} tickets, one pass | seconds | matches | matches/s |")
    print("|---|---:|---:|---:|")
    print(f"| matchmaker (pools) | {ours_s:.3f} | {len(ours):,} | {len(ours) / ours_s:,.0f} |")
    print(f"| naive O(n²) peer | {theirs_s:.3f} | {len(theirs):,} | "
          f"{len(theirs) / theirs_s:,.0f} |")  # fmt: skip
    print(f"matchmaker vs naive: {theirs_s / ours_s:.1f}x faster")


def _served(services: list[object], on_stop: list[object]) -> ServiceHost:
    return ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=services,  # type: ignore[arg-type]
        on_stop=on_stop,  # type: ignore[arg-type]
        serve_metrics_endpoint=False,
    )


async def _timed(calls: list[object]) -> tuple[list[float], list[Any]]:
    """Each awaitable's latency and answer, all started at once."""

    async def one(call: object) -> tuple[float, Any]:
        started = time.perf_counter()
        answer = await call  # type: ignore[misc]
        return time.perf_counter() - started, answer

    done = await asyncio.gather(*(one(c) for c in calls))
    return [latency for latency, _ in done], [answer for _, answer in done]


def other_tables(count: int, rng: random.Random) -> list[LobbyTable]:
    """`count` open tables the quick seats must not read one by one: nine in ten 6-max
    poker tables of other lists (three currencies, ten stakes) with seats free, one in ten
    full Joker tables (the quick seats' own list, no seat left)."""
    made = []
    for n in range(count):
        if n % 10 == 0:
            table = LobbyTable(f"full{n}", "{}", terms_of("joker", {}), owner="")
            players = 4
        else:
            options = {"variant": "nlhe", "seats": 6, "big_blind": rng.choice(LEVELS),
                       "currency": rng.choice(CURRENCIES)}  # fmt: skip
            table = LobbyTable(f"poker{n}", "{}", terms_of("poker", options), owner="")
            players = rng.randrange(6)
        seated = tuple((seat, f"{table.table_id}-{seat}") for seat in range(players))
        made.append(replace(table, seated=seated))
    return made


async def store_tables(pool: Any, tables: list[LobbyTable]) -> None:
    """Stored as the lobby stores them, in one statement (not through the host: nobody
    sits down at them)."""
    await pool.execute(
        "INSERT INTO lobby_tables (table_id, request_key, state, closed, version)"
        " SELECT t, t, s::jsonb, false, 1 FROM unnest($1::text[], $2::text[]) AS u(t, s)",
        [table.table_id for table in tables],
        [rows.table_to_json(table) for table in tables],
    )


async def quick_seat(dsn: str, requests: int, tables_open: int, rng: random.Random) -> None:
    """`requests` concurrent quick seats (JoinWaitingList: a seat at any Joker table with
    one free, answered 0 when seated) through the lobby's gRPC, on PostgreSQL with
    `tables_open` other tables open, the host served over gRPC; peer: as many concurrent
    `SeatPlayer` straight to the host."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(command_log=InMemoryCommandLog(), publisher=bus, engines=load_engines())
    await host.start()
    host_server = _served([table_service(host)], [host.stop, bus.stop])
    await host_server.start()
    address = f"127.0.0.1:{host_server.port}"
    schema = f"bench_lobby_{uuid.uuid4().hex[:8]}"
    pool = await open_database(dsn, schema, pool_size=10)
    await store_tables(pool, other_tables(tables_open, rng))
    client = GrpcTableHost(address)
    wired = build_lobby(pool=pool, schema=schema, host=client, bus=None, tick_seconds=None)
    started = time.perf_counter()
    await wired.tables.index_free_seats()  # what a lobby's first tick does at start
    indexed = time.perf_counter() - started
    lobby_server = _served([wired.service()], [])
    await lobby_server.start()
    joker = table_pb2.GameOptions(joker=joker_pb2.Options())
    try:
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{lobby_server.port}") as lobby_channel,
            grpc.aio.insecure_channel(address) as host_channel,
        ):
            lobby: Any = lobby_pb2_grpc.LobbyStub(lobby_channel)
            tables: Any = table_pb2_grpc.TableEngineStub(host_channel)
            # Every quick seat finds a free seat: a Joker table seats 4, the opener 1.
            for n in range(-(-requests // 3)):
                await lobby.OpenTable(
                    pb.OpenTableRequest(player_id=f"o{n}", request_key=f"o{n}", options=joker)
                )
            latencies, answers = await _timed([
                lobby.JoinWaitingList(pb.JoinWaitingListRequest(player_id=f"q{n}", options=joker))
                for n in range(requests)
            ])  # fmt: skip
            seated = sum(1 for answer in answers if answer.position == 0)
            peer_ids = [
                (await tables.OpenTable(
                    table_pb2.OpenTableRequest(game="joker", options_json="{}",
                                               request_key=f"peer{n}")
                )).table_id
                for n in range(-(-requests // 4))
            ]  # fmt: skip
            peer, _ = await _timed([
                tables.SeatPlayer(table_pb2.SeatPlayerRequest(
                    table_id=peer_ids[n // 4], player_id=f"p{n}", seat=n % 4))
                for n in range(requests)
            ])  # fmt: skip
    finally:
        await lobby_server.stop()
        await wired.stop()
        await client.close()
        await host_server.stop()
        await pool.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await pool.close()
    print()
    print(f"free-seat index built from {tables_open:,} open tables in {indexed:.2f} s (at start)")
    print(f"| quick seat, {requests} concurrent through gRPC, {tables_open:,} tables open "
          "| p50 ms | p99 ms |")  # fmt: skip
    print("|---|---:|---:|")
    for name, found in (("lobby JoinWaitingList (PostgreSQL, then the host)", latencies),
                        ("peer: host SeatPlayer alone", peer)):  # fmt: skip
        print(f"| {name} | {percentile(found, 0.5) * 1000:.0f} "
              f"| {percentile(found, 0.99) * 1000:.0f} |")  # fmt: skip
    ratio = percentile(latencies, 0.99) / percentile(peer, 0.99)
    print(f"lobby p99 vs the host's alone: {ratio:.1f}x; {seated} of {requests} seated at once")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queued", type=int, default=100_000)
    parser.add_argument("--arrivals", type=int, default=20_000)
    parser.add_argument("--tick", type=float, default=0.5)
    parser.add_argument("--peer-tickets", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick-seats", type=int, default=500)
    parser.add_argument("--tables", type=int, default=100_000)
    args = parser.parse_args(argv)
    dsn = os.environ.get("CROUPIER_POSTGRES_DSN", "")
    if not dsn:
        print("CROUPIER_POSTGRES_DSN is not set: run under deploy/local/with-infra.sh",
              file=sys.stderr)  # fmt: skip
        raise SystemExit(2)
    rng = random.Random(args.seed)
    queued = make_tickets(args.queued, T0 - timedelta(seconds=5), rng, "q")
    # The queue arrived over the last moments: all of it waits at the first pass.
    queued = [Ticket(**{**t.__dict__, "created": T0 - timedelta(seconds=1)}) for t in queued]
    arrivals = make_tickets(args.arrivals, T0, rng, "a")
    print(f"Lobby matchmaker: {args.queued:,} queued tickets across 4 game templates x "
          f"{len(CURRENCIES)} currencies x 10 stake levels, "
          f"then {args.arrivals:,} arrivals")  # fmt: skip
    run_ticker(queued, arrivals, args.tick)
    compare_with_peer(args.peer_tickets, rng)
    asyncio.run(quick_seat(dsn, args.quick_seats, args.tables, rng))


if __name__ == "__main__":
    main()
