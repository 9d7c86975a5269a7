"""The Joker table service over gRPC (in-memory log and bus): options, description, codec.

- table options through `GameOptions.joker` (every field, as the host hands them to the
  engine: `MessageToDict`, enums by name, int64 as text) and through `options_json`;
- rule 22: the table description is visible before anybody sits down;
- `croupier.joker.v1.Action` → conformance JSON, with clear refusals of malformed actions;
- `croupier.joker.v1.View` carries what the JSON view carries, and for a player only his
  own cards; a client that reads only the protobuf view can play.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from croupier.common.v1 import common_pb2
from croupier.game import RuleBroken
from croupier.joker.codec import action_from_message
from croupier.joker.core.options import GameType, Khishti, MultiPremia, Options, TookAll
from croupier.joker.core.table_options import table_options
from croupier.joker.engine import ENGINE
from croupier.joker.v1 import joker_pb2
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.refusals import status_name
from tests.support.table import (
    FakeClock,
    Seeds,
    ServedHost,
    random_joker_action,
    served_memory_host,
    status_of,
)

PLAYERS = ["giorgi", "nika", "ana", "levan"]
CARD_CODES = {c for r in "6789TJQKA" for s in "cdhs" if (c := f"{r}{s}") not in ("6c", "6s")}
CARD_CODES |= {"X1", "X2"}


def running_service(
    seeds: str = "svc", clock: FakeClock | None = None
) -> AbstractAsyncContextManager[ServedHost]:
    """The TableEngine gRPC service in this process, on the in-memory log and bus (on
    `clock`'s time, when given)."""
    return served_memory_host(seeds, clock)


@pytest.fixture
async def service() -> AsyncIterator[ServedHost]:
    async with running_service() as running:
        yield running


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a decoded JSON value."""
    if isinstance(value, str):
        return {value} & CARD_CODES
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def proto_cards(view: joker_pb2.View) -> set[str]:
    return cards_in(json_format.MessageToDict(view, preserving_proto_field_name=True))


async def seat_all(stub: table_pb2_grpc.TableEngineAsyncStub, table_id: str) -> None:
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )


async def get_view(
    stub: table_pb2_grpc.TableEngineAsyncStub, table_id: str, player: str = ""
) -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
    return (await stub.GetView(request)).view


# ---- options --------------------------------------------------------------------------


def host_options(message: joker_pb2.Options) -> dict[str, Any]:
    """What the host hands the engine for `GameOptions.joker` (grpc_api.OpenTable)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (joker_pb2.Options(), Options()),
        (joker_pb2.Options(game_type=joker_pb2.GAME_TYPE_NINES), Options(game_type=GameType.NINES)),
        (
            joker_pb2.Options(game_type=joker_pb2.GAME_TYPE_STANDARD),
            Options(game_type=GameType.STANDARD),
        ),
        (joker_pb2.Options(khishti=-500), Options(khishti=Khishti.flat(-500))),
        (
            joker_pb2.Options(khishti=-200, khishti_nine_card_hands=-500),
            Options(khishti=Khishti.split(-200, -500)),
        ),
        (
            joker_pb2.Options(khishti_nine_card_hands=-500),
            Options(khishti=Khishti.split(-200, -500)),
        ),
        (joker_pb2.Options(premia=False), Options(premia=False)),
        (joker_pb2.Options(premia=True), Options(premia=True)),
        (joker_pb2.Options(moshla=False), Options(moshla=False)),
        (
            joker_pb2.Options(multi_premia="others_not_deducted"),
            Options(multi_premia=MultiPremia.OTHERS_NOT_DEDUCTED),
        ),
        (
            joker_pb2.Options(took_all=joker_pb2.TOOK_ALL_AS_BID),
            Options(took_all=TookAll.AS_BID),
        ),
        (
            joker_pb2.Options(took_all=joker_pb2.TOOK_ALL_HUNDRED_PER_CARD),
            Options(took_all=TookAll.HUNDRED_PER_CARD),
        ),
        (joker_pb2.Options(turn_seconds=20, reconnect_seconds=90), Options()),
    ],
)
def test_rule_21_every_protobuf_option_reaches_the_engine(
    message: joker_pb2.Options, expected: Options
) -> None:
    assert ENGINE.open(host_options(message)).options == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"game_type": "nines"}, Options(game_type=GameType.NINES)),
        ({"khishti": -500}, Options(khishti=Khishti.flat(-500))),
        (
            {"khishti": {"short_hands": -200, "nine_card_hands": -500}},
            Options(khishti=Khishti.split(-200, -500)),
        ),
        (
            {"khishti": -300, "khishti_nine_card_hands": -600},
            Options(khishti=Khishti.split(-300, -600)),
        ),
        ({"premia": False, "moshla": True}, Options(premia=False)),
        ({"took_all": "as_bid"}, Options(took_all=TookAll.AS_BID)),
        ({"multi_premia": "others_deducted"}, Options()),
        ({"currency": "PLAY"}, Options()),
    ],
)
def test_json_options_reach_the_engine(raw: dict[str, Any], expected: Options) -> None:
    assert table_options(raw) == expected


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"khishti": "lots"}, "options.khishti must be an integer"),
        ({"khishti": 200}, "options.khishti is a penalty"),
        ({"khishti": -200.5}, "options.khishti must be an integer"),
        ({"khishti_nine_card_hands": "9"}, "options.khishti_nine_card_hands is a penalty"),
        ({"khishti": {"short": -200}}, "options.khishti has short_hands and nine_card_hands"),
        ({"game_type": "sevens"}, "options.game_type is standard or nines"),
        ({"game_type": 7}, "options.game_type is standard or nines"),
        ({"took_all": "TOOK_ALL_TWICE"}, "options.took_all is hundred_per_card or as_bid"),
        ({"took_all": 5}, "options.took_all is"),
        ({"multi_premia": "everybody"}, "options.multi_premia is others_deducted or"),
        ({"premia": "yes"}, "options.premia must be true or false"),
        ({"moshla": 1}, "options.moshla must be true or false"),
        ({"premmia": False}, "unknown Joker option(s) premmia"),
    ],
)
def test_bad_options_are_refused_with_the_option_named(raw: dict[str, Any], says: str) -> None:
    with pytest.raises(RuleBroken) as caught:
        table_options(raw)
    assert status_name(caught.value) == "invalid_argument"
    assert says in caught.value.message


async def test_protobuf_options_over_grpc_and_bad_ones_refused(service: ServedHost) -> None:
    stub = service.stub
    options = joker_pb2.Options(
        game_type=joker_pb2.GAME_TYPE_NINES,
        khishti=-200,
        khishti_nine_card_hands=-500,
        premia=True,
        moshla=False,
        took_all=joker_pb2.TOOK_ALL_AS_BID,
    )
    opened = await stub.OpenTable(
        table_pb2.OpenTableRequest(options=table_pb2.GameOptions(joker=options))
    )
    view = await get_view(stub, opened.table_id)
    assert view.game.joker.description == (
        "nines; premia on, moshla off; khishti -200 / -500 in nine-card hands"
    )
    bad = table_pb2.GameOptions(joker=joker_pb2.Options(khishti=150))
    code, details = await status_of(stub.OpenTable(table_pb2.OpenTableRequest(options=bad)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "options.khishti is a penalty" in details
    # An enum number this server does not know (a newer client) is refused by name.
    unknown = joker_pb2.Options()
    unknown.ParseFromString(b"\x08\x07")  # game_type = 7
    code, details = await status_of(
        stub.OpenTable(table_pb2.OpenTableRequest(options=table_pb2.GameOptions(joker=unknown)))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "options.game_type is standard or nines" in details
    code, details = await status_of(
        stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json='{"premia": 1}'))
    )
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "options.premia must be true or false",
    )


# ---- rule 22: the description ---------------------------------------------------------


async def test_rule_22_description_is_shown_before_anybody_sits_down(service: ServedHost) -> None:
    stub = service.stub
    options = joker_pb2.Options(premia=True, moshla=True, multi_premia="others_not_deducted")
    table_id = (
        await stub.OpenTable(
            table_pb2.OpenTableRequest(options=table_pb2.GameOptions(joker=options))
        )
    ).table_id
    line = (
        "standard; premia on, moshla on, several premias: not deducted from the rest; khishti -200"
    )
    empty = await get_view(stub, table_id)
    assert empty.seated == []
    assert json.loads(empty.view_json) == {"players": [], "options": line}
    assert empty.game.joker.description == line
    assert empty.game.joker.phase == joker_pb2.PHASE_UNSPECIFIED
    # A player who sat down sees it too, and so does everyone once the game runs.
    await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(table_id=table_id, player_id="giorgi", seat=2)
    )
    seated = await get_view(stub, table_id, "giorgi")
    assert seated.game.joker.description == line
    assert list(seated.game.joker.players) == ["giorgi"]
    assert not seated.game.joker.hand
    for seat, player in [(0, "nika"), (1, "ana"), (3, "levan")]:
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    running = await get_view(stub, table_id)
    assert running.game.joker.description == line
    assert json.loads(running.view_json)["options"] == line
    # Seat order, not arrival order, is the clockwise order of the game.
    assert list(running.game.joker.players) == ["nika", "ana", "giorgi", "levan"]
    assert running.game.joker.phase == joker_pb2.PHASE_BIDDING


async def test_rule_22_premia_off_is_described(service: ServedHost) -> None:
    table_id = (
        await service.stub.OpenTable(
            table_pb2.OpenTableRequest(
                options=table_pb2.GameOptions(joker=joker_pb2.Options(premia=False))
            )
        )
    ).table_id
    view = await get_view(service.stub, table_id)
    assert view.game.joker.description == "standard; premia off; khishti -200"


# ---- actions --------------------------------------------------------------------------


def card(code: str) -> common_pb2.Card:
    return common_pb2.Card(code=code)


BID, TRUMP, PLAY = (
    joker_pb2.ACTION_KIND_BID,
    joker_pb2.ACTION_KIND_TRUMP,
    joker_pb2.ACTION_KIND_PLAY,
)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (joker_pb2.Action(kind=BID), {"action": "bid", "tricks": 0}),
        (joker_pb2.Action(kind=BID, tricks=3), {"action": "bid", "tricks": 3}),
        (joker_pb2.Action(kind=TRUMP, suit="h"), {"action": "trump", "suit": "h"}),
        (joker_pb2.Action(kind=TRUMP, suit="none"), {"action": "trump", "suit": "none"}),
        (joker_pb2.Action(kind=PLAY, card=card("Td")), {"action": "play", "card": "Td"}),
        (
            joker_pb2.Action(kind=PLAY, card=card("X1"), joker=joker_pb2.JOKER_USE_UNDER),
            {"action": "play", "card": "X1", "joker": "under"},
        ),
        (
            joker_pb2.Action(kind=PLAY, card=card("X2"), joker=joker_pb2.JOKER_USE_HIGH, suit="s"),
            {"action": "play", "card": "X2", "joker": "high", "suit": "s"},
        ),
        (
            joker_pb2.Action(kind=PLAY, card=card("X1"), joker=joker_pb2.JOKER_USE_TAKE, suit="c"),
            {"action": "play", "card": "X1", "joker": "take", "suit": "c"},
        ),
    ],
)
def test_protobuf_action_in_conformance_notation(
    message: joker_pb2.Action, expected: dict[str, Any]
) -> None:
    assert action_from_message(message) == expected


def with_unknown_enum(field: int, value: int, **fields: Any) -> joker_pb2.Action:
    message = joker_pb2.Action(**fields)
    message.MergeFromString(bytes([field << 3, value]))
    return message


@pytest.mark.parametrize(
    ("message", "says"),
    [
        (joker_pb2.Action(), "action kind is required: ACTION_KIND_BID"),
        (with_unknown_enum(1, 9), "action kind 9 is unknown"),
        (joker_pb2.Action(kind=BID, tricks=1, suit="h"), "a bid does not carry suit"),
        (joker_pb2.Action(kind=BID, card=card("Ah")), "a bid does not carry card"),
        (joker_pb2.Action(kind=TRUMP), "a trump declaration names suit c, d, h, s or none, got ''"),
        (
            joker_pb2.Action(kind=TRUMP, suit="hearts"),
            "names suit c, d, h, s or none, got 'hearts'",
        ),
        (
            joker_pb2.Action(kind=TRUMP, suit="h", tricks=2),
            "a trump declaration does not carry tricks",
        ),
        (joker_pb2.Action(kind=PLAY), "a play carries card"),
        (joker_pb2.Action(kind=PLAY, card=card("6s")), "'6s' is not a card of the Joker deck"),
        (joker_pb2.Action(kind=PLAY, card=card("Ah"), tricks=1), "a play does not carry tricks"),
        (
            joker_pb2.Action(
                kind=PLAY, card=card("X1"), joker=joker_pb2.JOKER_USE_HIGH, suit="none"
            ),
            "a led joker names suit c, d, h or s, got 'none'",
        ),
        (
            with_unknown_enum(5, 7, kind=PLAY, card=card("X1")),
            "joker use 7 is unknown: JOKER_USE_HIGH, JOKER_USE_TAKE or JOKER_USE_UNDER",
        ),
    ],
)
def test_malformed_protobuf_action_is_refused_with_the_reason(
    message: joker_pb2.Action, says: str
) -> None:
    with pytest.raises(RuleBroken) as caught:
        action_from_message(message)
    assert status_name(caught.value) == "invalid_argument"
    assert says in caught.value.message


def test_another_games_message_is_not_a_joker_action() -> None:
    with pytest.raises(RuleBroken) as caught:
        action_from_message(joker_pb2.View())
    assert status_name(caught.value) == "invalid_argument"


async def test_bad_protobuf_action_over_grpc_changes_nothing(service: ServedHost) -> None:
    stub = service.stub
    table_id = (
        await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    ).table_id
    await seat_all(stub, table_id)
    before = await get_view(stub, table_id)
    to_act = before.game.joker.to_act
    cases = [
        (joker_pb2.Action(kind=TRUMP, suit="x"), grpc.StatusCode.INVALID_ARGUMENT, "names suit"),
        (
            joker_pb2.Action(kind=PLAY, card=card("Ah")),
            grpc.StatusCode.FAILED_PRECONDITION,
            "after the bidding",
        ),
        (
            joker_pb2.Action(kind=BID, tricks=before.game.joker.cards_per_player + 1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "a bid is from 0 to",
        ),
    ]
    for n, (action, status, says) in enumerate(cases):
        code, details = await status_of(
            stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=to_act,
                    command_id=f"bad{n}",
                    action=table_pb2.GameAction(joker=action),
                )
            )
        )
        assert code == status, details
        assert says in details
    assert (await get_view(stub, table_id)).version == before.version


# ---- views ----------------------------------------------------------------------------


def check_view_matches_json(message: joker_pb2.View, view: dict[str, Any]) -> None:
    """The protobuf view says what the JSON view says (numbers 1-based)."""
    hand = view["hand"]
    assert message.description == view["options"]
    assert list(message.players) == view["players"]
    assert message.game_over == view["over"]
    assert [c.code for c in message.hand] == hand.get("own_cards", [])
    assert message.trump_card.code == (hand["trump_card"] or "")
    assert message.trump == (hand["trump"] or "")
    assert dict(message.bids) == hand["bids"]
    assert dict(message.tricks) == hand["tricks"]
    assert [c.code for c in message.trick] == [p["card"] for p in hand["trick"]]
    assert [p.player for p in message.current_trick] == [p["player"] for p in hand["trick"]]
    assert message.to_act == (hand["to_act"] or "")
    assert message.dealer == hand["dealer"]
    assert message.cards_per_player == hand["cards"]
    assert message.hand_number == hand["number"] + 1
    assert message.pulka == hand["pulka"] + 1
    assert joker_pb2.Phase.Name(message.phase) == f"PHASE_{hand['phase'].upper()}"
    assert [t.winner for t in message.played] == [t["winner"] for t in hand["played"]]
    assert [[c.card.code for c in t.cards] for t in message.played] == [
        [p["card"] for p in t["cards"]] for t in hand["played"]
    ]
    bottom = view["sheet"]["bottom"]
    assert dict(message.totals) == {p: line["total"] for p, line in bottom.items()}
    assert {p: line.text for p, line in message.sheet.bottom.items()} == {
        p: line["text"] for p, line in bottom.items()
    }
    assert len(message.sheet.pulkas) == len(view["sheet"]["pulkas"])
    for rows, pulka in zip(message.sheet.pulkas, view["sheet"]["pulkas"], strict=True):
        for player, row in pulka["players"].items():
            got = rows.rows[player]
            assert got.sum == row["sum"]
            assert [c.points for c in got.hands] == [c["points"] for c in row["hands"]]
            assert [c.hand for c in got.hands] == [c["hand"] + 1 for c in row["hands"]]
            assert got.HasField("sigma") == (row["sigma"] is not None)
            if row["sigma"] is not None:
                assert got.sigma.result == row["sigma"]["result"]
    legal = view.get("legal", {"actions": []})
    kinds = {"bid": BID, "trump": TRUMP, "play": PLAY}
    assert list(message.legal.actions) == [kinds[a] for a in legal["actions"]]
    assert list(message.legal.tricks) == legal.get("tricks", [])
    assert [c.code for c in message.legal.cards] == legal.get("cards", [])
    assert list(message.legal.suits) == legal.get("suits", [])


def proto_action(legal: joker_pb2.Legal, rng: random.Random) -> joker_pb2.Action:
    """A random legal action chosen from the protobuf view alone."""
    (kind,) = legal.actions
    if kind == TRUMP:
        return joker_pb2.Action(kind=TRUMP, suit=rng.choice(list(legal.suits)))
    if kind == BID:
        return joker_pb2.Action(kind=BID, tricks=rng.choice(list(legal.tricks)))
    chosen = rng.choice(list(legal.cards))
    action = joker_pb2.Action(kind=PLAY, card=chosen)
    if chosen.code.startswith("X"):
        action.joker = rng.choice(list(legal.joker_uses))
        if legal.suits:
            action.suit = rng.choice(list(legal.suits))
    return action


async def test_a_protobuf_only_client_plays_and_sees_only_its_own_cards(
    service: ServedHost,
) -> None:
    """Three hands (1, 2, 3 cards) played from `View.legal` with `GameAction.joker` only."""
    stub = service.stub
    rng = random.Random(3)
    table_id = (
        await stub.OpenTable(
            table_pb2.OpenTableRequest(options=table_pb2.GameOptions(joker=joker_pb2.Options()))
        )
    ).table_id
    await seat_all(stub, table_id)
    jokers_played = 0
    while True:
        public = await get_view(stub, table_id)
        spectator = public.game.joker
        if spectator.hand_number > 3:
            break
        assert not spectator.hand  # a spectator holds no cards
        check_view_matches_json(spectator, json.loads(public.view_json))
        views = {p: await get_view(stub, table_id, p) for p in PLAYERS}
        assert {v.version for v in views.values()} == {public.version}
        own = {p: {c.code for c in v.game.joker.hand} for p, v in views.items()}
        for player, view in views.items():
            check_view_matches_json(view.game.joker, json.loads(view.view_json))
            assert len(own[player]) == view.game.joker.cards_left[player]
            others = set().union(*(own[o] for o in PLAYERS if o != player))
            assert not proto_cards(view.game.joker) & others
            assert not cards_in(json.loads(view.view_json)) & others
        to_act = spectator.to_act
        action = proto_action(views[to_act].game.joker.legal, rng)
        jokers_played += action.card.code.startswith("X")
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id=f"p{public.version}",
                action=table_pb2.GameAction(joker=action),
            )
        )
    sheet = spectator.sheet
    assert [len(r.hands) for r in sheet.pulkas[0].rows.values()] == [3] * 4
    assert jokers_played > 0


async def test_protobuf_options_survive_a_rebuild_from_the_log() -> None:
    """The log keeps the options as the host got them (int64 as text, enum names); a new
    host replays them into the same table (same digest, same description)."""
    options = joker_pb2.Options(
        game_type=joker_pb2.GAME_TYPE_NINES,
        khishti=-300,
        khishti_nine_card_hands=-600,
        premia=False,
        took_all=joker_pb2.TOOK_ALL_AS_BID,
    )
    raw = host_options(options)
    assert raw["khishti"] == "-300" and raw["premia"] is False  # as the host stores them
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    first = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("rb"))
    await first.start()
    table_id = await first.open_table("joker", raw, None, request_key="rebuild")
    for seat, player in enumerate(PLAYERS):
        await first.seat(table_id, player, seat, 0)
    rng = random.Random(9)
    for n in range(40):
        to_act = first.view(table_id, "").view["hand"]["to_act"]
        legal = first.view(table_id, to_act).view["legal"]
        await first.act(table_id, to_act, f"a{n}", random_joker_action(legal, rng))
    await first.stop()

    second = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("x"))
    await second.start()
    assert table_id not in second.voided
    assert second.digest(table_id) == first.digest(table_id)
    description = second.view(table_id, "").view["options"]
    assert description == "nines; premia off; khishti -300 / -600 in nine-card hands"
    await second.stop()
