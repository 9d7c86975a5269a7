"""A poker table rebuilt from its command log is the lost one (in-memory log, the host).

Bots play a Naiko table through the host with everything the adapter keeps between hands
in play: powers and Seal windows, a player leaving mid-hand (his turns played for him),
busted bots topping up in their seats or buying in again and posting to enter (OQ 22),
a player sitting out and back in, posting what he missed. A second host then rebuilds
the table from the same log: same digest, same views for every seat, and play continues
on it; every hand's `croupier verify` record re-derives the dealt cards from the revealed
seed.
"""

from __future__ import annotations

import asyncio
import random

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.poker.engine import ENGINE
from croupier.poker.tools.bots import Bot, make_bot
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.service.host import TableHost
from tests.support.table import Seeds

PLAYERS = [f"p{i}" for i in range(5)]


async def new_host(log: InMemoryCommandLog, bus: InMemoryBus) -> TableHost:
    host = TableHost(engines={"poker": ENGINE}, command_log=log, publisher=bus, seeds=Seeds("r"))
    await host.start()
    return host


async def play(host: TableHost, table_id: str, bots: dict[str, Bot], decisions: int) -> int:
    done = 0
    for _ in range(decisions):
        public = host.view(table_id, "").view
        hand = public.get("hand")
        if hand is None or hand["status"] == "complete" or not hand["to_act"]:
            break
        actor = hand["to_act"]
        action = bots[actor].decide(host.view(table_id, actor).view)
        assert action is not None
        await host.act(table_id, actor, f"{actor}/{host.view(table_id, '').version}", action)
        done += 1
        for entry in host.view(table_id, "").view["table"]:
            player = entry["player"]
            if entry["stack"] == 0 and not entry["pending_top_up"] and not entry["leaving"]:
                if entry["seat"] % 2:  # busted: tops up in his seat (rule 50)
                    cid = f"{player}/top-up/{done}"
                    await host.act(table_id, player, cid, {"action": "top_up", "amount": 300})
                else:  # or leaves and buys in again, posting to play at once (OQ 22)
                    await host.unseat(table_id, player)
                    await host.seat(table_id, player, entry["seat"], 300, is_bot=True)
                    post = {"action": "post_blind"}
                    await host.act(table_id, player, f"{player}/post/{done}", post)
    return done


async def test_a_rebuilt_poker_table_has_the_same_digest_and_views_and_plays_on() -> None:
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    host = await new_host(log, bus)
    table_id = await host.open_table(
        "poker", {"variant": "naiko", "blinds": [5, 10]}, ClockSettings(turn_ms=3_600_000)
    )
    for number, player in enumerate(PLAYERS):
        await host.seat(table_id, player, number, 300, is_bot=True)
    bots: dict[str, Bot] = {
        p: make_bot("random" if i % 2 else "rule", p, random.Random(i))
        for i, p in enumerate(PLAYERS)
    }
    assert await play(host, table_id, bots, 400) == 400
    # Somebody sits out, somebody leaves mid-hand (his turns are played for him).
    await host.act(table_id, "p1", "sit-out", {"action": "sit_out"})
    for _ in range(200):  # p4 leaves while he is in a hand and another player is to act
        hand = host.view(table_id, "").view["hand"]
        mine = [s for s in hand["seats"] if s["player"] == "p4" and not s["folded"]]
        if mine and hand["status"] != "complete" and hand["to_act"] not in ("p4", None):
            break
        await play(host, table_id, bots, 1)
    else:
        raise AssertionError("p4 was never in a running hand")
    await host.unseat(table_id, "p4")
    assert any(s["player"] == "p4" and s["leaving"] for s in host.view(table_id, "").view["table"])
    await play(host, table_id, bots, 150)
    await host.act(table_id, "p1", "sit-in", {"action": "sit_in", "post": True})
    await play(host, table_id, bots, 150)
    entries = [e for t in [x async for x in log.replay()] for e in t.entries]
    kinds = [e.body.get("action", {}).get("action") for e in entries if e.kind == "act"]
    assert kinds.count("power") > 20
    assert "seal" in kinds or "no_seal" in kinds  # a Seal window opened
    assert "p4" not in host.view(table_id, "").seated
    assert sum(1 for e in entries if e.kind == "seat") > len(PLAYERS)  # rebuys
    assert {"top_up", "post_blind"} <= set(kinds)
    digest = host.digest(table_id)
    views = {p: host.view(table_id, p).view for p in ["", *PLAYERS]}
    finished = host.view(table_id, "").last_finished_hand
    assert finished > 20
    await host.stop()

    rebuilt = await new_host(log, bus)
    assert rebuilt.digest(table_id) == digest
    assert {p: rebuilt.view(table_id, p).view for p in ["", *PLAYERS]} == views
    # Every finished hand's history re-derives its deck from the revealed seed.
    for number in (1, finished // 2, finished):
        history = rebuilt.hand_history(table_id, number)
        assert history["dealt"] == ENGINE.randomness(bytes.fromhex(history["seed"]))
    assert await play(rebuilt, table_id, bots, 50) == 50
    await asyncio.sleep(0)
    await rebuilt.stop()
