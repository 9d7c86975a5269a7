"""The record of the table command log: the durable, ordered record a table is rebuilt from.

Every command a table accepted (seats, actions, timer expiries, the seed of each new
hand) is appended *before* the caller is answered. State = fold of the log, so a
replica that loses its memory rebuilds every table by replaying the log in order.
How an entry is stored is the log codec's business (`croupier.table.adapters.log_codec`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

# `uuid.NAMESPACE_URL` (RFC 4122, appendix C), whose module a core does not import.
_URL_NAMESPACE = bytes.fromhex("6ba7b8119dad11d180b400c04fd430c8")


def url_uuid5(name: str) -> str:
    """`str(uuid.uuid5(uuid.NAMESPACE_URL, name))` in a quarter of the time (no UUID
    object on the way): ids derived from a place in a table's log."""
    digest = bytearray(hashlib.sha1(_URL_NAMESPACE + name.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass(frozen=True)
class LogEntry:
    """One accepted command, as stored.

    `kind` is "open" | "seat" | "unseat" | "start_hand" | "act" | "timeout" | "close" |
    "disconnect" | "reconnect" (a seated player's session ended, or he is back).
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


@dataclass(frozen=True)
class ReplayedTable:
    """Every entry of one table read from the log, or the reason it could not be read;
    `last_offset`: the log offset of the table's last record read (-1: none)."""

    table_id: str
    entries: list[LogEntry]
    unreadable: str | None = None
    last_offset: int = -1


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
