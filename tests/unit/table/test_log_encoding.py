"""The command log's stored bytes do not change with how they are built: a log written
before is replayed by the current code, and the other way round."""

from __future__ import annotations

import json
import random
import uuid

from google.protobuf import any_pb2, timestamp_pb2

from croupier.events.v1 import envelope_pb2
from croupier.table.adapters.log_codec import decode, encode
from croupier.table.core.log_entry import LogEntry, url_uuid5
from croupier.table.v1 import table_pb2


def reference_envelope(entry: LogEntry) -> bytes:
    """The entry encoded with the protobuf helpers (`Any.Pack`, `FromMilliseconds`, uuid5)."""
    command = table_pb2.TableCommand(
        table_id=entry.table_id,
        index=entry.index,
        command_id=entry.command_id,
        kind=entry.kind,
        player_id=entry.player,
        body_json=json.dumps(entry.body, sort_keys=True, separators=(",", ":")),
        at_ms=entry.at_ms,
        engine=entry.engine,
        engine_version=entry.engine_version,
    )
    payload = any_pb2.Any()
    payload.Pack(command)
    time = timestamp_pb2.Timestamp()
    time.FromMilliseconds(entry.at_ms)
    envelope = envelope_pb2.Envelope(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{entry.table_id}/{entry.index}")),
        type="table.command_accepted",
        source="table",
        subject=entry.table_id,
        sequence=entry.index,
        time=time,
        payload=payload,
    )
    return envelope.SerializeToString()


def test_log_entries_encode_as_with_the_protobuf_helpers() -> None:
    rng = random.Random(3)
    for index in range(1, 300):
        entry = LogEntry(
            table_id=str(uuid.UUID(int=rng.getrandbits(128))),
            index=index,
            command_id=f"act:p{index % 4}:c{index}",
            kind=rng.choice(["open", "seat", "act", "start_hand", "timeout", "close"]),
            player=f"p{index % 4}",
            body={"action": {"action": "play", "card": "Ah"}, "n": index, "ü": "é"},
            at_ms=1_700_000_000_000 + rng.randrange(10**9) * (index % 3),
            engine="joker",
            engine_version="1",
        )
        assert encode(entry) == reference_envelope(entry)
        assert decode(encode(entry)) == entry


def test_url_uuid5_is_uuid5() -> None:
    for name in ["", "a", "table/1", "ü/ß/17", "x" * 300, str(uuid.uuid4()) + "/settlement/3"]:
        assert url_uuid5(name) == str(uuid.uuid5(uuid.NAMESPACE_URL, name))
