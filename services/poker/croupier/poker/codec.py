"""Poker's protobuf: the game's only module that imports protobuf.

- `action_from_message`: a `croupier.poker.v1.Action` in the conformance notation (legality
  is the rules');
- `view_message`: the `croupier.poker.v1.View` of a view JSON (a player's or a
  spectator's), `game_view` the host's `croupier.table.v1.GameView` around it.

The engine (`croupier.poker.engine`) exposes them as the host's `ProtoCodec`.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from croupier.common.v1 import common_pb2
from croupier.game import JSON, Malformed
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2

__all__ = ["action_from_message", "game_view", "view_message"]

KINDS = {
    poker_pb2.ACTION_KIND_FOLD: "fold",
    poker_pb2.ACTION_KIND_CHECK: "check",
    poker_pb2.ACTION_KIND_CALL: "call",
    poker_pb2.ACTION_KIND_BET: "bet",
    poker_pb2.ACTION_KIND_RAISE: "raise",
    poker_pb2.ACTION_KIND_ALL_IN: "allin",
    poker_pb2.ACTION_KIND_POWER: "power",
    poker_pb2.ACTION_KIND_SEAL: "seal",
    poker_pb2.ACTION_KIND_NO_SEAL: "no_seal",
    poker_pb2.ACTION_KIND_SIT_OUT: "sit_out",
    poker_pb2.ACTION_KIND_SIT_IN: "sit_in",
    poker_pb2.ACTION_KIND_TOP_UP: "top_up",
    poker_pb2.ACTION_KIND_POST_BLIND: "post_blind",
}
KIND_ENUMS = {name: number for number, name in KINDS.items()}
POWERS = {
    poker_pb2.POWER_PEEK: "peek",
    poker_pb2.POWER_SWAP: "swap",
    poker_pb2.POWER_ANCHOR: "anchor",
}
POWER_ENUMS = {
    "peek": poker_pb2.POWER_PEEK,
    "swap": poker_pb2.POWER_SWAP,
    "anchor": poker_pb2.POWER_ANCHOR,
    "seal": poker_pb2.POWER_SEAL,
}
STREETS = {
    "preflop": poker_pb2.STREET_PREFLOP,
    "flop": poker_pb2.STREET_FLOP,
    "turn": poker_pb2.STREET_TURN,
    "river": poker_pb2.STREET_RIVER,
}


def action_from_message(message: Message) -> JSON:
    """A `croupier.poker.v1.Action` in the conformance notation (legality is the engine's)."""
    if not isinstance(message, poker_pb2.Action):
        raise Malformed(f"a poker action is a croupier.poker.v1.Action, not {type(message)}")
    kind = KINDS.get(message.kind)
    if kind is None:
        raise Malformed("action kind is required: ACTION_KIND_FOLD, _CHECK, _CALL, _BET, ...")
    action: JSON = {"action": kind}
    if kind in ("bet", "raise"):
        action["to"] = message.to
    if kind == "top_up":
        action["amount"] = message.amount
    if kind == "sit_in" and message.post:
        action["post"] = True
    if kind == "power":
        power = POWERS.get(message.power)
        if power is None:
            raise Malformed("a power action names POWER_PEEK, POWER_SWAP or POWER_ANCHOR")
        action["power"] = power
        if power == "swap":
            action["card"] = message.card.code
        if power == "anchor":
            action["target"] = message.target
    return action


def _cards(codes: Sequence[str]) -> list[common_pb2.Card]:
    return [common_pb2.Card(code=c) for c in codes]


def view_message(view: JSON) -> poker_pb2.View:
    """`croupier.poker.v1.View` from a table view JSON; copies, never adds hidden cards."""
    message = poker_pb2.View(hand_number=view.get("hand_number", 0))
    bots = {seat["player"] for seat in view.get("table", []) if seat.get("bot")}
    for seat in view.get("table", []):
        message.table.append(
            poker_pb2.TableSeat(
                seat=seat["seat"],
                player_id=seat["player"],
                stack=seat["stack"],
                is_bot=seat.get("bot", False),
                waiting_for_big_blind=seat.get("waiting_for_big_blind", False),
                sitting_out=seat.get("sitting_out", False),
                leaving=seat.get("leaving", False),
                posting_blind=seat.get("posting_blind", False),
                owes_big_blind=seat.get("owes", [0, 0])[0],
                owes_dead_small_blind=seat.get("owes", [0, 0])[1],
                pending_top_up=seat.get("pending_top_up", 0),
            )
        )
    message.seal_window_seconds = view.get("seal_window_seconds", 0)
    message.table_destellos.update(view.get("table_destellos", {}))
    message.table_actions.extend(KIND_ENUMS[a] for a in view.get("table_actions", []))
    hand = view.get("hand")
    if hand is None:
        for seat in view.get("table", []):
            message.seats.append(
                poker_pb2.Seat(
                    player_id=seat["player"], stack=seat["stack"], is_bot=seat["player"] in bots
                )
            )
        return message
    message.button = hand["button"]
    message.street = STREETS.get(hand["street"], poker_pb2.STREET_UNSPECIFIED)
    message.board.extend(_cards(hand["board"]))
    message.to_act = hand.get("to_act") or ""
    destellos = hand.get("destellos", {})
    for seat in hand["seats"]:
        message.seats.append(
            poker_pb2.Seat(
                player_id=seat["player"],
                stack=seat["stack"],
                bet=seat["bet"],
                folded=seat["folded"],
                all_in=seat["all_in"],
                is_bot=seat["player"] in bots,
                destellos=destellos.get(seat["player"], 0),
                hole_cards=_cards(seat.get("hole_cards", [])),
                hole_card_count=seat["hole_card_count"],
            )
        )
    for pot in hand["pots"]:
        message.pots.append(
            poker_pb2.Pot(amount=pot["amount"], eligible=pot["eligible"], winners=pot["winners"])
        )
    legal = hand.get("legal")
    if legal:
        message.legal.CopyFrom(
            poker_pb2.LegalActions(
                actions=[KIND_ENUMS[a] for a in legal["actions"]],
                call=legal["call"],
                min_raise_to=legal["min_raise_to"],
                max_raise_to=legal["max_raise_to"],
                powers=[POWER_ENUMS[p] for p in legal.get("powers", [])],
                anchor_targets=legal.get("anchor_targets", []),
            )
        )
    message.carousel.extend(POWER_ENUMS[p] for p in hand.get("carousel", []))
    private = hand.get("private", {})
    if "peeked" in private:
        message.peeked.CopyFrom(common_pb2.Card(code=private["peeked"]))
    if "swapped_in" in private:
        message.swapped_in.CopyFrom(common_pb2.Card(code=private["swapped_in"]))
    result = hand.get("result")
    if result is not None:
        res = message.result
        for pot, shares in zip(result["pots"], result["pot_shares"], strict=True):
            res.pots.append(
                poker_pb2.Pot(
                    amount=pot["amount"],
                    eligible=pot["eligible"],
                    winners=pot["winners"],
                    shares=shares,
                )
            )
        res.returned.update(result["returned"])
        res.winnings.update(result["winnings"])
        res.deltas.update(result["deltas"])
        for player, cards in result["shown"].items():
            res.shown.append(poker_pb2.ShownHand(player_id=player, cards=_cards(cards)))
    return message


def game_view(view: JSON) -> table_pb2.GameView:
    """The host's `croupier.table.v1.GameView` of a poker view JSON."""
    return table_pb2.GameView(poker=view_message(view))
