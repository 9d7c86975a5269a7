"""The rummy `ProtoCodec`: `croupier.rummy.v1.Action` → conformance notation, the JSON view
→ `croupier.rummy.v1.View`; and a client that speaks only protobuf can play a round."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from croupier.common.v1 import common_pb2
from croupier.game import Act, RuleBroken, SeatPlayer, StartHand
from croupier.rummy.codec import action_from_message, view_message
from croupier.rummy.core.variant import Family
from croupier.rummy.core.variants import VARIANTS
from croupier.rummy.engine import ENGINE
from croupier.rummy.tools.view_bot import bot_action
from croupier.rummy.v1 import rummy_pb2
from croupier.table.entrypoints.grpc_api import ProtoCodec
from croupier.table.v1 import table_pb2
from tests.support.refusals import status_name
from tests.support.rummy import (
    PLAYERS,
    Table,
    as_proto,
    open_table,
    running_service,
    scan,
)

A = rummy_pb2


def card(code: str) -> common_pb2.Card:
    return common_pb2.Card(code=code)


def meld(*cards: str | tuple[str, str]) -> rummy_pb2.Meld:
    message = rummy_pb2.Meld()
    for item in cards:
        entry = message.cards.add()
        if isinstance(item, str):
            entry.card.code = item
        else:
            entry.card.code = item[0]
            getattr(entry, "as").code = item[1]
    return message


def test_the_engine_is_a_proto_codec() -> None:
    assert isinstance(ENGINE, ProtoCodec)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (A.Action(kind=A.ACTION_KIND_PASS), {"action": "pass"}),
        (A.Action(kind=A.ACTION_KIND_DRAW_STOCK), {"action": "draw", "from": "stock"}),
        (A.Action(kind=A.ACTION_KIND_DRAW_DISCARD), {"action": "draw", "from": "discard"}),
        (
            A.Action(kind=A.ACTION_KIND_DRAW_DISCARD, count=3),
            {"action": "draw", "from": "discard", "count": 3},
        ),
        (
            A.Action(
                kind=A.ACTION_KIND_MELD, melds=[meld("7h", ("X1", "8h"), "9h"), meld("Kc", "Kd")]
            ),
            {
                "action": "meld",
                "melds": [["7h", {"card": "X1", "as": "8h"}, "9h"], ["Kc", "Kd"]],
            },
        ),
        (
            A.Action(
                kind=A.ACTION_KIND_LAYOFF, card=card("X2"), meld_index=1, stands_for=card("5c")
            ),
            {"action": "layoff", "card": "X2", "meld": 1, "as": "5c"},
        ),
        (
            A.Action(kind=A.ACTION_KIND_LAYOFF, card=card("Th")),
            {"action": "layoff", "card": "Th", "meld": 0},
        ),
        (
            A.Action(kind=A.ACTION_KIND_DISCARD, card=card("Qs")),
            {"action": "discard", "card": "Qs"},
        ),
        (
            A.Action(kind=A.ACTION_KIND_KNOCK, discard=card("3c"), melds=[meld("4h", "5h", "6h")]),
            {"action": "knock", "discard": "3c", "melds": [["4h", "5h", "6h"]]},
        ),
        (  # all eleven cards melded: gin without a discard
            A.Action(kind=A.ACTION_KIND_GIN, melds=[meld("Ac", "Ad", "Ah")]),
            {"action": "gin", "melds": [["Ac", "Ad", "Ah"]]},
        ),
        (
            A.Action(kind=A.ACTION_KIND_OUT, discard=card("9d")),
            {"action": "out", "melds": [], "discard": "9d"},
        ),
        (
            A.Action(kind=A.ACTION_KIND_TAKE_JOKER, card=card("8h"), meld_index=2),
            {"action": "take_joker", "card": "8h", "meld": 2},
        ),
    ],
)
def test_protobuf_action_in_conformance_notation(
    message: rummy_pb2.Action, expected: dict[str, Any]
) -> None:
    assert action_from_message(message) == expected


def unknown_kind() -> rummy_pb2.Action:
    message = rummy_pb2.Action()
    message.MergeFromString(bytes([1 << 3, 42]))
    return message


@pytest.mark.parametrize(
    ("message", "says"),
    [
        (A.Action(), "action kind is required"),
        (unknown_kind(), "action kind 42 is unknown"),
        (
            A.Action(kind=A.ACTION_KIND_PASS, card=card("Ah")),
            "ACTION_KIND_PASS does not carry card",
        ),
        (
            A.Action(kind=A.ACTION_KIND_DRAW_STOCK, count=2),
            "ACTION_KIND_DRAW_STOCK does not carry count",
        ),
        (
            A.Action(kind=A.ACTION_KIND_DISCARD, card=card("Ah"), discard=card("Kh")),
            "ACTION_KIND_DISCARD does not carry discard",
        ),
        (A.Action(kind=A.ACTION_KIND_DISCARD), "card is required"),
        (A.Action(kind=A.ACTION_KIND_DISCARD, card=card("1h")), "card: bad card '1h'"),
        (A.Action(kind=A.ACTION_KIND_MELD), "ACTION_KIND_MELD carries melds"),
        (A.Action(kind=A.ACTION_KIND_MELD, melds=[rummy_pb2.Meld()]), "meld 0 has no cards"),
        (
            A.Action(kind=A.ACTION_KIND_MELD, melds=[meld("7h", ("X1", "8x"), "9h")]),
            "'as': bad card '8x'",
        ),
        (A.Action(kind=A.ACTION_KIND_TAKE_JOKER, meld_index=1), "card is required"),
        (
            A.Action(kind=A.ACTION_KIND_TAKE_JOKER, card=card("8h"), stands_for=card("8h")),
            "ACTION_KIND_TAKE_JOKER does not carry stands_for",
        ),
    ],
)
def test_malformed_protobuf_actions_are_refused(message: rummy_pb2.Action, says: str) -> None:
    with pytest.raises(RuleBroken) as caught:
        action_from_message(message)
    assert status_name(caught.value) == "invalid_argument"
    assert says in caught.value.message


def test_view_message_carries_the_json_view() -> None:
    state = ENGINE.open({"variant": "rummy500", "players": 2, "round_fee": 10, "chip_ratio": 2})
    for seat, player in enumerate(PLAYERS[:2]):
        state, _ = ENGINE.apply(state, SeatPlayer(player=player, seat=seat, stack=300))
    empty = view_message(ENGINE.view(state, "ada"))
    assert (empty.variant, list(empty.hand), empty.phase) == (
        rummy_pb2.VARIANT_RUMMY500,
        [],
        rummy_pb2.PHASE_UNSPECIFIED,
    )
    state, _ = ENGINE.apply(state, StartHand(hashlib.sha256(b"codec").digest()))
    view = ENGINE.view(state, "ada")
    message = view_message(view)
    seen = view["round"]
    assert [c.code for c in message.hand] == seen["hand"]
    assert [c.code for c in message.discard_pile] == seen["discard_pile"]
    assert dict(message.card_counts) == seen["card_counts"]
    assert (message.to_act, message.stock_size) == (seen["to_act"], seen["stock_size"])
    assert list(message.seats) == ["ada", "bo"]
    assert dict(message.stacks) == {"ada": 300, "bo": 300}
    assert (message.round, message.dealer, message.round_fee, message.chip_ratio) == (
        1,
        "ada",
        10,
        2,
    )
    player = seen["to_act"]
    mine = view_message(ENGINE.view(state, player))
    assert mine.phase == rummy_pb2.PHASE_DRAW
    assert list(mine.legal.actions) == [
        rummy_pb2.ACTION_KIND_DRAW_STOCK,
        rummy_pb2.ACTION_KIND_DRAW_DISCARD,
    ]
    assert mine.legal.max_count == 1
    state, _ = ENGINE.apply(state, Act(player, {"action": "draw", "from": "stock"}))
    playing = view_message(ENGINE.view(state, player))
    assert playing.phase == rummy_pb2.PHASE_PLAY
    assert set(playing.legal.actions) == {
        rummy_pb2.ACTION_KIND_MELD,
        rummy_pb2.ACTION_KIND_DISCARD,
        rummy_pb2.ACTION_KIND_OUT,
    }
    # The other player's protobuf view has no legal actions and only their own hand.
    other = "bo" if player == "ada" else "ada"
    theirs = view_message(ENGINE.view(state, other))
    assert not theirs.legal.actions
    assert [c.code for c in theirs.hand] == ENGINE.view(state, other)["round"]["hand"]


_PHASES = {
    rummy_pb2.PHASE_FIRST_UPCARD: "first_upcard",
    rummy_pb2.PHASE_DRAW: "draw",
    rummy_pb2.PHASE_LAYOFF: "layoff",
    rummy_pb2.PHASE_OVER: "over",
}


def view_from_proto(message: rummy_pb2.View) -> dict[str, Any]:
    """What a protobuf-only client knows, in the shape the test bot reads."""
    variant = rummy_pb2.Variant.Name(message.variant).removeprefix("VARIANT_").lower()
    gin = VARIANTS[variant].family is Family.KNOCK
    phase = _PHASES.get(message.phase, "discard" if gin else "play")
    melds = [
        {
            "kind": rummy_pb2.MeldKind.Name(m.kind).removeprefix("MELD_KIND_").lower(),
            "owner": m.owner,
            "cards": [
                {"card": c.card.code, "as": getattr(c, "as").code}
                if c.HasField("as")
                else c.card.code
                for c in m.cards
            ],
        }
        for m in message.melds
    ]
    actions: list[str] = []
    draw_from: list[str] = []
    for kind in message.legal.actions:
        if kind in (rummy_pb2.ACTION_KIND_DRAW_STOCK, rummy_pb2.ACTION_KIND_DRAW_DISCARD):
            draw_from.append("stock" if kind == rummy_pb2.ACTION_KIND_DRAW_STOCK else "discard")
            if "draw" not in actions:
                actions.append("draw")
        else:
            actions.append(rummy_pb2.ActionKind.Name(kind).removeprefix("ACTION_KIND_").lower())
    return {
        "variant": variant,
        "round": {
            "variant": variant,
            "phase": phase,
            "to_act": message.to_act,
            "hand": [c.code for c in message.hand],
            "discard_pile": [c.code for c in message.discard_pile],
            "melds": melds,
            "knock_limit": message.knock_limit,
        },
        "legal": {
            "actions": actions,
            "draw_from": draw_from,
            "discards": [c.code for c in message.legal.discards],
        },
    }


@pytest.mark.parametrize(("variant", "players"), [("oklahoma_gin", 2), ("rummy51", 3)])
async def test_a_protobuf_only_client_plays_a_round(variant: str, players: int) -> None:
    seated = PLAYERS[:players]
    async with running_service(f"proto-{variant}") as service:
        stub = service.stub
        table_id = await open_table(stub, variant, players)
        table = Table(stub, table_id)
        await table.seat(seated)
        for number in range(3000):
            public = (
                await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))
            ).view.game.rummy
            if public.last_round.round >= 1:
                break
            player = public.to_act
            mine = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))
            table.received.view(player, "get", mine.view)
            action = bot_action(view_from_proto(mine.view.game.rummy), player)
            request = table_pb2.ActRequest(
                table_id=table_id, player_id=player, command_id=f"p{number}"
            )
            request.action.rummy.CopyFrom(as_proto(action))
            response = await stub.Act(request)
            table.received.view(player, "act", response.view)
        else:
            raise AssertionError("the round did not end")
        result = public.last_round
        assert result.round == 1 and sum(result.deltas.values()) == 0
        assert set(result.deltas) == set(seated)
        await scan(service, table_id, table.received)
