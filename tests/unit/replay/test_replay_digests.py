"""Stored command logs of every game replay to the table digests recorded with them.

`tests/data/replay/logs/<game>-<label>.json` holds the log of one table each (poker Naiko and
NLHE with timeouts, sit-out, top-up, rebuy, a player leaving and one abandoning; backgammon with
doubles and timeouts; gin and Rummy 500 with the auto-player; Joker), played by bots
through the table host at cc87db4, before the host/games refactor, with the digest of
the table (`TableState.digest`) after every entry. Replaying each entry with
`initial_state` + `step` through today's engine must give the same digest: a refactor
that changes what any command does, to any part of the table, fails here at the first
entry that differs.

A deliberate rules change bumps the engine's version, and this test then says so: re-record
with `python -m tests.unit.replay.record` (from the repository root) and commit the new logs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.table.core.history import _entry_from_json, initial_state
from croupier.table.core.table_state import step
from croupier.table.games import load_engines
from tests.support.paths import DATA

LOGS = sorted((DATA / "replay" / "logs").glob("*.json"))
GAMES = {"backgammon", "joker", "poker", "rummy"}


def test_there_is_a_stored_log_of_every_game() -> None:
    assert {path.name.split("-")[0] for path in LOGS} == GAMES


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.stem)
def test_a_stored_log_replays_to_the_recorded_digest_after_every_entry(path: Path) -> None:
    stored: dict[str, Any] = json.loads(path.read_text())
    records = stored["entries"]
    entries = [_entry_from_json(stored["table_id"], record) for record in records]
    opening = entries[0]
    engine = load_engines()[str(opening.body["game"])]
    logged = {(entry.engine, entry.engine_version) for entry in entries}
    assert logged == {(engine.name, engine.version)}, (
        f"{path.name} was recorded with engine {sorted(logged)}, this is "
        f"{engine.name} {engine.version}: if the rules changed on purpose, re-record the "
        "logs with `python -m tests.unit.replay.record`"
    )
    state = initial_state(engine, opening)
    assert state.digest(engine) == records[0]["digest"], f"{path.name}: the opening differs"
    for entry, record in zip(entries[1:], records[1:], strict=True):
        state = step(engine, state, entry).state
        assert state.digest(engine) == record["digest"], (
            f"{path.name}: the table differs after entry {entry.index} ({entry.kind} "
            f"{entry.command_id} by {entry.player!r}: {entry.body})"
        )
