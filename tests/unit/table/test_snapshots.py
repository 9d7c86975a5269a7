"""Snapshots: a table rebuilt from its latest snapshot and the log's tail is the table a
full replay gives (its digest), for every game; a snapshot of another engine version or a
damaged one falls back to the whole log; a table with neither is voided, refunded and
counted; an open table whose log head expired is rebuilt from its snapshot; a closed
table is retired after it was kept, and no rebuild reads it again.

The in-memory log and snapshot store stand in for Kafka here
(`tests/integration/table/test_snapshots_kafka.py` runs the Kafka store).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping
from dataclasses import replace

import pytest
from structlog.testing import capture_logs

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import RuleBroken
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.collector import BulkLoad, no_bulk_load
from croupier.table.adapters import metrics
from croupier.table.adapters.memory_log import InMemoryCommandLog, InMemorySnapshotStore
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.adapters.snapshot_codec import (
    decode,
    encode,
    read_header,
)
from croupier.table.core.log_entry import ReplayedTable
from croupier.table.games import load_engines
from croupier.table.ports import StoredSnapshots
from croupier.table.service.host import TableHost
from croupier.table.service.snapshots import SnapshotPolicy
from croupier.table.service.tables import TableVoided
from tests.support.contract import LONG_TURN
from tests.support.games import GAMES, GameAtTable
from tests.support.table import FakeClock, Seeds

# Snapshots often and mid-hand, so that tails start anywhere in a hand.
OFTEN = SnapshotPolicy(every=7, at_hand_end_after=3, sweep_seconds=3600, lag_records=50)


class CountingLog(InMemoryCommandLog):
    """Counts the entries its replays hand out; calls `on_replay` as each replay begins."""

    def __init__(self) -> None:
        super().__init__()
        self.replayed = 0
        self.on_replay: Callable[[], None] = lambda: None

    async def replay(
        self,
        partitions: Collection[int] | None = None,
        since: Mapping[int, int] | None = None,
        covered: Mapping[str, int] | None = None,
    ) -> AsyncIterator[ReplayedTable]:
        self.on_replay()
        async for table in super().replay(partitions, since, covered):
            self.replayed += len(table.entries)
            yield table


def host_on(
    log: InMemoryCommandLog,
    bus: InMemoryBus,
    store: InMemorySnapshotStore | None,
    policy: SnapshotPolicy = OFTEN,
    clock: FakeClock | None = None,
    bulk_load: BulkLoad = no_bulk_load,
) -> TableHost:
    return TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        now_ms=clock or FakeClock(),
        seeds=Seeds("snapshots"),
        snapshot_store=store,
        snapshot_policy=policy,
        bulk_load=bulk_load,
    )


async def play_tables(
    host: TableHost, game: GameAtTable, tables: int, actions: int, seed: int = 7
) -> list[str]:
    """Open `tables` full tables and play `actions` random actions spread over them."""
    rng = random.Random(seed)
    table_ids = []
    for n in range(tables):
        table_id = await host.open_table(
            game.name, game.options, LONG_TURN, request_key=f"{seed}-{n}"
        )
        for seat, player in enumerate(game.players):
            await host.seat(table_id, player, seat, game.stack)
        table_ids.append(table_id)
    for n in range(actions):
        table_id = rng.choice(table_ids)
        to_act = game.to_act(host.view(table_id, "").view)
        if to_act is None:
            continue
        action = game.legal_action(host.view(table_id, to_act).view, rng)
        try:
            await host.act(table_id, to_act, f"c{n}", action)
        except RuleBroken:
            continue  # a random action the view allowed but the table did not: not logged
    return table_ids


async def one_table(
    bus: InMemoryBus, game: GameAtTable, actions: int
) -> tuple[InMemoryCommandLog, InMemorySnapshotStore, str]:
    """One table of `game` played for `actions` random actions by a host that then stops:
    its log, its snapshots and its id."""
    log, store = InMemoryCommandLog(), InMemorySnapshotStore()
    first = host_on(log, bus, store)
    await first.start()
    (table_id,) = await play_tables(first, game, tables=1, actions=actions)
    await first.stop()
    return log, store, table_id


async def digests(host: TableHost) -> dict[str, str]:
    await host.start()
    try:
        return {table_id: host.digest(table_id) for table_id in host.table_ids()}
    finally:
        await host.stop()


async def full_replay(log: InMemoryCommandLog, bus: InMemoryBus) -> dict[str, str]:
    return await digests(host_on(log, bus, None))


async def test_a_rebuild_from_snapshots_and_tails_equals_a_full_replay(
    game: GameAtTable, bus: InMemoryBus
) -> None:
    log, store = CountingLog(), InMemorySnapshotStore()
    first = host_on(log, bus, store)
    await first.start()
    table_ids = await play_tables(first, game, tables=4, actions=160)
    await first.stop()
    entries = log.end_offset(0)

    log.replayed = 0
    from_snapshots = await digests(host_on(log, bus, store))
    tail = log.replayed
    log.replayed = 0
    replayed = await full_replay(log, bus)

    assert sorted(from_snapshots) == sorted(table_ids)
    assert from_snapshots == replayed
    assert log.replayed == entries  # the full replay read every entry...
    assert tail < entries / 4  # ...the rebuild from snapshots only the tails


async def test_an_idle_table_is_snapshotted_again_by_the_sweep_so_rebuilds_read_little(
    bus: InMemoryBus,
) -> None:
    game = GAMES["backgammon"]
    log, store = CountingLog(), InMemorySnapshotStore()
    first = host_on(log, bus, store)
    await first.start()
    (idle,) = await play_tables(first, game, tables=1, actions=3)
    await play_tables(first, game, tables=3, actions=200, seed=8)
    await first._snapshots.sweep()
    await first.stop()
    assert read_header(store.snapshots[idle][1]).offset >= log.end_offset(0) - 1 - OFTEN.lag_records

    log.replayed = 0
    await digests(host_on(log, bus, store))
    assert log.replayed <= OFTEN.lag_records + OFTEN.every * 4


async def test_an_open_table_whose_log_head_expired_is_rebuilt_from_its_snapshot(
    bus: InMemoryBus,
) -> None:
    game = GAMES["poker"]
    log, store = InMemoryCommandLog(), InMemorySnapshotStore()
    first = host_on(log, bus, store)
    await first.start()
    (table_id,) = await play_tables(first, game, tables=1, actions=40)
    await first._snapshots.sweep()  # what the periodic sweep does before retention strikes
    expected = first.digest(table_id)
    await first.stop()
    log.expire_before(log.end_offset(0))

    rebuilt = host_on(log, bus, store)
    assert await digests(rebuilt) == {table_id: expected}
    assert table_id not in rebuilt.voided


async def test_a_snapshot_of_another_engine_version_is_ignored(bus: InMemoryBus) -> None:
    log, store, table_id = await one_table(bus, GAMES["joker"], actions=30)
    partition, data = store.snapshots[table_id]
    # Another version's snapshot, whose state would show if it were used.
    snapshot = decode(data)
    forged = replace(
        snapshot,
        header=replace(snapshot.header, engine_version="0"),
        state=replace(snapshot.state, seated=("somebody else",)),
    )
    store.snapshots[table_id] = (partition, encode(forged))
    fallbacks = metrics.SNAPSHOT_FALLBACKS.labels("UnreadableSnapshot")._value.get()

    assert await digests(host_on(log, bus, store)) == await full_replay(log, bus)
    assert metrics.SNAPSHOT_FALLBACKS.labels("UnreadableSnapshot")._value.get() == fallbacks + 1


@pytest.mark.parametrize(
    "damage",
    [lambda data: data[: len(data) // 2], lambda data: b"not a snapshot", lambda data: b""],
    ids=["cut-off", "foreign", "empty"],
)
async def test_a_corrupt_snapshot_falls_back_to_the_log(bus: InMemoryBus, damage: object) -> None:
    log, store, table_id = await one_table(bus, GAMES["rummy"], actions=30)
    partition, data = store.snapshots[table_id]
    store.snapshots[table_id] = (partition, damage(data))  # type: ignore[operator]

    rebuilt = host_on(log, bus, store)
    assert await digests(rebuilt) == await full_replay(log, bus)
    assert table_id not in rebuilt.voided


async def test_a_rebuild_logs_how_many_tables_came_from_snapshots_and_where_its_time_went(
    bus: InMemoryBus,
) -> None:
    log, store, table_id = await one_table(bus, GAMES["rummy"], actions=30)

    def rebuilt() -> list[tuple[int, int]]:
        lines = [line for line in captured if line["event"] == "partitions rebuilt"]
        for line in lines:
            phases = ("snapshots_seconds", "tails_seconds", "full_replay_seconds")
            assert all(line[phase] >= 0 for phase in phases), line
        return [(line["from_snapshots"], line["replayed_fully"]) for line in lines]

    with capture_logs() as captured:
        await digests(host_on(log, bus, store))
    assert rebuilt() == [(1, 0)]

    partition, _ = store.snapshots[table_id]
    store.snapshots[table_id] = (partition, b"damaged")
    with capture_logs() as captured:
        await digests(host_on(log, bus, store))
    assert rebuilt() == [(0, 1)]


async def test_a_snapshot_that_would_build_a_foreign_class_is_refused(bus: InMemoryBus) -> None:
    log, store, table_id = await one_table(bus, GAMES["backgammon"], actions=5)
    partition, data = store.snapshots[table_id]
    header = data[: data.index(b"\n", len(b"croupier.table.snapshot/1\n")) + 1]
    # pickle of os.system("true"): a forged record must not run anything.
    store.snapshots[table_id] = (partition, header + b"cos\nsystem\n(Vtrue\ntR.")

    rebuilt = host_on(log, bus, store)
    assert await digests(rebuilt) == await full_replay(log, bus)


async def test_with_neither_snapshot_nor_log_the_table_is_voided_refunded_and_counted(
    bus: InMemoryBus,
) -> None:
    log, store, table_id = await one_table(bus, GAMES["poker"], actions=20)
    partition, data = store.snapshots[table_id]
    store.snapshots[table_id] = (partition, data[: len(data) // 2])  # its header says poker
    log.expire_before(log.end_offset(0))
    refunds = metrics.CRASH_REFUNDS_REQUESTED.labels("poker")._value.get()

    rebuilt = host_on(log, bus, store)
    await rebuilt.start()
    try:
        assert table_id in rebuilt.voided
        with pytest.raises(TableVoided):
            rebuilt.view(table_id, "p0")
        await rebuilt.flush()
    finally:
        await rebuilt.stop()
    assert metrics.CRASH_REFUNDS_REQUESTED.labels("poker")._value.get() == refunds + 1
    asked = [Envelope.FromString(m.value or b"") for m in bus.messages(WALLET_REQUESTS_TOPIC)]
    assert [e.subject for e in asked if e.type == "wallet.crash_refund_requested"] == [table_id]


async def test_a_table_rebuilt_from_a_snapshot_refuses_older_hand_histories_clearly(
    bus: InMemoryBus,
) -> None:
    log, store, table_id = await one_table(bus, GAMES["backgammon"], actions=10)
    rebuilt = host_on(log, bus, store)
    await rebuilt.start()
    try:
        with pytest.raises(RuleBroken, match="from a snapshot"):
            rebuilt.hand_history(table_id, 1)
    finally:
        await rebuilt.stop()


async def a_table_closed_at_once(
    bus: InMemoryBus, game: GameAtTable
) -> tuple[CountingLog, InMemorySnapshotStore, FakeClock, TableHost, str]:
    """A started host on a clock of the test's, with one table of `game` that nobody
    joined, closed at once: the log, store, clock, host and table."""
    log, store, clock = CountingLog(), InMemorySnapshotStore(), FakeClock()
    host = host_on(log, bus, store, clock=clock)
    await host.start()
    table_id = await host.open_table(game.name, game.options, LONG_TURN, request_key="over")
    await host.close(table_id)
    return log, store, clock, host, table_id


async def test_a_closed_table_kept_long_enough_is_retired_and_no_rebuild_reads_it_again(
    bus: InMemoryBus,
) -> None:
    log, store, clock, first, closing = await a_table_closed_at_once(bus, GAMES["poker"])
    playing = await play_tables(first, GAMES["poker"], tables=2, actions=60)
    await first._snapshots.sweep()
    assert closing in first.table_ids()  # closed, still kept: its final view and histories
    clock.now += int(OFTEN.closed_kept_seconds * 1000) - 1
    await first._snapshots.sweep()
    assert closing in first.table_ids()
    clock.now += 1
    await first._snapshots.sweep()
    assert closing not in first.table_ids()
    assert closing not in store.snapshots  # forgotten
    assert store.watermarks[0] > 0
    expected = {table_id: first.digest(table_id) for table_id in playing}
    await first.stop()

    log.replayed = 0
    rebuilt = host_on(log, bus, store)
    assert await digests(rebuilt) == expected
    assert closing not in rebuilt.voided
    assert log.replayed < 60 / 2  # the open tables' tails, never the closed table's entries


async def test_a_partition_whose_tables_all_retired_is_not_read_again(
    bus: InMemoryBus,
) -> None:
    log, store, clock, first, _ = await a_table_closed_at_once(bus, GAMES["backgammon"])
    await first._snapshots.sweep()
    clock.now += int(OFTEN.closed_kept_seconds * 1000)
    await first._snapshots.sweep()
    assert first.table_ids() == []
    await first.stop()
    assert store.snapshots == {} and store.watermarks == {0: log.end_offset(0)}

    log.replayed = 0
    rebuilt = host_on(log, bus, store)
    assert await digests(rebuilt) == {}
    assert log.replayed == 0 and rebuilt.voided == {}


class LoopTurns:
    """Counts the turns another task gets on the event loop while `with` runs."""

    def __init__(self) -> None:
        self.turns = 0

    async def _other_work(self) -> None:
        while True:
            self.turns += 1
            await asyncio.sleep(0)

    @contextlib.asynccontextmanager
    async def counting(self) -> AsyncIterator[None]:
        running = asyncio.create_task(self._other_work())
        await asyncio.sleep(0)
        self.turns = 0
        try:
            yield
        finally:
            running.cancel()


async def test_a_long_rebuild_lets_the_event_loop_run(bus: InMemoryBus) -> None:
    # A rebuild runs inside the consumer group's assignment callback: a loop it starved
    # would miss the group's heartbeats.
    game = GAMES["backgammon"]
    log, store = InMemoryCommandLog(), InMemorySnapshotStore()
    first = host_on(log, bus, store)
    await first.start()
    for n in range(500):
        await first.open_table(game.name, game.options, LONG_TURN, request_key=f"t{n}")
    await first.stop()

    rebuilt, loop = host_on(log, bus, store), LoopTurns()
    async with loop.counting():
        await rebuilt.start()  # a rebuild from 500 snapshots
    await rebuilt.stop()
    assert loop.turns >= 4  # every 200 snapshots decoded, and again every 200 tables served


async def test_a_sweep_spreads_its_snapshots_and_lets_the_event_loop_run(bus: InMemoryBus) -> None:
    # At human pace nearly every table has entries no snapshot holds when the sweep comes:
    # a sweep in one go held every call behind it (0.4-0.9 s at 4,000 tables).
    game = GAMES["backgammon"]
    log, store = InMemoryCommandLog(), InMemorySnapshotStore()
    host = host_on(log, bus, store, policy=replace(OFTEN, sweep_per_second=1000))
    await host.start()
    for n in range(300):
        table_id = await host.open_table(game.name, game.options, LONG_TURN, request_key=f"t{n}")
        await host.seat(table_id, game.players[0], 0, game.stack)  # not snapshotted yet
    await host._snapshots.stop()  # its periodic sweep: this test sweeps itself
    lagging = sum(host._snapshots._lags(table) for table in host._tables.serving.values())
    saved, loop = metrics.SNAPSHOTS_STORED.labels(game.name)._value.get(), LoopTurns()
    started = time.perf_counter()
    async with loop.counting():
        await host._snapshots.sweep()
    took = time.perf_counter() - started
    await host.stop()
    assert lagging >= 100
    assert metrics.SNAPSHOTS_STORED.labels(game.name)._value.get() - saved == lagging
    # At 1,000 snapshots a second, 20 at a time; half of that, for the event loop's timers
    # (uvloop's are coarse).
    assert took >= 0.5 * (lagging // 20) * 20 / 1000
    assert loop.turns >= lagging // 20  # at least once per batch of 20


async def test_reading_the_snapshots_is_a_bulk_load_and_replaying_the_log_is_not(
    bus: InMemoryBus,
) -> None:
    # `croupier serve table` pauses the garbage collector for it (croupier.kit.collector);
    # the log's replay leaves reference cycles behind, for a running collector.
    loading: list[bool] = []  # True when a load begins, False when it ends
    reads: list[str] = []  # what the rebuild read, and whether inside the load

    @contextlib.contextmanager
    def bulk_load() -> Iterator[None]:
        loading.append(True)
        yield
        loading.append(False)

    def read(what: str) -> None:
        reads.append(f"{what} {'inside' if loading[-1:] == [True] else 'outside'}")

    class WatchedStore(InMemorySnapshotStore):
        async def load(self, partitions: Collection[int]) -> StoredSnapshots:
            read("snapshots")
            return await super().load(partitions)

    log, store = CountingLog(), WatchedStore()
    log.on_replay = lambda: read("log")
    first = host_on(log, bus, store)
    await first.start()
    table_ids = await play_tables(first, GAMES["rummy"], tables=2, actions=30)
    await first.stop()
    reads.clear()
    host = host_on(log, bus, store, bulk_load=bulk_load)
    await host.start()
    try:
        assert sorted(host.table_ids()) == sorted(table_ids)
        assert reads == ["snapshots inside", "log outside"]
        assert loading == [True, False]
    finally:
        await host.stop()
