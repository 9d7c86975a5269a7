"""The table host's service layer: tables as command logs, with clocks and views.

For every command the host
1. checks it by applying it to the table's current state (`core.table_state.step`, pure);
   a rejected command is answered with its reason and never logged; on a cash table
   the wallet then moves the chips the command brings (`service.money`);
2. appends it to the command log, together with the next hand's deal when the command
   allows one, and waits for the log's acknowledgement;
3. only then makes the new state current, asks the wallet for what the command moved
   (settlement, stacks given back) before answering, queues the public events (published
   in the background, in order), wakes the players' view streams and re-arms the clock.

Commands of one table are serialised by the table's lock; a command whose caller goes
away (a cancelled call) while it is being logged fences the table like a failed append,
and its money requests are resent if cut off; tables run concurrently. Replicas share the
log's partitions (`service.ownership`): a replica rebuilds the tables of the partitions it
is given; a table that cannot be rebuilt is voided and a crash refund is requested from
the wallet.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import Any

import structlog

from croupier.game import JSON, ClockSettings, GameRules, Malformed, Unknown
from croupier.game.limits import check_amount, echo
from croupier.kit.collector import BulkLoad, no_bulk_load
from croupier.kit.seeds import new_seed
from croupier.table.adapters import metrics
from croupier.table.adapters.log_codec import decode, encode
from croupier.table.adapters.wallet_requests import WalletRequestsOnBus
from croupier.table.core import history
from croupier.table.core.history import initial_state
from croupier.table.core.log_entry import LogEntry
from croupier.table.ports import CallLater, CommandLog, Publisher, SnapshotStore, WalletRequests
from croupier.table.service.background import Background
from croupier.table.service.commands import CommandPath
from croupier.table.service.deadlines import acquire_by, deadline_after
from croupier.table.service.money import Buyins, MoneySender
from croupier.table.service.outgoing import Outgoing
from croupier.table.service.ownership import Ownership
from croupier.table.service.presence import Presence
from croupier.table.service.rebuild import Rebuilder
from croupier.table.service.snapshots import DEFAULT_SNAPSHOT_POLICY, SnapshotPolicy, Snapshots
from croupier.table.service.tables import (
    HostedTable,
    Tables,
    ViewSnapshot,
    clock_from_options,
    require_seated,
)
from croupier.table.service.timeouts import loop_call_later, wall_clock_ms
from croupier.table.service.views import ViewHub

log = structlog.get_logger("croupier.table.host")

STOP_FLUSH_SECONDS = 5.0


def _publishing(tables: Tables, outgoing: Outgoing) -> list[asyncio.Task[None]]:
    """The tasks still publishing committed events or resending money requests."""
    tasks = [t.resending for t in tables.all() if t.resending is not None]
    if outgoing.publishing is not None:
        tasks.append(outgoing.publishing)
    return tasks


def _opening_entry(
    engine: GameRules[Any],
    table_id: str,
    request_key: str,
    game: str,
    options: JSON,
    settings: ClockSettings,
    at_ms: int,
) -> LogEntry:
    """A table's first log entry: its game, options and clock."""
    clock = {
        "turn_ms": settings.turn_ms,
        "reserve_ms": settings.reserve_ms,
        "reconnect_ms": settings.reconnect_ms,
    }
    return LogEntry(
        table_id=table_id,
        index=1,
        command_id=f"open:{request_key or table_id}",
        kind="open",
        player="",
        body={"game": game, "options": options, "clock": clock},
        at_ms=at_ms,
        engine=engine.name,
        engine_version=engine.version,
    )


class TableHost:
    """The facade the gRPC entrypoint and the tests call; each job is delegated."""

    def __init__(
        self,
        *,
        engines: Mapping[str, GameRules[Any]],
        command_log: CommandLog,
        publisher: Publisher,
        clock_defaults: Mapping[str, ClockSettings] | None = None,
        now_ms: Callable[[], int] = wall_clock_ms,
        call_later: CallLater = loop_call_later,  # waits on the clock `now_ms` reads
        seeds: Callable[[], bytes] = new_seed,
        currency: str = "CHIP",
        buyins: Buyins | None = None,
        wallet_requests: WalletRequests | None = None,  # default: on `publisher`
        snapshot_store: SnapshotStore | None = None,  # None: rebuilds replay whole logs
        snapshot_policy: SnapshotPolicy = DEFAULT_SNAPSHOT_POLICY,
        bulk_load: BulkLoad = no_bulk_load,  # around rebuilds: the process owner's choice
    ) -> None:
        self._engines = dict(engines)
        self._log = command_log
        self._clock_defaults = dict(clock_defaults or {})
        self._now_ms = now_ms
        self._buyins = buyins or Buyins(default_currency=currency)  # cash tables' wallet
        self._tables = Tables(command_log)
        self.voided = self._tables.voided
        self._background = Background()
        self._views = ViewHub(self._tables, now_ms)
        self._outgoing = Outgoing(publisher, self._background)
        self._money = MoneySender(
            self._buyins,
            wallet_requests or WalletRequestsOnBus(publisher),
            self._background,
            currency,
        )
        self._snapshot_store = snapshot_store
        self._snapshots = Snapshots(
            snapshot_store, command_log, self._tables, snapshot_policy, now_ms
        )
        self._commands = CommandPath(
            tables=self._tables,
            command_log=command_log,
            money=self._money,
            outgoing=self._outgoing,
            views=self._views,
            background=self._background,
            now_ms=now_ms,
            call_later=call_later,
            seeds=seeds,
            snapshots=self._snapshots,
        )
        self._presence = Presence(
            tables=self._tables,
            commands=self._commands,
            views=self._views,
            background=self._background,
            now_ms=now_ms,
            call_later=call_later,
        )
        self._ownership = Ownership(
            tables=self._tables,
            command_log=command_log,
            rebuilder=Rebuilder(
                tables=self._tables,
                command_log=command_log,
                snapshot_store=snapshot_store,
                engine_for=self._engine_for,
                commands=self._commands,
                money=self._money,
                bulk_load=bulk_load,
            ),
            commands=self._commands,
            presence=self._presence,
            views=self._views,
            money=self._money,
            background=self._background,
        )

    # ---- lifecycle ------------------------------------------------------------------

    async def start(self) -> None:
        """Open the log and take this replica's partitions: their tables are rebuilt."""
        await self._log.start()
        if self._snapshot_store is not None:
            await self._snapshot_store.start()
        await self._log.own_partitions(self._ownership)
        self._snapshots.start()

    async def end_streams(self) -> None:
        """End every view stream (shutdown: clients reconnect to the table's next owner)."""
        for table in self._tables.serving.values():
            self._views.end_streams(table)

    async def stop(self) -> None:
        self._background.stopping = True
        try:
            await asyncio.wait_for(self.flush(), STOP_FLUSH_SECONDS)
        except TimeoutError:
            log.error(
                "unpublished table events or money requests at stop; the next owner asks "
                "again for each table's latest money requests only"
            )
        for task in _publishing(self._tables, self._outgoing):
            task.cancel()
        self._background.cancel()
        for table in self._tables.serving.values():
            if table.timer is not None:
                table.timer.cancel()
        await self.end_streams()
        await self._snapshots.stop()  # before the log: they share its producer
        await self._log.stop()
        if self._snapshot_store is not None:
            await self._snapshot_store.stop()

    async def flush(self) -> None:
        """Wait until everything committed so far has been published."""
        await asyncio.gather(*_publishing(self._tables, self._outgoing))

    # ---- partition ownership (called by the command log) -----------------------------

    async def partitions_revoked(self, partitions: frozenset[int]) -> None:
        await self._ownership.partitions_revoked(partitions)

    async def partitions_assigned(
        self, partitions: frozenset[int], unchanged: frozenset[int]
    ) -> None:
        await self._ownership.partitions_assigned(partitions, unchanged)

    # ---- commands -------------------------------------------------------------------

    async def open_table(
        self,
        game: str,
        options: JSON,
        clock: ClockSettings | None,
        request_key: str = "",
        within: float | None = None,
    ) -> str:
        """`within`: the seconds the caller still waits (its deadline), if it said; every
        command method takes it (`service.deadlines.ANSWER_WITHIN_SECONDS`)."""
        deadline = deadline_after(within)
        await acquire_by(self._tables.opening, deadline)
        try:
            return await self._open_table(game, options, clock, request_key, deadline)
        finally:
            self._tables.opening.release()

    async def _open_table(
        self,
        game: str,
        options: JSON,
        clock: ClockSettings | None,
        request_key: str,
        deadline: float,
    ) -> str:
        engine = self._engine_for(game)
        table_id = self._tables.new_table_id(request_key)
        if table_id in self._tables.serving:
            return table_id
        default = self._clock_defaults.get(game) or engine.traits.default_clock
        settings = clock or clock_from_options(options) or default
        # The table's currency is fixed in its opening record: the engine sees the one the
        # host will settle in (a Naiko table refuses a real one, rules 50 and 55), and a
        # later change of the host's default never changes an open table's currency.
        options = {**options, "currency": self._buyins.currency(options)}
        if not settings.reconnect_ms:
            settings = replace(settings, reconnect_ms=default.reconnect_ms)
        opening = _opening_entry(
            engine, table_id, request_key, game, options, settings, self._now_ms()
        )
        table = HostedTable(engine, initial_state(engine, opening), [encode(opening)])
        await self._commands.append(table, [opening], deadline)
        table.seen_commands[opening.command_id] = 1
        self._snapshots.after_commit(table, hand_ended=False)
        self._tables.serving[table_id] = table
        metrics.TABLES_OPEN.labels(game).inc()
        return table_id

    async def seat(
        self,
        table_id: str,
        player: str,
        seat: int,
        stack: int,
        is_bot: bool = False,
        invite_code: str = "",
        within: float | None = None,
    ) -> ViewSnapshot:
        table = self._table(table_id)
        check_amount(stack, "stack")
        body: JSON = {"seat": seat, "stack": stack, "is_bot": is_bot}
        if invite_code:
            body["invite_code"] = invite_code
        command_id = f"seat:{player}:{uuid.uuid4()}"
        await self._commands.submit(
            table, "seat", player, body, command_id=command_id, within=within
        )
        return self.view(table_id, player)

    async def unseat(self, table_id: str, player: str, within: float | None = None) -> None:
        table = self._table(table_id)
        require_seated(table, player)
        command_id = f"unseat:{uuid.uuid4()}"
        await self._commands.submit(
            table, "unseat", player, {}, command_id=command_id, evaluate=True, within=within
        )

    async def act(
        self,
        table_id: str,
        player: str,
        command_id: str,
        action: JSON,
        within: float | None = None,
    ) -> ViewSnapshot:
        """A player's action. `command_id` is the client's: a repeat by the same player is
        applied once (ids live in the player's own namespace, apart from the host's)."""
        table = self._table(table_id)
        require_seated(table, player)
        await self._commands.submit(
            table,
            "act",
            player,
            {"action": action},
            command_id=f"act:{player}:{command_id}",
            within=within,
        )
        return self.view(table_id, player)

    async def close(self, table_id: str, within: float | None = None) -> None:
        """Close now, or after the hand in play has settled (no new hand is dealt)."""
        table = self._table(table_id)
        await self._commands.submit(
            table, "close", "", {}, command_id=f"close:{table_id}", within=within
        )

    # ---- views and presence ---------------------------------------------------------

    def view(self, table_id: str, player: str) -> ViewSnapshot:
        return self._views.snapshot(self._table(table_id), player)

    def watch(self, table_id: str, player: str) -> AsyncIterator[ViewSnapshot]:
        """The viewer's view now, then after every change, until the table closes."""
        return self._views.watch(table_id, player)

    async def disconnect(self, table_id: str, player: str, within: float | None = None) -> None:
        """The seated player's session ended; see `Presence.disconnect`."""
        await self._presence.disconnect(table_id, player, within)

    async def reconnect(
        self, table_id: str, player: str, within: float | None = None
    ) -> ViewSnapshot:
        """The player is back (his own call): the reconnection window stops."""
        return await self._presence.reconnect(table_id, player, within)

    def is_disconnected(self, table_id: str, player: str) -> bool:
        return self._presence.is_disconnected(table_id, player)

    # ---- hand histories and reading -------------------------------------------------

    def hand_history(self, table_id: str, hand_number: int) -> JSON:
        """Everything needed to re-derive and replay a finished hand (`croupier verify`)."""
        table = self._table(table_id)
        if table.log_start > 1:
            raise Unknown(
                f"this replica rebuilt table {table_id} from a snapshot at entry "
                f"{table.log_start - 1}: it holds no hand history of the hands played before"
            )
        return history.build(table.engine, [decode(encoded) for encoded in table.log], hand_number)

    def digest(self, table_id: str) -> str:
        table = self._table(table_id)
        return table.state.digest(table.engine)

    def clock_settings(self, table_id: str) -> ClockSettings:
        return self._table(table_id).state.clocks.settings

    def engine_of(self, table_id: str) -> GameRules[Any]:
        return self._table(table_id).engine

    def table_ids(self) -> list[str]:
        return sorted(self._tables.serving)

    @property
    def partitions(self) -> frozenset[int]:
        """The command log's partitions this replica serves."""
        return frozenset(self._tables.owned)

    def _engine_for(self, game: str) -> GameRules[Any]:
        engine = self._engines.get(game)
        if engine is None:
            known = ", ".join(sorted(self._engines)) or "none"
            raise Malformed(f"unknown game {echo(game)}; this host runs: {known}")
        return engine

    def _table(self, table_id: str) -> HostedTable:
        return self._tables.get(table_id)
