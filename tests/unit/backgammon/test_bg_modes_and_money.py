"""Table modes and money (rules 1, 2, 5, 19, 39-45; OQ 10, 16): the adapter's options.

- single game (stake, maximum, beaver on/off) and series (points, Crawford on/off);
- play money / chips carry no commission, real money does (in its own minor units),
  tournament tables never do (rule 45); an unknown currency is refused;
- a series left through the UnseatPlayer RPC is settled from gnubg's match winning
  chance (the host asks the engine's evaluator for explicit leaves too).
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from croupier.backgammon.core.state import Phase
from croupier.backgammon.core.table import BackgammonTable
from croupier.backgammon.engine import ENGINE
from croupier.backgammon.v1 import backgammon_pb2
from croupier.game import Act, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.table.v1 import table_pb2
from tests.support.backgammon import (
    PLAYERS,
    first_play,
    open_table,
    public,
    running_service,
)
from tests.support.refusals import status_name
from tests.support.table import settlements


def seated(options: dict[str, Any]) -> BackgammonTable:
    state = ENGINE.open(options)
    for seat, player in enumerate(PLAYERS):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat))
    return state


def lost_on_time(options: dict[str, Any]) -> tuple[str, dict[str, int], dict[str, int]]:
    """A game where the first mover's clock ran out: (loser, deltas, commission)."""
    state, _ = ENGINE.apply(seated(options), StartHand(bytes(32)))
    (player,) = [t.player for t in ENGINE.turns(state)]
    state, _ = ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player), by_clock=True))
    result = ENGINE.result(state)
    assert result is not None
    assert sum(result.deltas.values()) == -sum(result.commission.values())
    return player, dict(result.deltas), dict(result.commission)


@pytest.mark.parametrize(
    ("currency", "stake", "commission"),
    [
        ("USD", 1000, 130),  # vector 1: $10 -> $1.30
        ("EUR", 25, 6),  # vector 2: 3 cents x 2 below 0.50
        ("JPY", 1000, 130),  # yen have no minor unit: 65 + 65 yen
        ("PLAY", 1000, 0),  # play money: none (rule 2, wallet: carries no commission)
        ("CHIP", 1000, 0),
        (None, 1000, 0),  # no currency: the host's default, CHIP
    ],
)
def test_rules_2_39_45_commission_only_for_real_money(
    currency: str | None, stake: int, commission: int
) -> None:
    options: dict[str, Any] = {"mode": "single", "stake": stake}
    if currency is not None:
        options["currency"] = currency
    loser, deltas, fees = lost_on_time(options)
    winner = next(p for p in PLAYERS if p != loser)
    assert deltas == {winner: stake - commission, loser: -stake}
    assert fees == ({winner: commission} if commission else {})
    view = ENGINE.view(seated(options), None)
    assert view["currency"] == (currency or "CHIP")


def test_rule_45_tournament_tables_pay_no_commission() -> None:
    """Tournament games play for chips: no commission, and no real currency accepted."""
    _, deltas, fees = lost_on_time(
        {"mode": "single", "stake": 1000, "currency": "CHIP", "tournament": True}
    )
    assert fees == {} and sorted(deltas.values()) == [-1000, 1000]
    with pytest.raises(RuleBroken) as real_money:
        ENGINE.open({"mode": "single", "stake": 1000, "currency": "USD", "tournament": True})
    assert real_money.value.message == "a tournament table plays for chips: use currency CHIP"


def test_options_are_checked() -> None:
    with pytest.raises(RuleBroken) as unknown:
        ENGINE.open({"mode": "single", "stake": 100, "currency": "DOGE"})
    assert status_name(unknown.value) == "invalid_argument" and "DOGE" in unknown.value.message
    with pytest.raises(RuleBroken) as series_beaver:
        ENGINE.open({"mode": "series", "points": 5, "beaver": True})
    assert "rule 19" in series_beaver.value.message
    with pytest.raises(RuleBroken):
        ENGINE.open({"mode": "series", "points": 0})
    with pytest.raises(RuleBroken):
        ENGINE.open({"mode": "chouette"})


@pytest.mark.parametrize("beaver", [True, False])
def test_rule_19_beaver_offered_only_when_the_single_table_allows_it(beaver: bool) -> None:
    state, _ = ENGINE.apply(
        seated({"mode": "single", "stake": 10, "beaver": beaver}), StartHand(b"b" * 32)
    )
    (mover,) = [t.player for t in ENGINE.turns(state)]
    play = ENGINE.legal_actions(state, mover)["plays"][0]
    state, _ = ENGINE.apply(state, Act(mover, {"action": "move", "play": play}))
    (doubler,) = [t.player for t in ENGINE.turns(state)]
    state, _ = ENGINE.apply(state, Act(doubler, {"action": "double"}))
    (taker,) = [t.player for t in ENGINE.turns(state)]
    assert ("beaver" in ENGINE.legal_actions(state, taker)["actions"]) is beaver


def test_rule_5_oq_16_the_maximum_caps_and_its_absence_does_not() -> None:
    _, capped, _ = lost_on_time({"mode": "single", "stake": 100, "max_win": 60})
    assert min(capped.values()) == -60
    _, free, _ = lost_on_time({"mode": "single", "stake": 100})
    assert min(free.values()) == -100


@pytest.mark.parametrize("crawford", [True, False])
def test_oq_10_crawford_game_follows_the_table_option(crawford: bool) -> None:
    state = seated({"mode": "series", "points": 3, "stake": 100, "crawford": crawford})
    state, _ = ENGINE.apply(state, StartHand(b"c" * 32))
    assert state.game is not None
    # The first game ended with ann one point from the series.
    state = replace(state, game=replace(state.game, phase=Phase.GAME_OVER, score=(2, 0)))
    assert ENGINE.can_start_hand(state)
    state, _ = ENGINE.apply(state, StartHand(b"d" * 32))
    assert ENGINE.view(state, None)["crawford"] is crawford


async def test_oq_7_a_series_left_through_the_rpc_is_settled_by_match_winning_chance() -> None:
    async with running_service("leave") as service:
        stub = service.stub
        options = backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SERIES, stake=3_000, points=5, currency="USD"
        )
        table_id = await open_table(stub, options)
        await first_play(stub, table_id)
        before = await public(stub, table_id)
        await stub.UnseatPlayer(table_pb2.UnseatPlayerRequest(table_id=table_id, player_id="bob"))
        (settlement,) = [s for s in settlements(service.bus, table_id) if s.deltas["ann"]]
        details = json.loads(settlement.details_json)
        assert details["how"] == "abandoned" and details["evaluated_for"] == "ann"
        assert details["match_id"] == before["match_id"]
        share = 2 * Decimal(details["mwc"]) - 1
        amount = int((abs(share) * 3_000).quantize(Decimal(1), ROUND_HALF_UP))
        assert 0 < amount < 3_000
        winner, loser = ("ann", "bob") if share > 0 else ("bob", "ann")
        fee = min(2 * (3 if amount < 50 else -(-amount * 65 // 1000)), amount)
        assert dict(settlement.deltas) == {winner: amount - fee, loser: -amount}
        after = await public(stub, table_id)
        assert after["players"] == ["ann"] and after["abandoned"]["mwc"] == details["mwc"]


async def test_after_an_abandonment_a_new_player_starts_a_new_series() -> None:
    state = seated({"mode": "series", "points": 3, "stake": 100})
    state, _ = ENGINE.apply(state, StartHand(b"s" * 32))
    evaluation = await ENGINE.evaluate_abandonment(state, "bob")
    state, _ = ENGINE.apply(state, UnseatPlayer("bob", evaluation))
    assert ENGINE.result(state) is not None and not ENGINE.can_start_hand(state)
    state, _ = ENGINE.apply(state, SeatPlayer("cy", 1))
    state, _ = ENGINE.apply(state, StartHand(b"t" * 32))
    view = ENGINE.view(state, None)
    assert view["players"] == ["ann", "cy"] and view["score"] == {"ann": 0, "cy": 0}
    assert view["game"] == 1 and "abandoned" not in view
    assert ENGINE.result(state) is None
