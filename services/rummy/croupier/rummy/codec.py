"""Rummy's protobuf: the game's only module that imports protobuf.

- `action_from_message`: a `croupier.rummy.v1.Action` in the conformance notation, with
  clear refusals of malformed ones (`croupier.game.Malformed`);
- `view_message`: the `croupier.rummy.v1.View` of a view JSON (a player's or a
  spectator's), `game_view` the host's `croupier.table.v1.GameView` around it.

The engine (`croupier.rummy.engine`) exposes them as the host's `ProtoCodec`.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from croupier.game import JSON, Malformed
from croupier.rummy.core.cards import CardError, parse_card
from croupier.rummy.v1 import rummy_pb2
from croupier.table.v1 import table_pb2

__all__ = ["action_from_message", "game_view", "view_message"]


_ACTIONS: dict[int, tuple[str, set[str]]] = {
    rummy_pb2.ACTION_KIND_PASS: ("pass", set()),
    rummy_pb2.ACTION_KIND_DRAW_STOCK: ("draw", set()),
    rummy_pb2.ACTION_KIND_DRAW_DISCARD: ("draw", {"count"}),
    rummy_pb2.ACTION_KIND_MELD: ("meld", {"melds"}),
    rummy_pb2.ACTION_KIND_LAYOFF: ("layoff", {"card", "meld_index", "stands_for"}),
    rummy_pb2.ACTION_KIND_DISCARD: ("discard", {"card"}),
    rummy_pb2.ACTION_KIND_KNOCK: ("knock", {"melds", "discard"}),
    rummy_pb2.ACTION_KIND_GIN: ("gin", {"melds", "discard"}),
    rummy_pb2.ACTION_KIND_OUT: ("out", {"melds", "discard"}),
    rummy_pb2.ACTION_KIND_TAKE_JOKER: ("take_joker", {"card", "meld_index"}),
}


def _invalid(message: str) -> Malformed:
    return Malformed(message)


def _code(card: Any, what: str) -> str:
    if not card.code:
        raise _invalid(f"{what} is required (a card code such as '7h', 'Td' or 'X1')")
    try:
        parse_card(card.code)
    except CardError as exc:
        raise _invalid(f"{what}: {exc}") from None
    return str(card.code)


def _meld_cards(meld: rummy_pb2.Meld, number: int) -> list[Any]:
    if not meld.cards:
        raise _invalid(f"meld {number} has no cards")
    cards: list[Any] = []
    for card in meld.cards:
        code = _code(card.card, f"a card of meld {number}")
        if card.HasField("as"):
            cards.append({"card": code, "as": _code(getattr(card, "as"), "'as'")})
        else:
            cards.append(code)
    return cards


def action_from_message(message: Message) -> JSON:
    """A `croupier.rummy.v1.Action` in the conformance notation; refuses malformed ones
    (fields that do not belong to the kind, missing or unknown cards). Whether the action is
    legal now is the engine's decision."""
    if not isinstance(message, rummy_pb2.Action):
        raise _invalid(f"a rummy action is a croupier.rummy.v1.Action, not {type(message)}")
    if message.kind not in _ACTIONS:
        if message.kind == rummy_pb2.ACTION_KIND_UNSPECIFIED:
            raise _invalid("action kind is required (ACTION_KIND_DRAW_STOCK, ...)")
        raise _invalid(f"action kind {message.kind} is unknown")
    kind, allowed = _ACTIONS[message.kind]
    present = {field.name for field, _ in message.ListFields()} - {"kind"}
    stray = sorted(present - allowed)
    if stray:
        name = rummy_pb2.ActionKind.Name(message.kind)
        raise _invalid(f"{name} does not carry {', '.join(stray)}")
    action: JSON = {"action": kind}
    if message.kind == rummy_pb2.ACTION_KIND_DRAW_STOCK:
        action["from"] = "stock"
    elif message.kind == rummy_pb2.ACTION_KIND_DRAW_DISCARD:
        action["from"] = "discard"
        if message.count:
            action["count"] = message.count
    if "card" in allowed:
        action["card"] = _code(message.card, "card")
    if "meld_index" in allowed:
        action["meld"] = message.meld_index
    if message.HasField("stands_for"):
        action["as"] = _code(message.stands_for, "stands_for")
    if "melds" in allowed:
        if message.kind == rummy_pb2.ACTION_KIND_MELD and not message.melds:
            raise _invalid("ACTION_KIND_MELD carries melds")
        action["melds"] = [_meld_cards(m, n) for n, m in enumerate(message.melds)]
    if message.HasField("discard"):
        action["discard"] = _code(message.discard, "discard")
    return action


_PHASES = {
    "first_upcard": rummy_pb2.PHASE_FIRST_UPCARD,
    "draw": rummy_pb2.PHASE_DRAW,
    "discard": rummy_pb2.PHASE_PLAY,
    "play": rummy_pb2.PHASE_PLAY,
    "layoff": rummy_pb2.PHASE_LAYOFF,
    "over": rummy_pb2.PHASE_OVER,
}
_KINDS = {"set": rummy_pb2.MELD_KIND_SET, "run": rummy_pb2.MELD_KIND_RUN}
_LEGAL = {
    "pass": rummy_pb2.ACTION_KIND_PASS,
    "meld": rummy_pb2.ACTION_KIND_MELD,
    "layoff": rummy_pb2.ACTION_KIND_LAYOFF,
    "discard": rummy_pb2.ACTION_KIND_DISCARD,
    "knock": rummy_pb2.ACTION_KIND_KNOCK,
    "gin": rummy_pb2.ACTION_KIND_GIN,
    "out": rummy_pb2.ACTION_KIND_OUT,
    "take_joker": rummy_pb2.ACTION_KIND_TAKE_JOKER,
}


def _meld_message(meld: JSON) -> rummy_pb2.Meld:
    message = rummy_pb2.Meld(
        owner=meld.get("owner") or "",
        kind=_KINDS.get(meld["kind"], rummy_pb2.MELD_KIND_UNSPECIFIED),
    )
    for card in meld["cards"]:
        entry = message.cards.add()
        if isinstance(card, str):
            entry.card.code = card
        else:
            entry.card.code = card["card"]
            getattr(entry, "as").code = card["as"]
    return message


def _result_message(result: JSON) -> rummy_pb2.RoundResult:
    return rummy_pb2.RoundResult(
        ending=rummy_pb2.Ending.Value(f"ENDING_{str(result['ending']).upper()}"),
        winner=result.get("winner") or "",
        deadwood=result.get("deadwood", {}),
        penalty=result.get("penalty", {}),
        chips_paid=result.get("chips_paid", {}),
        chips_won=result.get("chips_won", 0),
        deltas=result.get("deltas", {}),
        tournament_points=result.get("tournament_points", {}),
        scores=result.get("scores", {}),
        pot=result.get("pot", 0),
        fees=result.get("fees", {}),
        round=result.get("round", 0),
        eliminated=result.get("eliminated", []),
    )


def _legal_message(legal: JSON) -> rummy_pb2.Legal:
    message = rummy_pb2.Legal(
        max_count=legal.get("max_count", 0),
        best_deadwood=min(legal.get("best_deadwood", 0), 2**32 - 1),
    )
    for code in legal.get("discards", []):
        message.discards.add(code=code)
    for name in legal.get("actions", []):
        if name == "draw":
            for source in legal.get("draw_from", []):
                message.actions.append(
                    rummy_pb2.ACTION_KIND_DRAW_STOCK
                    if source == "stock"
                    else rummy_pb2.ACTION_KIND_DRAW_DISCARD
                )
        else:
            message.actions.append(_LEGAL[name])
    return message


def view_message(view: JSON) -> rummy_pb2.View:
    """`croupier.rummy.v1.View` from the engine's JSON view (carries nothing more)."""
    message = rummy_pb2.View(
        variant=rummy_pb2.Variant.Value(f"VARIANT_{str(view['variant']).upper()}"),
        seats=view.get("seats", []),
        stacks=view.get("stacks", {}),
        round=view.get("round_number", 0),
        dealer=view.get("dealer") or "",
        round_fee=view.get("round_fee", 0),
        chip_ratio=view.get("chip_ratio", 0),
    )
    if view.get("last_round") is not None:
        message.last_round.CopyFrom(_result_message(view["last_round"]))
    seen = view.get("round")
    if seen is not None:
        for code in seen["hand"]:
            message.hand.add(code=code)
        for code in seen["discard_pile"]:
            message.discard_pile.add(code=code)
        message.melds.extend(_meld_message(meld) for meld in seen["melds"])
        message.card_counts.update(seen["card_counts"])
        message.to_act = seen.get("to_act") or ""
        message.stock_size = seen["stock_size"]
        message.phase = _PHASES[seen["phase"]]
        message.knock_limit = seen.get("knock_limit", 0)
        if seen.get("result") is not None:
            result = dict(seen["result"])
            last = view.get("last_round")
            if last is not None and last.get("round") == view.get("round_number"):
                result = dict(last)  # the settled round: its chips too
            message.result.CopyFrom(_result_message(result))
    if "legal" in view:
        message.legal.CopyFrom(_legal_message(view["legal"]))
    return message


def game_view(view: JSON) -> table_pb2.GameView:
    """A `croupier.table.v1.GameView` holding the rummy view."""
    return table_pb2.GameView(rummy=view_message(view))
