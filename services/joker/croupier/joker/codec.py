"""Joker's protobuf and view JSON: the game's only module that imports protobuf.

- `action_from_message`: a `croupier.joker.v1.Action` in the conformance notation, with
  clear refusals of malformed ones (`croupier.game.Malformed`);
- `view_message`: the `croupier.joker.v1.View` of a view JSON (a player's or a
  spectator's), `game_view` the host's `croupier.table.v1.GameView` around it;
- `view_json`: the view as compact JSON.

The engine (`croupier.joker.engine`) exposes them as the host's `ProtoCodec` and
`JsonViewCodec`. Both encodings carry the score sheet, the bulk of a view, encoded once
per sheet (`_sheet_encodings`).
"""

from __future__ import annotations

import json
from collections import OrderedDict

from google.protobuf.message import Message

from croupier.common.v1 import common_pb2
from croupier.game import JSON, Malformed
from croupier.joker.core.cards import Suit, UnknownCard, card
from croupier.joker.v1 import joker_pb2
from croupier.table.v1 import table_pb2

__all__ = ["action_from_message", "game_view", "view_json", "view_message"]

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
        raise Malformed(f"{what} does not carry {names}")


def action_from_message(message: Message) -> JSON:
    """A `croupier.joker.v1.Action` in the conformance notation; refuses malformed ones.

    BID carries `tricks` (0 = pass); TRUMP carries `suit` ("c", "d", "h", "s" or "none");
    PLAY carries `card` and, for a joker, `joker` (its use) and, when led, `suit`.
    Whether the action is legal now is the engine's decision, not this function's.
    """
    if not isinstance(message, joker_pb2.Action):
        raise Malformed(f"a Joker action is a croupier.joker.v1.Action, not {type(message)}")
    kind = message.kind
    if kind == joker_pb2.ACTION_KIND_BID:
        _stray(message, {"tricks"}, "a bid")
        return {"action": "bid", "tricks": message.tricks}
    if kind == joker_pb2.ACTION_KIND_TRUMP:
        _stray(message, {"suit"}, "a trump declaration")
        if message.suit not in (*SUIT_NAMES, "none"):
            raise Malformed(
                f"a trump declaration names suit c, d, h, s or none, got {message.suit!r}"
            )
        return {"action": "trump", "suit": message.suit}
    if kind == joker_pb2.ACTION_KIND_PLAY:
        _stray(message, {"card", "joker", "suit"}, "a play")
        code = message.card.code
        if not code:
            raise Malformed("a play carries card (its code, e.g. 'Ah' or 'X1')")
        try:
            card(code)
        except UnknownCard as exc:
            raise Malformed(str(exc)) from None
        action: JSON = {"action": "play", "card": code}
        if message.joker != joker_pb2.JOKER_USE_UNSPECIFIED:
            if message.joker not in JOKER_USES:
                raise Malformed(
                    f"joker use {message.joker} is unknown: JOKER_USE_HIGH, JOKER_USE_TAKE "
                    "or JOKER_USE_UNDER"
                )
            action["joker"] = JOKER_USES[message.joker]
        if message.suit:
            if message.suit not in SUIT_NAMES:
                raise Malformed(f"a led joker names suit c, d, h or s, got {message.suit!r}")
            action["suit"] = message.suit
        return action
    if kind == joker_pb2.ACTION_KIND_UNSPECIFIED:
        raise Malformed(
            "action kind is required: ACTION_KIND_BID, ACTION_KIND_TRUMP or ACTION_KIND_PLAY"
        )
    raise Malformed(
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


def game_view(view: JSON) -> table_pb2.GameView:
    """The host's `croupier.table.v1.GameView` carrying Joker's `View`."""
    return table_pb2.GameView(joker=view_message(view))
