"""How a log entry is stored: an `Envelope` carrying a `TableCommand` (protobuf).

The host keeps its own copy of each table's log in this encoding too (hand histories,
repeated command ids), so an entry is encoded once for the log and for that copy.
"""

from __future__ import annotations

import json

from google.protobuf import any_pb2, timestamp_pb2
from google.protobuf.message import DecodeError

from croupier.events.v1 import envelope_pb2
from croupier.table.core.log_entry import LogEntry, ReplayedTable, applicable, url_uuid5
from croupier.table.v1 import table_pb2

TOPIC = "croupier.table.commands"  # where the Kafka command log keeps the entries
ENVELOPE_TYPE = "table.command_accepted"
COMMAND_TYPE_URL = "type.googleapis.com/" + table_pb2.TableCommand.DESCRIPTOR.full_name
_SORTED_COMPACT_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
# Where `encode` keeps an entry's bytes: in the entry's own `__dict__`, as
# `functools.cached_property` would (the record is frozen and knows no encoding).
_ENCODED = "_encoded"


class UnreadableLog(Exception):
    """A log entry that cannot be decoded: the table it belongs to cannot be rebuilt."""


def encode(entry: LogEntry) -> bytes:
    """The entry as stored: computed once, for the log and for the host's copy."""
    cached: bytes | None = entry.__dict__.get(_ENCODED)
    if cached is None:
        cached = entry.__dict__[_ENCODED] = to_envelope(entry).SerializeToString()
    return cached


def to_envelope(entry: LogEntry) -> envelope_pb2.Envelope:
    command = table_pb2.TableCommand(
        table_id=entry.table_id,
        index=entry.index,
        command_id=entry.command_id,
        kind=entry.kind,
        player_id=entry.player,
        body_json=_SORTED_COMPACT_JSON(entry.body),
        at_ms=entry.at_ms,
        engine=entry.engine,
        engine_version=entry.engine_version,
    )
    # What `Any.Pack` and `Timestamp.FromMilliseconds` make, built directly.
    seconds, millis = divmod(entry.at_ms, 1000)
    return envelope_pb2.Envelope(
        id=url_uuid5(f"{entry.table_id}/{entry.index}"),
        type=ENVELOPE_TYPE,
        source="table",
        subject=entry.table_id,
        sequence=entry.index,
        time=timestamp_pb2.Timestamp(seconds=seconds, nanos=millis * 1_000_000),
        payload=any_pb2.Any(type_url=COMMAND_TYPE_URL, value=command.SerializeToString()),
    )


def decode(data: bytes) -> LogEntry:
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


def decode_table(table_id: str, raw_entries: list[bytes], last_offset: int = -1) -> ReplayedTable:
    """One table's stored entries, decoded up to the first unreadable one."""
    entries: list[LogEntry] = []
    for raw in raw_entries:
        try:
            entries.append(decode(raw))
        except UnreadableLog as exc:
            return ReplayedTable(table_id, applicable(entries), str(exc), last_offset)
    return ReplayedTable(table_id, applicable(entries), last_offset=last_offset)
