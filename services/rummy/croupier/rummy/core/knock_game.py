"""The gin-family hand (Gin Rummy, Oklahoma Gin) as an immutable state machine.

`apply(state, player, action) -> (state, events)`; an illegal action raises `RummyError`
and the state it was tried on is unchanged (states are frozen). Play rules and their
sources are in the variant modules `gin` and `oklahoma_gin`.

Phases: FIRST_UPCARD (non-dealer, then dealer, may take the first up-card or pass; after
two passes the non-dealer must draw from the stock), DRAW, DISCARD (holding 11: discard,
knock or gin), LAYOFF (after a knock the defender lays off on the knocker's melds and
ends with `pass`), OVER.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from croupier.game import Event
from croupier.rummy.core.arrangement import best_arrangement
from croupier.rummy.core.cards import Card, card_name, card_names, rank_of
from croupier.rummy.core.errors import MalformedRummyAction, RummyError
from croupier.rummy.core.melds import InvalidMeld, TableMeld, build_meld, lay_off
from croupier.rummy.core.notation import action_card, action_melds, remove_cards
from croupier.rummy.core.outcome import Ending, RoundOutcome, gin_penalty
from croupier.rummy.core.variant import VariantRules

__all__ = ["GinPhase", "GinState", "apply", "deal", "finish", "hand_deadwood", "outcome"]


class GinPhase(StrEnum):
    FIRST_UPCARD = "first_upcard"
    DRAW = "draw"
    DISCARD = "discard"
    LAYOFF = "layoff"
    OVER = "over"


@dataclass(frozen=True)
class GinState:
    rules: VariantRules
    players: tuple[str, ...]
    dealer: str
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    """Top first."""
    discard_pile: tuple[Card, ...]
    """Bottom first; the last card is the one that may be taken."""
    phase: GinPhase
    turn: int
    knock_limit: int
    passes: int = 0
    taken_from_discard: Card | None = None
    drawn: Card | None = None
    knocker: int | None = None
    table_melds: tuple[TableMeld, ...] = ()
    knocker_deadwood: int = 0
    layoffs: tuple[Card, ...] = ()
    result: RoundOutcome | None = None

    @property
    def to_act(self) -> str | None:
        return None if self.phase is GinPhase.OVER else self.players[self.turn]


def knock_limit_for(rules: VariantRules, upcard: Card) -> int:
    """Oklahoma: the first up-card's value is the knock limit; an ace means gin only (OQ 14)."""
    if not rules.oklahoma:
        return rules.knock_limit
    value = rules.values[upcard]
    return 0 if rank_of(upcard) == 1 else value


def deal(
    rules: VariantRules,
    players: Sequence[str],
    dealer: str,
    hands: Mapping[str, Sequence[Card]],
    upcard: Card,
    stock: Sequence[Card],
) -> GinState:
    """The state after an explicit deal (the non-dealer acts first)."""
    if len(players) != 2 or dealer not in players:
        raise ValueError("gin is played by 2 players, the dealer among them")
    non_dealer = 1 - list(players).index(dealer)
    return GinState(
        rules=rules,
        players=tuple(players),
        dealer=dealer,
        hands=tuple(tuple(hands[player]) for player in players),
        stock=tuple(stock),
        discard_pile=(upcard,),
        phase=GinPhase.FIRST_UPCARD,
        turn=non_dealer,
        knock_limit=knock_limit_for(rules, upcard),
    )


def hand_deadwood(rules: VariantRules, hand: Sequence[Card]) -> int:
    return best_arrangement(hand, rules.melds, rules.values).deadwood


def _set_hand(hands: tuple[tuple[Card, ...], ...], seat: int, hand: tuple[Card, ...]) -> Any:
    return tuple(hand if index == seat else held for index, held in enumerate(hands))


def apply(state: GinState, player: str, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    """Apply one action of `player`; raises RummyError (state unchanged) when illegal."""
    if state.phase is GinPhase.OVER:
        ended_by_gin = state.result is not None and state.result.ending is Ending.GIN
        if ended_by_gin and action.get("action") == "layoff":
            raise RummyError("layoff_on_gin", "no lay-offs on gin")
        raise RummyError("hand_over", "the hand is over")
    if player not in state.players:
        raise RummyError("not_your_turn", f"{player!r} is not at this table")
    if player != state.players[state.turn]:
        raise RummyError("not_your_turn", f"it is {state.players[state.turn]}'s turn")
    kind = action.get("action")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedRummyAction("unknown_action", f"unknown action {kind!r}")
    return handler(state, action)


def _pass(state: GinState, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    player = state.players[state.turn]
    if state.phase is GinPhase.LAYOFF:
        return _finish_layoffs(state)
    if state.phase is not GinPhase.FIRST_UPCARD or state.passes >= 2:
        raise RummyError("wrong_phase", "passing is only allowed on the first up-card")
    passes = state.passes + 1
    new = replace(state, passes=passes, turn=1 - state.turn)
    if passes == 2:  # both passed: the non-dealer draws from the stock
        new = replace(new, phase=GinPhase.DRAW)
    return new, [Event("UpcardPassed", {"player": player})]


def _draw(state: GinState, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    player = state.players[state.turn]
    source = action.get("from", "stock")
    if state.phase in (GinPhase.DISCARD, GinPhase.LAYOFF):
        raise RummyError("already_drew", "you have already drawn this turn")
    if state.phase is GinPhase.FIRST_UPCARD and state.passes < 2 and source != "discard":
        raise RummyError("wrong_phase", "take the first up-card or pass")
    if state.phase is GinPhase.DRAW and state.passes == 2 and source != "stock":
        raise RummyError("wrong_phase", "both players passed: draw from the stock")
    hand = state.hands[state.turn]
    if source == "stock":
        if not state.stock:
            raise RummyError("empty_pile", "the stock is empty")
        card = state.stock[0]
        new = replace(
            state,
            hands=_set_hand(state.hands, state.turn, (*hand, card)),
            stock=state.stock[1:],
            phase=GinPhase.DISCARD,
            taken_from_discard=None,
            drawn=card,
            passes=3 if state.passes == 2 else state.passes,
        )
        return new, [Event("CardDrawn", {"player": player, "from": "stock"})]
    if source == "discard":
        if not state.discard_pile:
            raise RummyError("empty_pile", "the discard pile is empty")
        card = state.discard_pile[-1]
        new = replace(
            state,
            hands=_set_hand(state.hands, state.turn, (*hand, card)),
            discard_pile=state.discard_pile[:-1],
            phase=GinPhase.DISCARD,
            taken_from_discard=card,
            drawn=card,
            passes=3,
        )
        return new, [
            Event("CardDrawn", {"player": player, "from": "discard", "card": card_name(card)})
        ]
    raise MalformedRummyAction("bad_action", "draw 'from' is 'stock' or 'discard'")


def _require_discard_phase(state: GinState) -> None:
    if state.phase is not GinPhase.DISCARD:
        raise RummyError("must_draw_first", "draw a card first")


def _take_out(state: GinState, card: Card, auto: bool = False) -> tuple[Card, ...]:
    if card == state.taken_from_discard and not auto:
        raise RummyError(
            "discard_taken_card", "a card taken from the discard pile cannot be discarded"
        )
    rest = remove_cards(state.hands[state.turn], [card])
    if rest is None:
        raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
    return rest


def _discard(state: GinState, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    _require_discard_phase(state)
    card = action_card(action)
    player = state.players[state.turn]
    # the auto-player (OQ 26) discards the card drawn this turn, even one just taken
    rest = _take_out(state, card, auto=action.get("auto") is True)
    events = [Event("CardDiscarded", {"player": player, "card": card_name(card)})]
    new = replace(
        state,
        hands=_set_hand(state.hands, state.turn, rest),
        discard_pile=(*state.discard_pile, card),
        phase=GinPhase.DRAW,
        turn=1 - state.turn,
        taken_from_discard=None,
        drawn=None,
    )
    if len(new.stock) <= state.rules.ending_stock:
        deadwood = {
            p: hand_deadwood(state.rules, new.hands[i]) for i, p in enumerate(state.players)
        }
        result = RoundOutcome(Ending.DRAW, None, deadwood, {})
        new = replace(new, phase=GinPhase.OVER, result=result)
        events.append(Event("HandEnded", {"ending": "draw", "winner": None}))
    return new, events


def _declared(
    state: GinState, rest: tuple[Card, ...], action: Mapping[str, Any]
) -> tuple[tuple[TableMeld, ...], tuple[Card, ...]]:
    """The knocker's melds (declared, or the best arrangement) and deadwood cards."""
    owner = state.players[state.turn]
    declared = action_melds(action)
    if declared is None:
        arrangement = best_arrangement(rest, state.rules.melds, state.rules.values)
        melds = tuple(
            build_meld([(card, None) for card in meld], state.rules.melds, owner)
            for meld in arrangement.melds
        )
        return melds, arrangement.deadwood_cards
    melds_list: list[TableMeld] = []
    remaining = rest
    for entries in declared:
        try:
            meld = build_meld(entries, state.rules.melds, owner)
        except InvalidMeld as exc:
            raise MalformedRummyAction("invalid_meld", str(exc)) from exc
        after = remove_cards(remaining, meld.cards)
        if after is None:
            raise RummyError("meld_not_held", "a declared meld uses cards you do not hold")
        remaining = after
        melds_list.append(meld)
    return tuple(melds_list), remaining


def _knock(state: GinState, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    _require_discard_phase(state)
    big_gin = action.get("action") == "gin" and action.get("discard") is None
    card: Card | None = None
    if big_gin:  # all 11 cards melded, no discard: scored as gin (the seed has no bonus)
        rest = state.hands[state.turn]
    else:
        card = action_card(action, "discard")
        rest = _take_out(state, card)
    melds, deadwood_cards = _declared(state, rest, action)
    deadwood = state.rules.hand_value(deadwood_cards)
    wants_gin = action.get("action") == "gin"
    if wants_gin and deadwood != 0:
        raise RummyError("not_gin", f"gin needs no deadwood; {deadwood} left")
    if deadwood > state.knock_limit:
        raise RummyError(
            "knock_over_limit", f"deadwood {deadwood} is over the knock limit {state.knock_limit}"
        )
    player = state.players[state.turn]
    new = replace(
        state,
        hands=_set_hand(state.hands, state.turn, deadwood_cards),
        discard_pile=state.discard_pile if card is None else (*state.discard_pile, card),
        knocker=state.turn,
        table_melds=melds,
        knocker_deadwood=deadwood,
        taken_from_discard=None,
        drawn=None,
    )
    melds_json = [meld.to_json() for meld in melds]
    if deadwood == 0:
        defender = 1 - state.turn
        defender_deadwood = hand_deadwood(state.rules, state.hands[defender])
        outcome = RoundOutcome(
            Ending.GIN,
            player,
            {player: 0, state.players[defender]: defender_deadwood},
            {state.players[defender]: gin_penalty(Ending.GIN, 0, defender_deadwood)},
        )
        new = replace(new, phase=GinPhase.OVER, result=outcome)
        return new, [
            Event(
                "WentGin",
                {
                    "player": player,
                    "discard": None if card is None else card_name(card),
                    "melds": melds_json,
                },
            ),
            _ended(outcome),
        ]
    assert card is not None  # only a gin may leave out the discard
    new = replace(new, phase=GinPhase.LAYOFF, turn=1 - state.turn)
    return new, [
        Event(
            "Knocked",
            {
                "player": player,
                "discard": card_name(card),
                "melds": melds_json,
                "deadwood": deadwood,
                "deadwood_cards": card_names(deadwood_cards),
            },
        )
    ]


def _layoff(state: GinState, action: Mapping[str, Any]) -> tuple[GinState, list[Event]]:
    if state.phase is not GinPhase.LAYOFF:
        raise RummyError("wrong_phase", "lay-offs follow a knock")
    card = action_card(action)
    index = action.get("meld")
    count = len(state.table_melds)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        raise MalformedRummyAction("no_such_meld", f"no meld {index!r} on the table")
    rest = remove_cards(state.hands[state.turn], [card])
    if rest is None:
        raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
    try:
        grown = lay_off(state.table_melds[index], card, None, state.rules.melds)
    except InvalidMeld as exc:
        raise RummyError("invalid_layoff", str(exc)) from exc
    melds = tuple(grown if i == index else meld for i, meld in enumerate(state.table_melds))
    new = replace(
        state,
        hands=_set_hand(state.hands, state.turn, rest),
        table_melds=melds,
        layoffs=(*state.layoffs, card),
    )
    return new, [
        Event(
            "LaidOff",
            {"player": state.players[state.turn], "card": card_name(card), "meld": index},
        )
    ]


def _finish_layoffs(state: GinState) -> tuple[GinState, list[Event]]:
    """The defender is done: score the knock or the undercut (rules 25, 26; OQ 13)."""
    assert state.knocker is not None
    knocker = state.players[state.knocker]
    defender = state.players[1 - state.knocker]
    defender_deadwood = hand_deadwood(state.rules, state.hands[1 - state.knocker])
    if defender_deadwood <= state.knocker_deadwood:
        ending, winner, loser = Ending.UNDERCUT, defender, knocker
    else:
        ending, winner, loser = Ending.KNOCK, knocker, defender
    outcome = RoundOutcome(
        ending,
        winner,
        {knocker: state.knocker_deadwood, defender: defender_deadwood},
        {loser: gin_penalty(ending, state.knocker_deadwood, defender_deadwood)},
    )
    return replace(state, phase=GinPhase.OVER, result=outcome), [_ended(outcome)]


def _ended(outcome: RoundOutcome) -> Event:
    return Event(
        "HandEnded",
        {
            "ending": str(outcome.ending),
            "winner": outcome.winner,
            "deadwood": dict(outcome.deadwood),
            "penalty": dict(outcome.penalty),
        },
    )


def finish(state: GinState) -> GinState:
    """End a pending lay-off phase (the defender lays off nothing more)."""
    if state.phase is GinPhase.LAYOFF:
        return _finish_layoffs(state)[0]
    return state


def outcome(state: GinState) -> RoundOutcome | None:
    return state.result


_HANDLERS = {
    "pass": _pass,
    "draw": _draw,
    "discard": _discard,
    "knock": _knock,
    "gin": _knock,
    "layoff": _layoff,
}
