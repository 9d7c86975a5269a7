"""The tables a host serves: each table's live record, and the registry that finds them."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from croupier.game import JSON, ClockSettings, GameRules, RuleBroken, Unknown
from croupier.game.limits import check_seconds, echo, json_int
from croupier.kit.errors import Unavailable
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import TableState
from croupier.table.ports import Cancellable, CommandLog
from croupier.table.service.requests import MoneyRequest


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
    hand_number: int  # the latest hand dealt, 0 = none yet
    hand_seed_sha256: str  # its commitment ("" = none yet): public from the deal on


@dataclass
class HostedTable:
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
    timer: Cancellable | None = None
    # What the latest command that moved money asked of the wallet (a settlement, stacks
    # given back): asked again after a rebuild, in case the host died before it was sent.
    last_money_requests: list[MoneyRequest] = field(default_factory=list)
    # Entries whose append failed: they may be in the log, so nothing else is logged for
    # the table until they are appended again and committed.
    unconfirmed: list[LogEntry] = field(default_factory=list)
    # Money requests the bus refused, still to send in order, and the task resending them.
    money_backlog: list[MoneyRequest] = field(default_factory=list)
    resending: asyncio.Task[None] | None = None
    parked: bool = False  # its partition was revoked: no command until it is taken back
    log_start: int = 1  # the index of `log[0]`: after a snapshot, later than the opening
    # Command-log offsets: of the table's latest committed entry, and the one up to which
    # its latest snapshot holds the partition (`service.snapshots`); -1: none.
    last_offset: int = -1
    covered_offset: int = -1
    stored_offset: int = -1  # the same, of the latest snapshot the store acknowledged
    snapshot_index: int = 0  # the table index the latest snapshot holds (0: none yet)
    closed_seen_ms: int | None = None  # when the snapshot sweep first saw it closed

    @property
    def disconnected_at_ms(self) -> dict[str, int]:
        """Seated players away, with when their reconnection window opened (logged)."""
        return dict(self.state.disconnected)


def require_seated(table: HostedTable, player: str) -> None:
    if player not in table.state.seated:
        raise Unknown(f"player {echo(player)} is not seated at this table")


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
            return check_seconds(json_int(value), name) * 1000
        return 0

    turn = seconds("turn_seconds", "decision_seconds")
    if not turn:
        return None
    return ClockSettings(
        turn_ms=turn,
        reserve_ms=seconds("reserve_seconds", "main_clock_seconds"),
        reconnect_ms=seconds("reconnect_seconds"),  # 0: the game's default
    )


class Tables:
    """The tables this replica serves, those parked during a rebalance, the voided ones,
    and the command log's partitions it owns."""

    def __init__(self, command_log: CommandLog) -> None:
        self._log = command_log
        self.serving: dict[str, HostedTable] = {}
        self.voided: dict[str, str] = {}
        self.owned: set[int] = set()  # the command log's partitions this replica serves
        # During a rebalance: the partitions revoked, and their tables.
        self.parked_partitions: set[int] = set()
        self.parked: dict[str, HostedTable] = {}
        self.opening = asyncio.Lock()  # one table opening at a time: request keys stay unique

    def all(self) -> list[HostedTable]:
        """Served and parked tables."""
        return [*self.serving.values(), *self.parked.values()]

    def get(self, table_id: str) -> HostedTable:
        table = self.serving.get(table_id)
        if table is None:
            if table_id in self.voided:
                raise TableVoided(
                    f"table {table_id} was voided and refunded: {self.voided[table_id]}"
                )
            if self._log.partition_of(table_id) not in self.owned:
                raise self.elsewhere(table_id)
            raise Unknown(f"no table with id {echo(table_id)}")
        return table

    def elsewhere(self, table_id: str) -> Unavailable:
        partition = self._log.partition_of(table_id)
        return Unavailable(
            f"table {table_id} is not served by this table host replica (command-log "
            f"partition {partition}); another replica serves it, or will after a rebalance: "
            "retry"
        )

    def new_table_id(self, request_key: str) -> str:
        """A table id in a partition this replica serves (a request key fixes the id)."""
        if request_key:
            table_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-table/{request_key}"))
            if self._log.partition_of(table_id) not in self.owned:
                raise self.elsewhere(table_id)
            return table_id
        if not self.owned:
            raise Unavailable("this table host replica serves no partition at the moment; retry")
        while self._log.partition_of(table_id := str(uuid.uuid4())) not in self.owned:
            pass
        return table_id
