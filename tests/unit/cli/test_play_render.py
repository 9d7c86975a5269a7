"""`croupier play`'s renderers and the reading of a typed choice, on views the table host
really makes (poker and backgammon tables on an in-memory host): the player's own cards
and nobody else's, the pot, the board from his side, and exactly the view's legal actions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from croupier.backgammon.core.board import STARTING_BOARD, position_id
from croupier.cli.play_render import card, choose, render_backgammon, render_joker, render_poker
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import build_host
from croupier.table.service.host import TableHost

JSON = dict[str, Any]


@pytest.fixture
async def host() -> AsyncIterator[TableHost]:
    bus = InMemoryBus()
    await bus.start()
    host = build_host(InMemoryCommandLog(), bus)
    await host.start()
    yield host
    await host.stop()
    await bus.stop()


async def poker_view(host: TableHost) -> tuple[JSON, JSON]:
    """Hand 1 of a heads-up table, blinds 1/2: ana's view (on the button, to act) and bob's."""
    table_id = await host.open_table("poker", {"blinds": [1, 2]}, None)
    await host.seat(table_id, "ana", 0, 100)
    await host.seat(table_id, "bob", 1, 100)
    return json.loads(json.dumps(dict(host.view(table_id, "ana").view))), json.loads(
        json.dumps(dict(host.view(table_id, "bob").view))
    )


async def test_poker_shows_the_players_own_cards_the_pot_and_his_legal_actions(
    host: TableHost,
) -> None:
    ana, bob = await poker_view(host)
    own = next(s["hole_cards"] for s in ana["hand"]["seats"] if s["player"] == "ana")
    bobs = next(s["hole_cards"] for s in bob["hand"]["seats"] if s["player"] == "bob")
    screen = render_poker(ana, "ana")
    ana_line, bob_line = screen.text.splitlines()[2:4]
    assert ana_line.startswith("  > ana (you)") and "bet 1" in ana_line
    for name in own:
        assert name[:-1] + {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}[name[-1]] in ana_line
    assert "[?? ??]" in bob_line and "bet 2" in bob_line
    assert not any(card(name) in screen.text for name in bobs)
    assert "pot 3" in screen.text.splitlines()[1]
    legal = ana["hand"]["legal"]
    assert [o.label for o in screen.offers] == [
        "fold",
        f"call {legal['call']}",
        f"raise to {legal['min_raise_to']} (up to {legal['max_raise_to']})",
        "allin",
    ]
    # Not bob's turn: nothing offered to him, and he reads who is to act.
    waiting = render_poker(bob, "bob")
    assert waiting.offers == () and waiting.text.endswith("ana to act")


async def test_a_typed_choice_picks_an_offer_or_says_why_not(host: TableHost) -> None:
    ana, _ = await poker_view(host)
    offers = render_poker(ana, "ana").offers
    assert choose(offers, "2\n") == {"action": "call"}
    assert choose(offers, "fold") == {"action": "fold"}
    assert choose(offers, "3") == {"action": "raise", "to": 4}
    assert choose(offers, "3 25") == {"action": "raise", "to": 25}
    assert choose(offers, "3 101") == "raise to 4 up to 100"
    assert choose(offers, "2 5") == "call 1: give its number alone"
    assert choose(offers, "5") == "choose 1 to 4"
    assert choose(offers, "") == "type the number of your choice"
    assert choose(offers, "check") == "not one of the choices: 'check'"


async def test_backgammon_shows_the_board_from_the_players_side_and_the_legal_plays(
    host: TableHost,
) -> None:
    table_id = await host.open_table("backgammon", {}, None)
    await host.seat(table_id, "ana", 0, 0)
    assert render_backgammon(dict(host.view(table_id, "ana").view), "ana").text == (
        "Waiting for the game to start. Seated: ana."
    )
    await host.seat(table_id, "bob", 1, 0)
    mover = dict(host.view(table_id, "").view)["to_act"]  # the opening roll's winner
    view = json.loads(json.dumps(dict(host.view(table_id, mover).view)))
    assert view["position_id"] == position_id(STARTING_BOARD)
    other = "bob" if mover == "ana" else "ana"
    screen = render_backgammon(view, mover)
    lines = screen.text.splitlines()
    # His checkers X on his 24, 13, 8 and 6 points; the opponent's O on his 1, 12, 17, 19.
    assert " ".join(lines[1].split()) == "13 14 15 16 17 18 | 19 20 21 22 23 24"
    assert " ".join(lines[2].split()) == "X5 . . . O3 . | O5 . . . . X2"
    assert " ".join(lines[3].split()) == "O5 . . . X3 . | X5 . . . . O2"
    assert " ".join(lines[4].split()) == "12 11 10 9 8 7 | 6 5 4 3 2 1"
    dice = "-".join(map(str, view["dice"]))
    assert f"dice {dice}" in lines[5] and "bar X0 O0" in lines[5] and "off X0 O0" in lines[5]
    plays = view["legal"]["plays"]
    assert [o.label for o in screen.offers] == [f"move {play}" for play in plays]
    assert choose(screen.offers, plays[-1]) == {"action": "move", "play": plays[-1]}
    # The other player sees the same board from his side, and nothing to do.
    theirs = render_backgammon(view | {"legal": {"actions": []}}, other)
    assert theirs.offers == () and theirs.text.splitlines()[2].split()[-1] == "X2"
    assert theirs.text.endswith(f"{mover} to act")


async def test_joker_shows_own_cards_bids_and_the_trick_and_offers_bids_and_joker_uses(
    host: TableHost,
) -> None:
    players = ("ana", "bob", "cat", "dan")
    table_id = await host.open_table("joker", {}, None)
    for seat, player in enumerate(players):
        await host.seat(table_id, player, seat, 0)
    public = dict(host.view(table_id, "").view)
    to_act = public["hand"]["to_act"]
    view = json.loads(json.dumps(dict(host.view(table_id, to_act).view)))
    screen = render_joker(view, to_act)
    own = view["hand"]["own_cards"]
    assert f"your cards: {' '.join(card(c) for c in own)}" in screen.text
    assert f"  > {to_act} (you)" in screen.text
    legal = view["legal"]
    assert legal["actions"] == ["bid"]
    assert [o.label for o in screen.offers] == [f"bid {t}" for t in legal["tricks"]]
    assert choose(screen.offers, "1") == {"action": "bid", "tricks": legal["tricks"][0]}
    # Another seat sees its own cards only, and nothing to do.
    other = next(p for p in players if p != to_act)
    theirs = render_joker(json.loads(json.dumps(dict(host.view(table_id, other).view))), other)
    assert theirs.offers == () and theirs.text.endswith(f"{to_act} to act")
    assert all(card(c) not in theirs.text.split("your cards: ")[1] for c in own)

    # Leading with a joker: each use, and for "take" and "high" each suit it calls.
    leading = view | {
        "legal": {"actions": ["play"], "cards": ["X1", "6h"], "joker": ["high", "take"]}
        | {"suits": ["c", "d", "h", "s"]}
    }
    labels = [o.label for o in render_joker(leading, to_act).offers]
    assert labels[:2] == ["play X1 high ♣", "play X1 high ♦"] and labels[-1] == "play 6♥"
    assert len(labels) == 9
    assert choose(render_joker(leading, to_act).offers, "play X1 take ♠") == {
        "action": "play",
        "card": "X1",
        "joker": "take",
        "suit": "s",
    }
