"""Posting to enter, missed blinds and top-ups at poker tables (seed 002 §6, rule 50,
OQ 22: standard online rules). Pure: the engine and `PokerEngine` without the host.

- A new player waits for his big blind, or posts one big blind live to be dealt in on the
  next hand, unless he would be the small blind (seat between the button and the small
  blind): then he waits until the button has passed him.
- A player who missed blinds while out owes them: the big blind live plus the small blind
  dead when he missed the big one, the small blind dead when he missed only that one.
  Dead chips go to the main pot: never his bet, never returned as uncalled.
- Top-up: up to the table's max buy-in, at once between hands (or when not in the hand),
  else when the hand ends; a busted player keeps his seat, watches and buys in again.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from croupier.game import Act, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.kit.scenario import MalformedScenario
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import cards as C
from croupier.poker.core import deal, history
from croupier.poker.core import hand as hand_rules
from croupier.poker.core.rules import TableConfig
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.tools.conformance import run_scenario
from tests.support.refusals import status_name

BLINDS = {"variant": "nlhe", "blinds": [1, 2]}


def seed(n: int) -> bytes:
    return hashlib.sha256(f"posts/{n}".encode()).digest()


def start(state: PokerTable) -> PokerTable:
    state, _ = ENGINE.apply(state, StartHand(seed(state.hand_number + 1)))
    return state


def fold_around(state: PokerTable) -> PokerTable:
    while actors := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(actors[0], ENGINE.timeout_action(state, actors[0])))
    return state


def table(seats: dict[str, int], options: dict[str, Any] | None = None) -> PokerTable:
    state = ENGINE.open({**BLINDS, **(options or {})})
    for player, number in seats.items():
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, 500))
    return state


def act(state: PokerTable, player: str, **action: Any) -> PokerTable:
    state, _ = ENGINE.apply(state, Act(player, action))
    return state


def positions(state: PokerTable) -> tuple[str, str, str]:
    hand = state.hand
    assert hand is not None
    return hand.ids[hand.button], hand.ids[hand.sb_seat], hand.ids[hand.bb_seat]


def seat_view(state: PokerTable, player: str) -> dict[str, Any]:
    seat: dict[str, Any] = next(
        s for s in ENGINE.view(state, player)["table"] if s["player"] == player
    )
    return seat


def chips_in(state: PokerTable, player: str) -> tuple[int, int]:
    """(bet, whole-hand contribution) of `player` in the running hand."""
    hand = state.hand
    assert hand is not None
    i = hand.ids.index(player)
    return hand.bets[i], hand.contrib[i]


# ---- engine: posts, dead money -----------------------------------------------------------


def four_handed(posts: dict[int, tuple[int, int]], holes: list[str]) -> Any:
    """Button 0, small blind 1, big blind 2, and seat 3 posting."""
    hole = [C.parse_all(h.split()) for h in holes]
    board = list(C.parse_all(["Jh", "9s", "8c", "4d", "3s"]))  # no straight, no flush
    used = {c for h in hole for c in h} | set(board)
    deck = board + [c for c in C.DECK if c not in used]
    players = [("btn", 100), ("sb", 100), ("bb", 100), ("post", 100)]
    return deal.start_hand(TableConfig(), players, 0, hole, deck, posts=posts, ranks=RANKS)


def test_oq_22_a_live_post_is_the_posters_bet_and_he_may_check_when_unraised() -> None:
    hand = four_handed({3: (2, 0)}, ["2c 7d", "3c 8d", "4c 9d", "5c Td"])
    assert hand.bets == [0, 1, 2, 2] and hand.contrib == [0, 1, 2, 2]
    assert hand_rules.legal_actions(hand, "post")["actions"][:2] == ["fold", "check"]
    assert hand.player_to_act == "post"  # first after the big blind, as his seat says
    hand, _ = hand_rules.apply(hand, "post", {"action": "check"})
    for player in ("btn", "sb"):
        hand, _ = hand_rules.apply(hand, player, {"action": "fold"})
    # The big blind still has his option (OQ 1): the post did not close the round.
    assert hand.player_to_act == "bb"


def test_oq_22_dead_small_blind_is_never_returned_as_uncalled() -> None:
    hand = four_handed({3: (2, 1)}, ["2c 7d", "3c 8d", "4c 9d", "5c Td"])
    assert hand.bets[3] == 2 and hand.contrib[3] == 3  # dead chip: not part of his bet
    hand, _ = hand_rules.apply(hand, "post", {"action": "raise", "to": 6})
    for player in ("btn", "sb", "bb"):
        hand, _ = hand_rules.apply(hand, player, {"action": "fold"})
    result = hand.result
    assert result is not None
    assert result["returned"] == {"post": 4}  # 6 - 2 matched by the big blind; not 5
    assert result["winnings"] == {"post": 6}  # 1 + 2 + 2 + the dead 1
    assert sum(result["deltas"].values()) == 0


def test_oq_22_dead_money_goes_to_the_main_pot_and_its_winner() -> None:
    # The poster has the worst hand; everyone calls the big blind and checks it down.
    hand = four_handed({3: (2, 1)}, ["As Ad", "Ks Kd", "Qs Qd", "7c 2h"])
    order = ["post", "btn", "sb", "bb"]
    for player in order:
        kind = hand_rules.timeout_action(hand, player)["action"]
        hand, _ = hand_rules.apply(hand, player, {"action": "call" if kind == "fold" else kind})
    while hand.player_to_act is not None:
        hand, _ = hand_rules.apply(hand, hand.player_to_act, {"action": "check"})
    result = hand.result
    assert result is not None
    assert result["returned"] == {}
    assert result["pots"][0]["amount"] == 9 and result["winnings"] == {"btn": 9}
    assert result["deltas"]["post"] == -3
    assert sum(result["deltas"].values()) == 0


def test_oq_22_posts_are_in_the_hand_history_and_replay() -> None:
    hand = four_handed({3: (2, 1)}, ["As Ad", "Ks Kd", "Qs Qd", "7c 2h"])
    hand, _ = hand_rules.apply(hand, "post", {"action": "raise", "to": 8})
    for player in ("btn", "sb", "bb"):
        hand, _ = hand_rules.apply(hand, player, {"action": "fold"})
    record = history.record(hand)
    assert record["posts"] == {"post": {"live": 2, "dead": 1}}
    assert history.replay(record, RANKS).result == hand.result
    # The record is still a conformance document (`croupier conformance`).
    out = run_scenario(record)
    assert out["stacks"] == hand.result["stacks"] and out["returned"] == {"post": 6}
    with pytest.raises(MalformedScenario):
        run_scenario({**record, "posts": {"post": {"live": -1}}})
    with pytest.raises(MalformedScenario):
        run_scenario({**record, "posts": {"sb": {"live": 2}}})  # a blind's seat


def test_oq_22_a_short_stack_posts_what_it_has_and_is_all_in() -> None:
    hole = [C.parse_all(h.split()) for h in ["2c 7d", "3c 8d", "4c 9d", "5c Td"]]
    deck = [c for c in C.DECK if c not in {c for h in hole for c in h}]
    players = [("btn", 100), ("sb", 100), ("bb", 100), ("post", 2)]
    hand = deal.start_hand(TableConfig(), players, 0, hole, deck, posts={3: (2, 1)}, ranks=RANKS)
    assert hand.stacks[3] == 0 and hand.contrib[3] == 2 and hand.bets[3] == 1
    with pytest.raises(ValueError, match="blinds"):
        deal.start_hand(TableConfig(), players, 0, hole, deck, posts={1: (2, 0)}, ranks=RANKS)


def test_oq_22_a_poster_all_in_on_his_dead_chip_can_win_only_the_dead_main_pot() -> None:
    hole = [C.parse_all(h.split()) for h in ["7c 2h", "Ks Kd", "Qs Qd", "As Ad"]]
    board = list(C.parse_all(["Jh", "9s", "8c", "4d", "3s"]))
    deck = board + [c for c in C.DECK if c not in {c for h in hole for c in h} | set(board)]
    players = [("btn", 100), ("sb", 100), ("bb", 100), ("post", 1)]
    hand = deal.start_hand(TableConfig(), players, 0, hole, deck, posts={3: (2, 1)}, ranks=RANKS)
    assert hand.stacks[3] == 0 and hand.contrib[3] == 1 and hand.bets[3] == 0
    while hand.player_to_act is not None:
        actor = hand.player_to_act
        legal = hand_rules.legal_actions(hand, actor)["actions"]
        hand, _ = hand_rules.apply(hand, actor, {"action": "call" if "call" in legal else "check"})
    result = hand.result
    assert result is not None
    assert result["pots"][0] == {"amount": 1, "eligible": ["sb", "bb", "post", "btn"],
                                 "winners": ["post"]}  # fmt: skip
    assert result["winnings"] == {"post": 1, "sb": 6}
    assert sum(result["deltas"].values()) == 0


# ---- the table: who posts what, and when ---------------------------------------------------


def test_oq_22_a_new_player_may_post_a_big_blind_to_be_dealt_in_at_once() -> None:
    state = fold_around(start(table({"a": 0, "b": 1, "c": 2, "d": 3})))  # button a
    state = act(table_seat(state, "new", 5), "new", action="post_blind")
    assert seat_view(state, "new")["posting_blind"]
    state = start(state)  # button b, blinds c and d: seat 5 is after the big blind
    assert positions(state) == ("b", "c", "d")
    assert chips_in(state, "new") == (2, 2)
    assert state.hand is not None and state.hand.posts[state.hand.ids.index("new")] == (2, 0)
    assert [t.player for t in ENGINE.turns(state)] == ["new"]
    assert "check" in ENGINE.legal_actions(state, "new")["actions"]
    assert not seat_view(state, "new")["waiting_for_big_blind"]


def table_seat(state: PokerTable, player: str, number: int, stack: int = 500) -> PokerTable:
    state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    return state


def test_oq_22_a_poster_who_would_be_the_small_blind_waits_for_the_button_to_pass() -> None:
    state = fold_around(start(table({"a": 0, "b": 2, "c": 4, "d": 6})))  # button a
    state = act(table_seat(state, "new", 3), "new", action="post_blind")
    state = start(state)  # button b (2), small blind c (4): seat 3 is between them
    assert positions(state) == ("b", "c", "d")
    assert state.hand is not None and "new" not in state.hand.ids
    state = start(fold_around(state))  # button c (4): the button passed seat 3
    assert state.hand is not None and "new" in state.hand.ids
    assert positions(state) == ("c", "d", "a")
    assert chips_in(state, "new") == (2, 2)


def test_oq_22_a_waiting_player_whose_big_blind_comes_posts_only_the_big_blind() -> None:
    state = fold_around(start(table({"a": 0, "b": 2, "c": 4, "d": 6})))  # button a
    state = act(table_seat(state, "new", 5), "new", action="post_blind")
    state = start(state)  # button b, small blind c (4): seat 5 takes the big blind
    assert positions(state) == ("b", "c", "new")
    assert state.hand is not None and not any(state.hand.posts)
    assert chips_in(state, "new") == (2, 2)


def sit_out_until_missed(state: PokerTable, player: str, hands: int) -> PokerTable:
    state = act(state, player, action="sit_out")
    for _ in range(hands):
        state = fold_around(start(state))
    return state


def test_oq_22_missed_big_blind_owes_big_blind_live_and_small_blind_dead() -> None:
    state = table({"a": 0, "b": 1, "c": 2, "d": 3, "e": 4})
    state = fold_around(start(state))
    state = sit_out_until_missed(state, "e", 4)  # both blinds passed him
    assert "e" in state.missed_big
    assert seat_view(state, "e")["owes"] == [2, 1]
    state, events = ENGINE.apply(state, Act("e", {"action": "sit_in", "post": True}))
    assert [e.type for e in events] == ["player_sitting_in", "player_posting"]
    assert events[0].data["owes_big_blind"] == 2
    assert events[1].data == {"player": "e", "live": 2, "dead": 1}
    state, events = ENGINE.apply(state, StartHand(seed(state.hand_number + 1)))
    assert positions(state) == ("b", "c", "d")  # e sits after the big blind: he posts
    assert chips_in(state, "e") == (2, 3)
    assert events[0].data["posts"] == {"e": {"live": 2, "dead": 1}}
    assert "e" not in state.missed and "e" not in state.missed_big
    state = fold_around(state)
    result = ENGINE.result(state)
    assert result is not None and sum(result.deltas.values()) == 0


def test_oq_22_a_returning_poster_who_would_be_the_small_blind_waits() -> None:
    state = table({"a": 0, "b": 1, "c": 2, "d": 3, "e": 4})
    state = fold_around(start(state))
    state = sit_out_until_missed(state, "e", 6)
    state = act(act(state, "e", action="sit_in"), "e", action="post_blind")
    state = start(state)
    assert positions(state) == ("d", "a", "b")  # e (seat 4) would be the small blind
    assert state.hand is not None and "e" not in state.hand.ids
    state = start(fold_around(state))
    assert positions(state) == ("a", "b", "c") and chips_in(state, "e") == (2, 3)


def test_oq_22_missed_small_blind_only_owes_it_dead() -> None:
    state = table({"a": 0, "b": 1, "c": 2, "d": 3, "e": 4})
    state = start(state)
    big = positions(state)[2]
    state = fold_around(state)
    # The big blind of the last hand would be the small blind of the next one.
    state = sit_out_until_missed(state, big, 1)
    assert big in state.missed and big not in state.missed_big
    state = act(state, big, action="sit_in")
    assert seat_view(state, big)["waiting_for_big_blind"]
    state = act(state, big, action="post_blind")
    state = start(state)
    assert state.hand is not None and big in state.hand.ids
    assert chips_in(state, big) == (0, 1)  # the small blind, dead
    assert state.hand.posts[state.hand.ids.index(big)] == (0, 1)


def test_oq_22_a_missed_small_blind_of_zero_is_owed_by_nobody() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [0, 2]})
    for player, number in (("a", 0), ("b", 1), ("c", 2), ("d", 3), ("e", 4)):
        state = table_seat(state, player, number)
    state = start(state)
    big = positions(state)[2]
    state = sit_out_until_missed(fold_around(state), big, 1)
    assert big in state.missed and state.owed(big) == (0, 0)
    state = act(state, big, action="sit_in")
    assert not seat_view(state, big)["waiting_for_big_blind"]
    dealt = start(state).hand
    assert dealt is not None and big in dealt.ids and not any(dealt.posts)


def test_oq_22_a_returning_player_who_waits_takes_his_big_blind_and_owes_nothing() -> None:
    state = table({"a": 0, "b": 1, "c": 2, "d": 3})
    state = fold_around(start(state))
    state = sit_out_until_missed(state, "d", 4)
    state = act(state, "d", action="sit_in")
    for _ in range(5):
        state = start(state)
        if state.hand is not None and "d" in state.hand.ids:
            break
        state = fold_around(state)
    assert positions(state)[2] == "d"
    assert state.hand is not None and not any(state.hand.posts)
    assert "d" not in state.missed


def test_oq_22_post_blind_refusals() -> None:
    state = fold_around(start(table({"a": 0, "b": 1, "c": 2})))
    with pytest.raises(RuleBroken) as playing:
        ENGINE.apply(state, Act("a", {"action": "post_blind"}))
    assert status_name(playing.value) == "failed_precondition"
    assert playing.value.message == "you are not waiting for the big blind"
    state = act(state, "a", action="sit_out")
    with pytest.raises(RuleBroken, match="sit in first"):
        ENGINE.apply(state, Act("a", {"action": "post_blind"}))
    state = act(table_seat(state, "new", 5), "new", action="post_blind")
    with pytest.raises(RuleBroken, match="already chose to post"):
        ENGINE.apply(state, Act("new", {"action": "post_blind"}))
    away = act(act(state, "new", action="sit_out"), "new", action="sit_in")
    assert not seat_view(away, "new")["posting_blind"]  # sitting out withdrew the choice
    with pytest.raises(RuleBroken) as bad:
        ENGINE.apply(state, Act("a", {"action": "sit_in", "post": "yes"}))
    assert status_name(bad.value) == "invalid_argument"
    with pytest.raises(RuleBroken) as nobody:
        ENGINE.apply(state, Act("ghost", {"action": "post_blind"}))
    assert status_name(nobody.value) == "not_found"


# ---- top-ups and busted players -------------------------------------------------------------


def test_rule_50_top_up_between_hands_up_to_the_max_buy_in() -> None:
    state = ENGINE.open({**BLINDS, "min_buy_in": 100, "max_buy_in": 500})
    state = table_seat(state, "a", 0, 300)
    with pytest.raises(RuleBroken) as above:
        ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 300}))
    assert status_name(above.value) == "failed_precondition"
    assert above.value.message == "a top-up may bring the stack to at most 500: at most 200 more"
    state, events = ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 200}))
    assert state.chips("a") == 500
    assert events[0].type == "player_topped_up" and events[0].data["stack"] == 500
    with pytest.raises(RuleBroken, match="it is there already"):
        ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 1}))
    for amount in (0, -5, "10", True, None):
        with pytest.raises(RuleBroken) as bad:
            ENGINE.apply(state, Act("a", {"action": "top_up", "amount": amount}))
        assert status_name(bad.value) == "invalid_argument"
    unlimited = table_seat(ENGINE.open(BLINDS), "a", 0, 300)
    unlimited = act(unlimited, "a", action="top_up", amount=10_000)
    assert unlimited.chips("a") == 10_300


def test_rule_50_a_top_up_during_the_hand_lands_when_it_ends_and_the_result_is_unchanged() -> None:
    state = start(table({"a": 0, "b": 1, "c": 2}, {"max_buy_in": 1000}))
    state, events = ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 400}))
    assert events[0].data == {"player": "a", "amount": 400, "pending": 400}
    assert state.chips("a") == 500 and seat_view(state, "a")["pending_top_up"] == 400
    with pytest.raises(RuleBroken, match="at most 100 more"):
        ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 101}))
    assert state.hand is not None and state.hand.stacks[state.hand.ids.index("a")] <= 500
    state = fold_around(state)
    result = ENGINE.result(state)
    assert result is not None and sum(result.deltas.values()) == 0
    assert state.chips("a") == 500 + result.deltas["a"] + 400
    assert state.top_ups == () and seat_view(state, "a")["pending_top_up"] == 0


def test_rule_50_a_top_up_that_lands_over_the_max_buy_in_gives_the_rest_back() -> None:
    """The cap is checked again when a top-up made during the hand lands: a player who
    won meanwhile keeps only what brings him to `max_buy_in`; the rest is returned."""
    state = start(table({"a": 0, "b": 1, "c": 2}, {"max_buy_in": 600}))
    state = act(state, "a", action="top_up", amount=100)  # 500 + 100 pending: at the cap
    # a calls, the others fold: a wins the blinds
    while actors := [t.player for t in ENGINE.turns(state)]:
        legal = ENGINE.legal_actions(state, actors[0])["actions"]
        kind = ("call" if "call" in legal else "check") if actors[0] == "a" else "fold"
        state, events = ENGINE.apply(state, Act(actors[0], {"action": kind}))
    result = ENGINE.result(state)
    assert result is not None and result.deltas["a"] > 0
    assert state.chips("a") == 600
    (returned,) = [e for e in events if e.type == "top_up_returned"]
    assert returned.data == {"player": "a", "amount": result.deltas["a"]}


def bust(state: PokerTable, player: str) -> PokerTable:
    for _ in range(30):
        if state.chips(player) == 0:
            return state
        state = start(state)
        while actors := [t.player for t in ENGINE.turns(state)]:
            actor = actors[0]
            legal = ENGINE.legal_actions(state, actor)
            wanted = "allin" if actor == player else "call"
            kind = wanted if wanted in legal["actions"] else "check"
            if kind not in legal["actions"]:
                kind = "fold"
            state, _ = ENGINE.apply(state, Act(actor, {"action": kind}))
    raise AssertionError(f"{player} never busted")


def test_rule_50_a_busted_player_watches_the_table_play_on_and_buys_in_again() -> None:
    state = ENGINE.open({**BLINDS, "min_buy_in": 40, "max_buy_in": 400})
    for player, number in (("a", 0), ("b", 1), ("c", 2), ("d", 3)):
        state = table_seat(state, player, number, 40 if player == "a" else 400)
    state = bust(state, "a")
    assert ENGINE.can_start_hand(state)  # the table keeps running for the others
    state = start(state)
    assert state.hand is not None and "a" not in state.hand.ids
    assert "hole_cards" not in str(ENGINE.view(state, "a")["hand"]["seats"])
    with pytest.raises(RuleBroken, match="at least 40"):
        ENGINE.apply(state, Act("a", {"action": "top_up", "amount": 39}))
    state = act(state, "a", action="top_up", amount=100)  # not in the hand: at once
    assert state.chips("a") == 100
    for _ in range(6):
        state = fold_around(state)
        state = start(state)
        if state.hand is not None and "a" in state.hand.ids:
            break
    else:
        raise AssertionError("the busted player never played again")


def test_rule_50_leaving_reports_the_stack_to_settle_with_pending_top_ups() -> None:
    state = start(table({"a": 0, "b": 1, "c": 2}))
    state = act(state, "a", action="top_up", amount=50)
    state, events = ENGINE.apply(state, UnseatPlayer("a"))
    assert events[0].type == "player_leaving"
    left = [e for e in events if e.type == "player_left"]
    while not left and (actors := [t.player for t in ENGINE.turns(state)]):
        action = ENGINE.timeout_action(state, actors[0])
        state, events = ENGINE.apply(state, Act(actors[0], action))
        left = [e for e in events if e.type == "player_left"]
    result = ENGINE.result(state)
    assert result is not None
    assert left[0].data == {"player": "a", "stack": 500 + result.deltas["a"] + 50}
    assert "a" not in [p for _, p, _ in state.seats]
    between = table({"x": 0, "y": 1})
    between, events = ENGINE.apply(between, UnseatPlayer("x"))
    assert events[0].data == {"player": "x", "stack": 500}


@pytest.mark.parametrize("variant", ["nlhe", "plo", "naiko"])
def test_oq_22_rule_50_random_table_life_keeps_every_chip(variant: str) -> None:
    """Random sit-outs, sit-ins with and without posting, top-ups, new players, leaving
    and busting over many hands: each hand's deltas sum to 0, the chips at the table are
    exactly what was brought, nobody sitting out is dealt in, and a replay of every hand's
    history reaches its recorded settlement."""
    rng = random.Random(f"life/{variant}")
    state = ENGINE.open({"variant": variant, "blinds": [1, 2], "seats": 6, "max_buy_in": 400})
    brought = 0
    names = iter(f"p{i}" for i in range(1000))
    for number in range(4):
        state = table_seat(state, next(names), number, 100)
        brought += 100
    for _ in range(200):
        free = sorted(set(range(6)) - {n for n, _, _ in state.seats})
        for _, player, _ in list(state.seats):
            roll = rng.random()
            action: dict[str, Any] | None = None
            if roll < 0.06:
                action = {"action": "sit_out"}
            elif roll < 0.2:
                action = {"action": "sit_in", "post": rng.random() < 0.5}
            elif roll < 0.26:
                action = {"action": "post_blind"}
            elif roll < 0.34:
                action = {"action": "top_up", "amount": rng.randint(1, 150)}
            if action is not None:
                try:
                    state, _ = ENGINE.apply(state, Act(player, action))
                except RuleBroken:
                    continue
                if action["action"] == "top_up":
                    brought += action["amount"]
        if free and rng.random() < 0.15:
            state = table_seat(state, next(names), free[0], 100)
            brought += 100
        if len(state.seats) > 2 and rng.random() < 0.08:
            leaver = rng.choice(state.seats)
            state, events = ENGINE.apply(state, UnseatPlayer(leaver[1]))
            brought -= sum(e.data["stack"] for e in events if e.type == "player_left")
        if not ENGINE.can_start_hand(state):
            continue
        state = start(state)
        hand = state.hand
        assert hand is not None
        assert not set(hand.ids) & state.sitting_out
        while actors := [t.player for t in ENGINE.turns(state)]:
            actor = actors[0]
            legal = ENGINE.legal_actions(state, actor)["actions"]
            kind = rng.choice([a for a in legal if a in ("fold", "check", "call", "allin")])
            state, events = ENGINE.apply(state, Act(actor, {"action": kind}))
            brought -= sum(e.data["stack"] for e in events if e.type == "player_left")
        result = ENGINE.result(state)
        assert result is not None and sum(result.deltas.values()) == 0
        assert state.hand is not None
        assert history.replay(history.record(state.hand), RANKS).result == state.hand.result
        assert sum(st for _, _, st in state.seats) + sum(dict(state.top_ups).values()) == brought
        assert all(st >= 0 for _, _, st in state.seats)


def test_rule_20_folded_posters_above_a_short_all_in_get_their_excess_back() -> None:
    """Two players post a live big blind and both fold (they could have checked) to a big
    blind all-in for one chip: the all-in can win one chip from each; the chips above it,
    which no live player can reach, go back to the posters. Nothing is lost."""
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 4], "seats": 6})
    for player, number, stack in (("A", 0, 100), ("B", 1, 100), ("X", 2, 100)):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    state, _ = ENGINE.apply(state, StartHand(seed(900)))
    while to_act := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(to_act[0], {"action": "fold"}))
    for player, number, stack in (("C", 3, 1), ("D", 4, 100), ("E", 5, 100)):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    for player in ("D", "E"):
        state, _ = ENGINE.apply(state, Act(player, {"action": "post_blind"}))
    chips = sum(stack for _, _, stack in state.seats)
    state, _ = ENGINE.apply(state, StartHand(seed(901)))
    while to_act := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(to_act[0], {"action": "fold"}))
    result = ENGINE.result(state)
    assert result is not None
    assert sum(result.deltas.values()) == 0
    assert result.deltas["C"] == 3 and result.deltas["D"] == result.deltas["E"] == -1
    assert sum(stack for _, _, stack in state.seats) == chips


def test_oq_22_a_busted_player_cannot_dodge_a_big_blind_by_sitting_out_and_in() -> None:
    """Busted, he owes the blinds that pass his seat; sitting out and in again while
    busted does not make him a new player waiting to enter."""

    def busted_player_owes(trick: bool) -> tuple[int, int]:
        for attempt in range(200):
            state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2], "seats": 6})
            for player, number, stack in (("A", 0, 100), ("B", 1, 100), ("X", 2, 2)):
                state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
            state, _ = ENGINE.apply(state, StartHand(seed(1000 + attempt)))
            while to_act := [t.player for t in ENGINE.turns(state)]:
                legal = ENGINE.legal_actions(state, to_act[0])["actions"]
                kind = "fold" if to_act[0] == "A" else "call" if "call" in legal else "check"
                state, _ = ENGINE.apply(state, Act(to_act[0], {"action": kind}))
            if state.chips("X") == 0:
                break
        else:
            raise AssertionError("X never busted")
        for number in (2, 3):
            if number == 3 and trick:
                state, _ = ENGINE.apply(state, Act("X", {"action": "sit_out"}))
                state, _ = ENGINE.apply(state, Act("X", {"action": "sit_in"}))
            state, _ = ENGINE.apply(state, StartHand(seed(2000 + number)))
            while to_act := [t.player for t in ENGINE.turns(state)]:
                action = ENGINE.timeout_action(state, to_act[0])
                state, _ = ENGINE.apply(state, Act(to_act[0], action))
        owed: tuple[int, int] = state.owed("X")
        return owed

    assert busted_player_owes(trick=True) == busted_player_owes(trick=False) == (2, 1)


def test_oq_22_rule_50_legal_actions_list_post_blind_and_top_up_when_they_are_legal() -> None:
    """`legal_actions` (and the player's view, `table_actions`) list the table actions he
    may take now, during a hand or between hands, and each listed one is accepted."""
    state = start(table({"a": 0, "b": 1, "c": 2}, {"max_buy_in": 600}))
    state, _ = ENGINE.apply(state, SeatPlayer("new", 3, 500))  # waits for his big blind
    state, _ = ENGINE.apply(state, SeatPlayer("full", 4, 600))  # at the max buy-in
    assert ENGINE.legal_actions(state, "new")["actions"] == ["sit_out", "post_blind", "top_up"]
    assert ENGINE.legal_actions(state, "full")["actions"] == ["sit_out", "post_blind"]
    assert ENGINE.view(state, "new")["table_actions"] == ["sit_out", "post_blind", "top_up"]
    actor = ENGINE.turns(state)[0].player
    assert state.hand is not None
    hand_actions = hand_rules.legal_actions(state.hand, actor)["actions"]
    assert ENGINE.legal_actions(state, actor)["actions"] == [*hand_actions, "sit_out", "top_up"]
    for action in ({"action": "post_blind"}, {"action": "top_up", "amount": 100}):
        state = act(state, "new", **action)
    assert ENGINE.legal_actions(state, "new")["actions"] == ["sit_out"]  # posting, at 600
    state = act(state, "full", action="sit_out")
    assert ENGINE.legal_actions(state, "full")["actions"] == ["sit_in"]
    with pytest.raises(RuleBroken):
        act(state, "full", action="post_blind")  # not listed: refused
    assert ENGINE.legal_actions(state, "nobody")["actions"] == []
    assert "table_actions" not in ENGINE.view(state, None)
