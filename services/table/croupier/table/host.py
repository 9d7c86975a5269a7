"""The table host's service layer: tables as command logs, with clocks and views.

For every command the host
1. checks it by applying it to the table's current state (`table_state.step`, pure);
   a rejected command is answered with its reason and never logged; on a cash table
   the wallet then moves the chips the command brings (`croupier.table.buyins`);
2. appends it to the command log, together with the next hand's deal when the command
   allows one, and waits for the log's acknowledgement;
3. only then makes the new state current, asks the wallet for what the command moved
   (settlement, stacks given back) before answering, queues the public events (published
   in the background, in order), wakes the players' view streams and re-arms the clock.

Commands of one table are serialised by the table's lock; a command whose caller goes
away (a cancelled call) while it is being logged fences the table like a failed append,
and its money requests are resent if cut off; tables run concurrently. Replicas share the
log's partitions (`kafka_log`): a replica rebuilds the tables of the partitions it is
given; a table that cannot be rebuilt is voided and a crash refund is requested from the
wallet.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar, cast

import structlog

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import (
    JSON,
    ClockSettings,
    Duplicate,
    EvaluatesAbandonment,
    GameRules,
    HoldsStacks,
    Malformed,
    RuleBroken,
    Unknown,
    implements,
)
from croupier.game.limits import check_amount, check_seconds, echo, json_int
from croupier.kit.bus.envelope import make_envelope
from croupier.kit.errors import Unavailable
from croupier.kit.seeds import new_seed
from croupier.table import history, metrics
from croupier.table.buyins import Buyins
from croupier.table.clocks import CallLater, Cancellable, loop_call_later, sleep_ms
from croupier.table.commandlog import CommandLog, LogEntry, ReplayedTable, url_uuid5
from croupier.table.history import initial_state
from croupier.table.sink import (
    EVENTS_TOPIC,
    WALLET_REQUESTS_TOPIC,
    Publisher,
    crash_refund_message,
    event_message,
    settlement_message,
)
from croupier.table.table_state import Settlement, StepOutcome, TableState, step

log = structlog.get_logger("croupier.table.host")
T = TypeVar("T")


RETRY_SECONDS = 1.0
# A command is answered within this long, or by its caller's deadline if sooner (less a
# tenth for the answer's way back), also when the command log does not answer: then
# with UNAVAILABLE, the table fenced until the append is confirmed, which is retried in
# the background (`_append`). Without it a caller waited out the producer's delivery
# timeout (40 s) while the broker was down, and every later caller queued behind it.
ANSWER_WITHIN_SECONDS = 5.0
# The events publisher lets a batch form for this long before each publish: one produce
# request carries many commands' events (a request per command cost the loop ~0.2 ms per
# command in the client's protocol code, and the broker its share). Events are not on
# the caller's path; money requests do not wait (`_ask_wallet`).
EVENTS_GATHER_SECONDS = 0.02
STOP_FLUSH_SECONDS = 5.0
ABANDON_ATTEMPTS = 3
ABANDON_RETRY_SECONDS = 5.0


def _checked(check: Callable[[], T]) -> T:
    """Run a pure check; input an engine could not even read is the caller's error.

    Engines raise `RuleBroken` for what the rules forbid; a malformed value slipping past
    their parsing (a number too large, a list where a word was expected) surfaces as one
    of these, which the state never saw, so the answer is INVALID_ARGUMENT, not INTERNAL;
    so is a value outside its documented bound (`croupier.game.limits`).
    """
    try:
        return check()
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as exc:
        raise Malformed(f"malformed input: {type(exc).__name__}") from exc


def _envelope(
    table_id: str, event_type: str, payload: Any, *, sequence: int, discriminator: str
) -> Envelope:
    """An envelope whose id is derived from its place in the table's log, so a message
    published again after a rebuild carries the same id and consumers drop the copy."""
    return make_envelope(
        type=event_type,
        source="table",
        subject=table_id,
        sequence=max(1, sequence),
        payload=payload,
        envelope_id=url_uuid5(f"{table_id}/{discriminator}"),
    )


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class TableVoided(RuleBroken):
    """The table could not be rebuilt; it was voided and a crash refund requested."""

    reason = "table_voided"


class LogUnavailable(Unavailable):
    """The command log refused a write: the command was not accepted (retry)."""


@dataclass(frozen=True)
class ViewSnapshot:
    """What one viewer is shown: never more than the engine's view for that viewer."""

    table_id: str
    version: int
    seated: tuple[str, ...]
    view: JSON
    turn_seconds_left: float
    closed: bool
    last_finished_hand: int
    disconnected: tuple[str, ...]
    auto_players: tuple[str, ...]


@dataclass
class _Table:
    engine: GameRules[Any]
    state: TableState
    # The table's log entries, encoded: history is read rarely (hand histories), and bytes
    # are not tracked by the cyclic garbage collector, whose full passes would otherwise
    # grow with every table's age and stall the event loop.
    log: list[bytes]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seen_commands: dict[str, int] = field(default_factory=dict)
    seats_taken: dict[str, int] = field(default_factory=dict)  # SeatPlayer commands per player
    watchers: dict[str, set[asyncio.Queue[ViewSnapshot | None]]] = field(default_factory=dict)
    disconnected_at_ms: dict[str, int] = field(default_factory=dict)
    timer: Cancellable | None = None
    # What the latest command that moved money asked of the wallet (a settlement, stacks
    # given back): asked again after a rebuild, in case the host died before it was sent.
    last_money_requests: list[tuple[str, Envelope]] = field(default_factory=list)
    # Entries whose append failed: they may be in the log, so nothing else is logged for
    # the table until they are appended again and committed.
    unconfirmed: list[LogEntry] = field(default_factory=list)
    # Money requests the bus refused, still to send in order, and the task resending them.
    money_backlog: list[tuple[str, Envelope]] = field(default_factory=list)
    resending: asyncio.Task[None] | None = None
    parked: bool = False  # its partition was revoked: no command until it is taken back


def clock_from_options(options: JSON) -> ClockSettings | None:
    """A table's clock as its game options state it, when they do.

    Also read for the API's `TableClock` (the same names). Each value is a whole number
    of seconds up to `croupier.game.limits.MAX_CLOCK_SECONDS`. Games name their clock
    fields alike: `turn_seconds` (poker: `decision_seconds`) for each decision,
    `reserve_seconds` (backgammon: `main_clock_seconds`, which runs only once the turn
    clock is at 0) for the time bank, `reconnect_seconds` for the window.
    """

    def seconds(*names: str) -> int:
        for name in names:
            value = options.get(name)
            if value in (None, "", 0, "0"):
                continue
            return _checked(partial(check_seconds, json_int(value), name)) * 1000
        return 0

    turn = seconds("turn_seconds", "decision_seconds")
    if not turn:
        return None
    return ClockSettings(
        turn_ms=turn,
        reserve_ms=seconds("reserve_seconds", "main_clock_seconds"),
        reconnect_ms=seconds("reconnect_seconds"),  # 0: the game's default
    )


class TableHost:
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
    ) -> None:
        self._engines = dict(engines)
        self._log = command_log
        self._publisher = publisher
        self._clock_defaults = dict(clock_defaults or {})
        self._now_ms = now_ms
        self._call_later = call_later
        self._seeds = seeds
        self._currency = currency
        self._buyins = buyins or Buyins(default_currency=currency)  # cash tables' wallet
        self._tables: dict[str, _Table] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._opening = asyncio.Lock()  # one table opening at a time: request keys stay unique
        self.voided: dict[str, str] = {}
        self._owned: set[int] = set()  # the command log's partitions this replica serves
        # During a rebalance: the partitions revoked, and their tables.
        self._parked_partitions: set[int] = set()
        self._parked: dict[str, _Table] = {}
        self._stopping = False
        # Committed commands whose public events are not published yet (every table, in
        # order), and the task publishing them.
        self._outgoing: list[tuple[_Table, LogEntry, StepOutcome]] = []
        self._publishing: asyncio.Task[None] | None = None

    # ---- lifecycle ------------------------------------------------------------------

    async def start(self) -> None:
        """Open the log and take this replica's partitions: their tables are rebuilt."""
        await self._log.start()
        await self._log.own_partitions(self)

    async def end_streams(self) -> None:
        """End every view stream (shutdown: clients reconnect to the table's next owner)."""
        for table in self._tables.values():
            self._end_streams(table)

    @staticmethod
    def _end_streams(table: _Table) -> None:
        for queues in table.watchers.values():
            for queue in queues:
                queue.put_nowait(None)

    async def stop(self) -> None:
        self._stopping = True
        try:
            await asyncio.wait_for(self.flush(), STOP_FLUSH_SECONDS)
        except TimeoutError:
            log.error(
                "unpublished table events or money requests at stop; the next owner asks "
                "again for each table's latest money requests only"
            )
        if self._publishing is not None:
            self._publishing.cancel()
        for table in [*self._tables.values(), *self._parked.values()]:
            if table.resending is not None:
                table.resending.cancel()
        for task in self._background:
            task.cancel()
        for table in self._tables.values():
            if table.timer is not None:
                table.timer.cancel()
        await self.end_streams()
        await self._log.stop()

    # ---- partition ownership (called by the command log) -----------------------------

    async def partitions_revoked(self, partitions: frozenset[int]) -> None:
        """A rebalance starts: stop serving these partitions' tables (after the command
        in flight, if any) and park them until the new assignment is known."""
        if self._stopping:
            return
        async with self._opening:  # a table being opened is in `_tables` or refused
            self._owned -= partitions
            self._parked_partitions |= partitions
            for table_id, table in list(self._tables.items()):
                if self._log.partition_of(table_id) in partitions:
                    async with table.lock:
                        del self._tables[table_id]
                        table.parked = True
                        if table.timer is not None:
                            table.timer.cancel()
                            table.timer = None
                        self._parked[table_id] = table

    async def partitions_assigned(
        self, partitions: frozenset[int], unchanged: frozenset[int]
    ) -> None:
        """Serve `partitions`: parked tables of unchanged partitions are taken back as they
        were; every other partition is rebuilt from the log. Parked tables of partitions
        that went elsewhere are let go (their streams end: clients reconnect)."""
        started = time.perf_counter()
        kept = unchanged & partitions & self._parked_partitions
        self._parked_partitions.clear()
        for table_id, table in list(self._parked.items()):
            del self._parked[table_id]
            if self._log.partition_of(table_id) in kept:
                table.parked = False
                self._tables[table_id] = table
                self._resume(table)
            else:
                self._release(table)
        rebuilt = partitions - kept - self._owned
        if rebuilt:
            asked_again: list[tuple[str, Envelope]] = []
            async for replayed in self._log.replay(rebuilt):
                await self._rebuild_table(replayed, asked_again)
            if asked_again:
                await self._publish_reliably(f"partitions {sorted(rebuilt)}", asked_again)
            metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
        self._owned |= partitions

    def _resume(self, table: _Table) -> None:
        """A table taken back: what waited while it was parked (a deal, a fence to lift,
        a clock, reconnection windows) starts again."""
        self._in_background(lambda: self._retry_after_commit(table))
        window = table.state.clocks.settings.reconnect_ms
        for player, since in list(table.disconnected_at_ms.items()):
            left = max(0, since + window - self._now_ms())
            self._in_background(partial(self._abandon_after, table, player, since, left))

    def _release(self, table: _Table) -> None:
        game = table.state.game
        if not table.state.closed:
            metrics.TABLES_OPEN.labels(game).dec()
            metrics.PLAYERS_SEATED.labels(game).dec(len(table.state.seated))
        self._end_streams(table)

    async def _rebuild_table(
        self, replayed: ReplayedTable, asked_again: list[tuple[str, Envelope]]
    ) -> None:
        table_id = replayed.table_id
        game = replayed.entries[0].body.get("game", "") if replayed.entries else ""
        try:
            if replayed.unreadable is not None:
                raise TableVoided(f"log entry unreadable: {replayed.unreadable}")
            table = self._replay(replayed.entries)
        except (RuleBroken, KeyError, ValueError, TypeError) as exc:
            reason = exc.message if isinstance(exc, RuleBroken) else str(exc)
            await self._void(table_id, str(game), reason)
            return
        self._tables[table_id] = table
        metrics.REPLAYS.labels(table.state.game).inc()
        if not table.state.closed:
            metrics.TABLES_OPEN.labels(table.state.game).inc()
            metrics.PLAYERS_SEATED.labels(table.state.game).inc(len(table.state.seated))
        # The host may have died between logging a hand's end (or a player's leaving) and
        # asking the wallet: ask again (the wallet applies each idempotency key once);
        # `partitions_assigned` sends what every rebuilt table asks in one go.
        asked_again += table.last_money_requests
        async with table.lock:
            await self._after_commit(table)

    def _replay(self, entries: list[LogEntry]) -> _Table:
        if not entries or entries[0].kind != "open":
            raise TableVoided("the log does not start with the table's opening")
        opening = entries[0]
        engine = self._engine_for(opening.engine)
        if opening.engine_version != engine.version:
            raise TableVoided(
                f"engine version mismatch: log {opening.engine_version}, host {engine.version}"
            )
        table = _Table(engine, initial_state(engine, opening), [opening.encoded])
        table.seen_commands[opening.command_id] = opening.index
        for entry in entries[1:]:
            outcome = step(engine, table.state, entry)
            self._commit(table, entry, outcome)
        return table

    async def _void(self, table_id: str, game: str, reason: str) -> None:
        log.error("table voided", table_id=table_id, game=game, reason=reason)
        self.voided[table_id] = reason
        metrics.CRASH_REFUNDS.labels(game or "unknown").inc()
        refund = _envelope(
            table_id,
            "wallet.crash_refund_requested",
            crash_refund_message(table_id, game, reason),
            sequence=1,
            discriminator="crash",
        )
        await self._publisher.publish_many([(WALLET_REQUESTS_TOPIC, refund)])

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
        command method takes it (`ANSWER_WITHIN_SECONDS`)."""
        deadline = self._deadline(within)
        await self._acquire(self._opening, deadline)
        try:
            return await self._open_table(game, options, clock, request_key, deadline)
        finally:
            self._opening.release()

    async def _open_table(
        self,
        game: str,
        options: JSON,
        clock: ClockSettings | None,
        request_key: str,
        deadline: float,
    ) -> str:
        engine = self._engine_for(game)
        table_id = self._new_table_id(request_key)
        if table_id in self._tables:
            return table_id
        default = (
            self._clock_defaults.get(game)
            or getattr(engine, "default_clock", None)
            or ClockSettings(turn_ms=30_000)
        )
        settings = clock or clock_from_options(options) or default
        # The table's currency is fixed in its opening record: the engine sees the one the
        # host will settle in (a Naiko table refuses a real one, rules 50 and 55), and a
        # later change of the host's default never changes an open table's currency.
        options = {**options, "currency": self._buyins.currency(options)}
        if not settings.reconnect_ms:
            settings = replace(settings, reconnect_ms=default.reconnect_ms)
        body = {
            "game": game,
            "options": options,
            "clock": {
                "turn_ms": settings.turn_ms,
                "reserve_ms": settings.reserve_ms,
                "reconnect_ms": settings.reconnect_ms,
            },
        }
        opening = LogEntry(
            table_id=table_id,
            index=1,
            command_id=f"open:{request_key or table_id}",
            kind="open",
            player="",
            body=body,
            at_ms=self._now_ms(),
            engine=engine.name,
            engine_version=engine.version,
        )
        table = _Table(engine, _checked(lambda: initial_state(engine, opening)), [opening.encoded])
        await self._append(table, [opening], deadline)
        table.seen_commands[opening.command_id] = 1
        self._tables[table_id] = table
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
        _checked(partial(check_amount, stack, "stack"))
        body: JSON = {"seat": seat, "stack": stack, "is_bot": is_bot}
        if invite_code:
            body["invite_code"] = invite_code
        command_id = f"seat:{player}:{uuid.uuid4()}"
        await self._submit(table, "seat", player, body, command_id=command_id, within=within)
        return self.view(table_id, player)

    async def unseat(self, table_id: str, player: str, within: float | None = None) -> None:
        table = self._table(table_id)
        self._require_seated(table, player)
        command_id = f"unseat:{uuid.uuid4()}"
        await self._submit(
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
        self._require_seated(table, player)
        await self._submit(
            table,
            "act",
            player,
            {"action": action},
            command_id=f"act:{player}:{command_id}",
            within=within,
        )
        self._present(table, player)  # his own accepted action: he is back
        return self.view(table_id, player)

    async def _money_in(self, table: _Table, entry: LogEntry) -> None:
        """Cash tables (`croupier.table.buyins`): the wallet moves the chips a seat or a
        top-up brings once the command passed its check (`_submit_locked`) and before it
        is logged; a refusal leaves the table unchanged. A player's n-th seat at a table
        is one buy-in whatever the command id, so a retried SeatPlayer moves the money once.

        Only engines that can say what each player leaves with (`HoldsStacks`, poker) buy
        chips in here: the host could not give the others' stacks back. Their tables keep
        the earlier model: whoever seats a player funds the seat in the wallet first (the
        lobby, a tournament), and the host asks only for settlements."""
        if not implements(table.engine, HoldsStacks):
            return
        state, kind, player = table.state, entry.kind, entry.player
        key = entry.command_id
        if kind == "seat":
            key = f"seat:{player}:{table.seats_taken.get(player, 0) + 1}"
        buy_in = self._buyins.buy_in_for(
            state.table_id, state.game, state.options, kind, player, entry.body, key
        )
        if buy_in is not None:
            await self._buyins.wallet.buy_in(buy_in)

    def _cash_outs(
        self, table: _Table, entry: LogEntry, outcome: StepOutcome
    ) -> list[tuple[str, Envelope]]:
        """Cash tables: the stacks of players who left (or sat at a table that closed),
        paid back after the settlement."""
        state = outcome.state
        stacks = (
            cast(HoldsStacks, table.engine).stacks
            if implements(table.engine, HoldsStacks)
            else None
        )
        return self._buyins.cash_outs(
            state.table_id,
            state.game,
            state.options,
            entry.index,
            outcome.events,
            stacks(state.engine_state) if stacks is not None and state.closed else None,
        )

    async def close(self, table_id: str, within: float | None = None) -> None:
        """Close now, or after the hand in play has settled (no new hand is dealt)."""
        table = self._table(table_id)
        await self._submit(table, "close", "", {}, command_id=f"close:{table_id}", within=within)

    async def _submit(
        self,
        table: _Table,
        kind: str,
        player: str,
        body: JSON,
        *,
        command_id: str,
        evaluate: bool = False,
        within: float | None = None,
    ) -> bool:
        """Check, log, commit, publish. False when `command_id` was applied before.

        `evaluate`: ask the engine's outside evaluator first (under the table's lock, so
        the evaluated position is the one the command applies to) and log its answer.
        Waiting for the table's lock and for the log ends by the deadline (`within`).
        """
        accepted = time.perf_counter()
        deadline = self._deadline(within)
        await self._acquire(table.lock, deadline)
        try:
            if table.parked:
                raise self._elsewhere(table.state.table_id)
            await self._confirm_unconfirmed(table, deadline)
            if command_id in table.seen_commands:
                if not evaluate:  # an evaluated command's logged body has the evaluation too
                    self._require_same_command(table, command_id, body)
                return False
            if evaluate:
                body = {**body, **await self._evaluation(table, player)}
            await self._submit_locked(table, kind, player, body, command_id, deadline)
            await self._after_commit(table, deadline)
        finally:
            table.lock.release()
        metrics.ACTION_LATENCY.labels(table.state.game, "answered").observe(
            time.perf_counter() - accepted
        )
        return True

    def _deadline(self, within: float | None = None) -> float:
        """The loop time by which a command is answered (`ANSWER_WITHIN_SECONDS`)."""
        limit = ANSWER_WITHIN_SECONDS if within is None else min(ANSWER_WITHIN_SECONDS, within)
        return asyncio.get_running_loop().time() + limit

    @staticmethod
    async def _acquire(lock: asyncio.Lock, deadline: float) -> None:
        """Take `lock` by `deadline`: it is held for as long as the command before waits
        for the log, which may not answer (the caller hears UNAVAILABLE, not nothing)."""
        try:
            async with asyncio.timeout_at(deadline):
                await lock.acquire()
        except TimeoutError as exc:
            raise LogUnavailable(
                "the table is waiting for its command log to confirm an earlier command; "
                "retry with the same command id"
            ) from exc

    @staticmethod
    def _require_same_command(table: _Table, command_id: str, body: JSON) -> None:
        """A repeated command id must repeat its command: one that carries something else
        is refused (ALREADY_EXISTS), naming what differs, instead of a silent OK."""
        index = table.seen_commands[command_id]
        logged = LogEntry.from_envelope_bytes(table.log[index - 1]).body
        if logged == body:
            return
        if isinstance(logged.get("action"), dict) and isinstance(body.get("action"), dict):
            logged, body = logged["action"], body["action"]
        differs = sorted(k for k in logged.keys() | body.keys() if logged.get(k) != body.get(k))
        raise Duplicate(
            f"command_id {echo(command_id.split(':', 2)[-1])} was used for another command "
            f"(differs in {echo(', '.join(differs))}): use a new command_id for a new command",
        )

    def _entry(
        self, table: _Table, index: int, kind: str, player: str, body: JSON, command_id: str
    ) -> LogEntry:
        return LogEntry(
            table_id=table.state.table_id,
            index=index,
            command_id=command_id,
            kind=kind,
            player=player,
            body=body,
            at_ms=self._now_ms(),
            engine=table.engine.name,
            engine_version=table.engine.version,
        )

    async def _submit_locked(
        self, table: _Table, kind: str, player: str, body: JSON, command_id: str, deadline: float
    ) -> None:
        """Check the command, then log it together with the deal it allows, if any.

        A command that ends a hand is logged in the same append as the next hand's deal:
        one round trip to the log instead of two before the caller is answered.
        """
        accepted = time.perf_counter()
        await self._confirm_unconfirmed(table, deadline)
        entry = self._entry(table, table.state.index + 1, kind, player, body, command_id)
        outcome = _checked(lambda: step(table.engine, table.state, entry))  # nothing logged
        await self._money_in(table, entry)
        batch = [(entry, outcome)]
        deal = self._deal_after(table, outcome.state)
        if deal is not None:
            batch.append(deal)
        await self._log_and_commit(table, batch, deadline)
        metrics.ACTION_LATENCY.labels(table.state.game, "logged").observe(
            time.perf_counter() - accepted
        )

    async def _log_and_commit(
        self, table: _Table, batch: list[tuple[LogEntry, StepOutcome]], deadline: float
    ) -> None:
        await self._append(table, [entry for entry, _ in batch], deadline)
        money_requests = []
        for entry, outcome in batch:
            game = table.state.game
            if outcome.state.closed and not table.state.closed:
                metrics.TABLES_OPEN.labels(game).dec()
            # Players at open tables: a close lets them all go.
            seated_before = 0 if table.state.closed else len(table.state.seated)
            seated_after = 0 if outcome.state.closed else len(outcome.state.seated)
            metrics.PLAYERS_SEATED.labels(game).inc(seated_after - seated_before)
            money_requests += self._commit(table, entry, outcome)
            if outcome.events:
                self._publish(table, entry, outcome)
        if money_requests:
            await self._ask_wallet(table, money_requests, deadline)

    def _deal_after(self, table: _Table, state: TableState) -> tuple[LogEntry, StepOutcome] | None:
        """The next hand's deal, when `state` allows one to start."""
        if state.closed or state.closing or not table.engine.can_start_hand(state.engine_state):
            return None
        entry = self._entry(
            table,
            state.index + 1,
            "start_hand",
            "",
            {"seed": self._seeds().hex()},
            f"start_hand:{state.hand_number + 1}",
        )
        try:
            return entry, step(table.engine, state, entry)
        except RuleBroken as exc:
            log.error("next hand not dealt", table_id=state.table_id, error=exc.message)
            return None

    async def _append(self, table: _Table, entries: list[LogEntry], deadline: float) -> None:
        """Log `entries`; when the log fails, the table is fenced until they are confirmed.

        A failed append is ambiguous: the log may hold the entries although it did not
        acknowledge them, and a replay would then apply them. So nothing else is logged
        for this table until the same entries (same ids, same indexes: a replay keeps one
        copy) are appended again and committed (`_confirm_unconfirmed`). An append not
        acknowledged by `deadline` fails so: while the broker is away, the producer still
        holds the records (up to its delivery timeout) and each retry queues them again;
        when it is back they may be stored more than once, and a replay keeps one copy.
        """
        if table.state.table_id in self.voided:
            raise TableVoided("this table was voided and refunded")
        try:
            async with asyncio.timeout_at(deadline):
                await self._log.append(entries)
        except BaseException as exc:
            # Also when the caller went away (a cancelled call, a deadline): the entries
            # may be stored all the same.
            table.unconfirmed = entries
            if not self._stopping:  # lift the fence as soon as the log answers, command or not
                self._later(RETRY_SECONDS, lambda: self._retry_after_commit(table))
            if not isinstance(exc, Exception):
                raise
            log.error("command log append failed", table_id=table.state.table_id, error=str(exc))
            raise LogUnavailable(
                "the table's command log did not confirm the write; retry with the same command id"
            ) from exc

    async def _confirm_unconfirmed(self, table: _Table, deadline: float) -> None:
        """Lift the fence of an ambiguous append: log its entries again, then commit them."""
        entries, table.unconfirmed = table.unconfirmed, []
        if not entries:
            return
        batch = [(entry, step(table.engine, table.state, entry)) for entry in entries[:1]]
        for entry in entries[1:]:  # checked before, on the same states
            batch.append((entry, step(table.engine, batch[-1][1].state, entry)))
        await self._log_and_commit(table, batch, deadline)  # fails again: fenced again
        log.info("ambiguous append confirmed", table_id=table.state.table_id, entries=len(entries))
        self._notify(table)
        self._arm_clock(table)

    def _commit(
        self, table: _Table, entry: LogEntry, outcome: StepOutcome
    ) -> list[tuple[str, Envelope]]:
        """Make the entry's outcome the table's state; returns what it asks of the wallet."""
        table.state = outcome.state
        table.log.append(entry.encoded)
        if entry.kind == "seat":
            table.seats_taken[entry.player] = table.seats_taken.get(entry.player, 0) + 1
        if entry.kind in ("seat", "unseat"):  # a new seat, or gone: no longer away
            table.disconnected_at_ms.pop(entry.player, None)
        table.seen_commands[entry.command_id] = entry.index
        money_requests = self._cash_outs(table, entry, outcome)
        if outcome.settlement is not None and self._buyins.settles(table.state.options):
            money_requests.insert(0, self._settlement_request(table, outcome.settlement))
        if money_requests:
            table.last_money_requests = money_requests
        return money_requests

    async def _after_commit(self, table: _Table, deadline: float | None = None) -> None:
        """Deal the next hand if one can still start, wake the views, re-arm the clock.

        A command's own deal went out with it (`_submit_locked`); this deals after a
        rebuild, when that deal was refused, or once a fence is lifted. It runs after a
        commit, so a deal the log refused does not fail the caller: it is tried again
        shortly (under the table's lock, like any command).
        """
        state = table.state
        deadline = self._deadline() if deadline is None else deadline
        try:
            await self._confirm_unconfirmed(table, deadline)
            deal = self._deal_after(table, table.state)
            if deal is not None:
                await self._log_and_commit(table, [deal], deadline)
        except (LogUnavailable, RuleBroken) as exc:
            log.error("next hand not dealt; retrying", table_id=state.table_id, error=str(exc))
            self._later(RETRY_SECONDS, lambda: self._retry_after_commit(table))
        finally:
            self._notify(table)
            self._arm_clock(table)

    async def _retry_after_commit(self, table: _Table) -> None:
        async with table.lock:
            if not table.parked:
                await self._after_commit(table)

    def _later(self, delay: float, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `work()` in the background after `delay` seconds (cancelled at stop)."""

        async def run() -> None:
            await asyncio.sleep(delay)
            await work()

        self._in_background(run)

    # ---- publishing -----------------------------------------------------------------

    def _public_events(
        self, table: _Table, entry: LogEntry, outcome: StepOutcome
    ) -> list[tuple[str, Envelope]]:
        """The command's public events, with ids derived from the entry's place in the log."""
        table_id = table.state.table_id
        return [
            (
                EVENTS_TOPIC,
                _envelope(
                    table_id,
                    f"table.{event.type}",
                    event_message(table_id, table.state.game, event),
                    sequence=entry.index,
                    discriminator=f"{entry.index}/{position}",
                ),
            )
            for position, event in enumerate(outcome.events)
        ]

    async def _publish_reliably(self, table_id: str, messages: list[tuple[str, Envelope]]) -> None:
        """Send what rebuilt tables ask the wallet again (their latest money requests);
        retried in the background on a bus failure."""
        try:
            await self._publisher.publish_many(messages)
        except Exception as exc:  # noqa: BLE001 - any bus failure is retried
            log.error("settlement request failed; retrying", table_id=table_id, error=str(exc))
            self._later(RETRY_SECONDS, lambda: self._publish_reliably(table_id, messages))

    def _publish(self, table: _Table, entry: LogEntry, outcome: StepOutcome) -> None:
        """Publish a committed command's public events in order, without making the caller
        wait: the command stands whatever happens on the bus. One task drains the queue
        of every table (what piles up meanwhile, for at least EVENTS_GATHER_SECONDS, goes
        out in one batch, built after the callers were answered) and retries a failed
        send (ids are stable: consumers drop copies). Events still queued when a host dies
        are lost; the command log is not, and money requests go out before the caller is
        answered (`_ask_wallet`)."""
        self._outgoing.append((table, entry, outcome))
        if self._publishing is None or self._publishing.done():
            self._publishing = asyncio.create_task(self._drain_outgoing())

    async def _drain_outgoing(self) -> None:
        while self._outgoing:
            if not self._stopping:
                await asyncio.sleep(EVENTS_GATHER_SECONDS)
            batch = list(self._outgoing)
            messages = [m for t, e, o in batch for m in self._public_events(t, e, o)]
            try:
                await self._publisher.publish_many(messages)
            except Exception as exc:  # noqa: BLE001 - any bus failure is retried
                log.error("table events not published; retrying", error=str(exc))
                await asyncio.sleep(RETRY_SECONDS)
                continue
            del self._outgoing[: len(batch)]

    async def flush(self) -> None:
        """Wait until everything committed so far has been published."""
        tables = [*self._tables.values(), *self._parked.values()]
        pending = [t.resending for t in tables if t.resending is not None]
        if self._publishing is not None:
            pending.append(self._publishing)
        await asyncio.gather(*pending)

    async def _ask_wallet(
        self, table: _Table, messages: list[tuple[str, Envelope]], deadline: float
    ) -> None:
        """Send a command's money requests (settlement, stacks given back) before its caller
        is answered, in the table's order: while earlier ones wait for the bus, these queue
        behind them (a cash-out overtaking the settlement it depends on would be refused).
        A bus failure, or no answer by `deadline`, does not fail the caller: the command
        stands; the backlog is resent in the background (the wallet applies each
        idempotency key once)."""
        if table.money_backlog:
            table.money_backlog.extend(messages)
            return
        try:
            async with asyncio.timeout_at(deadline):
                await self._publisher.publish_many(messages)
        except BaseException as exc:  # any bus failure, or the caller gone: resent in order
            table.money_backlog = list(messages)
            if not self._stopping:
                table.resending = asyncio.create_task(self._resend_money(table))
            if not isinstance(exc, Exception):
                raise
            log.error(
                "money requests not sent; retrying", table_id=table.state.table_id, error=str(exc)
            )

    async def _resend_money(self, table: _Table) -> None:
        while table.money_backlog:
            await asyncio.sleep(RETRY_SECONDS)
            batch = list(table.money_backlog)
            try:
                await self._publisher.publish_many(batch)
            except Exception as exc:  # noqa: BLE001 - any bus failure is retried
                log.error(
                    "money requests not sent; retrying",
                    table_id=table.state.table_id,
                    error=str(exc),
                )
                continue
            del table.money_backlog[: len(batch)]

    def _settlement_request(self, table: _Table, settlement: Settlement) -> tuple[str, Envelope]:
        table_id = table.state.table_id
        currency = settlement.result.currency or str(
            table.state.options.get("currency", self._currency)
        )
        return (
            WALLET_REQUESTS_TOPIC,
            _envelope(
                table_id,
                "wallet.settlement_requested",
                settlement_message(table_id, table.state.game, currency, settlement),
                sequence=settlement.hand_number,
                discriminator=f"settlement/{settlement.hand_number}",
            ),
        )

    # ---- clocks ---------------------------------------------------------------------

    def _arm_clock(self, table: _Table) -> None:
        """Set the table's one timer to its next clock expiry. A timer handle, not a task:
        almost every command moves the deadline, and a handle is cheap to drop."""
        if table.timer is not None:
            table.timer.cancel()
        table.timer = None
        expiry = None if table.state.closed else table.state.clocks.next_expiry()
        if expiry is not None:
            deadline_ms, player = expiry
            table.timer = self._call_later(
                max(0, deadline_ms - self._now_ms()),
                partial(self._in_background, lambda: self._expire_at(table, deadline_ms, player)),
            )

    def _in_background(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        task = asyncio.create_task(work())
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("table host background work failed", error=repr(error))

    async def _expire_at(self, table: _Table, deadline_ms: int, player: str) -> None:
        await sleep_ms(self._call_later, max(0, deadline_ms - self._now_ms()))
        # The loop's timers run on the monotonic clock, the command is stamped with the wall
        # clock; the first can wake a millisecond before the second reads the deadline, and
        # a timeout is never stamped before it (CI saw 499 ms for a 500 ms clock).
        if (early_ms := deadline_ms - self._now_ms()) > 0:
            await sleep_ms(self._call_later, early_ms + 1)
        async with table.lock:
            if table.parked:
                return  # the clock is re-armed when the table is taken back
            answer_by = self._deadline()
            try:
                await self._confirm_unconfirmed(table, answer_by)
            except LogUnavailable:
                self._later(RETRY_SECONDS, lambda: self._expire_at(table, deadline_ms, player))
                return
            if table.state.clocks.deadline_ms(player) != deadline_ms:
                return  # the player acted meanwhile
            # A deterministic command id: the same expiry is applied once, also when a
            # rebuilt host re-arms the clock of a timeout that was already logged.
            command_id = f"timeout:{table.state.index}:{player}"
            if command_id in table.seen_commands:
                return
            try:
                await self._submit_locked(table, "timeout", player, {}, command_id, answer_by)
            except (RuleBroken, LogUnavailable) as exc:
                # Try again shortly: a clock that gave up would leave the table waiting.
                log.error("timeout not applied", table_id=table.state.table_id, error=str(exc))
                self._later(RETRY_SECONDS, lambda: self._expire_at(table, deadline_ms, player))
                return
            metrics.TIMEOUTS_APPLIED.labels(table.state.game).inc()
            await self._after_commit(table, answer_by)

    # ---- views ----------------------------------------------------------------------

    def view(self, table_id: str, player: str) -> ViewSnapshot:
        return self._snapshot(self._table(table_id), player)

    def _snapshot(self, table: _Table, player: str) -> ViewSnapshot:
        state = table.state
        if player and player in state.seated:
            view = table.engine.view(state.engine_state, player)
        else:
            view = table.engine.public_view(state.engine_state)
        deadline = state.clocks.deadline_ms(player) if player else None
        left = max(0.0, (deadline - self._now_ms()) / 1000) if deadline is not None else 0.0
        return ViewSnapshot(
            state.table_id,
            state.index,
            state.seated,
            view,
            left,
            state.closed,
            state.settled_hand,
            tuple(sorted(table.disconnected_at_ms)),
            tuple(sorted(state.clocks.auto_players)),
        )

    async def watch(self, table_id: str, player: str) -> AsyncIterator[ViewSnapshot]:
        """The viewer's view now, then after every change, until the table closes."""
        table = self._table(table_id)
        queue: asyncio.Queue[ViewSnapshot | None] = asyncio.Queue()
        table.watchers.setdefault(player, set()).add(queue)
        try:
            first = self._snapshot(table, player)
            yield first
            if first.closed:
                return
            while (snapshot := await queue.get()) is not None:
                yield snapshot
                if snapshot.closed:
                    return
        finally:
            # Opening or closing a stream says nothing of presence: anybody may watch as
            # any player (a spectator, a second tab); presence is `disconnect`/`reconnect`.
            table.watchers[player].discard(queue)

    def disconnect(self, table_id: str, player: str) -> None:
        """The seated player's session ended (his own call: with a gateway, the gateway's
        for the authenticated player whose connection dropped). The seat is kept for the
        reconnection window, the clock running meanwhile; then the game decides what
        leaving means (the engine's `UnseatPlayer`: a fold and sit-out, a forfeit, or a
        refusal when the game cannot lose a player, whose turns are then played by the
        clock). A second call keeps the first window."""
        table = self._table(table_id)
        self._require_seated(table, player)
        if player in table.disconnected_at_ms:
            return
        since = self._now_ms()
        table.disconnected_at_ms[player] = since
        self._notify(table)
        window = table.state.clocks.settings.reconnect_ms
        self._in_background(lambda: self._abandon_after(table, player, since, window))

    async def _abandon_after(self, table: _Table, player: str, since: int, window: int) -> None:
        await sleep_ms(self._call_later, window)
        for attempt in range(ABANDON_ATTEMPTS):
            if table.disconnected_at_ms.get(player) != since or player not in table.state.seated:
                return  # back in time, or already gone
            if table.parked:
                return  # the next owner keeps its own reconnection window
            try:
                await self._submit(
                    table,
                    "unseat",
                    player,
                    {},
                    command_id=f"abandon:{player}:{since}",
                    evaluate=True,
                )
            except TableVoided:
                return
            except (RuleBroken, LogUnavailable) as exc:
                # The game may refuse for good (a Joker game cannot lose a player) or for
                # now (the evaluator or the log is down): try again a few times.
                log.info(
                    "abandoned seat kept",
                    table_id=table.state.table_id,
                    attempt=attempt + 1,
                    reason=str(exc),
                )
                await asyncio.sleep(ABANDON_RETRY_SECONDS * (attempt + 1))
                continue
            return

    @staticmethod
    async def _evaluation(table: _Table, player: str) -> JSON:
        """The engine's outside evaluation of `player` leaving now, if it needs one."""
        if not isinstance(table.engine, EvaluatesAbandonment):
            return {}
        evaluation = await table.engine.evaluate_abandonment(table.state.engine_state, player)
        return {} if evaluation is None else {"evaluation": evaluation}

    async def reconnect(self, table_id: str, player: str) -> ViewSnapshot:
        """The player is back (his own call): the reconnection window stops."""
        table = self._table(table_id)
        self._require_seated(table, player)
        self._present(table, player)
        return self._snapshot(table, player)

    def _present(self, table: _Table, player: str) -> None:
        if table.disconnected_at_ms.pop(player, None) is not None:
            self._notify(table)

    def is_disconnected(self, table_id: str, player: str) -> bool:
        return player in self._table(table_id).disconnected_at_ms

    def _notify(self, table: _Table) -> None:
        for player, queues in table.watchers.items():
            if queues:
                snapshot = self._snapshot(table, player)
                for queue in queues:
                    queue.put_nowait(snapshot)

    # ---- hand histories -------------------------------------------------------------

    def hand_history(self, table_id: str, hand_number: int) -> JSON:
        """Everything needed to re-derive and replay a finished hand (`croupier verify`)."""
        table = self._table(table_id)
        entries = [LogEntry.from_envelope_bytes(encoded) for encoded in table.log]
        return history.build(table.engine, entries, hand_number)

    # ---- helpers --------------------------------------------------------------------

    def digest(self, table_id: str) -> str:
        table = self._table(table_id)
        return table.state.digest(table.engine)

    def clock_settings(self, table_id: str) -> ClockSettings:
        return self._table(table_id).state.clocks.settings

    def engine_of(self, table_id: str) -> GameRules[Any]:
        return self._table(table_id).engine

    def table_ids(self) -> list[str]:
        return sorted(self._tables)

    @property
    def partitions(self) -> frozenset[int]:
        """The command log's partitions this replica serves."""
        return frozenset(self._owned)

    def _engine_for(self, game: str) -> GameRules[Any]:
        engine = self._engines.get(game)
        if engine is None:
            known = ", ".join(sorted(self._engines)) or "none"
            raise Malformed(f"unknown game {echo(game)}; this host runs: {known}")
        return engine

    def _table(self, table_id: str) -> _Table:
        table = self._tables.get(table_id)
        if table is None:
            if table_id in self.voided:
                raise TableVoided(
                    f"table {table_id} was voided and refunded: {self.voided[table_id]}"
                )
            if self._log.partition_of(table_id) not in self._owned:
                raise self._elsewhere(table_id)
            raise Unknown(f"no table with id {echo(table_id)}")
        return table

    def _elsewhere(self, table_id: str) -> Unavailable:
        partition = self._log.partition_of(table_id)
        return Unavailable(
            f"table {table_id} is not served by this table host replica (command-log "
            f"partition {partition}); another replica serves it, or will after a rebalance: "
            "retry"
        )

    def _new_table_id(self, request_key: str) -> str:
        """A table id in a partition this replica serves (a request key fixes the id)."""
        if request_key:
            table_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-table/{request_key}"))
            if self._log.partition_of(table_id) not in self._owned:
                raise self._elsewhere(table_id)
            return table_id
        if not self._owned:
            raise Unavailable("this table host replica serves no partition at the moment; retry")
        while self._log.partition_of(table_id := str(uuid.uuid4())) not in self._owned:
            pass
        return table_id

    @staticmethod
    def _require_seated(table: _Table, player: str) -> None:
        if player not in table.state.seated:
            raise Unknown(f"player {echo(player)} is not seated at this table")
