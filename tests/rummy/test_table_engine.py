"""The rummy `GameEngine` adapter: seats, seeded rounds, timeouts, settlement into stacks
(seed 000 §10, rules 20–23, 45), views and snapshots."""

from __future__ import annotations

import hashlib

import pytest

from croupier.rummy.bots import gin_bot_action, laydown_bot_action
from croupier.rummy.knock_game import GinState
from croupier.rummy.table_engine import ENGINE, RummyTable
from croupier.table.engine import Act, Rejected, SeatPlayer, StartHand, UnseatPlayer


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
        while ENGINE.to_act(state):
            (player,) = ENGINE.to_act(state)
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
        if not ENGINE.to_act(state):
            break
        (player,) = ENGINE.to_act(state)
        action = ENGINE.timeout_action(state, player)
        state, _ = ENGINE.apply(state, Act(player=player, action=action, by_clock=True))
    result = ENGINE.result(state)
    assert result is not None and result.details["ending"] == "draw"
    assert result.deltas == {"p0": 0, "p1": 0}


def test_refusals() -> None:
    with pytest.raises(Rejected):
        ENGINE.open({"variant": "canasta"})
    with pytest.raises(Rejected):
        ENGINE.open({"variant": "gin", "round_fee": "x"})
    state = _seated("gin")
    with pytest.raises(Rejected):  # gin seats two
        ENGINE.apply(state, SeatPlayer(player="p9", seat=2, stack=10))
    state, _ = ENGINE.apply(state, StartHand(seed=_seed("r")))
    with pytest.raises(Rejected):
        ENGINE.apply(state, UnseatPlayer(player="p0"))
    with pytest.raises(Rejected):
        ENGINE.apply(state, StartHand(seed=_seed("again")))
    (player,) = ENGINE.to_act(state)
    with pytest.raises(Rejected) as refused:
        ENGINE.apply(state, Act(player=player, action={"action": "discard", "card": "Ah"}))
    assert refused.value.code == "failed_precondition"


def test_views_hide_other_hands_and_snapshot_holds_everything() -> None:
    state = _seated("rummy40", 3)
    state, _ = ENGINE.apply(state, StartHand(seed=_seed("views")))
    snap = ENGINE.snapshot(state)
    assert len(snap["round"]["hands"]["p1"]) == 13
    mine = ENGINE.view(state, "p1")
    assert sorted(mine["round"]["hand"]) == sorted(snap["round"]["hands"]["p1"])
    assert mine["round"]["card_counts"] == {"p0": 13, "p1": 13, "p2": 13}
    public = ENGINE.public_view(state)
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
    (player,) = ENGINE.to_act(state)
    action = ENGINE.timeout_action(state, player)
    with pytest.raises(Rejected):
        ENGINE.apply(state, Act(player=player, action={**action, "auto": True}))
    ENGINE.apply(state, Act(player=player, action=action, by_clock=True))
