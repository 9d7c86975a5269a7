"""Backgammon's protobuf: the game's only module that imports protobuf.

- `action_from_message`: a `croupier.backgammon.v1.Action` in the conformance notation
  (legality is the rules');
- `view_message`: the `croupier.backgammon.v1.View` of a view JSON (a player's or a
  spectator's), `game_view` the host's `croupier.table.v1.GameView` around it.

The engine (`croupier.backgammon.engine`) exposes them as the host's `ProtoCodec`.
"""

from __future__ import annotations

from google.protobuf.message import Message

from croupier.backgammon.v1 import backgammon_pb2
from croupier.game import JSON, Malformed
from croupier.table.v1 import table_pb2

__all__ = ["action_from_message", "game_view", "view_message"]

ACTION_NAMES = {
    backgammon_pb2.ACTION_KIND_ROLL: "roll",
    backgammon_pb2.ACTION_KIND_MOVE: "move",
    backgammon_pb2.ACTION_KIND_DOUBLE: "double",
    backgammon_pb2.ACTION_KIND_TAKE: "take",
    backgammon_pb2.ACTION_KIND_DROP: "drop",
    backgammon_pb2.ACTION_KIND_BEAVER: "beaver",
    backgammon_pb2.ACTION_KIND_RESIGN: "resign",
    backgammon_pb2.ACTION_KIND_ACCEPT: "accept",
    backgammon_pb2.ACTION_KIND_REJECT: "reject",
    backgammon_pb2.ACTION_KIND_AUTO_MOVE: "auto_move",
    backgammon_pb2.ACTION_KIND_READY: "ready",
}
ACTION_FIELDS = {"move": {"play"}, "resign": {"level"}, "auto_move": {"on"}}
RESULT_ENUMS = {
    "single": backgammon_pb2.RESULT_SINGLE,
    "gammon": backgammon_pb2.RESULT_GAMMON,
    "backgammon": backgammon_pb2.RESULT_BACKGAMMON,
}


def action_from_message(message: Message) -> JSON:
    """A `croupier.backgammon.v1.Action` in the conformance notation; refuses malformed ones.

    MOVE carries `play` (gnubg notation, "" when no checker can move), RESIGN `level`
    (default single), AUTO_MOVE `on`; the other kinds carry nothing. Whether the action is
    legal now is the engine's decision.
    """
    if not isinstance(message, backgammon_pb2.Action):
        raise Malformed("a backgammon action is a croupier.backgammon.v1.Action")
    name = ACTION_NAMES.get(message.kind)
    if name is None:
        raise Malformed("an action needs its kind (roll, move, double, ...)")
    present = {f.name for f, _ in message.ListFields()} - {"kind"}
    stray = sorted(present - ACTION_FIELDS.get(name, set()))
    if stray:
        raise Malformed(f"a {name} action carries no {', '.join(stray)}")
    action: JSON = {"action": name}
    if name == "move":
        action["play"] = message.play
    elif name == "resign":
        action["level"] = message.level or "single"
    elif name == "auto_move":
        action["on"] = message.on
    return action


def view_message(view: JSON) -> backgammon_pb2.View:
    """The JSON view (`public_view` / `view`) as a `croupier.backgammon.v1.View`."""
    message = backgammon_pb2.View(
        phase=str(view.get("phase", "")),
        position_id=str(view.get("position_id") or ""),
        match_id=str(view.get("match_id") or ""),
        to_act=str(view.get("to_act") or ""),
        on_roll=str(view.get("on_roll") or ""),
        dice=list(view.get("dice") or []),
        cube=int(view.get("cube", 1)),
        cube_owner=str(view.get("cube_owner") or ""),
        score={str(p): int(v) for p, v in (view.get("score") or {}).items()},
        crawford=bool(view.get("crawford", False)),
        game_number=int(view.get("game", 0)),
        resignation=str(view.get("resignation") or ""),
        currency=str(view.get("currency", "")),
        ready=[str(p) for p in view.get("ready") or []],
    )
    legal = view.get("legal") or {}
    message.actions.extend(str(a) for a in legal.get("actions", []))
    if "move" in legal.get("actions", []):
        message.legal_plays.extend(str(p) for p in legal.get("plays", []))
    last = view.get("last_result")
    if last:
        message.last_result.CopyFrom(
            backgammon_pb2.GameResult(
                winner=str(last["winner"]),
                result=RESULT_ENUMS.get(str(last["result"]), backgammon_pb2.RESULT_UNSPECIFIED),
                cube=int(last["cube"]),
                points=int(last["points"]),
                how=str(last["how"]),
            )
        )
    gone = view.get("abandoned")
    if gone:
        message.abandoned.CopyFrom(
            backgammon_pb2.Abandonment(
                player=str(gone["player"]),
                evaluated_for=str(gone["evaluated_for"]),
                equity=str(gone.get("equity", "")),
                mwc=str(gone.get("mwc", "")),
                amount=int(gone["amount"]),
                to=str(gone.get("to") or ""),
            )
        )
    return message


def game_view(view: JSON) -> table_pb2.GameView:
    """The host's `croupier.table.v1.GameView` of a backgammon view JSON."""
    return table_pb2.GameView(backgammon=view_message(view))
