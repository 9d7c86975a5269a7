"""What `croupier play` prints of a table, from the view the gateway streams to this player
(TableView.view_json): the board, the seats, and the actions he may take now, numbered.

Pure text: no I/O, so the renderers and the reading of a choice are tested on views alone.
Every offer comes from the view's `legal` part, so the client never offers what the table
would refuse (and never needs the game's rules).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from croupier.backgammon.core.board import BAR, CHECKERS, board_from_position_id

__all__ = [
    "RENDERERS",
    "Offer",
    "Screen",
    "card",
    "choose",
    "render_backgammon",
    "render_joker",
    "render_poker",
]

JSON = dict[str, Any]

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@dataclass(frozen=True)
class Offer:
    """One action the player may take: `action` in the game's JSON notation. A bet or raise
    carries the amounts it may go to (`to` in `action` is the least of them)."""

    label: str
    action: JSON
    amounts: tuple[int, int] | None = None


@dataclass(frozen=True)
class Screen:
    text: str
    offers: tuple[Offer, ...]


def card(name: str) -> str:
    return name[:-1] + SUITS.get(name[-1], name[-1])


def _cards(names: list[str]) -> str:
    return " ".join(card(name) for name in names) if names else "-"


# ---- poker ------------------------------------------------------------------------------


def _poker_offers(legal: JSON) -> tuple[Offer, ...]:
    offers: list[Offer] = []
    for kind in legal.get("actions", []):
        if kind == "call":
            offers.append(Offer(f"call {legal['call']}", {"action": "call"}))
        elif kind in ("bet", "raise"):
            least, most = int(legal["min_raise_to"]), int(legal["max_raise_to"])
            label = f"{kind} to {least}" + (f" (up to {most})" if most > least else "")
            offers.append(Offer(label, {"action": kind, "to": least}, (least, most)))
        else:
            offers.append(Offer(str(kind), {"action": kind}))
    return tuple(offers)


def render_poker(view: JSON, me: str) -> Screen:
    hand: JSON | None = view.get("hand")
    if not hand:
        seated = ", ".join(f"{s['player']} ({s['stack']})" for s in view.get("table", []))
        return Screen(f"Waiting for the next hand. Seated: {seated or 'nobody'}.", ())
    bots = {s["player"] for s in view.get("table", []) if s.get("bot")}
    pot = sum(int(p["amount"]) for p in hand.get("pots", []))
    pot += sum(int(s.get("bet", 0)) for s in hand["seats"])
    lines = [
        f"Hand {view.get('hand_number', '?')} - {hand['street']} - button {hand['button']}",
        f"  board  {_cards(hand.get('board', []))}    pot {pot}",
    ]
    for seat in hand["seats"]:
        player = seat["player"]
        marker = ">" if hand.get("to_act") == player else " "
        name = player + (" (you)" if player == me else "") + (" BOT" if player in bots else "")
        hidden = ["??"] * int(seat.get("hole_card_count", 0))
        shown = " ".join(card(c) for c in seat["hole_cards"]) if "hole_cards" in seat else None
        state = "folded" if seat.get("folded") else "all in" if seat.get("all_in") else ""
        bet = f"bet {seat['bet']}" if seat.get("bet") else ""
        lines.append(
            f"  {marker} {name:<24} stack {seat['stack']:>6}  {bet:<9} "
            f"[{shown or ' '.join(hidden)}] {state}".rstrip()
        )
    legal: JSON | None = hand.get("legal")
    mine = hand.get("status") != "complete" and hand.get("to_act") == me
    offers = _poker_offers(legal) if mine and legal else ()
    if hand.get("status") == "complete":
        lines.append("  the hand is over")
    elif not mine:
        lines.append(f"  {hand.get('to_act') or 'the dealer'} to act")
    return Screen("\n".join(lines), offers)


# ---- backgammon -------------------------------------------------------------------------


def _point(own: int, theirs: int) -> str:
    return f"X{own}" if own else f"O{theirs}" if theirs else "."


def _row(points: list[int], show: Callable[[int], str]) -> str:
    """Twelve points, six and six either side of the bar."""
    cells = [f"{show(point):>4}" for point in points]
    return "".join(cells[:6]) + "  |" + "".join(cells[6:])


def render_backgammon(view: JSON, me: str) -> Screen:
    """The board from the player's side: his checkers X, the opponent's O, his points
    numbered 1-24 (his home board is 1-6, he moves towards it)."""
    if "position_id" not in view:  # no game yet
        seated = ", ".join(view.get("players", [])) or "nobody"
        return Screen(f"Waiting for the game to start. Seated: {seated}.", ())
    waiting, mover = board_from_position_id(str(view["position_id"]))
    mine, theirs = (mover, waiting) if view.get("on_roll") == me else (waiting, mover)
    other = next((p for p in view.get("players", []) if p != me), "opponent")

    def cell(point: int) -> str:
        return _point(mine[point - 1], theirs[24 - point])

    top, bottom = list(range(13, 25)), list(range(12, 0, -1))
    dice = "-".join(str(d) for d in view.get("dice") or []) or "none"
    score = view.get("score", {})
    lines = [
        f"Backgammon game {view.get('game', '?')} - {view.get('phase')} - you are X, "
        f"{other} is O - score {score.get(me, 0)}-{score.get(other, 0)}",
        _row(top, str),
        _row(top, cell),
        _row(bottom, cell),
        _row(bottom, str),
        f"  bar X{mine[BAR]} O{theirs[BAR]}   off X{CHECKERS - sum(mine)} "
        f"O{CHECKERS - sum(theirs)}   dice {dice}   cube {view.get('cube', 1)}",
    ]
    offers: list[Offer] = []
    legal: JSON = view.get("legal") or {}
    for kind in legal.get("actions", []):
        if kind == "move":
            for play in legal.get("plays", []):
                label = f"move {play}" if play else "no move: pass"
                offers.append(Offer(label, {"action": "move", "play": play}))
        elif kind != "resign":  # resigning takes a level: not offered here
            offers.append(Offer(str(kind), {"action": kind}))
    if not offers:
        lines.append(f"  {view.get('to_act') or 'nobody'} to act")
    return Screen("\n".join(lines), tuple(offers))


# ---- Joker ------------------------------------------------------------------------------


def _suit(code: str) -> str:
    return "no trump" if code == "none" else SUITS.get(code, code)


def _joker_offers(legal: JSON) -> tuple[Offer, ...]:
    """Joker's choices: a trump, a bid, or a card (a joker with each use it may have, and
    each suit it may call when it leads)."""
    offers: list[Offer] = []
    for kind in legal.get("actions", []):
        if kind == "trump":
            for suit in legal["suits"]:
                offers.append(Offer(f"trump {_suit(suit)}", {"action": "trump", "suit": suit}))
        elif kind == "bid":
            for tricks in legal["tricks"]:
                offers.append(Offer(f"bid {tricks}", {"action": "bid", "tricks": tricks}))
        elif kind == "play":
            for code in legal["cards"]:
                play = {"action": "play", "card": code}
                if not code.startswith("X"):
                    offers.append(Offer(f"play {card(code)}", play))
                    continue
                for use in legal.get("joker", []):
                    for suit in legal.get("suits", [None]):
                        called = {"suit": suit} if suit else {}
                        label = f"play {code} {use}" + (f" {_suit(suit)}" if suit else "")
                        offers.append(Offer(label, {**play, "joker": use, **called}))
    return tuple(offers)


def render_joker(view: JSON, me: str) -> Screen:
    hand: JSON | None = view.get("hand")
    players: list[str] = view.get("players", [])
    if not hand:
        return Screen(f"Waiting for four players. Seated: {', '.join(players) or 'nobody'}.", ())
    trump = hand.get("trump_card")
    lines = [
        f"Joker - hand {int(hand['number']) + 1} of {hand['cards']} card(s) - dealer "
        f"{hand['dealer']} - trump {card(trump) if trump else '-'} ({_suit(hand['trump'])})",
    ]
    bottom = view.get("sheet", {}).get("bottom", {})
    for player in players:
        marker = ">" if hand.get("to_act") == player else " "
        bid = hand.get("bids", {}).get(player, "-")
        took = hand.get("tricks", {}).get(player, 0)
        score = bottom.get(player, {}).get("text", "0")
        name = player + (" (you)" if player == me else "")
        lines.append(f"  {marker} {name:<24} bid {bid}  took {took}  score {score}")
    trick = ", ".join(f"{t['player']} {card(t['card'])}" for t in hand.get("trick", []))
    lines.append(f"  trick: {trick or '-'}")
    lines.append(f"  your cards: {_cards(hand.get('own_cards', []))}")
    offers = _joker_offers(view.get("legal") or {})
    if view.get("over"):
        lines.append("  the game is over")
    elif not offers:
        lines.append(f"  {hand.get('to_act') or 'nobody'} to act")
    return Screen("\n".join(lines), offers)


Renderer = Callable[[JSON, str], Screen]
RENDERERS: dict[str, Renderer] = {
    "backgammon": render_backgammon,
    "joker": render_joker,
    "poker": render_poker,
}


# ---- the player's choice ----------------------------------------------------------------


def choose(offers: tuple[Offer, ...], line: str) -> JSON | str:
    """The action a typed line picks, or why it picks none: the offer's number (with an
    amount after a bet's or raise's: `3 25`), or its label (`check`, `move 13/10 6/5`)."""
    words = line.split()
    if not words:
        return "type the number of your choice"
    by_label = {offer.label: offer for offer in offers}
    by_label.update({str(o.action.get("play")): o for o in offers if "play" in o.action})
    if words[0].isdigit():
        number = int(words[0])
        if not 1 <= number <= len(offers):
            return f"choose 1 to {len(offers)}"
        offer = offers[number - 1]
        if len(words) == 1:
            return offer.action
        if offer.amounts is None or len(words) != 2 or not words[1].isdigit():
            return f"{offer.label}: give its number alone"
        least, most = offer.amounts
        if not least <= int(words[1]) <= most:
            return f"{offer.action['action']} to {least} up to {most}"
        return {**offer.action, "to": int(words[1])}
    offer_or_none = by_label.get(line.strip()) or by_label.get(f"move {line.strip()}")
    if offer_or_none is None:
        return f"not one of the choices: {line.strip()!r}"
    return offer_or_none.action
