"""The small interfaces the table host's service layer works through; the adapters
(`croupier.table.adapters`) and the kit's event bus implement them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.service.requests import MoneyRequest


class PartitionTaken(Exception):
    """An append found that another replica took the table's partition over (this one's
    group session expired unnoticed): the entries are not the table's (every replay skips
    them), and the replica lets the partition go."""


class PartitionOwner(Protocol):
    """What a command log tells the host as partitions (and so tables) come and go."""

    async def partitions_revoked(self, partitions: frozenset[int]) -> None:
        """Stop serving these partitions' tables (a rebalance is starting)."""
        ...

    async def partitions_assigned(
        self, partitions: frozenset[int], unchanged: frozenset[int]
    ) -> None:
        """Serve these partitions; those in `unchanged` were not written to since this
        replica last held them (its tables may be taken back as they were)."""
        ...


class CommandLog(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def append(self, entries: Sequence[LogEntry]) -> int:
        """Durably append one table's entries in order; returns only once the log
        acknowledged all of them (one round trip for a command and the deal it allows),
        with the log offset of the last one. Raises `PartitionTaken` when another replica
        took the partition over."""
        ...

    def partition_of(self, table_id: str) -> int:
        """The partition of the log that holds the table's entries."""
        ...

    def end_offset(self, partition: int) -> int:
        """The offset the partition's next record gets, as far as this replica knows (the
        end its last replay found, moved on by its own appends)."""
        ...

    async def own_partitions(self, owner: PartitionOwner) -> None:
        """Take part in sharing the log's partitions; returns once `owner` was given its
        first partitions (and told of every later change)."""
        ...

    def replay(
        self,
        partitions: Collection[int] | None = None,
        since: Mapping[int, int] | None = None,
        covered: Mapping[str, int] | None = None,
    ) -> AsyncIterator[ReplayedTable]:
        """Every table in `partitions` (default: all), each with its entries in order,
        read from offset `since[partition]` (default: the beginning); a table's records at
        offsets up to `covered[table_id]` (its snapshot has them) are skipped unread."""
        ...


@dataclass(frozen=True)
class StoredSnapshots:
    """What a snapshot store holds for some partitions."""

    tables: dict[str, bytes]
    """The latest snapshot of every table not forgotten."""
    watermarks: dict[int, int]
    """Per partition, the latest offset saved by `save_watermark` (none: no entry)."""


class SnapshotStore(Protocol):
    """Where the latest snapshot of each table is kept (`adapters.kafka_snapshots`: a
    compacted topic keyed by table id), so a rebuild replays only the log's tail."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def save(self, table_id: str, partition: int, data: bytes) -> None:
        """Keep `data` as the table's latest snapshot (`partition`: the table's command-log
        partition, which the store uses too)."""
        ...

    async def forget(self, table_id: str, partition: int) -> None:
        """Drop the table's snapshots (a retired closed table: `load` no longer gives it)."""
        ...

    async def save_watermark(self, partition: int, offset: int) -> None:
        """Keep `offset` as the partition's watermark: no table the partition still serves
        needs a record before it, and every table forgotten lies wholly before it."""
        ...

    async def load(self, partitions: Collection[int]) -> StoredSnapshots:
        """The latest snapshot of every table of `partitions`, and their watermarks."""
        ...


@dataclass(frozen=True)
class BuyIn:
    """Chips a player brings to a table, to be moved by the wallet before play."""

    transfer_id: str
    table_id: str
    game: str
    player: str
    currency: str
    amount: int


class Wallet(Protocol):
    """What a cash table needs of the wallet before it logs a command."""

    async def buy_in(self, buy_in: BuyIn) -> None:
        """Move the chips (idempotent by `transfer_id`). Raises `RuleBroken` when the wallet
        refuses (with its reason), `WalletUnavailable` when it cannot
        tell."""
        ...


class WalletRequests(Protocol):
    """What the host asks of the wallet once a command is logged (a hand's settlement,
    stacks given back, a voided table's refund); `adapters.wallet_requests` sends them on
    the bus."""

    async def send(self, requests: Sequence[MoneyRequest]) -> None:
        """Deliver the requests in order, or raise (the caller sends the same ones again:
        the wallet applies each once)."""
        ...


class Publisher(Protocol):
    """The host's outgoing bus; `croupier.kit.bus.EventBus` satisfies it."""

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None: ...


class Cancellable(Protocol):
    def cancel(self) -> None: ...


# Run a callback once this many milliseconds have passed on the host's clock.
CallLater = Callable[[int, Callable[[], None]], Cancellable]
