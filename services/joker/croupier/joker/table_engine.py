"""Georgian Joker as the table host runs it (`croupier.game.GameRules`).

Translation only, no rules: the table's four seats fill up, the first `StartHand` starts
the game (`croupier.joker.game`) and every later one deals the next hand; clock expiries
play `game.timeout_action`. A finished game settles points, not money (rule 23): its
`HandResult` names every player with a delta of 0 (the wallet refuses a result that names
nobody, and records nothing when no money moves) and carries the totals and the placing.

Table options arrive either as JSON in the conformance notation or as the
`croupier.joker.v1.Options` message turned into JSON by the host
(`json_format.MessageToDict(..., preserving_proto_field_name=True)`: enums by name,
int64 as text, fields at their default left out); `table_options` reads both and refuses
anything else by name. The engine is also a `croupier.table.grpc_api.ProtoCodec`: it reads
`croupier.joker.v1.Action` and writes `croupier.joker.v1.View`, and a
`croupier.table.grpc_api.JsonViewCodec`: it writes the view JSON. Both encode the score
sheet, the bulk of a view, once per sheet (`_sheet_encodings`).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from google.protobuf.message import Message

from croupier.common.v1 import common_pb2
from croupier.game import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Malformed,
    RuleBroken,
    SeatPlayer,
    StartHand,
    UnseatPlayer,
)
from croupier.game.fairness import shuffled
from croupier.joker import game
from croupier.joker.cards import DECK, Suit, UnknownCard, card
from croupier.joker.conformance import parse_options
from croupier.joker.hand import SEATS
from croupier.joker.options import GameType, Options
from croupier.joker.v1 import joker_pb2
from croupier.kit.scenario import MalformedScenario
from croupier.table.v1 import table_pb2

# ---- table options -------------------------------------------------------------------

GAME_TYPES = {
    "standard": GameType.STANDARD,
    "nines": GameType.NINES,
    "GAME_TYPE_STANDARD": GameType.STANDARD,
    "GAME_TYPE_NINES": GameType.NINES,
}
# The clock is the host's (OpenTableRequest.clock); `currency` is read by the host.
HOST_OPTIONS = ("turn_seconds", "reconnect_seconds", "currency")
ENGINE_OPTIONS = (
    "game_type",
    "khishti",
    "khishti_nine_card_hands",
    "premia",
    "moshla",
    "multi_premia",
    "took_all",
)
TOOK_ALL_NAMES = ("hundred_per_card", "as_bid", "TOOK_ALL_HUNDRED_PER_CARD", "TOOK_ALL_AS_BID")
MULTI_PREMIA_NAMES = ("others_deducted", "others_not_deducted")
# A khishti is a penalty: from KHISHTI_LIMIT (−100 on the sheet) to 0 points.
KHISHTI_LIMIT = -10_000


def _invalid(message: str) -> Malformed:
    return Malformed(message)


def _points(value: object, name: str) -> int:
    """An integer number of points; protobuf JSON writes int64 as text ("-500")."""
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("-").isdigit():
            raise _invalid(f"options.{name} must be an integer, got {value!r}")
        value = int(text)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _invalid(f"options.{name} must be an integer, got {value!r}")
    if not KHISHTI_LIMIT <= value <= 0:
        raise _invalid(f"options.{name} is a penalty: from {KHISHTI_LIMIT} to 0 points")
    return value


def table_options(raw: JSON) -> Options:
    """A Joker table's options from the JSON notation or the protobuf `Options` as JSON.

    Absent keys take the site's defaults; an unknown key, a wrong type or an unknown enum
    name is refused (`invalid_argument`) with the key named.
    """
    unknown = sorted(set(raw) - set(ENGINE_OPTIONS) - set(HOST_OPTIONS))
    if unknown:
        known = ", ".join(ENGINE_OPTIONS)
        raise _invalid(f"unknown Joker option(s) {', '.join(unknown)}; known: {known}")
    values = {k: v for k, v in raw.items() if k in ENGINE_OPTIONS and k != "game_type"}
    if "khishti" in values and not isinstance(values["khishti"], dict):
        values["khishti"] = _points(values["khishti"], "khishti")
    elif isinstance(values.get("khishti"), dict):
        split = values["khishti"]
        extra = sorted(set(split) - {"short_hands", "nine_card_hands"})
        if extra:
            raise _invalid(f"options.khishti has short_hands and nine_card_hands, not {extra}")
        values["khishti"] = {k: _points(v, f"khishti.{k}") for k, v in split.items()}
    nine = values.get("khishti_nine_card_hands")
    if nine is not None:
        values["khishti_nine_card_hands"] = _points(nine, "khishti_nine_card_hands")
    for name, allowed in (("took_all", TOOK_ALL_NAMES), ("multi_premia", MULTI_PREMIA_NAMES)):
        if name in values and values[name] not in allowed:
            raise _invalid(f"options.{name} is {' or '.join(allowed)}, got {values[name]!r}")
    try:
        options = parse_options(values)
    except MalformedScenario as exc:
        raise _invalid(str(exc)) from exc
    kind = raw.get("game_type", "standard")
    if not isinstance(kind, str) or kind not in GAME_TYPES:
        raise _invalid(
            f"options.game_type is standard or nines (GAME_TYPE_STANDARD, GAME_TYPE_NINES), "
            f"got {kind!r}"
        )
    return replace(options, game_type=GAME_TYPES[kind])


@dataclass(frozen=True)
class JokerTable:
    options: Options
    # Seat number → player; the game's clockwise order is the order of seat numbers.
    seats: tuple[tuple[int, str], ...] = ()
    game: game.GameState | None = None
    hands_started: int = 0

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for _, player in sorted(self.seats))


def _events(events: Sequence[Any]) -> list[Event]:
    return [Event(e.type, dict(e.data)) for e in events]


class JokerEngine:
    name = "joker"
    version = "1"

    def open(self, options: JSON) -> JokerTable:
        return JokerTable(options=table_options(options))

    def apply(self, state: JokerTable, command: Command) -> tuple[JokerTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return self._seat(state, command), [Event("player_seated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            if state.game is not None:
                raise RuleBroken("a Joker game cannot lose a player")
            seats = tuple((n, p) for n, p in state.seats if p != command.player)
            return replace(state, seats=seats), [Event("player_left", {"player": command.player})]
        if isinstance(command, StartHand):
            return self._start(state, command.seed)
        if isinstance(command, Act):
            if state.game is None:
                raise RuleBroken("the game has not started")
            new_game, events = game.act(state.game, command.player, command.action)
            return replace(state, game=new_game), _events(events)
        raise Malformed(f"unsupported command {command!r}")

    @staticmethod
    def _seat(state: JokerTable, command: SeatPlayer) -> JokerTable:
        if not 0 <= command.seat < SEATS:
            raise Malformed(f"a Joker table has seats 0 to {SEATS - 1}")
        if state.game is not None or len(state.seats) >= SEATS:
            raise RuleBroken("the table is full")
        if command.player in state.players:
            raise RuleBroken(f"{command.player!r} is already seated")
        if any(n == command.seat for n, _ in state.seats):
            raise RuleBroken(f"seat {command.seat} is taken")
        return replace(state, seats=(*state.seats, (command.seat, command.player)))

    def _start(self, state: JokerTable, seed: bytes) -> tuple[JokerTable, list[Event]]:
        current = state.game
        if current is None:
            if len(state.seats) != SEATS:
                raise RuleBroken("a Joker game needs 4 seated players")
            current = game.new_game(game_id="", players=state.players, options=state.options)
        started, events = game.start_hand(current, seed)
        return replace(state, game=started, hands_started=state.hands_started + 1), _events(events)

    def can_start_hand(self, state: JokerTable) -> bool:
        if state.game is None:
            return len(state.seats) == SEATS
        return game.can_start_hand(state.game)

    def to_act(self, state: JokerTable) -> list[str]:
        return [] if state.game is None else game.to_act(state.game)

    def legal_actions(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": []}
        return game.legal_actions(state.game, player)

    def view(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            return self.public_view(state)
        return game.view(state.game, player)

    def public_view(self, state: JokerTable) -> JSON:
        if state.game is None:
            return {"players": list(state.players), "options": state.options.describe()}
        return game.public_view(state.game)

    def timeout_action(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            raise RuleBroken("the game has not started")
        return game.timeout_action(state.game, player)

    def result(self, state: JokerTable) -> HandResult | None:
        if state.game is None:
            return None
        outcome = game.result(state.game)
        if outcome is None:
            return None
        return HandResult(
            hand_number=state.hands_started,
            deltas=dict.fromkeys(state.players, 0),
            details={"totals": outcome.totals, "placing": outcome.placing},
        )

    def randomness(self, seed: bytes) -> list[Any]:
        return [card.code for card in shuffled(DECK, seed, "deck")]

    def snapshot(self, state: JokerTable) -> JSON:
        return {
            "seats": [list(seat) for seat in state.seats],
            "hands_started": state.hands_started,
            "game": None if state.game is None else game.snapshot(state.game),
        }

    # ---- protobuf (croupier.table.grpc_api.ProtoCodec) --------------------------------

    def action_from_message(self, message: Message) -> JSON:
        return action_from_message(message)

    def view_to_message(self, view: JSON) -> table_pb2.GameView:
        return table_pb2.GameView(joker=view_message(view))

    # ---- view JSON (croupier.table.grpc_api.JsonViewCodec) ------------------------------

    def view_json(self, view: JSON) -> str:
        return view_json(view)


# ---- protobuf actions and views --------------------------------------------------------

SUIT_NAMES = tuple(s.value for s in Suit)
JOKER_USES = {
    joker_pb2.JOKER_USE_HIGH: "high",
    joker_pb2.JOKER_USE_TAKE: "take",
    joker_pb2.JOKER_USE_UNDER: "under",
}
USE_ENUMS = {name: number for number, name in JOKER_USES.items()}
ACTION_ENUMS = {
    "bid": joker_pb2.ACTION_KIND_BID,
    "trump": joker_pb2.ACTION_KIND_TRUMP,
    "play": joker_pb2.ACTION_KIND_PLAY,
}
PHASES = {
    "trump": joker_pb2.PHASE_TRUMP,
    "bidding": joker_pb2.PHASE_BIDDING,
    "playing": joker_pb2.PHASE_PLAYING,
    "complete": joker_pb2.PHASE_COMPLETE,
}
COLOURS = {"green": joker_pb2.PREMIA_COLOUR_GREEN, "red": joker_pb2.PREMIA_COLOUR_RED}


def _stray(message: joker_pb2.Action, allowed: set[str], what: str) -> None:
    """Refuse fields that do not belong to this kind of action (a client bug otherwise)."""
    present = {field.name for field, _ in message.ListFields()} - {"kind"} - allowed
    if present:
        names = ", ".join(sorted(present))
        raise _invalid(f"{what} does not carry {names}")


def action_from_message(message: Message) -> JSON:
    """A `croupier.joker.v1.Action` in the conformance notation; refuses malformed ones.

    BID carries `tricks` (0 = pass); TRUMP carries `suit` ("c", "d", "h", "s" or "none");
    PLAY carries `card` and, for a joker, `joker` (its use) and, when led, `suit`.
    Whether the action is legal now is the engine's decision, not this function's.
    """
    if not isinstance(message, joker_pb2.Action):
        raise _invalid(f"a Joker action is a croupier.joker.v1.Action, not {type(message)}")
    kind = message.kind
    if kind == joker_pb2.ACTION_KIND_BID:
        _stray(message, {"tricks"}, "a bid")
        return {"action": "bid", "tricks": message.tricks}
    if kind == joker_pb2.ACTION_KIND_TRUMP:
        _stray(message, {"suit"}, "a trump declaration")
        if message.suit not in (*SUIT_NAMES, "none"):
            raise _invalid(
                f"a trump declaration names suit c, d, h, s or none, got {message.suit!r}"
            )
        return {"action": "trump", "suit": message.suit}
    if kind == joker_pb2.ACTION_KIND_PLAY:
        _stray(message, {"card", "joker", "suit"}, "a play")
        code = message.card.code
        if not code:
            raise _invalid("a play carries card (its code, e.g. 'Ah' or 'X1')")
        try:
            card(code)
        except UnknownCard as exc:
            raise _invalid(str(exc)) from None
        action: JSON = {"action": "play", "card": code}
        if message.joker != joker_pb2.JOKER_USE_UNSPECIFIED:
            if message.joker not in JOKER_USES:
                raise _invalid(
                    f"joker use {message.joker} is unknown: JOKER_USE_HIGH, JOKER_USE_TAKE "
                    "or JOKER_USE_UNDER"
                )
            action["joker"] = JOKER_USES[message.joker]
        if message.suit:
            if message.suit not in SUIT_NAMES:
                raise _invalid(f"a led joker names suit c, d, h or s, got {message.suit!r}")
            action["suit"] = message.suit
        return action
    if kind == joker_pb2.ACTION_KIND_UNSPECIFIED:
        raise _invalid(
            "action kind is required: ACTION_KIND_BID, ACTION_KIND_TRUMP or ACTION_KIND_PLAY"
        )
    raise _invalid(
        f"action kind {kind} is unknown: ACTION_KIND_BID, ACTION_KIND_TRUMP or ACTION_KIND_PLAY"
    )


def _card(code: str) -> common_pb2.Card:
    return common_pb2.Card(code=code)


def _played(play: JSON) -> joker_pb2.PlayedCard:
    return joker_pb2.PlayedCard(
        player=play.get("player", ""),
        card=_card(play["card"]),
        joker=USE_ENUMS.get(play.get("joker", ""), joker_pb2.JOKER_USE_UNSPECIFIED),
        suit=play.get("suit") or "",
    )


def _legal(legal: JSON) -> joker_pb2.Legal:
    return joker_pb2.Legal(
        actions=[ACTION_ENUMS[a] for a in legal.get("actions", [])],
        tricks=legal.get("tricks", []),
        cards=[_card(c) for c in legal.get("cards", [])],
        joker_uses=[USE_ENUMS[u] for u in legal.get("joker", [])],
        suits=legal.get("suits", []),
    )


def _sheet(sheet: JSON) -> joker_pb2.ScoreSheet:
    message = joker_pb2.ScoreSheet()
    for pulka in sheet.get("pulkas", []):
        rows = message.pulkas.add()
        for player, row in pulka["players"].items():
            target = rows.rows[player]
            target.sum = row["sum"]
            for cell in row["hands"]:
                target.hands.append(
                    joker_pb2.SheetCell(
                        hand=cell["hand"] + 1,
                        cards=cell["cards"],
                        bid=cell["bid"],
                        took=cell["took"],
                        points=cell["points"],
                        text=cell["text"],
                        fulfilled=cell["fulfilled"],
                        khishti=cell["khishti"],
                        crossed_out=cell["crossed_out"],
                    )
                )
            sigma = row.get("sigma")
            if sigma is not None:
                target.sigma.CopyFrom(
                    joker_pb2.SigmaLine(
                        result=sigma["result"],
                        text=sigma["text"],
                        premia=sigma["premia"],
                        moshla=sigma["moshla"],
                        adjustment=sigma["adjustment"] or "",
                    )
                )
    for player, line in sheet.get("bottom", {}).items():
        message.bottom[player].CopyFrom(
            joker_pb2.BottomLine(
                total=line["total"],
                text=line["text"],
                colour=COLOURS.get(line["colour"] or "", joker_pb2.PREMIA_COLOUR_UNSPECIFIED),
                name_red=line["name_red"],
            )
        )
    return message


# id(sheet) -> (sheet, its message, its JSON), most recently used last.
_SHEET_ENCODINGS: OrderedDict[int, tuple[JSON, joker_pb2.ScoreSheet, str]] = OrderedDict()
_SHEET_ENCODINGS_SIZE = 1024  # sheets in use: one per table, until its next hand is scored
COMPACT = (",", ":")
_encode = json.JSONEncoder(separators=COMPACT).encode  # one encoder, not one per call


def _sheet_encodings(sheet: JSON) -> tuple[joker_pb2.ScoreSheet, str]:
    """The score sheet as a message and as compact JSON, encoded once per sheet.

    `game.sheet` hands every view of a table the same dict (cached, never modified) until
    a hand is scored, so the views of that stretch, every player's and the spectators',
    share these encodings. The sheet is public; the cache is keyed by the dict itself (its
    id, checked against the dict it holds), so an encoding is only ever the one of the
    very dict a view carries.
    """
    cached = _SHEET_ENCODINGS.get(id(sheet))
    if cached is not None and cached[0] is sheet:
        _SHEET_ENCODINGS.move_to_end(id(sheet))
        return cached[1], cached[2]
    message, text = _sheet(sheet), _encode(sheet)
    _SHEET_ENCODINGS[id(sheet)] = (sheet, message, text)
    if len(_SHEET_ENCODINGS) > _SHEET_ENCODINGS_SIZE:
        _SHEET_ENCODINGS.popitem(last=False)
    return message, text


def view_json(view: JSON) -> str:
    """The view as compact JSON: exactly `json.dumps(view, separators=(",", ":"))`, with
    the score sheet's part taken from `_sheet_encodings` (the keys around it are encoded
    in two calls, the sheet's text spliced in between: a JSON object is its members in
    order, joined by commas)."""
    sheet = view.get("sheet")
    if sheet is None:
        return _encode(view)
    before: JSON = {}
    after: JSON = {}
    part = before
    for key, value in view.items():
        if key == "sheet":
            part = after
        else:
            part[key] = value
    members = [f'"sheet":{_sheet_encodings(sheet)[1]}']
    if before:
        members.insert(0, _encode(before)[1:-1])
    if after:
        members.append(_encode(after)[1:-1])
    return "{" + ",".join(members) + "}"


def view_message(view: JSON) -> joker_pb2.View:
    """`croupier.joker.v1.View` from the engine's view JSON (a player's or a spectator's).

    Copies, never adds: the viewer's own cards appear only when the JSON view has them.
    Hand and pulka numbers are 1-based in the message (0 = no hand dealt yet).
    """
    message = joker_pb2.View(
        description=view.get("options", ""),
        players=view.get("players", []),
        game_over=bool(view.get("over", False)),
    )
    if "legal" in view:
        message.legal.CopyFrom(_legal(view["legal"]))
    sheet = view.get("sheet")
    if sheet is not None:
        message.sheet.CopyFrom(_sheet_encodings(sheet)[0])
        for player, line in sheet.get("bottom", {}).items():
            message.totals[player] = line["total"]
    hand = view.get("hand")
    if hand is None:
        return message
    message.hand.extend(_card(c) for c in hand.get("own_cards", []))
    if hand.get("trump_card"):
        message.trump_card.CopyFrom(_card(hand["trump_card"]))
    message.trump = hand.get("trump") or ""
    message.bids.update(hand["bids"])
    message.tricks.update(hand["tricks"])
    message.trick.extend(_card(p["card"]) for p in hand["trick"])
    message.current_trick.extend(_played(p) for p in hand["trick"])
    for trick in hand["played"]:
        message.played.append(
            joker_pb2.Trick(cards=[_played(p) for p in trick["cards"]], winner=trick["winner"])
        )
    message.to_act = hand.get("to_act") or ""
    message.phase = PHASES[hand["phase"]]
    message.dealer = hand["dealer"]
    message.cards_per_player = hand["cards"]
    message.hand_number = hand["number"] + 1
    message.pulka = hand["pulka"] + 1
    message.cards_left.update({p: n for p, n in hand["cards_left"].items() if n is not None})
    return message


ENGINE = JokerEngine()
