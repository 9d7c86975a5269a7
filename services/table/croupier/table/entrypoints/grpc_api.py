"""`croupier.table.v1.TableEngine` over gRPC: validation and translation.

Game options, actions and views travel either as the game's protobuf member of the
`oneof`s or as JSON in the game's conformance notation (`options_json`, `action_json`,
`view_json`). An engine that knows its protobuf messages implements `ProtoCodec`;
the host itself knows no game. No error handling here: refusals reach the kit's
interceptor, which answers their status from its one table (`croupier.kit.errors`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from google.protobuf import json_format
from google.protobuf.message import Message

from croupier.game import JSON, Malformed, implements
from croupier.game.limits import echo
from croupier.table.service.host import TableHost
from croupier.table.service.tables import ViewSnapshot, clock_from_options
from croupier.table.v1 import table_pb2, table_pb2_grpc

if TYPE_CHECKING:
    from croupier.kit.context import Context

_COMPACT_JSON = json.JSONEncoder(separators=(",", ":")).encode  # one encoder for every view
MAX_ID = 128
MAX_JSON = 64 * 1024


@runtime_checkable
class ProtoCodec(Protocol):
    """Optional: an engine that reads its protobuf action and writes its protobuf view."""

    def action_from_message(self, message: Message) -> JSON: ...

    def view_to_message(self, view: JSON) -> table_pb2.GameView: ...


@runtime_checkable
class JsonViewCodec(Protocol):
    """Optional: an engine that writes its view JSON itself, the very text
    `json.dumps(view, separators=(",", ":"))` gives (e.g. reusing the encoding of a part
    that many views share)."""

    def view_json(self, view: JSON) -> str: ...


def _require_id(value: str, name: str) -> str:
    if not value:
        raise Malformed(f"{name} is required")
    if len(value) > MAX_ID:
        raise Malformed(f"{name} is limited to {MAX_ID} characters")
    return value


def _parse_json(text: str, name: str) -> JSON:
    if len(text) > MAX_JSON:
        raise Malformed(f"{name} is limited to {MAX_JSON} bytes")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Malformed(f"{name} is not valid JSON: {exc.msg} at position {exc.pos}") from exc
    except RecursionError as exc:
        raise Malformed(f"{name} is nested too deeply") from exc
    if not isinstance(value, dict):
        raise Malformed(f"{name} must be a JSON object")
    return value


_VIEW_FORMATS = frozenset(table_pb2.ViewFormat.values())  # `values()` builds a list per call


def _view_format(value: int) -> table_pb2.ViewFormat.ValueType:
    if value not in _VIEW_FORMATS:
        known = ", ".join(table_pb2.ViewFormat.keys())
        raise Malformed(f"view_format {value} is not one of {known}")
    return table_pb2.ViewFormat.ValueType(value)


def _within(context: Context) -> float | None:
    """The seconds the caller still waits (None: no deadline), less a tenth for the
    answer's way back: a command the log does not confirm by then answers UNAVAILABLE
    rather than DEADLINE_EXCEEDED (`croupier.table.service.deadlines.ANSWER_WITHIN_SECONDS`)."""
    remaining = context.time_remaining()
    return None if remaining is None else remaining * 0.9


def _bounded(value: str, name: str) -> str:
    if len(value) > MAX_ID:
        raise Malformed(f"{name} is limited to {MAX_ID} characters")
    return value


class TableEngineService(table_pb2_grpc.TableEngineServicer):
    def __init__(self, host: TableHost) -> None:
        self._host = host

    def _view(
        self, snapshot: ViewSnapshot, view_format: table_pb2.ViewFormat.ValueType
    ) -> table_pb2.TableView:
        """The answer's view in the forms the caller asked for (`ViewFormat`): a form
        nobody reads is neither built nor sent."""
        engine = self._host.engine_of(snapshot.table_id)
        message = table_pb2.TableView(
            table_id=snapshot.table_id,
            version=snapshot.version,
            seated=list(snapshot.seated),
            turn_seconds_left=snapshot.turn_seconds_left,
            closed=snapshot.closed,
            last_finished_hand=snapshot.last_finished_hand,
            disconnected=list(snapshot.disconnected),
            auto_players=list(snapshot.auto_players),
            hand_number=snapshot.hand_number,
            hand_seed_sha256=snapshot.hand_seed_sha256,
        )
        typed = implements(engine, ProtoCodec)
        if typed and view_format != table_pb2.VIEW_FORMAT_JSON:
            message.game.CopyFrom(cast(ProtoCodec, engine).view_to_message(snapshot.view))
        if view_format != table_pb2.VIEW_FORMAT_PROTO or not typed:
            if implements(engine, JsonViewCodec):
                message.view_json = cast(JsonViewCodec, engine).view_json(snapshot.view)
            else:
                message.view_json = _COMPACT_JSON(snapshot.view)
        return message

    async def OpenTable(
        self, request: table_pb2.OpenTableRequest, context: Context
    ) -> table_pb2.OpenTableResponse:
        member = request.options.WhichOneof("game")
        if member is not None:
            if request.game and request.game != member:
                raise Malformed(f"game {echo(request.game)} does not match options.{member}")
            game: str = member
            options: JSON = json_format.MessageToDict(
                getattr(request.options, member), preserving_proto_field_name=True
            )
        elif request.game:
            game = request.game
            options = _parse_json(request.options_json or "{}", "options_json")
        else:
            raise Malformed("say which game: set one member of options, or game")
        clock = clock_from_options(
            {
                "turn_seconds": request.clock.turn_seconds,
                "reserve_seconds": request.clock.reserve_seconds,
                "reconnect_seconds": request.clock.reconnect_seconds,
            }
        )
        request_key = _bounded(request.request_key, "request_key")
        table_id = await self._host.open_table(
            game, options, clock, request_key, within=_within(context)
        )
        return table_pb2.OpenTableResponse(table_id=table_id)

    async def SeatPlayer(
        self, request: table_pb2.SeatPlayerRequest, context: Context
    ) -> table_pb2.SeatPlayerResponse:
        view_format = _view_format(request.view_format)
        table_id = _require_id(request.table_id, "table_id")
        player = _require_id(request.player_id, "player_id")
        snapshot = await self._host.seat(
            table_id,
            player,
            request.seat,
            request.stack,
            request.is_bot,
            _bounded(request.invite_code, "invite_code"),
            within=_within(context),
        )
        return table_pb2.SeatPlayerResponse(view=self._view(snapshot, view_format))

    async def UnseatPlayer(
        self, request: table_pb2.UnseatPlayerRequest, context: Context
    ) -> table_pb2.UnseatPlayerResponse:
        table_id = _require_id(request.table_id, "table_id")
        player = _require_id(request.player_id, "player_id")
        await self._host.unseat(table_id, player, within=_within(context))
        return table_pb2.UnseatPlayerResponse()

    async def Act(self, request: table_pb2.ActRequest, context: Context) -> table_pb2.ActResponse:
        view_format = _view_format(request.view_format)
        table_id = _require_id(request.table_id, "table_id")
        player = _require_id(request.player_id, "player_id")
        command_id = _require_id(request.command_id, "command_id")
        action = self._action(table_id, request)
        snapshot = await self._host.act(
            table_id, player, command_id, action, within=_within(context)
        )
        return table_pb2.ActResponse(view=self._view(snapshot, view_format))

    def _action(self, table_id: str, request: table_pb2.ActRequest) -> JSON:
        member = request.action.WhichOneof("game")
        if member is None:
            if not request.action_json:
                raise Malformed("an action is required (action or action_json)")
            return _parse_json(request.action_json, "action_json")
        engine = self._host.engine_of(table_id)
        if member != engine.name:
            raise Malformed(f"this is a {engine.name} table; got a {member} action")
        if not isinstance(engine, ProtoCodec):
            raise Malformed(f"{engine.name} actions are sent as action_json")
        message: Message = getattr(request.action, member)
        return engine.action_from_message(message)

    async def GetView(
        self, request: table_pb2.GetViewRequest, context: Context
    ) -> table_pb2.GetViewResponse:
        view_format = _view_format(request.view_format)
        table_id = _require_id(request.table_id, "table_id")
        snapshot = self._host.view(table_id, _bounded(request.player_id, "player_id"))
        return table_pb2.GetViewResponse(view=self._view(snapshot, view_format))

    async def WatchView(
        self, request: table_pb2.WatchViewRequest, context: Context
    ) -> AsyncIterator[table_pb2.WatchViewResponse]:
        view_format = _view_format(request.view_format)
        table_id = _require_id(request.table_id, "table_id")
        stream = self._host.watch(table_id, _bounded(request.player_id, "player_id"))
        async for snapshot in stream:
            yield table_pb2.WatchViewResponse(view=self._view(snapshot, view_format))

    async def Reconnect(
        self, request: table_pb2.ReconnectRequest, context: Context
    ) -> table_pb2.ReconnectResponse:
        view_format = _view_format(request.view_format)
        table_id = _require_id(request.table_id, "table_id")
        player = _require_id(request.player_id, "player_id")
        snapshot = await self._host.reconnect(table_id, player, within=_within(context))
        return table_pb2.ReconnectResponse(view=self._view(snapshot, view_format))

    async def Disconnect(
        self, request: table_pb2.DisconnectRequest, context: Context
    ) -> table_pb2.DisconnectResponse:
        table_id = _require_id(request.table_id, "table_id")
        player = _require_id(request.player_id, "player_id")
        await self._host.disconnect(table_id, player, within=_within(context))
        return table_pb2.DisconnectResponse()

    async def CloseTable(
        self, request: table_pb2.CloseTableRequest, context: Context
    ) -> table_pb2.CloseTableResponse:
        table_id = _require_id(request.table_id, "table_id")
        await self._host.close(table_id, within=_within(context))
        return table_pb2.CloseTableResponse()

    async def GetHandHistory(
        self, request: table_pb2.GetHandHistoryRequest, context: Context
    ) -> table_pb2.GetHandHistoryResponse:
        table_id = _require_id(request.table_id, "table_id")
        history: dict[str, Any] = self._host.hand_history(table_id, request.hand_number)
        return table_pb2.GetHandHistoryResponse(history_json=json.dumps(history, sort_keys=True))
