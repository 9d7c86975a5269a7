"""Whole Joker games through the gRPC TableEngine service on the real Kafka broker.

The service runs in this process (`KafkaCommandLog` on a topic of its own, `KafkaBus`),
a standard game (24 hands) and a "nines" game (16 hands) are played to the end — part of
the actions as `GameAction.joker`, the rest as `action_json`, options as
`GameOptions.joker` — and the game's result must arrive once on
`croupier.wallet.requests` as a `SettlementRequested` whose totals are the sheet's: the sum
of the hand scores (each checked against BG 9) plus the premia and moshla (each checked
against rules 4, 7, 9–14).

The players' bids come from an oracle: the test knows the host's seeds (`Seeds`), so a
shadow copy of the game (the pure engine) deals the same hands and plays them with the
same bid-independent card choices; everybody then bids what he will take, except one
player per hand who must fail (the dealer rule, BG 5). This makes premia and moshla
happen in every pulka, so the settlement check covers them.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from google.protobuf import json_format

from croupier.common.v1 import common_pb2
from croupier.game.money import CURRENCIES
from croupier.joker.core import game
from croupier.joker.core.options import Options
from croupier.joker.core.table_options import table_options
from croupier.joker.v1 import joker_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.core.settlement import check_engine_result
from tests.support.kafka_table import WalletRequests, kafka_service
from tests.support.table import Seeds, random_joker_action

pytestmark = pytest.mark.timeout(120)

PLAYERS = ["giorgi", "nika", "ana", "levan"]
PROTO_PLAYERS = {"giorgi", "ana"}  # these send GameAction.joker, the others action_json
USES = {"high": joker_pb2.JOKER_USE_HIGH, "take": joker_pb2.JOKER_USE_TAKE}
USES["under"] = joker_pb2.JOKER_USE_UNDER
KINDS = {
    "bid": joker_pb2.ACTION_KIND_BID,
    "trump": joker_pb2.ACTION_KIND_TRUMP,
    "play": joker_pb2.ACTION_KIND_PLAY,
}


def card_choice(view: dict[str, Any]) -> dict[str, Any]:
    """A trump or card decision that depends on the cards only (never on the bids)."""
    hand = view["hand"]
    trick = [p["card"] for p in hand["trick"]]
    key = f"{hand['number']}/{hand['to_act']}/{len(hand['own_cards'])}/{trick}"
    return random_joker_action(view["legal"], random.Random(key))


class Oracle:
    """A shadow of the table's game (same seeds) that knows what everybody will take."""

    def __init__(self, seeds: str, options: Options) -> None:
        self.seeds = Seeds(seeds)
        self.shadow = game.new_game(game_id="", players=PLAYERS, options=options)
        self.hand_number = -1
        self.bids: dict[str, int] = {}

    def deal(self) -> dict[str, Any]:
        self.shadow, _ = game.start_hand(self.shadow, self.seeds())
        trial = self.shadow
        while to_act := game.to_act(trial):
            view = game.view(trial, to_act[0])
            if view["legal"]["actions"] == ["bid"]:
                action = {"action": "bid", "tricks": min(view["legal"]["tricks"])}
            else:
                action = card_choice(view)
            trial, _ = game.act(trial, to_act[0], action)
        took = dict(zip(PLAYERS, (o.took for o in trial.records[-1].outcomes), strict=True))
        hand: dict[str, Any] = game.public_view(self.shadow)["hand"]
        self.hand_number, n, dealer = hand["number"], hand["cards"], hand["dealer"]
        # This pulka's hopeful fulfils every hand; the one who fails is the dealer (whose
        # exact bid the rule forbids), or the first bidder when the dealer is the hopeful.
        hopeful = PLAYERS[hand["pulka"] % len(PLAYERS)]
        failer = dealer if dealer != hopeful else PLAYERS[(PLAYERS.index(dealer) + 1) % 4]
        self.bids = dict(took)
        self.bids[failer] = took[failer] + 1 if took[failer] < n else took[failer] - 1
        return hand

    def act(self, player: str, action: dict[str, Any]) -> None:
        self.shadow, _ = game.act(self.shadow, player, action)


def as_proto(action: dict[str, Any]) -> joker_pb2.Action:
    message = joker_pb2.Action(kind=KINDS[action["action"]])
    if action["action"] == "bid":
        message.tricks = action["tricks"]
    elif action["action"] == "trump":
        message.suit = action["suit"]
    else:
        message.card.CopyFrom(common_pb2.Card(code=action["card"]))
        if "joker" in action:
            message.joker = USES[action["joker"]]
        message.suit = action.get("suit", "")
    return message


async def play_whole_game(
    stub: table_pb2_grpc.TableEngineAsyncStub, table_id: str, oracle: Oracle
) -> tuple[dict[str, Any], int]:
    """Play until the game is over; the final public view and how many proto actions."""
    current = json.loads(
        (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view.view_json
    )
    proto_actions = 0
    while not current["over"]:
        hand = current["hand"]
        if hand["number"] != oracle.hand_number:
            dealt = oracle.deal()
            assert (dealt["dealer"], dealt["trump_card"]) == (hand["dealer"], hand["trump_card"])
        player = hand["to_act"]
        assert game.to_act(oracle.shadow) == [player]
        mine = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))
        view = json.loads(mine.view.view_json)
        if view["legal"]["actions"] == ["bid"]:
            action = {"action": "bid", "tricks": oracle.bids[player]}
            assert action["tricks"] in view["legal"]["tricks"]
        else:
            action = card_choice(view)
        request = table_pb2.ActRequest(
            table_id=table_id, player_id=player, command_id=f"{player}/{mine.view.version}"
        )
        if player in PROTO_PLAYERS:
            request.action.joker.CopyFrom(as_proto(action))
            proto_actions += 1
        else:
            request.action_json = json.dumps(action)
        response = await stub.Act(request)
        oracle.act(player, action)
        current = json.loads(response.view.view_json)
    final = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
    public = json.loads(final.view_json)
    # The protobuf view of the finished game says the same.
    assert final.game.joker.game_over
    assert final.game.joker.phase == joker_pb2.PHASE_COMPLETE
    bottom = public["sheet"]["bottom"]
    assert dict(final.game.joker.totals) == {p: line["total"] for p, line in bottom.items()}
    assert len(final.game.joker.sheet.pulkas) == len(public["sheet"]["pulkas"])
    return public, proto_actions


def bg_9_points(bid: int, took: int, cards: int, options: Options) -> int:
    """A hand's score, written again from the spec (BG 9, OQ 10, OQ 11)."""
    if bid == took:
        if bid == 0:
            return 50
        if bid == cards and options.took_all.value == "hundred_per_card":
            return 100 * cards
        return 50 * bid + 50
    if took == 0:
        return options.khishti.penalty(cards)
    return 10 * took


def check_sheet(sheet: dict[str, Any], options: Options, pulkas: int) -> dict[str, int]:
    """Every cell and Σ line re-derived; the totals as the sum of the pulka results."""
    assert len(sheet["pulkas"]) == pulkas
    totals = dict.fromkeys(PLAYERS, 0)
    adjustments = 0
    for pulka in sheet["pulkas"]:
        rows = pulka["players"]
        qualified = {p for p, row in rows.items() if all(c["fulfilled"] for c in row["hands"])}
        k = len(qualified)
        moshla_on = options.premia and options.moshla
        charged = moshla_on and (
            k == 1 or (k in (2, 3) and options.multi_premia.value == "others_deducted")
        )
        for player, row in rows.items():
            for cell in row["hands"]:
                expected = bg_9_points(cell["bid"], cell["took"], cell["cards"], options)
                assert cell["points"] == expected, (player, cell)
            assert row["sum"] == sum(c["points"] for c in row["hands"])
            ordinary = [c["points"] for c in row["hands"] if not c["khishti"]]
            best = max(ordinary, default=0)  # rule 8: a khishti is never the best hand
            sigma = row["sigma"]
            premia = best if options.premia and player in qualified else 0  # rules 4, 7
            moshla = -best if charged and player not in qualified else 0  # rules 9-13
            assert (sigma["premia"], sigma["moshla"]) == (premia, moshla), (player, pulka)
            assert sigma["result"] == row["sum"] + premia + moshla  # rule 14
            totals[player] += sigma["result"]
            adjustments += abs(premia) + abs(moshla)
    assert adjustments > 0  # the oracle's bids made premia and moshla happen
    return totals


async def run_game(
    kafka_bootstrap: str,
    seeds: str,
    options: joker_pb2.Options,
    hands: int,
) -> None:
    # What the host hands the engine (grpc_api.OpenTable).
    engine_options = table_options(
        json_format.MessageToDict(options, preserving_proto_field_name=True)
    )
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_service(kafka_bootstrap, seeds) as stub,
    ):
        opened = await stub.OpenTable(
            table_pb2.OpenTableRequest(options=table_pb2.GameOptions(joker=options))
        )
        table_id = opened.table_id
        for seat, player in enumerate(PLAYERS):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
            )
        final, proto_actions = await play_whole_game(stub, table_id, Oracle(seeds, engine_options))
        assert proto_actions > 100
        settlements = await wallet.settlements(table_id)

    assert final["over"] and final["hand"]["number"] == hands - 1
    totals = check_sheet(final["sheet"], engine_options, pulkas=4)
    assert totals == {p: line["total"] for p, line in final["sheet"]["bottom"].items()}
    (settlement,) = settlements  # exactly one, for the whole game
    assert settlement.table_id == table_id
    assert settlement.idempotency_key == f"{table_id}:{hands}"
    assert settlement.hand_number == hands
    assert settlement.game == common_pb2.GAME_JOKER
    # Points, not money (rule 23): every player named with 0, which the wallet accepts
    # (its own check) and records as nothing moving.
    assert dict(settlement.deltas) == dict.fromkeys(PLAYERS, 0)
    assert dict(settlement.commission) == {}
    check_engine_result(dict(settlement.deltas), {}, CURRENCIES[settlement.currency], expected=None)
    details = json.loads(settlement.details_json)
    assert details["totals"] == totals
    ranked = sorted(set(totals.values()), reverse=True)
    assert details["placing"] == [[p for p in PLAYERS if totals[p] == v] for v in ranked]


async def test_full_standard_game_settles_the_sheet_totals(kafka_bootstrap: str) -> None:
    """24 hands (rule 2); khishti −200 / −500 in nine-card hands, default premia rules."""
    options = joker_pb2.Options(
        game_type=joker_pb2.GAME_TYPE_STANDARD, khishti=-200, khishti_nine_card_hands=-500
    )
    await run_game(kafka_bootstrap, "e2e-standard", options, hands=24)


async def test_full_nines_game_settles_the_sheet_totals(kafka_bootstrap: str) -> None:
    """16 nine-card hands (rule 2); several premias not deducted from the rest (rule 11)."""
    options = joker_pb2.Options(
        game_type=joker_pb2.GAME_TYPE_NINES,
        khishti=-500,
        multi_premia="others_not_deducted",
        took_all=joker_pb2.TOOK_ALL_AS_BID,
    )
    await run_game(kafka_bootstrap, "e2e-nines", options, hands=16)
