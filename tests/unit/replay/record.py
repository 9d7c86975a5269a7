"""Record the command logs that `test_replay_digests` replays: `python -m tests.unit.replay.record`.

Bots play one table per game (two for poker and rummy) through a `TableHost` on an
in-memory log and bus, a `FakeClock` and deterministic seeds: ordinary play plus clock
expiries (timeouts, the auto-player), players leaving, sitting out and topping up. Each
table's log is written to `tests/data/replay/logs/<game>-<label>.json` with the table digest
after every entry, replayed with `initial_state` + `step` and checked against the host's own digest.

Re-record only when a rules change is deliberate (the engine's version is bumped): the
stored digests are what the code did when they were recorded.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from croupier.game import ClockSettings, GameRules
from croupier.kit.bus.memory import InMemoryBus
from croupier.poker.tools.bots import Bot, make_bot
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.tools.bots import gin_bot_action, laydown_bot_action
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.core.clocks import AUTO_PLAY_MS
from croupier.table.core.history import _entry_json, initial_state
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import step
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.paths import DATA
from tests.support.table import FakeClock, Seeds, random_joker_action

LOGS = DATA / "replay" / "logs"
TURN_MS = 20_000
MAX_ENTRIES = 250


class Table:
    """One table being played: the host, its log and clock, and the table's id."""

    def __init__(
        self, host: TableHost, log: InMemoryCommandLog, clock: FakeClock, table_id: str
    ) -> None:
        self.host = host
        self.log = log
        self.clock = clock
        self.table_id = table_id

    def view(self, player: str = "") -> Any:
        return self.host.view(self.table_id, player)

    @property
    def entries(self) -> int:
        return int(self.view().version)

    async def act(self, player: str, action: dict[str, Any]) -> None:
        await self.host.act(self.table_id, player, f"{player}/{self.entries}", action)

    async def wait(self, ms: int) -> None:
        """Move the table's time on by `ms` and let the host apply what fell due."""
        self.clock.advance(ms)
        for _ in range(5):
            await asyncio.sleep(0.001)

    async def drive(
        self,
        to_act: Callable[[], str | None],
        decide: Callable[[str], Awaitable[dict[str, Any]]],
        entries: int,
        expire_every: int,
    ) -> None:
        """Play until the log holds `entries` entries; every `expire_every`-th turn the
        player lets the clock run out instead (a timeout, then the auto-player, which
        plays two of his turns before he acts again himself)."""
        turns = automatic = 0
        while self.entries < entries:
            actor = to_act()
            if actor is None:
                await self.wait(AUTO_PLAY_MS)
                continue
            if actor in self.view().auto_players:
                automatic += 1
                if automatic % 3:
                    await self.wait(AUTO_PLAY_MS)
                    continue
            turns += 1
            if turns % expire_every == 0:
                await self.wait(TURN_MS + 1)
                continue
            await self.act(actor, await decide(actor))


async def open_table(
    label: str, game: str, options: dict[str, Any], players: list[str], stack: int
) -> Table:
    bus = InMemoryBus()
    await bus.start()
    clock = FakeClock()
    log = InMemoryCommandLog()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds(label),
        now_ms=clock,
        call_later=clock.call_later,
    )
    await host.start()
    table_id = await host.open_table(
        game, options, ClockSettings(turn_ms=TURN_MS, reconnect_ms=30_000), request_key=label
    )
    table = Table(host, log, clock, table_id)
    for seat, player in enumerate(players):
        await host.seat(table_id, player, seat, stack, is_bot=True)
    return table


# ---- poker ---------------------------------------------------------------------------


def poker_to_act(table: Table) -> Callable[[], str | None]:
    def to_act() -> str | None:
        hand = table.view().view.get("hand")
        if hand is None or hand["status"] == "complete":
            return None
        return hand["to_act"] or None

    return to_act


async def top_up_or_rebuy(table: Table) -> None:
    """Busted players top up in their seat (odd seats) or leave and buy in again."""
    for seat in table.view().view["table"]:
        player = seat["player"]
        if seat["stack"] or seat["pending_top_up"] or seat["leaving"]:
            continue
        if seat["seat"] % 2:
            await table.act(player, {"action": "top_up", "amount": 300})
        else:
            await table.host.unseat(table.table_id, player)
            await table.host.seat(table.table_id, player, seat["seat"], 300, is_bot=True)
            await table.act(player, {"action": "post_blind"})


async def poker(label: str, options: dict[str, Any], rng: random.Random) -> Table:
    players = [f"p{i}" for i in range(5)]
    table = await open_table(label, "poker", options, players, 300)
    bots: dict[str, Bot] = {
        p: make_bot("random" if i % 2 else "rule", p, random.Random(rng.random()))
        for i, p in enumerate(players)
    }

    async def decide(player: str) -> dict[str, Any]:
        await top_up_or_rebuy(table)
        action = bots[player].decide(table.view(player).view)
        assert action is not None
        return dict(action)

    to_act = poker_to_act(table)
    await table.drive(to_act, decide, MAX_ENTRIES // 4, expire_every=17)
    await table.act("p1", {"action": "sit_out"})
    await table.drive(to_act, decide, MAX_ENTRIES // 2, expire_every=17)
    # p4 leaves while another player is to act; p3's session ends and is not back in time.
    while to_act() in (None, "p4"):
        await table.act(str(to_act()), await decide(str(to_act())))
    await table.host.unseat(table.table_id, "p4")
    await table.host.disconnect(table.table_id, "p3")
    await table.wait(0)  # the reconnection window starts
    await table.wait(30_001)
    await table.act("p1", {"action": "sit_in", "post": True})
    await table.drive(to_act, decide, MAX_ENTRIES, expire_every=17)
    return table


# ---- backgammon ----------------------------------------------------------------------


async def backgammon(label: str, rng: random.Random) -> Table:
    options = {"mode": "single", "stake": 100}
    table = await open_table(label, "backgammon", options, ["ann", "bob"], 0)

    def to_act() -> str | None:
        for player in ("ann", "bob"):
            if table.view(player).view.get("legal", {}).get("actions"):
                return player
        return None

    async def decide(player: str) -> dict[str, Any]:
        legal = table.view(player).view["legal"]
        actions = legal["actions"]
        if "move" in actions:
            return {"action": "move", "play": rng.choice(legal["plays"])}
        if "roll" in actions:
            return {"action": "double" if "double" in actions and rng.random() < 0.1 else "roll"}
        return {"action": rng.choice(actions)}

    await table.drive(to_act, decide, MAX_ENTRIES, expire_every=41)
    return table


# ---- rummy ---------------------------------------------------------------------------


async def rummy(label: str, variant: str, players: int) -> Table:
    names = [f"r{i}" for i in range(players)]
    options = {"variant": variant, "players": players, "round_fee": 20, "chip_ratio": 2}
    table = await open_table(label, "rummy", options, names, 1000)

    def to_act() -> str | None:
        round_view = table.view().view.get("round")
        return None if round_view is None else round_view.get("to_act")

    async def decide(player: str) -> dict[str, Any]:
        # The bots read the round's full state: the recorder may look, the players may not.
        state = table.host._table(table.table_id).state.engine_state.round
        return gin_bot_action(state) if isinstance(state, GinState) else laydown_bot_action(state)

    await table.drive(to_act, decide, MAX_ENTRIES, expire_every=23)
    return table


# ---- joker ---------------------------------------------------------------------------


async def joker(label: str, rng: random.Random) -> Table:
    table = await open_table(label, "joker", {}, ["n", "e", "s", "w"], 0)

    def to_act() -> str | None:
        hand = table.view().view.get("hand")
        return None if hand is None else hand.get("to_act")

    async def decide(player: str) -> dict[str, Any]:
        return random_joker_action(table.view(player).view["legal"], rng)

    await table.host.disconnect(table.table_id, "e")  # a Joker game cannot lose a player
    await table.wait(0)
    await table.drive(to_act, decide, MAX_ENTRIES, expire_every=29)
    await table.host.reconnect(table.table_id, "e")
    return table


# ---- writing -------------------------------------------------------------------------


async def stop(table: Table) -> tuple[list[LogEntry], str]:
    """Stop the table's host; the table's log entries and the host's digest of it."""
    await table.host.flush()
    digest = table.host.digest(table.table_id)
    await table.host.stop()
    async for replayed in table.log.replay():
        if replayed.table_id == table.table_id:
            return replayed.entries, digest
    raise AssertionError(f"table {table.table_id} has no log")


def write(path: Path, engine: GameRules[Any], entries: list[LogEntry], digest: str) -> None:
    """Write the log with the digest after every entry, one entry a line (small diffs)."""
    state = initial_state(engine, entries[0])
    digests = [state.digest(engine)]
    for entry in entries[1:]:
        state = step(engine, state, entry).state
        digests.append(state.digest(engine))
    assert digests[-1] == digest, f"{path.name}: the replay is not the host's table"
    lines = ",\n".join(
        json.dumps({**_entry_json(e), "digest": d}, sort_keys=True, separators=(",", ":"))
        for e, d in zip(entries, digests, strict=True)
    )
    table_id = json.dumps(entries[0].table_id)
    path.write_text(f'{{"table_id": {table_id},\n"entries": [\n{lines}\n]}}\n')


async def record() -> None:
    LOGS.mkdir(exist_ok=True)
    tables = {
        "poker-naiko": lambda: poker(
            "poker-naiko", {"variant": "naiko", "blinds": [5, 10]}, random.Random(1)
        ),
        "poker-nlhe": lambda: poker(
            "poker-nlhe", {"variant": "nlhe", "blinds": [5, 10]}, random.Random(2)
        ),
        "backgammon-single": lambda: backgammon("backgammon-single", random.Random(3)),
        "rummy-gin": lambda: rummy("rummy-gin", "gin", 2),
        "rummy-rummy500": lambda: rummy("rummy-rummy500", "rummy500", 3),
        "joker-standard": lambda: joker("joker-standard", random.Random(4)),
    }
    for name, play in tables.items():
        table = await play()
        engine = table.host.engine_of(table.table_id)
        entries, digest = await stop(table)
        write(LOGS / f"{name}.json", engine, entries, digest)
        print(f"{name}: {len(entries)} entries")


if __name__ == "__main__":
    asyncio.run(record())
