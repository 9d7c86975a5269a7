"""The hostile-request property's machinery, shared by its two runs (an in-memory command
log: tests/unit/table/test_hostile_properties.py; the real broker's:
tests/integration/table/test_hostile_properties_kafka.py): the host with a table of every
game open and its players seated (fixtures `served`, `table_ids`; the test module gives
`command_log`), generated requests, and one request sent and judged."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from croupier.game import ClockSettings
from croupier.game.limits import MAX_AMOUNT, MAX_CLOCK_SECONDS
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.ports import CommandLog
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.hostile import fill, scalar
from tests.support.table import Seeds

SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableEngine"]
METHODS = sorted(method.name for method in SERVICE.methods)
# Actions reach the games' adapters, where most of the parsing is: asked more often.
WEIGHTED = [*METHODS, *["Act"] * 6, "SeatPlayer", "OpenTable"]
# Aimed at a table of their own: accepted, they end play at the table (the others' tables
# stay open for the generated actions to reach).
ENDING = ("CloseTable", "UnseatPlayer")
SPARE = "spare"
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)  # no clock runs out meanwhile
TABLES = {  # game: (options, players, stack)
    "poker": ({"variant": "nlhe", "blinds": [1, 2]}, 2, 100),
    "backgammon": ({"mode": "single", "stake": 100}, 2, 0),
    "rummy": ({"variant": "gin", "players": 2}, 2, 500),
    "joker": ({}, 4, 0),
    SPARE: ({"variant": "nlhe", "blinds": [1, 2]}, 2, 100),  # poker, for ENDING calls
}
PLAYERS = ["p0", "p1", "p2", "p3"]
ACTION_NAMES = [
    *("fold", "check", "call", "bet", "raise", "all_in", "top_up", "sit_out", "sit_in"),
    *("roll", "move", "double", "take", "drop", "resign", "beaver", "timeout"),
    *("draw", "draw_stock", "draw_discard", "take_upcard", "pass", "discard", "knock"),
    *("gin", "meld", "lay_off", "go_out", "bid", "trump", "play", "leave", "forfeit"),
]
ABSURD_TEXT = [
    "",
    "\x00",
    "a\x00b",
    "p0\n",
    "\x7f\x85\u2028",
    "x" * 129,
    "9" * 400,
    "USD",
    "CHIP",
    "١٢٣",
    "😀",
    "'; DROP TABLE tables; --",
    "poker",
    "joker",
]
INTS = [0, 1, -1, 2, 5, 100, MAX_AMOUNT, MAX_AMOUNT + 1, MAX_CLOCK_SECONDS + 1, 2**31 - 1]
HUGE_INTS = [2**63 - 1, -(2**63), 2**64, 10**30, -(10**30), 10**400]


@dataclass
class Served:
    host: TableHost
    channel: grpc.aio.Channel
    tables: dict[str, str]  # game -> table id


def _text(table_ids: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from([*table_ids, *PLAYERS]),
        st.sampled_from(ABSURD_TEXT),
        st.text(max_size=12),
        st.integers(1000, 200_000).map(lambda n: "y" * n),
    )


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([*INTS, *HUGE_INTS]),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([*ABSURD_TEXT, *ACTION_NAMES, "Ah", "Xs", "XX", "10h"]),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(["action", "to", "amount", "card", "x"]), children),
    ),
    max_leaves=12,
)
ACTION_FIELDS = (
    *("to", "amount", "tricks", "suit", "card", "cards", "joker", "moves", "from"),
    *("melds", "lay_offs", "discard", "source", "seat", "post", "variant", "blinds"),
)
# Something shaped like an action of some game, with absurd values in its fields.
action_like = st.fixed_dictionaries(
    {"action": st.one_of(st.sampled_from(ACTION_NAMES), json_scalars)},
    optional=dict.fromkeys(ACTION_FIELDS, json_values),
)


def _json_text() -> st.SearchStrategy[str]:
    def dump(value: Any) -> str:
        try:
            return json.dumps(value)
        except ValueError:  # integers past Python's str limit
            return "{}"

    return st.one_of(
        action_like.map(dump),
        json_values.map(dump),
        st.sampled_from(["{", "[" * 5000, '{"a": 1e999}', "{}", "null", '"\\ud800"']),
    )


def _scalar(field: FieldDescriptor, table_ids: list[str]) -> st.SearchStrategy[Any]:
    if field.type == FieldDescriptor.TYPE_STRING and field.name.endswith("_json"):
        return _json_text()
    return scalar(field, INTS, _text(table_ids))


def _message(
    descriptor: Descriptor, table_ids: list[str], depth: int = 0
) -> st.SearchStrategy[dict[str, Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = _scalar(field.message_type.fields_by_name["value"], table_ids)
            optional[field.name] = st.dictionaries(_text(table_ids), value, max_size=3)
            continue
        if field.message_type is not None:
            if depth >= 4:
                continue
            single = _message(field.message_type, table_ids, depth + 1)
        else:
            single = _scalar(field, table_ids)
        optional[field.name] = st.lists(single, max_size=3) if field.is_repeated else single
    return st.fixed_dictionaries({}, optional=optional)  # type: ignore[arg-type]


def _serialized(cls: type[Message], values: dict[str, Any]) -> bytes | None:
    try:
        return fill(cls(), values).SerializeToString()
    except (ValueError, TypeError):  # a value the field's type cannot hold
        return None


@st.composite
def _aimed(draw: st.DrawFn, method: str, tables: dict[str, str]) -> dict[str, Any]:
    """A request naming a real table and one of its players, with absurd content."""
    game = SPARE if method in ENDING else draw(st.sampled_from(sorted(set(tables) - {SPARE})))
    values: dict[str, Any] = {"table_id": tables[game]}
    fields = SERVICE.methods_by_name[method].input_type.fields_by_name
    if "player_id" in fields:
        values["player_id"] = draw(st.sampled_from([*PLAYERS[: TABLES[game][1]], "p9"]))
    if "command_id" in fields:
        values["command_id"] = draw(st.sampled_from(["c1", "c2", "x" * 128]))
    if "action_json" in fields:
        values["action_json"] = draw(_json_text())
    if "stack" in fields:
        values["stack"] = draw(st.sampled_from([*INTS, 2**63 - 1, -(2**63)]))
        values["seat"] = draw(st.sampled_from([0, 1, 3, 4, 2**32 - 1]))
    if "hand_number" in fields:
        values["hand_number"] = draw(st.sampled_from([0, 1, 2, 2**64 - 1]))
    if method == "OpenTable":
        values = {
            "game": draw(st.sampled_from(sorted(set(TABLES) - {SPARE}))),
            "options_json": draw(_json_text()),
        }
        if draw(st.booleans()):
            clock = {"turn_seconds": 3600, "reconnect_seconds": 3600}
            clock[draw(st.sampled_from(sorted(clock)))] = draw(st.integers(0, 2**32 - 1))
            values["clock"] = clock
    return values


def requests(tables: dict[str, str]) -> st.SearchStrategy[tuple[str, bytes]]:
    table_ids = sorted(tables.values())

    def for_method(method: str) -> st.SearchStrategy[tuple[str, bytes]]:
        descriptor = SERVICE.methods_by_name[method].input_type
        cls = getattr(table_pb2, descriptor.name)
        body = st.one_of(
            _aimed(method, tables).map(lambda values: _serialized(cls, values)),
            _message(descriptor, table_ids).map(lambda values: _serialized(cls, values)),
            st.binary(max_size=64),  # random bytes as the whole body
        ).filter(lambda serialized: serialized is not None)
        return st.tuples(st.just(method), body)  # type: ignore[arg-type]

    return st.sampled_from(WEIGHTED).flatmap(for_method)


def _legal(view: Any) -> dict[str, Any]:
    """The `legal` part of a player's view, wherever the game puts it."""
    if isinstance(view, dict):
        if isinstance(view.get("legal"), dict):
            return view["legal"]
        for value in view.values():
            if found := _legal(value):
                return found
    return {}


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [value, *(leaf for item in value for leaf in _leaves(item))]
    return [value]


ABSURD_VALUES: list[Any] = [
    *INTS, *HUGE_INTS, *ABSURD_TEXT, None, True, False, 0.5, -0.0, 1e308,
    float("nan"), float("inf"), [], {}, [[[[]]]], {"action": "fold"}, ["Ah", "Ah"],
]  # fmt: skip


def informed_act(served: Served, seed: int) -> tuple[str, bytes]:
    """An Act by the player to act, built from his legal actions with fields mutated: the
    calls that get furthest into a game's rules. The tables change from call to call, so
    Hypothesis draws only `seed`; the choices are made from it."""
    rng = random.Random(seed)
    game = rng.choice(sorted(set(served.tables) - {SPARE}))
    table_id = served.tables[game]
    seated = served.host.view(table_id, "").seated
    waited = [p for p in seated if served.host.view(table_id, p).turn_seconds_left > 0]
    player = rng.choice(waited or list(seated) or PLAYERS)
    legal = _legal(served.host.view(table_id, player).view)
    names = [n for n in legal.get("actions", []) if isinstance(n, str)] or ACTION_NAMES
    known = [leaf for leaf in _leaves(legal) if leaf is not None]
    action: dict[str, Any] = {"action": rng.choice(names)}
    for field in rng.sample(sorted({*legal, *ACTION_FIELDS} - {"actions"}), rng.randint(0, 3)):
        pool = known if known and rng.random() < 0.6 else ABSURD_VALUES
        action[field] = rng.choice(pool)
    try:
        action_json = json.dumps(action)
    except ValueError:  # integers past Python's str limit
        action_json = "{}"
    request = table_pb2.ActRequest(
        table_id=table_id, player_id=player, command_id=f"c{rng.randint(0, 99)}",
        action_json=action_json,
    )  # fmt: skip
    return "Act", request.SerializeToString()


def tables_state(served: Served) -> tuple[object, ...]:
    host = served.host
    return (
        tuple(host.table_ids()),
        tuple(
            (host.digest(table_id), host.view(table_id, "").disconnected)
            for table_id in served.tables.values()
        ),
    )


@pytest.fixture(scope="module")
def table_ids() -> dict[str, str]:
    """The seeded tables' ids: fixed by their request keys, known before they exist."""
    import uuid

    return {game: str(uuid.uuid5(uuid.NAMESPACE_URL, f"croupier-table/{game}")) for game in TABLES}


@pytest.fixture
async def served(command_log: CommandLog, table_ids: dict[str, str]) -> AsyncIterator[Served]:
    """The host on `command_log`, every game's table open with its players seated."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=command_log,
        publisher=bus,
        seeds=Seeds("hostile"),
    )
    await host.start()
    for game, (options, players, stack) in TABLES.items():
        engine = "poker" if game == SPARE else game
        table_id = await host.open_table(engine, options, HOUR, request_key=game)
        assert table_id == table_ids[game]
        for seat in range(players):
            await host.seat(table_id, PLAYERS[seat], seat, stack)
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    options = [("grpc.max_send_message_length", 8 << 20)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=options) as chan:
        yield Served(host, chan, table_ids)
    await server.stop()


async def _call(channel: grpc.aio.Channel, method: str, body: bytes) -> None:
    path = f"/{SERVICE.full_name}/{method}"
    if method == "WatchView":
        stream = channel.unary_stream(path)(body, timeout=30)
        try:
            await stream.read()  # the first view, or the refusal (raised)
        finally:
            stream.cancel()
        return
    await channel.unary_unary(path)(body, timeout=30)


HOSTILE_SETTINGS = settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


async def one_hostile_request(
    served: Served, table_ids: dict[str, str], data: st.DataObject
) -> None:
    """Send one generated request: never INTERNAL or UNKNOWN, a short message, every table
    unchanged when it is refused, and the server still answers."""
    if data.draw(st.booleans(), label="informed"):
        method, body = informed_act(served, data.draw(st.integers(0, 2**32), label="seed"))
    else:
        method, body = data.draw(requests(table_ids), label="call")
    before = tables_state(served)
    try:
        await _call(served.channel, method, body)
    except grpc.aio.AioRpcError as error:
        assert error.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (
            method,
            error.code(),
            error.details(),
        )
        assert len(error.details() or "") < 1000, (method, len(error.details() or ""))
        assert tables_state(served) == before, f"{method} refused but changed a table"
    # The server is still there.
    for table_id in table_ids.values():
        view = await served.channel.unary_unary(
            f"/{SERVICE.full_name}/GetView",
            response_deserializer=table_pb2.GetViewResponse.FromString,
        )(table_pb2.GetViewRequest(table_id=table_id).SerializeToString(), timeout=30)
        assert view.view.table_id == table_id
