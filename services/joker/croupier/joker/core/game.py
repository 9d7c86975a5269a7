"""A whole game of Joker for 4 players, shaped for the table host (thin adapter).

`(state, command) -> (state, events)` on immutable values:

- `new_game(...)`: the table's players (clockwise), options and game id;
- `start_hand(state, seed)`: deals the next hand from the 32-byte seed
  (`fairness.shuffled(DECK, seed, "deck")`). When no first dealer was given, the first
  hand's seed chooses him (`FairStream(seed, "first-dealer").below(4)`, BG 1); the deal
  then passes one seat clockwise per hand;
- `act(state, player, action)` with an action in conformance notation; `timeout(...)`
  applies `timeout_action` (see `croupier.joker.core.hand`);
- `legal_actions`, `to_act`, `view` (own hand, trump card, bids, cards played, tricks
  taken, sheet — nothing else), `public_view`, `result`, `snapshot`.

When a hand ends it is scored (BG 9). When it is the last of its pulka, the pulka is
settled and written once into the premia ledger (rules 1, 20). An illegal action raises
an `IllegalAction` and the state is unchanged.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from croupier.game import Event
from croupier.game.fairness import FairStream, shuffled
from croupier.joker.core.cards import DECK
from croupier.joker.core.errors import IllegalAction, UnknownPlayer, WrongPhase
from croupier.joker.core.hand import (
    SEATS,
    Bid,
    Command,
    DeclareTrump,
    HandState,
    Phase,
    deal,
    parse_command,
)
from croupier.joker.core.hand import apply as apply_to_hand
from croupier.joker.core.hand import legal_actions as hand_legal_actions
from croupier.joker.core.hand import timeout_command as hand_timeout_command
from croupier.joker.core.options import Options
from croupier.joker.core.premia import settle_pulka
from croupier.joker.core.schedule import HandSlot, schedule
from croupier.joker.core.scoring import hand_score
from croupier.joker.core.sheet import HandRecord, PremiaLedger, score_sheet

__all__ = [
    "GameResult",
    "GameState",
    "act",
    "apply_command",
    "can_start_hand",
    "check",
    "legal_actions",
    "new_game",
    "public_view",
    "resettle",
    "result",
    "sheet",
    "snapshot",
    "start_hand",
    "timeout",
    "timeout_action",
    "to_act",
    "view",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameState:
    game_id: str
    players: tuple[str, ...]
    options: Options = field(default_factory=Options)
    first_dealer: int | None = None
    hand: HandState | None = None
    records: tuple[HandRecord, ...] = ()
    ledger: PremiaLedger = field(default_factory=PremiaLedger)

    @property
    def slots(self) -> tuple[HandSlot, ...]:
        return schedule(self.options.game_type)

    @property
    def over(self) -> bool:
        return len(self.records) == len(self.slots)

    @property
    def current_slot(self) -> HandSlot:
        """The hand being played, or the next one (the last one once the game is over)."""
        slots = self.slots
        return slots[min(len(self.records), len(slots) - 1)]

    @property
    def hand_running(self) -> bool:
        return self.hand is not None and self.hand.phase is not Phase.COMPLETE

    def seat_of(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise UnknownPlayer(f"{player!r} is not at this table") from None


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: each player's total in points and the placing (ties share)."""

    totals: dict[str, int]
    placing: list[list[str]]
    sheet: dict[str, Any]


def new_game(
    *,
    game_id: str,
    players: Sequence[str],
    options: Options | None = None,
    first_dealer: str | None = None,
) -> GameState:
    if len(players) != SEATS or len(set(players)) != SEATS:
        raise ValueError("a Joker table has exactly 4 different players")
    seat = None if first_dealer is None else list(players).index(first_dealer)
    return GameState(
        game_id=game_id,
        players=tuple(players),
        options=options or Options(),
        first_dealer=seat,
    )


def can_start_hand(state: GameState) -> bool:
    return not state.hand_running and not state.over


def start_hand(state: GameState, seed: bytes) -> tuple[GameState, list[Event]]:
    """Deal the next hand from `seed`."""
    if not can_start_hand(state):
        raise WrongPhase("a hand is running" if state.hand_running else "the game is over")
    first = state.first_dealer
    if first is None:
        first = FairStream(seed, "first-dealer").below(SEATS)
    slot = state.slots[len(state.records)]
    dealer = (first + slot.index) % SEATS
    hand = deal(shuffled(DECK, seed, "deck"), dealer, slot.cards)
    event = Event(
        "hand_started",
        {
            "hand": slot.index,
            "pulka": slot.pulka,
            "cards": slot.cards,
            "dealer": state.players[dealer],
            "trump_card": hand.trump_card.code if hand.trump_card else None,
            "trump": _trump_text(hand),
        },
    )
    return replace(state, first_dealer=first, hand=hand), [event]


def _trump_text(hand: HandState) -> str | None:
    if hand.phase is Phase.TRUMP:
        return None
    return hand.trump.value if hand.trump else "none"


def act(state: GameState, player: str, action: dict[str, Any]) -> tuple[GameState, list[Event]]:
    """Apply `player`'s action (conformance notation)."""
    seat = state.seat_of(player)
    if state.hand is None or not state.hand_running:
        raise WrongPhase("no hand is being played")
    return apply_command(state, seat, parse_command(action))


def apply_command(state: GameState, seat: int, command: Command) -> tuple[GameState, list[Event]]:
    assert state.hand is not None
    hand, events = apply_to_hand(state.hand, seat, command)
    events = [_named(state, e) for e in events]
    state = replace(state, hand=hand)
    if hand.phase is Phase.COMPLETE:
        state, more = _finish_hand(state, hand)
        events.extend(more)
    return state, events


def _named(state: GameState, event: Event) -> Event:
    data = dict(event.data)
    if "seat" in data:
        data["player"] = state.players[data.pop("seat")]
    return Event(event.type, data)


def _finish_hand(state: GameState, hand: HandState) -> tuple[GameState, list[Event]]:
    slot = state.slots[len(state.records)]
    outcomes = hand.outcomes()
    opts = state.options
    scores = tuple(hand_score(o, opts.khishti, opts.took_all) for o in outcomes)
    record = HandRecord(slot.index, slot.pulka, slot.cards, hand.dealer, outcomes, scores)
    state = replace(state, records=(*state.records, record))
    events = [
        Event(
            "hand_scored",
            {
                "hand": slot.index,
                "bids": dict(zip(state.players, (o.bid for o in outcomes), strict=True)),
                "tricks": dict(zip(state.players, (o.took for o in outcomes), strict=True)),
                "scores": dict(zip(state.players, scores, strict=True)),
            },
        )
    ]
    if slot.last_of_pulka:
        state = _settle(state, slot.pulka)
        events.append(
            Event(
                "pulka_settled",
                {
                    "pulka": slot.pulka,
                    "entries": {
                        e.player: {
                            "premia": e.premia,
                            "moshla": e.moshla,
                            "crossed_out": e.crossed_out,
                        }
                        for e in state.ledger.entries
                        if e.pulka == slot.pulka
                    },
                },
            )
        )
    if state.over:
        events.append(Event("game_ended", {"totals": _totals(state)}))
    return state, events


def _settle(state: GameState, pulka: int) -> GameState:
    records = [r for r in state.records if r.pulka == pulka]
    hands = [dict(zip(state.players, r.outcomes, strict=True)) for r in records]
    settlement = settle_pulka(state.players, hands, state.options)
    return replace(state, ledger=state.ledger.record_settlement(state.game_id, pulka, settlement))


def resettle(state: GameState) -> GameState:
    """Recompute every finished pulka and record it again: the ledger does not change."""
    for slot in state.slots[: len(state.records)]:
        if slot.last_of_pulka:
            state = _settle(state, slot.pulka)
    return state


def timeout_action(state: GameState, player: str) -> dict[str, Any]:
    """The automatic action for `player` now, in conformance notation."""
    seat = state.seat_of(player)
    if state.hand is None or not state.hand_running or state.hand.turn != seat:
        raise WrongPhase("it is not your turn")
    command = hand_timeout_command(state.hand, seat)
    if isinstance(command, DeclareTrump):
        return {"action": "trump", "suit": command.suit.value if command.suit else "none"}
    if isinstance(command, Bid):
        return {"action": "bid", "tricks": command.tricks}
    action: dict[str, Any] = {"action": "play", "card": command.card.code}
    if command.joker is not None:
        action["joker"] = command.joker.value
    if command.suit is not None:
        action["suit"] = command.suit.value
    return action


def timeout(state: GameState, player: str) -> tuple[GameState, list[Event]]:
    return act(state, player, timeout_action(state, player))


def to_act(state: GameState) -> list[str]:
    if state.hand is None or state.hand.turn is None:
        return []
    return [state.players[state.hand.turn]]


def legal_actions(state: GameState, player: str) -> dict[str, Any]:
    seat = state.seat_of(player)
    if state.hand is None or not state.hand_running:
        return {"actions": []}
    return hand_legal_actions(state.hand, seat)


_SHEET_CACHE_SIZE = 4096
# The sheet changes only when a hand is scored, but views are asked for after every card:
# sheets are kept per (records, ledger) object pair. Both are immutable and held by the
# cache, so an id cannot be reused for other content while its entry lives.
_sheet_cache: OrderedDict[tuple[Any, ...], tuple[object, object, dict[str, Any]]] = OrderedDict()


def sheet(state: GameState) -> dict[str, Any]:
    """The score sheet (shared between callers: treat it as read-only)."""
    key = (
        state.game_id,
        state.players,
        state.options,
        id(state.records),
        id(state.ledger),
    )
    cached = _sheet_cache.get(key)
    if cached is not None and cached[0] is state.records and cached[1] is state.ledger:
        _sheet_cache.move_to_end(key)
        return cached[2]
    made = _make_sheet(state)
    _sheet_cache[key] = (state.records, state.ledger, made)
    if len(_sheet_cache) > _SHEET_CACHE_SIZE:
        _sheet_cache.popitem(last=False)
    return made


def _make_sheet(state: GameState) -> dict[str, Any]:
    slots = state.slots
    return score_sheet(
        game_id=state.game_id,
        players=state.players,
        records=state.records,
        ledger=state.ledger,
        current_pulka=state.current_slot.pulka,
        pulka_count=slots[-1].pulka + 1,
        premia_on=state.options.premia,
    )


def _totals(state: GameState) -> dict[str, int]:
    bottom = sheet(state)["bottom"]
    return {p: bottom[p]["total"] for p in state.players}


def public_view(state: GameState) -> dict[str, Any]:
    """What everyone may see: no hand's cards (the turned trump card is public)."""
    hand = state.hand
    data: dict[str, Any] = {
        "players": list(state.players),
        "options": state.options.describe(),
        "hand": None,
        "sheet": sheet(state),
        "over": state.over,
    }
    if hand is not None:
        slot = state.slots[len(state.records) - (0 if state.hand_running else 1)]
        names = state.players
        data["hand"] = {
            "number": slot.index,
            "pulka": slot.pulka,
            "cards": hand.cards,
            "dealer": names[hand.dealer],
            "phase": hand.phase.value,
            "to_act": names[hand.turn] if hand.turn is not None else None,
            "trump_card": hand.trump_card.code if hand.trump_card else None,
            "trump": _trump_text(hand),
            "bids": {names[s]: b for s, b in enumerate(hand.bids) if b is not None},
            "tricks": {names[s]: t for s, t in enumerate(hand.taken)},
            "trick": [{"player": names[p.seat], **p.to_json()} for p in hand.trick],
            "played": [
                {
                    "winner": names[w],
                    "cards": [{"player": names[p.seat], **p.to_json()} for p in trick],
                }
                for trick, w in zip(hand.played, hand.winners, strict=True)
            ],
            "cards_left": {names[s]: len(h) for s, h in enumerate(hand.hands)},
        }
    return data


def view(state: GameState, player: str) -> dict[str, Any]:
    """`player`'s view: the public view plus his own cards and his legal actions."""
    seat = state.seat_of(player)
    data = public_view(state)
    hand = state.hand
    if hand is not None and data["hand"] is not None:
        data["hand"]["own_cards"] = [c.code for c in hand.visible_hand(seat)]
        if hand.phase is Phase.TRUMP:
            data["hand"]["cards_left"] = {p: None for p in state.players}
    data["legal"] = legal_actions(state, player)
    return data


def result(state: GameState) -> GameResult | None:
    if not state.over:
        return None
    totals = _totals(state)
    ordered = sorted(set(totals.values()), reverse=True)
    placing = [[p for p in state.players if totals[p] == value] for value in ordered]
    return GameResult(totals=totals, placing=placing, sheet=sheet(state))


def snapshot(state: GameState) -> dict[str, Any]:
    """The whole state as JSON, hidden cards included (for the host's digest only)."""
    hand = state.hand
    return {
        "game_id": state.game_id,
        "players": list(state.players),
        "options": state.options.describe(),
        "first_dealer": state.first_dealer,
        "hands": None if hand is None else [[c.code for c in h] for h in hand.hands],
        "public": public_view(state),
        "ledger": [
            [e.pulka, e.player, e.premia, e.moshla, e.crossed_out] for e in state.ledger.entries
        ],
    }


def check(state: GameState, player: str, action: dict[str, Any]) -> IllegalAction | None:
    """The rule `action` would break, or None when it is legal (nothing is applied)."""
    try:
        act(state, player, action)
    except IllegalAction as exc:
        return exc
    return None
