"""`croupier verify` accepts an honest hand history and rejects altered ones."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.table import Seeds, random_joker_action

CROUPIER = Path(sys.executable).parent / "croupier"


@pytest.fixture(scope="module")
def history() -> dict[str, Any]:
    import asyncio

    async def play_a_whole_game() -> dict[str, Any]:
        bus = InMemoryBus()
        await bus.start()
        host = TableHost(
            engines=load_engines(),
            command_log=InMemoryCommandLog(),
            publisher=bus,
            seeds=Seeds("verify"),
        )
        await host.start()
        table_id = await host.open_table("joker", {}, ClockSettings(turn_ms=3_600_000))
        for seat, player in enumerate(["a", "b", "c", "d"]):
            await host.seat(table_id, player, seat, 0)
        rng = random.Random(3)
        n = 0
        while not host.view(table_id, "").view["over"]:
            to_act = host.view(table_id, "").view["hand"]["to_act"]
            legal = host.view(table_id, to_act).view["legal"]
            await host.act(table_id, to_act, f"c{n}", random_joker_action(legal, rng))
            n += 1
        result = host.hand_history(table_id, host.view(table_id, "").last_finished_hand)
        await host.stop()
        await bus.stop()
        return result

    return asyncio.run(play_a_whole_game())


def run_verify(history: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return subprocess.run(
        [str(CROUPIER), "verify", str(path)], capture_output=True, text=True, check=False
    )


def test_honest_history_is_verified(history: dict[str, Any], tmp_path: Path) -> None:
    completed = run_verify(history, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.startswith("verified: joker")


def test_altered_deck_is_rejected(history: dict[str, Any], tmp_path: Path) -> None:
    altered = json.loads(json.dumps(history))
    deck = altered["dealt"]
    deck[0], deck[1] = deck[1], deck[0]
    completed = run_verify(altered, tmp_path)
    assert completed.returncode == 1
    assert "not the ones the seed gives" in completed.stdout


def test_altered_seed_is_rejected(history: dict[str, Any], tmp_path: Path) -> None:
    altered = dict(history, seed="00" * 32)
    completed = run_verify(altered, tmp_path)
    assert completed.returncode == 1
    assert "does not match the commitment" in completed.stdout


def test_altered_result_is_rejected(history: dict[str, Any], tmp_path: Path) -> None:
    altered = json.loads(json.dumps(history))
    placing = altered["result"]["details"]["placing"]
    placing.reverse()
    completed = run_verify(altered, tmp_path)
    assert completed.returncode == 1
    assert "another result" in completed.stdout
