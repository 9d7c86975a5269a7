"""The table command log: the durable, ordered record a table is rebuilt from.

Every command a table accepted (seats, actions, timer expiries, the seed of each new
hand) is appended *before* the caller is answered. State = fold of the log, so a
replica that loses its memory rebuilds every table by replaying the log in order.

Two adapters share one small interface:
- `KafkaCommandLog`: topic `croupier.table.commands`, key = table id (one partition per
  table keeps its order), idempotent producer with `acks=all`, each entry an
  `Envelope` carrying a `TableCommand`;
- `InMemoryCommandLog`: the embedded dev mode and fast unit tests.
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf import any_pb2, timestamp_pb2
from google.protobuf.message import DecodeError

from croupier.events.v1 import envelope_pb2
from croupier.table.v1 import table_pb2

TOPIC = "croupier.table.commands"
ENVELOPE_TYPE = "table.command_accepted"
COMMAND_TYPE_URL = "type.googleapis.com/" + table_pb2.TableCommand.DESCRIPTOR.full_name
_URL_NAMESPACE = uuid.NAMESPACE_URL.bytes
_SORTED_COMPACT_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode


def url_uuid5(name: str) -> str:
    """`str(uuid.uuid5(uuid.NAMESPACE_URL, name))` in a quarter of the time (no UUID
    object on the way): ids derived from a place in a table's log."""
    digest = bytearray(hashlib.sha1(_URL_NAMESPACE + name.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class UnreadableLog(Exception):
    """A log entry that cannot be decoded: the table it belongs to cannot be rebuilt."""


@dataclass(frozen=True)
class LogEntry:
    """One accepted command, as stored.

    `kind` is "open" | "seat" | "unseat" | "start_hand" | "act" | "timeout" | "close".
    `body` is JSON: the options for "open", the action for "act", the seed (hex) for
    "start_hand", the seat and stack for "seat".
    """

    table_id: str
    index: int
    command_id: str
    kind: str
    player: str
    body: dict[str, Any]
    at_ms: int
    engine: str
    engine_version: str

    @functools.cached_property
    def encoded(self) -> bytes:
        """The entry as stored: computed once, for the log and for the host's copy."""
        return self.to_envelope().SerializeToString()

    def to_envelope(self) -> envelope_pb2.Envelope:
        command = table_pb2.TableCommand(
            table_id=self.table_id,
            index=self.index,
            command_id=self.command_id,
            kind=self.kind,
            player_id=self.player,
            body_json=_SORTED_COMPACT_JSON(self.body),
            at_ms=self.at_ms,
            engine=self.engine,
            engine_version=self.engine_version,
        )
        # What `Any.Pack` and `Timestamp.FromMilliseconds` make, built directly.
        seconds, millis = divmod(self.at_ms, 1000)
        return envelope_pb2.Envelope(
            id=url_uuid5(f"{self.table_id}/{self.index}"),
            type=ENVELOPE_TYPE,
            source="table",
            subject=self.table_id,
            sequence=self.index,
            time=timestamp_pb2.Timestamp(seconds=seconds, nanos=millis * 1_000_000),
            payload=any_pb2.Any(type_url=COMMAND_TYPE_URL, value=command.SerializeToString()),
        )

    @staticmethod
    def from_envelope_bytes(data: bytes) -> LogEntry:
        try:
            envelope = envelope_pb2.Envelope.FromString(data)
            command = table_pb2.TableCommand()
            if envelope.type != ENVELOPE_TYPE or not envelope.payload.Unpack(command):
                raise UnreadableLog(f"unexpected envelope type {envelope.type!r}")
            body = json.loads(command.body_json)
        except (DecodeError, ValueError, TypeError) as exc:
            raise UnreadableLog(str(exc)) from exc
        if not isinstance(body, dict):
            raise UnreadableLog("command body is not a JSON object")
        return LogEntry(
            table_id=command.table_id,
            index=command.index,
            command_id=command.command_id,
            kind=command.kind,
            player=command.player_id,
            body=body,
            at_ms=command.at_ms,
            engine=command.engine,
            engine_version=command.engine_version,
        )


@dataclass(frozen=True)
class ReplayedTable:
    """Every entry of one table, or the reason it could not be read."""

    table_id: str
    entries: list[LogEntry]
    unreadable: str | None = None


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

    async def append(self, entries: Sequence[LogEntry]) -> None:
        """Durably append one table's entries in order; returns only once the log
        acknowledged all of them (one round trip for a command and the deal it allows)."""
        ...

    def partition_of(self, table_id: str) -> int:
        """The partition of the log that holds the table's entries."""
        ...

    async def own_partitions(self, owner: PartitionOwner) -> None:
        """Take part in sharing the log's partitions; returns once `owner` was given its
        first partitions (and told of every later change)."""
        ...

    def replay(self, partitions: Collection[int] | None = None) -> AsyncIterator[ReplayedTable]:
        """Every table in `partitions` (default: all), each with its entries in order."""
        ...


class InMemoryCommandLog:
    """The log kept in process memory (embedded mode, unit tests). Survives host restarts
    within the process, which is enough to test rebuilding."""

    def __init__(self) -> None:
        self._entries: dict[str, list[bytes]] = defaultdict(list)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def append(self, entries: Sequence[LogEntry]) -> None:
        for entry in entries:
            self._entries[entry.table_id].append(entry.encoded)

    def append_raw(self, table_id: str, data: bytes) -> None:
        """Store bytes as they are (tests use it to simulate a corrupted entry)."""
        self._entries[table_id].append(data)

    def partition_of(self, table_id: str) -> int:
        return 0

    async def own_partitions(self, owner: PartitionOwner) -> None:
        await owner.partitions_assigned(frozenset({0}), frozenset())

    async def replay(
        self, partitions: Collection[int] | None = None
    ) -> AsyncIterator[ReplayedTable]:
        for table_id, raw_entries in list(self._entries.items()):
            yield decode_table(table_id, raw_entries)


def applicable(entries: list[LogEntry]) -> list[LogEntry]:
    """The entries a replay applies: each command once, indexes without gaps.

    An append whose acknowledgement was lost may have been stored anyway; the client's
    retry then stores the same command (same id, same index) a second time. Only the
    first copy counts; an entry whose index does not follow its predecessor's (a copy
    written after a later command) is skipped too.
    """
    kept: list[LogEntry] = []
    seen: set[str] = set()
    for entry in entries:
        expected = kept[-1].index + 1 if kept else entry.index
        if entry.command_id in seen or entry.index != expected:
            continue
        seen.add(entry.command_id)
        kept.append(entry)
    return kept


def decode_table(table_id: str, raw_entries: list[bytes]) -> ReplayedTable:
    entries: list[LogEntry] = []
    for raw in raw_entries:
        try:
            entries.append(LogEntry.from_envelope_bytes(raw))
        except UnreadableLog as exc:
            return ReplayedTable(table_id, applicable(entries), unreadable=str(exc))
    return ReplayedTable(table_id, applicable(entries))
