"""The real table host in this process for the director's unit tests: every game's
engines on an in-memory command log and bus, its clocks on a `FakeClock`, known seeds;
the director's `InProcessTableHost` over it, its results read by the director's own
consumer from the bus; and bots that play a round's turns (they read the round's full
state: the test may look, a player may not)."""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from croupier.game import RuleBroken
from croupier.kit.bus.interface import EventBus, Subscription
from croupier.kit.bus.memory import InMemoryBus
from croupier.rummy.core.cards import card_names
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.rummy_table import RummyTable
from croupier.rummy.tools.bots import gin_bot_action, laydown_bot_action
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.tournament.adapters.tables import InProcessTableHost
from croupier.tournament.entrypoints import table_events
from croupier.tournament.service.director import Director
from tests.support.table import FakeClock, Seeds

#: More actions than any round takes: a round still running after them is a bug.
MAX_ACTIONS = 10_000
#: After this many actions the bots discard at random: the simple laydown bot can cycle
#: for ever in a Rummy 51 round whose discard pile is turned over (two players who have
#: laid down cannot go out, two who have not cannot reach 51), as no person would.
SHAKE_AFTER = 1_000


@dataclass
class Hosted:
    host: TableHost
    bus: EventBus
    tables: InProcessTableHost
    subscriptions: list[Subscription]
    clock: FakeClock | None = None
    """The host's clock, when the test moves it (in process); None on the wall clock."""

    async def read_results(self, director: Director) -> None:
        """The director reads the rounds' results from the bus (as in production)."""
        self.subscriptions.append(await table_events.subscribe(self.bus, director))

    def table(self, table_id: str) -> RummyTable:
        state: RummyTable = self.host._table(table_id).state.engine_state
        return state

    def running_tables(self) -> list[str]:
        """The tables whose round is being played."""
        return [
            table_id
            for table_id in self.host.table_ids()
            if (state := self.table(table_id)).round is not None and state.round.result is None
        ]

    async def play(self, table_id: str) -> None:
        """Bots play the table's round to its end."""
        rng = random.Random(table_id)
        for count in itertools.count():
            assert count < MAX_ACTIONS, "the round never ended"
            round_state: Any = self.table(table_id).round
            if round_state is None or round_state.result is not None:
                return
            action = (
                gin_bot_action(round_state)
                if isinstance(round_state, GinState)
                else laydown_bot_action(round_state)
            )
            player = round_state.to_act
            if count >= SHAKE_AFTER and action.get("action") == "discard":
                hand = card_names(round_state.hands[round_state.players.index(player)])
                shaken = {"action": "discard", "card": rng.choice(hand)}
                with contextlib.suppress(RuleBroken):  # a card it may not discard
                    await self.host.act(table_id, player, f"bot-{count}", shaken)
                    continue
            await self.host.act(table_id, player, f"bot-{count}", action)


@asynccontextmanager
async def hosted_tables(label: str = "tournament") -> AsyncIterator[Hosted]:
    bus = InMemoryBus()
    await bus.start()
    clock = FakeClock()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds(label),
        now_ms=clock,
        call_later=clock.call_later,
    )
    await host.start()
    hosted = Hosted(host, bus, InProcessTableHost(host), [], clock)
    try:
        yield hosted
    finally:
        for subscription in hosted.subscriptions:
            await subscription.stop()
        await host.stop()
        await bus.stop()
