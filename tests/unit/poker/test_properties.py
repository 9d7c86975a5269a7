"""Property tests over random hands (hypothesis): chips conserved, every pot fully awarded,
nobody wins more than his contribution layers allow (rule 19), no negative stack, the hand
history replays to the same result, and `apply` never changes its input."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import cards as C
from croupier.poker.core import history, naiko
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply, player_options, view
from croupier.poker.core.rules import IllegalAction, TableConfig
from croupier.poker.core.state import HandState


@st.composite
def hands(draw: st.DrawFn) -> tuple[HandState, list[int]]:
    variant = draw(st.sampled_from(["nlhe", "plo", "nlhe-pot-limit", "naiko"]))
    n = draw(st.integers(2, 9))
    bb = draw(st.sampled_from([2, 10, 50]))
    ante = draw(st.sampled_from([0, 0, 1, bb // 2]))
    stacks = draw(st.lists(st.integers(1, 200 * bb), min_size=n, max_size=n))
    button = draw(st.integers(0, n - 1))
    order = draw(st.permutations(range(52)))
    choices = draw(st.lists(st.integers(0, 10_000), max_size=60))
    config = TableConfig(
        variant=variant if variant in ("plo", "naiko") else "nlhe",
        small_blind=bb // 2,
        big_blind=bb,
        ante=ante,
        limit="pot-limit" if variant == "nlhe-pot-limit" else "",
    )
    k = config.hole_count
    hole = [order[i * k : (i + 1) * k] for i in range(n)]
    players = [(f"p{i}", s) for i, s in enumerate(stacks)]
    destellos = carousel = None
    if variant == "naiko":
        destellos = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        carousel = sorted(draw(st.sampled_from(naiko.LEGAL_CAROUSELS)))
    state = start_hand(
        config, players, button, hole, order[n * k :], destellos, carousel, ranks=RANKS
    )
    return state, choices


def pick(state: HandState, choice: int) -> dict[str, Any]:
    nk = state.naiko
    if nk is not None:
        if nk.pending is not None:
            return {"action": "seal" if choice % 2 else "no_seal"}
        if choice % 4 == 0:  # try a power; the rules may well reject it
            power = ("peek", "swap", "anchor")[(choice // 4) % 3]
            p = state.to_act
            return {
                "action": "power",
                "power": power,
                "card": C.name(state.hole[p][(choice // 12) % 2]),
                "target": state.ids[(choice // 24) % state.n],
            }
    o = player_options(state, state.ids[state.to_act])
    assert o is not None
    kind = o.actions[choice % len(o.actions)]
    if kind in ("bet", "raise"):
        span = o.max_to - o.min_to
        return {"action": kind, "to": o.min_to + (choice // 7) % (span + 1)}
    return {"action": kind}


def play(state: HandState, choices: list[int]) -> HandState:
    i = 0
    while state.result is None:
        choice = choices[i] if i < len(choices) else 1  # then check or call
        i += 1
        action = pick(state, choice)
        before = (history.record(state), view(state, None))
        actor = state.player_to_act
        assert actor is not None
        try:
            new, events = apply(state, actor, action)
        except IllegalAction as exc:
            assert action["action"] == "power"  # only power attempts may be refused here
            assert (history.record(state), view(state, None)) == before  # rule 34
            hidden = {C.name(c) for i, h in enumerate(state.hole) if i != state.to_act for c in h}
            assert not any(card in exc.message for card in hidden)
            continue
        hidden_cards(new, events)
        assert (history.record(state), view(state, None)) == before  # input never changed
        if new.naiko is not None:
            assert all(0 <= d <= 3 for d in new.naiko.destellos)
        assert min(new.stacks) >= 0
        state = new
    return state


def hidden_cards(state: HandState, events: list[dict[str, Any]]) -> None:
    """Views and events never show a hole card that its owner has not shown (TEAM rule)."""
    shown = (state.result or {}).get("shown", {})
    for viewer in (*state.ids, None):
        for seat in view(state, viewer)["seats"]:
            cards = seat.get("hole_cards")
            if cards is not None:
                assert seat["player"] == viewer or seat["player"] in shown
    public = repr([e for e in events if e.get("type") != "showdown"])
    for i, hole in enumerate(state.hole):
        if state.ids[i] not in shown:
            assert not any(f"'{C.name(c)}'" in public for c in hole)


@settings(max_examples=300, deadline=None)
@given(hands())
def test_rule_19_20_chips_conserved_and_pots_fully_awarded(
    case: tuple[HandState, list[int]],
) -> None:
    start, choices = case
    end = play(start, choices)
    res = end.result
    assert res is not None
    assert sum(end.stacks) == sum(start.initial)  # conserved
    assert sum(res["deltas"].values()) == 0
    assert all(s >= 0 for s in end.stacks)
    pot_total = sum(p["amount"] for p in res["pots"])
    assert sum(res["winnings"].values()) == pot_total  # every pot fully awarded
    ids = end.ids
    # each player's contribution after the uncalled part came back
    contrib = {
        pid: end.initial[i] - (end.stacks[i] - res["winnings"].get(pid, 0))
        for i, pid in enumerate(ids)
    }
    for pot in res["pots"]:
        assert pot["winners"] and set(pot["winners"]) <= set(pot["eligible"])
    for pid, won in res["winnings"].items():
        # rule 19: from each opponent at most what he himself put in
        cap = sum(min(c, contrib[pid]) for c in contrib.values())
        assert won <= cap
    assert not res["returned"] or len(res["returned"]) == 1


@settings(max_examples=200, deadline=None)
@given(hands())
def test_history_replays_to_the_same_result(case: tuple[HandState, list[int]]) -> None:
    start, choices = case
    end = play(start, choices)
    record = history.record(end)
    again = history.replay(record, RANKS)
    assert again.result == end.result
    assert again.stacks == end.stacks
