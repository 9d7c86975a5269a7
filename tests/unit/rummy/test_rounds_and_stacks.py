"""The rummy `GameRules` adapter: seats, seeded rounds, timeouts, settlement into stacks
(seed 000 §10, rules 20–23, 45), views and snapshots."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from croupier.game import Act, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.rummy.codec import view_message
from croupier.rummy.core.autoplay import ALL_AUTOMATIC_MS, AutoPlay
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.rummy_table import RummyTable
from croupier.rummy.engine import ENGINE
from croupier.rummy.tools.bots import gin_bot_action, laydown_bot_action
from croupier.rummy.v1 import rummy_pb2
from tests.support.refusals import status_name


def _seated(variant: str, players: int = 2, stack: int = 1000) -> RummyTable:
    state = ENGINE.open({"variant": variant, "round_fee": "30", "chip_ratio": 3})
    for index in range(players):
        state, _ = ENGINE.apply(state, SeatPlayer(player=f"p{index}", seat=index, stack=stack))
    return state


def _seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


@pytest.mark.parametrize(("variant", "players"), [("gin", 2), ("rummy51", 3), ("rummy500", 2)])
def test_rounds_settle_into_stacks_and_conserve_chips(variant: str, players: int) -> None:
    state = _seated(variant, players)
    for round_no in range(3):
        assert ENGINE.can_start_hand(state)
        state, _ = ENGINE.apply(state, StartHand(seed=_seed(f"{variant}{round_no}")))
        while [t.player for t in ENGINE.turns(state)]:
            (player,) = [t.player for t in ENGINE.turns(state)]
            assert state.round is not None
            action = (
                gin_bot_action(state.round)
                if isinstance(state.round, GinState)
                else laydown_bot_action(state.round)
            )
            state, _ = ENGINE.apply(state, Act(player=player, action=action, by_clock=True))
        result = ENGINE.result(state)
        assert result is not None
        assert sum(result.deltas.values()) == 0
        assert sum(state.stacks) == 1000 * players
        assert result.details["ending"] in {"gin", "knock", "undercut", "out", "hand", "draw"}


def test_timeouts_alone_play_the_auto_player() -> None:
    state = _seated("gin")
    state, _ = ENGINE.apply(state, StartHand(seed=_seed("auto")))
    for _ in range(200):
        if not [t.player for t in ENGINE.turns(state)]:
            break
        (player,) = [t.player for t in ENGINE.turns(state)]
        action = ENGINE.timeout_action(state, player)
        state, _ = ENGINE.apply(state, Act(player=player, action=action, by_clock=True))
    result = ENGINE.result(state)
    assert result is not None and result.details["ending"] == "draw"
    assert result.deltas == {"p0": 0, "p1": 0}


def test_refusals() -> None:
    with pytest.raises(RuleBroken):
        ENGINE.open({"variant": "canasta"})
    with pytest.raises(RuleBroken):
        ENGINE.open({"variant": "gin", "round_fee": "x"})
    state = _seated("gin")
    with pytest.raises(RuleBroken):  # gin seats two
        ENGINE.apply(state, SeatPlayer(player="p9", seat=2, stack=10))
    state, _ = ENGINE.apply(state, StartHand(seed=_seed("r")))
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, UnseatPlayer(player="p0"))
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, StartHand(seed=_seed("again")))
    (player,) = [t.player for t in ENGINE.turns(state)]
    with pytest.raises(RuleBroken) as refused:
        ENGINE.apply(state, Act(player=player, action={"action": "discard", "card": "Ah"}))
    assert status_name(refused.value) == "failed_precondition"


def test_views_hide_other_hands_and_snapshot_holds_everything() -> None:
    state = _seated("rummy40", 3)
    state, _ = ENGINE.apply(state, StartHand(seed=_seed("views")))
    snap = ENGINE.snapshot(state)
    assert len(snap["round"]["hands"]["p1"]) == 13
    mine = ENGINE.view(state, "p1")
    assert sorted(mine["round"]["hand"]) == sorted(snap["round"]["hands"]["p1"])
    assert mine["round"]["card_counts"] == {"p0": 13, "p1": 13, "p2": 13}
    public = ENGINE.view(state, None)
    assert public["round"]["hand"] == []


def test_randomness_is_the_deck_order_start_hand_uses() -> None:
    seed = _seed("verify")
    shapes = {(d["decks"], d["jokers"]): d["order"] for d in ENGINE.randomness(seed)}
    assert set(shapes) == {(1, 0), (1, 2), (2, 4)}
    state = _seated("gin")
    state, _ = ENGINE.apply(state, StartHand(seed=seed))
    snap = ENGINE.snapshot(state)
    order = shapes[(1, 0)]
    # dealt one at a time from the dealer's left (p1 is left of dealer p0), then the up-card
    assert snap["round"]["hands"]["p1"] == order[0:20:2]
    assert snap["round"]["hands"]["p0"] == order[1:20:2]
    assert snap["round"]["discard_pile"] == [order[20]]
    assert snap["round"]["stock"] == order[21:]


def test_a_player_cannot_send_the_auto_players_discard() -> None:
    """Rule 45's auto discard skips end-of-turn checks: only the clock may make it."""
    state = ENGINE.open({"variant": "gin"})
    for seat, player in enumerate(("p0", "p1")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat, stack=1000))
    state, _ = ENGINE.apply(state, StartHand(bytes(32)))
    (player,) = [t.player for t in ENGINE.turns(state)]
    action = ENGINE.timeout_action(state, player)
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, Act(player=player, action={**action, "auto": True}))
    ENGINE.apply(state, Act(player=player, action=action, by_clock=True))


MINUTE_MS = 60_000


def _turn_by_clock(state: RummyTable, at_ms: int) -> tuple[RummyTable, list[str]]:
    """The player to act times out (rule 45): draw, then discard, both stamped `at_ms`."""
    (player,) = [t.player for t in ENGINE.turns(state)]
    kinds: list[str] = []
    while [t.player for t in ENGINE.turns(state)] == [player]:
        action = ENGINE.timeout_action(state, player)
        state, events = ENGINE.apply(state, Act(player, action, by_clock=True, at_ms=at_ms))
        kinds += [event.type for event in events]
    return state, kinds


def _rule_46_table(variant: str) -> RummyTable:
    state = ENGINE.open({"variant": variant, "players": 3, "round_fee": "30", "chip_ratio": 3})
    for seat, (player, stack) in enumerate({"p0": 500, "p1": 20, "p2": 1000}.items()):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat, stack=stack))
    state, _ = ENGINE.apply(state, StartHand(seed=_seed(f"rule46-{variant}")))
    return state


@pytest.mark.parametrize("variant", ["rummy51", "rummy40"])
def test_rule_46_an_all_automatic_round_is_cancelled_after_5_minutes_fees_returned(
    variant: str,
) -> None:
    """Rule 46 / OQ 24 / vector 22: three players time out in turn (30 s each); from the
    third timeout every player is automatic and the round goes on (a turn a second)
    for 5 more minutes; the first automatic turn at 5 minutes cancels it: no winner, no
    negative or tournament points, each player's fee (p1's short 20 too) given back."""
    state = _rule_46_table(variant)
    now = 1_000_000
    for _ in range(3):  # each player's first turn runs out on the turn clock
        now += 30_000
        state, kinds = _turn_by_clock(state, now)
    all_automatic_at = now
    assert state.auto.players == {"p0", "p1", "p2"}
    while now + 1_000 < all_automatic_at + 5 * MINUTE_MS:
        now += 1_000
        state, kinds = _turn_by_clock(state, now)
        assert "RoundCancelled" not in kinds and ENGINE.result(state) is None
    now += 1_000
    state, kinds = _turn_by_clock(state, now)
    assert now - all_automatic_at == 5 * MINUTE_MS
    assert kinds == ["RoundCancelled", "RoundSettled"]
    result = ENGINE.result(state)
    assert result is not None
    assert result.details["ending"] == "cancelled" and result.details["winner"] is None
    assert result.details["fees"] == {"p0": 30, "p1": 20, "p2": 30}
    assert result.details["pot"] == 80
    assert result.details["penalty"] == {} and result.details["chips_paid"] == {}
    assert result.details["chips_won"] == 0 and result.details["tournament_points"] == {}
    assert result.deltas == {"p0": 0, "p1": 0, "p2": 0}
    assert state.stacks == (500, 20, 1000)
    shown = view_message(ENGINE.view(state, "p0")).result
    assert shown.ending == rummy_pb2.ENDING_CANCELLED and dict(shown.deltas) == {
        "p0": 0,
        "p1": 0,
        "p2": 0,
    }
    # The next round is dealt to the same players, still automatic: 5 minutes again.
    assert ENGINE.can_start_hand(state)


def test_rule_46_a_player_acting_again_restarts_the_5_minutes() -> None:
    """Rule 46 counts from the moment every player is automatic: p0 acting on their own
    (rule 45 ends their auto-player mode) stops the count; it starts again when p0 times
    out again, and the round is cancelled 5 minutes after that, not before."""
    state = _rule_46_table("rummy51")
    now = 0
    for _ in range(3):
        now += 30_000
        state, _ = _turn_by_clock(state, now)
    first_all_automatic = now
    while [t.player for t in ENGINE.turns(state)] != ["p0"]:
        now += 1_000
        state, _ = _turn_by_clock(state, now)
    now += 2 * MINUTE_MS  # p0 comes back and plays a turn of their own
    state, _ = ENGINE.apply(state, Act("p0", {"action": "draw", "from": "stock"}, at_ms=now))
    assert state.auto.players == {"p1", "p2"} and state.auto.all_since_ms is None
    state, _ = _turn_by_clock(state, now)  # then runs out of time: automatic again
    again = now
    assert state.auto.all_since_ms == again
    while now < first_all_automatic + 6 * MINUTE_MS:
        now += 1_000
        state, kinds = _turn_by_clock(state, now)
        assert ENGINE.result(state) is None, now - again
    while now < again + 5 * MINUTE_MS:
        now += 1_000
        state, kinds = _turn_by_clock(state, now)
    assert kinds[0] == "RoundCancelled" and ENGINE.result(state) is not None


def _bot_round(state: RummyTable, seed: bytes) -> tuple[RummyTable, list[str]]:
    """Deal a round and play it out with the simple bots; the events' types."""
    state, events = ENGINE.apply(state, StartHand(seed=seed))
    kinds = [event.type for event in events]
    while [t.player for t in ENGINE.turns(state)]:
        (player,) = [t.player for t in ENGINE.turns(state)]
        assert state.round is not None and not isinstance(state.round, GinState)
        state, events = ENGINE.apply(state, Act(player, laydown_bot_action(state.round)))
        kinds += [event.type for event in events]
    return state, kinds


def test_rule_9_a_player_with_0_chips_at_the_end_of_a_round_is_eliminated_not_blocking() -> None:
    """Rules 9–10: p2 (30 chips, the fee) plays the round; losing it leaves 0 chips, so p2
    is eliminated at its end: named in the settlement, dealt no more rounds (the table
    used to wait for ever, every stack having to be > 0); the next round goes on between
    p0 and p1, and p2 may leave meanwhile. When one player is left with chips (rule 2),
    no round starts."""
    for attempt in range(20):  # the first deal (in a fixed order) that p2 does not win
        state = ENGINE.open({"variant": "rummy51", "round_fee": "30", "chip_ratio": 3})
        for seat, (player, stack) in enumerate({"p0": 1000, "p1": 1000, "p2": 30}.items()):
            state, _ = ENGINE.apply(state, SeatPlayer(player, seat, stack=stack))
        state, kinds = _bot_round(state, _seed(f"rule9-{attempt}"))
        assert state.last_round is not None
        if state.last_round["winner"] != "p2":
            break
    else:
        raise AssertionError("p2 won every round")
    assert state.last_round["fees"]["p2"] == 30 and state.last_round["deltas"]["p2"] == -30
    assert state.stacks[2] == 0
    assert ENGINE.can_start_hand(state)  # p2 no longer blocks the table
    assert state.last_round["eliminated"] == ["p2"]
    assert kinds[-2:] == ["RoundSettled", "PlayerEliminated"]
    result = ENGINE.result(state)
    assert result is not None and result.details["eliminated"] == ["p2"]
    assert list(view_message(ENGINE.view(state, "p0")).last_round.eliminated) == ["p2"]

    state, events = ENGINE.apply(state, StartHand(seed=_seed("rule9-next")))
    assert events[0].data["players"] == ["p0", "p1"]
    assert state.round is not None and state.round.players == ("p0", "p1")
    assert ENGINE.view(state, "p2")["round"]["hand"] == []
    assert [t.player for t in ENGINE.turns(state)] != ["p2"]
    state, _ = ENGINE.apply(state, UnseatPlayer("p2"))  # out of the round: may leave
    assert state.seats == ("p0", "p1") and [t.player for t in ENGINE.turns(state)]
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, UnseatPlayer("p0"))  # dealt in: may not

    heads_up = _seated("rummy51", 2)
    heads_up = replace(heads_up, stacks=(2000, 0))  # p1 eliminated: p0 holds every chip
    assert not ENGINE.can_start_hand(heads_up)


def test_rule_9_the_deal_moves_one_seat_clockwise_past_eliminated_seats() -> None:
    """The dealer moves one seat clockwise per round, skipping a seat no longer dealt in.
    Counting rounds over the players left skipped a seat: with p0..p3 dealing rounds 1-3
    as p0, p1, p2 and p1 then eliminated, round 4 went to p0 instead of p3."""
    state = _seated("rummy51", 4)
    state, _ = _bot_round(state, _seed("rotation-1"))
    assert state.round is not None and state.round.dealer == "p0"
    stacks = tuple(
        0 if player == "p1" else stack
        for player, stack in zip(state.seats, state.stacks, strict=True)
    )
    state = replace(state, round=replace(state.round, dealer="p2"), rounds_started=3, stacks=stacks)
    dealers = []
    for number in range(2):
        state, events = ENGINE.apply(state, StartHand(seed=_seed(f"rotation-{number + 4}")))
        dealers.append(events[0].data["dealer"])
        assert events[0].data["players"] == ["p0", "p2", "p3"]
        while [t.player for t in ENGINE.turns(state)]:  # play the round out
            (player,) = [t.player for t in ENGINE.turns(state)]
            assert state.round is not None and not isinstance(state.round, GinState)
            state, _ = ENGINE.apply(state, Act(player, laydown_bot_action(state.round)))
    assert dealers == ["p3", "p0"]


def test_rule_46_an_eliminated_player_leaving_does_not_restart_the_5_minutes() -> None:
    """Only a player out of the round (rule 9) may leave while it runs; the round's count
    of 5 minutes since everyone in it became automatic goes on (it restarted)."""
    auto = AutoPlay().after_act(["p0", "p1"], "p0", True, 1_000)
    auto = auto.after_act(["p0", "p1"], "p1", True, 2_000)
    assert auto.all_since_ms == 2_000
    left = auto.left("p2")
    assert left.all_since_ms == 2_000
    assert left.cancels(True, 2_000 + ALL_AUTOMATIC_MS)
