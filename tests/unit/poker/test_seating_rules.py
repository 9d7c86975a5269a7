"""Table rules of the poker adapter (§6, OQ 5, OQ 22, rules 27, 50, 51): the button, joining
players waiting for the big blind, sitting out and missed blinds, busted players watching,
private tables. Pure: `PokerEngine` without the host."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf import json_format

from croupier.game import Act, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.v1 import poker_pb2
from tests.support.refusals import status_name


def seed(n: int) -> bytes:
    return hashlib.sha256(f"rules/{n}".encode()).digest()


def start(state: PokerTable) -> PokerTable:
    state, _ = ENGINE.apply(state, StartHand(seed(state.hand_number + 1)))
    return state


def fold_around(state: PokerTable) -> PokerTable:
    """Everybody folds (or checks) until the hand ends."""
    while actors := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(actors[0], ENGINE.timeout_action(state, actors[0])))
    return state


def seat(state: PokerTable, player: str, number: int, stack: int = 500) -> PokerTable:
    state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    return state


def ids(state: PokerTable) -> list[str]:
    assert state.hand is not None
    return list(state.hand.ids)


def positions(state: PokerTable) -> tuple[str, str, str]:
    hand = state.hand
    assert hand is not None
    return hand.ids[hand.button], hand.ids[hand.sb_seat], hand.ids[hand.bb_seat]


def test_oq_22_the_button_moves_one_seat_per_hand() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    for player, number in (("a", 0), ("b", 2), ("c", 5)):
        state = seat(state, player, number)
    buttons = []
    for _ in range(6):
        state = fold_around(start(state))
        buttons.append(positions(state)[0])
    assert buttons == ["a", "b", "c", "a", "b", "c"]


def test_oq_22_a_joining_player_waits_for_the_big_blind() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    for player, number in (("a", 0), ("b", 2), ("c", 4)):
        state = seat(state, player, number)
    state = fold_around(start(state))  # hand 1: a c b? button a
    state = seat(state, "new", 3)  # between b (2) and c (4)
    assert ENGINE.view(state, "new")["table"][2]["waiting_for_big_blind"]
    seen = []
    while True:
        state = start(state)
        button, small, big = positions(state)
        seen.append((button, small, big))
        if "new" in ids(state):
            assert big == "new"  # dealt in on his big blind, never before
            break
        state = fold_around(state)
        assert len(seen) < 4
    assert seen[0][2] != "new"
    assert not ENGINE.view(state, "new")["table"][2]["waiting_for_big_blind"]


def test_oq_22_nobody_waits_when_fewer_than_two_play() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    state = seat(state, "a", 0)
    state = seat(state, "b", 1)
    assert ENGINE.can_start_hand(state)
    state = start(state)
    assert sorted(ids(state)) == ["a", "b"]
    state = seat(state, "c", 2)
    state, _ = ENGINE.apply(state, UnseatPlayer("b"))  # leaves after this hand
    state = fold_around(state)
    state = start(state)
    assert sorted(ids(state)) == ["a", "c"]  # c did not wait: a alone could not play


def test_sit_out_missed_blinds_and_destellos_kept_without_gain() -> None:
    state = ENGINE.open({"variant": "naiko", "blinds": [1, 2]})
    for player, number in (("a", 0), ("b", 1), ("c", 2), ("d", 3)):
        state = seat(state, player, number)
    state = fold_around(start(state))
    state = fold_around(start(state))
    balance = dict(state.destellos)["d"]
    assert balance >= 1
    state, events = ENGINE.apply(state, Act("d", {"action": "sit_out"}))
    assert events[0].type == "player_sitting_out"
    with pytest.raises(RuleBroken) as again:
        ENGINE.apply(state, Act("d", {"action": "sit_out"}))
    assert status_name(again.value) == "failed_precondition"
    for _ in range(4):  # a full orbit: d's blinds pass him
        state = start(state)
        assert "d" not in ids(state)
        state = fold_around(state)
    assert dict(state.destellos)["d"] == balance  # kept while seated, no gain (OQ 5)
    assert "d" in state.missed
    state, events = ENGINE.apply(state, Act("d", {"action": "sit_in"}))
    assert events[0].data["waits_for_big_blind"]
    for _ in range(4):
        state = start(state)
        if "d" in ids(state):
            assert positions(state)[2] == "d"
            break
        state = fold_around(state)
    else:
        raise AssertionError("d never came back")


def test_sit_out_for_one_hand_without_missing_a_blind_sits_in_at_once() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    for player, number in (("a", 0), ("b", 1), ("c", 2), ("d", 3), ("e", 4)):
        state = seat(state, player, number)
    state = start(state)
    button = positions(state)[0]
    state = fold_around(state)
    # The player who just had the button is furthest from the blinds for the next hand.
    state, _ = ENGINE.apply(state, Act(button, {"action": "sit_out"}))
    state = fold_around(start(state))
    assert button not in state.missed
    state, events = ENGINE.apply(state, Act(button, {"action": "sit_in"}))
    assert not events[0].data["waits_for_big_blind"]
    state = start(state)
    assert button in ids(state)


def test_rule_50_a_busted_player_stays_to_watch_and_is_not_dealt_in() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    state = seat(state, "a", 0, 3)
    state = seat(state, "b", 1)
    state = seat(state, "c", 2)
    for _ in range(20):
        if state.chips("a") == 0:
            break
        state = start(state)
        while actors := [t.player for t in ENGINE.turns(state)]:
            player = actors[0]
            legal = ENGINE.legal_actions(state, player)
            wanted = "allin" if player == "a" else "call"
            kind = wanted if wanted in legal["actions"] else "check"
            if kind not in legal["actions"]:
                kind = "fold"
            state, _ = ENGINE.apply(state, Act(player, {"action": kind}))
    assert state.chips("a") == 0
    state = start(state)
    assert "a" not in ids(state)
    watcher = ENGINE.view(state, "a")
    assert watcher["table"][0]["stack"] == 0
    assert all("hole_cards" not in s for s in watcher["hand"]["seats"])


@dataclass(frozen=True)
class SeatWithCode(SeatPlayer):
    """What the host's SeatPlayer becomes once it forwards the code (see the report)."""

    invite_code: str = ""


def test_rule_51_private_table_only_invited_players_sit() -> None:
    options: dict[str, Any] = {
        "variant": "plo",
        "blinds": [5, 10],
        "seats": 4,
        "invite_code": "XK42",
        "invited": ["friend"],
        "bots_allowed": False,
    }
    state = ENGINE.open(options)
    state = seat(state, "friend", 0)  # invited by name
    state, _ = ENGINE.apply(state, SeatWithCode("pal", 1, 500, invite_code="XK42"))
    for command in (
        SeatPlayer("stranger", 2, 500),
        SeatWithCode("guesser", 2, 500, invite_code="nope"),
        SeatPlayer("bot1", 2, 500, is_bot=True),
    ):
        with pytest.raises(RuleBroken) as refused:
            ENGINE.apply(state, command)
        assert status_name(refused.value) == "permission_denied"
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, SeatPlayer("friend2", 4, 500))  # and seat 4 does not exist
    # Bots on: a bot may fill a seat of a private table.
    with_bots = ENGINE.open({**options, "bots_allowed": True})
    with_bots, _ = ENGINE.apply(with_bots, SeatPlayer("bot1", 2, 500, is_bot=True))
    assert ENGINE.view(with_bots, "")["table"][0]["bot"]


def test_rule_51_private_table_options_as_protobuf() -> None:
    message = poker_pb2.Options(
        variant=poker_pb2.VARIANT_NAIKO,
        small_blind=1,
        big_blind=2,
        seats=6,
        invite_code="Q1",
        invited=["ann", "bob"],
        bots_allowed=True,
        seal_window_seconds=5,
    )
    options = json_format.MessageToDict(message, preserving_proto_field_name=True)
    state = ENGINE.open(options)
    state, _ = ENGINE.apply(state, SeatPlayer("bot1", 0, 100, is_bot=True))  # switched on
    message.ClearField("bots_allowed")  # unset: a private table has no bots
    closed = ENGINE.open(json_format.MessageToDict(message, preserving_proto_field_name=True))
    with pytest.raises(RuleBroken) as no_bots:
        ENGINE.apply(closed, SeatPlayer("bot1", 0, 100, is_bot=True))
    assert status_name(no_bots.value) == "permission_denied"
    # Field presence (optional): a public table whose options say false has no bots.
    public_off = poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, bots_allowed=False)
    off = ENGINE.open(json_format.MessageToDict(public_off, preserving_proto_field_name=True))
    with pytest.raises(RuleBroken) as switched_off:
        ENGINE.apply(off, SeatPlayer("bot1", 0, 100, is_bot=True))
    assert status_name(switched_off.value) == "permission_denied"
    public = ENGINE.open({"variant": "nlhe"})
    ENGINE.apply(public, SeatPlayer("bot1", 0, 100, is_bot=True))  # public: bots by default
    assert state.options.invited == {"ann", "bob"} and state.options.invite_code == "Q1"
    assert ENGINE.view(state, "")["seal_window_seconds"] == 5
    with pytest.raises(RuleBroken) as bad:
        ENGINE.open({"variant": "nlhe", "invited": "ann"})
    assert status_name(bad.value) == "invalid_argument"


def test_oq_17_section_9_4_seal_window_allowance_and_paused_anchorer() -> None:
    """The rules' turns around a Seal window: the target's own allowance, and the
    anchoring player's unchanged turn key (his turn pauses and resumes)."""
    state = ENGINE.open({"variant": "naiko", "blinds": [1, 2], "seal_window_seconds": 6})
    for player, number in (("a", 0), ("b", 1), ("c", 2)):
        state = seat(state, player, number)
    for _ in range(40):
        state = start(state)
        actor = ENGINE.turns(state)[0].player
        legal = ENGINE.legal_actions(state, actor)
        hand = state.hand
        assert hand is not None and hand.naiko is not None
        if "seal" in hand.naiko.carousel and legal.get("anchor_targets"):
            break
        state = fold_around(state)
    else:
        raise AssertionError("no hand with an Anchor against a player who can seal")
    target = legal["anchor_targets"][0]
    (before,) = ENGINE.turns(state)
    assert before.allowance_ms is None and before.key is not None
    state, _ = ENGINE.apply(
        state, Act(actor, {"action": "power", "power": "anchor", "target": target})
    )
    (window,) = ENGINE.turns(state)
    assert (window.player, window.allowance_ms) == (target, 6000)
    assert window.key != before.key
    state, _ = ENGINE.apply(state, Act(target, {"action": "no_seal"}))
    assert list(ENGINE.turns(state)) == [before]  # his turn resumes, it is not a new one


def test_rule_50_a_seat_is_taken_with_chips_and_a_busted_player_keeps_his() -> None:
    """Seating with 0 chips was accepted and no hand ever started (only a player who went
    broke at the table watches from his seat, rule 50); it is refused, the table unchanged."""
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    state = seat(state, "a", 0)
    with pytest.raises(RuleBroken) as empty:
        ENGINE.apply(state, SeatPlayer("b", 1, 0))
    assert (status_name(empty.value), empty.value.message) == (
        "invalid_argument",
        "the buy-in is at least 1",
    )
    assert [p for _, p, _ in state.seats] == ["a"]
    buy_in = ENGINE.open({"variant": "nlhe", "blinds": [1, 2], "min_buy_in": 40})
    with pytest.raises(RuleBroken) as short:
        ENGINE.apply(buy_in, SeatPlayer("b", 1, 0))
    assert short.value.message == "the buy-in is at least 40"
    state = seat(state, "b", 1, 1)
    assert ENGINE.can_start_hand(state)


@pytest.mark.parametrize("variant", ["naiko", "VARIANT_NAIKO"])
def test_rules_50_55_a_naiko_table_never_plays_for_money(variant: str) -> None:
    """Naiko's cash tables use virtual chips, never money (rules 50, 55, §10.8): a real
    currency is refused; play currencies (or none: the host's default) open. Hold'em may
    still be opened for money, as its opener chooses."""
    for currency in ("USD", "EUR"):
        with pytest.raises(RuleBroken) as money:
            ENGINE.open({"variant": variant, "blinds": [1, 2], "currency": currency})
        assert status_name(money.value) == "invalid_argument"
        assert money.value.message == (
            "a Naiko table plays for virtual chips that are never money (rules 50, 55): "
            f"options.currency is one of CHIP, PLAY, not {currency!r}"
        )
    for currency in ("CHIP", "PLAY", ""):
        ENGINE.open({"variant": variant, "blinds": [1, 2], "currency": currency})
    assert ENGINE.open({"variant": "nlhe", "currency": "USD"}).options.config.variant == "nlhe"


@pytest.mark.parametrize("leaver", ["button", "small", "big"])
def test_rule_9_oq_22_going_heads_up_the_big_blind_moves_forward(leaver: str) -> None:
    """3 players become 2 (rule 9: heads-up the button posts the small blind). The big
    blind moves forward: it goes to the player after the last big blind, never to the
    same player twice running (the standard heads-up rule; OQ 22). With the button
    leaving, the plain one-seat button move made the last big blind the big blind again."""
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    for player, number in (("a", 0), ("b", 1), ("c", 2)):
        state = seat(state, player, number)
    state = start(state)
    while positions(state)[0] != "a":
        state = start(fold_around(state))
    state = fold_around(state)
    assert positions(state) == ("a", "b", "c")
    gone = {"button": "a", "small": "b", "big": "c"}[leaver]
    state, _ = ENGINE.apply(state, UnseatPlayer(gone))
    state = start(state)
    button, small, big = positions(state)
    assert big != "c" and button == small  # heads-up: the button posts the small blind
    assert (button, big) == {"button": ("c", "b"), "small": ("c", "a"), "big": ("b", "a")}[leaver]
    bigs = [big]
    for _ in range(3):  # then the blinds alternate
        state = start(fold_around(state))
        bigs.append(positions(state)[2])
    assert all(x != y for x, y in itertools.pairwise(bigs))
