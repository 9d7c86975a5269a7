"""How a table's snapshot is stored: a header in JSON (the table, the engine that wrote
it, the table index and the command-log offset it covers), then the table's state.

The state (`TableState` with the game's own state inside, and the host's bookkeeping:
command ids seen, seats taken, the latest money requests) is a pickle: the engines' states
are frozen dataclasses of their own, with no codec each, and pickle restores them exactly
and fast (a few microseconds per kilobyte). Snapshots come from the table host itself
through Kafka, inside the trust boundary (architecture §3); even so the reader builds only
classes and functions of the croupier packages and the engines' evaluator library, never
an arbitrary callable, so a forged record cannot run code. A snapshot is only ever read
by the engine version that wrote it (the header is checked first): a new version, whose
classes may differ, replays the log instead.
"""

from __future__ import annotations

import functools
import importlib
import io
import json
import pickle
from dataclasses import asdict, dataclass
from typing import Any

from croupier.table.core.table_state import TableState
from croupier.table.service.requests import MoneyRequest

MAGIC = b"croupier.table.snapshot/1\n"
# Where a snapshot's pickle may take classes and functions from: the croupier packages
# (engines' states, the table state, money requests) and poker's hand evaluator, whose
# functions the poker state holds.
ALLOWED_MODULE_ROOTS = ("croupier", "phevaluator")
ALLOWED_BUILTINS = frozenset({"frozenset", "set", "tuple", "list", "dict", "bytes", "int"})


class UnreadableSnapshot(Exception):
    """A snapshot that cannot be read: the table is replayed from the log instead."""


@dataclass(frozen=True)
class SnapshotHeader:
    table_id: str
    game: str
    engine: str
    engine_version: str
    index: int  # the table's last log entry the snapshot holds
    offset: int  # every record of the table's partition up to this offset is in it
    closed: bool


@dataclass(frozen=True)
class TableSnapshot:
    header: SnapshotHeader
    state: TableState
    seen_commands: dict[str, int]
    seats_taken: dict[str, int]
    last_money_requests: list[MoneyRequest]


@functools.cache
def _allowed_global(module: str, name: str) -> Any:
    """What a snapshot's pickle names, if it may: looked up once per name (a snapshot
    names a dozen classes; the import machinery would cost more than the rest)."""
    root = module.split(".", 1)[0]
    if root in ALLOWED_MODULE_ROOTS or (module == "builtins" and name in ALLOWED_BUILTINS):
        return getattr(importlib.import_module(module), name)
    raise UnreadableSnapshot(f"a snapshot may not build {module}.{name}")


class _CroupierOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        try:
            return _allowed_global(module, name)
        except (ImportError, AttributeError) as exc:
            raise UnreadableSnapshot(f"a snapshot names {module}.{name}: {exc}") from exc


def encode(snapshot: TableSnapshot) -> bytes:
    header = json.dumps(asdict(snapshot.header), separators=(",", ":")).encode()
    body = pickle.dumps(
        (
            snapshot.state,
            snapshot.seen_commands,
            snapshot.seats_taken,
            snapshot.last_money_requests,
        ),
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    return MAGIC + header + b"\n" + body


def _split(data: bytes) -> tuple[bytes, bytes]:
    if not data.startswith(MAGIC):
        raise UnreadableSnapshot("not a table snapshot (or another format's)")
    header, newline, body = data[len(MAGIC) :].partition(b"\n")
    if not newline:
        raise UnreadableSnapshot("the snapshot's header is cut off")
    return header, body


def read_header(data: bytes) -> SnapshotHeader:
    """The header alone: enough to tell whether the state may be read by this host."""
    header, _ = _split(data)
    try:
        fields = json.loads(header)
        return SnapshotHeader(**fields)
    except (ValueError, TypeError) as exc:
        raise UnreadableSnapshot(f"unreadable snapshot header: {exc}") from exc


def decode(data: bytes) -> TableSnapshot:
    header = read_header(data)
    _, body = _split(data)
    try:
        state, seen, seats, money = _CroupierOnly(io.BytesIO(body)).load()
    except UnreadableSnapshot:
        raise
    except Exception as exc:  # whatever a damaged pickle raises
        raise UnreadableSnapshot(f"unreadable snapshot state: {exc!r}") from exc
    if not isinstance(state, TableState) or state.table_id != header.table_id:
        raise UnreadableSnapshot("the snapshot's state is not this table's")
    return TableSnapshot(header, state, dict(seen), dict(seats), list(money))
