"""The rummy-family round (Rummy, Rummy 51, Rummy 40, Rummy 500) as an immutable state machine.

Melds go on the table during play. A turn: `draw` (stock or discard pile), any number of
`meld`, `layoff` and `take_joker`, then `discard`; `out` lays melds and (optionally)
discards the last card in one action. A player whose hand becomes empty has gone out and
wins the round. The checks that close a turn (opening minimum reached, a card taken from
the discard pile melded, a joker taken back played) run when the turn ends, on the action
that ends it. Play rules and their sources are in the variant modules.

`apply(state, player, action) -> (state, events)`; an illegal action raises `RummyError`
and leaves the state unchanged (states are frozen).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from croupier.game import Event
from croupier.rummy.core.cards import Card, card_name, card_names
from croupier.rummy.core.errors import MalformedRummyAction, RummyError
from croupier.rummy.core.laydown_state import LaydownPhase, LaydownState, deal, with_seat
from croupier.rummy.core.melds import (
    InvalidMeld,
    MeldEntry,
    TableMeld,
    build_meld,
    lay_off,
    take_joker,
)
from croupier.rummy.core.notation import action_card, action_meld, action_melds, remove_cards
from croupier.rummy.core.outcome import (
    Ending,
    RoundOutcome,
    rummy500_penalty,
    rummy_penalty,
)
from croupier.rummy.core.variant import DiscardTake

__all__ = ["LaydownPhase", "LaydownState", "apply", "deal"]


def apply(
    state: LaydownState, player: str, action: Mapping[str, Any]
) -> tuple[LaydownState, list[Event]]:
    """Apply one action of `player`; raises RummyError (state unchanged) when illegal."""
    if state.phase is LaydownPhase.OVER:
        raise RummyError("hand_over", "the round is over")
    if player not in state.players:
        raise RummyError("not_your_turn", f"{player!r} is not at this table")
    if player != state.players[state.turn]:
        raise RummyError("not_your_turn", f"it is {state.players[state.turn]}'s turn")
    kind = action.get("action")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedRummyAction("unknown_action", f"unknown action {kind!r}")
    if kind != "draw" and state.phase is LaydownPhase.DRAW:
        raise RummyError("must_draw_first", "draw a card first")
    return handler(state, action)


def _draw(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    if state.phase is not LaydownPhase.DRAW:
        raise RummyError("already_drew", "you have already drawn this turn")
    player = state.players[state.turn]
    hand = state.hands[state.turn]
    source = action.get("from", "stock")
    rules = state.rules
    if source == "stock":
        stock, pile = state.stock, state.discard_pile
        if not stock and rules.reuse_discards and len(pile) > 1:
            # The pile but its top card is turned over, unshuffled, to form a new stock.
            stock, pile = pile[:-1], pile[-1:]
        if not stock:
            outcome = _drawn_round(state)
            return replace(state, phase=LaydownPhase.OVER, result=outcome), [_ended(outcome)]
        card = stock[0]
        new = replace(
            state,
            hands=with_seat(state.hands, state.turn, (*hand, card)),
            stock=stock[1:],
            discard_pile=pile,
            phase=LaydownPhase.PLAY,
            drawn=card,
        )
        return new, [Event("CardDrawn", {"player": player, "from": "stock"})]
    if source != "discard":
        raise MalformedRummyAction("bad_action", "draw 'from' is 'stock' or 'discard'")
    count = action.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise MalformedRummyAction("bad_action", "'count' is a positive number of cards")
    if count > 1 and not rules.whole_pile:
        raise MalformedRummyAction("bad_action", "only the top discard may be taken")
    if count > len(state.discard_pile):
        raise RummyError("empty_pile", "the discard pile has fewer cards")
    taken = state.discard_pile[len(state.discard_pile) - count :]
    deepest = taken[0]
    obliged = rules.discard_take is DiscardTake.ALWAYS or (
        rules.discard_take is DiscardTake.UNTIL_OPENED and not state.opened[state.turn]
    )
    new = replace(
        state,
        hands=with_seat(state.hands, state.turn, (*hand, *taken)),
        discard_pile=state.discard_pile[: len(state.discard_pile) - count],
        phase=LaydownPhase.PLAY,
        drawn=taken[-1],
        taken=taken,
        must_meld=deepest if obliged else None,
    )
    return new, [
        Event("CardDrawn", {"player": player, "from": "discard", "cards": card_names(taken)})
    ]


def _build(state: LaydownState, entries: list[MeldEntry]) -> TableMeld:
    try:
        return build_meld(entries, state.rules.melds, state.players[state.turn])
    except InvalidMeld as exc:
        raise MalformedRummyAction("invalid_meld", str(exc)) from exc


def _lay_melds(
    state: LaydownState, melds: list[list[MeldEntry]]
) -> tuple[LaydownState, list[Event]]:
    player = state.players[state.turn]
    hand = state.hands[state.turn]
    table = list(state.table_melds)
    value = state.opening_value
    laid = state.laid_value[state.turn]
    must = state.must_meld
    events: list[Event] = []
    for entries in melds:
        meld = _build(state, entries)
        rest = remove_cards(hand, meld.cards)
        if rest is None:
            raise RummyError("meld_not_held", "the meld uses cards you do not hold")
        hand = rest
        table.append(meld)
        value += state.rules.opening_value(meld.stands_for, meld.low, meld.kind)
        laid += state.rules.hand_value(meld.cards)
        if must is not None and must in meld.cards:
            must = None
        events.append(
            Event("MeldLaid", {"player": player, "meld": len(table) - 1, **meld.to_json()})
        )
    new = replace(
        state,
        hands=with_seat(state.hands, state.turn, hand),
        table_melds=tuple(table),
        opening_value=value if not state.opened[state.turn] else 0,
        laid_value=with_seat(state.laid_value, state.turn, laid),
        laid_this_turn=True,
        must_meld=must,
        jokers_taken=tuple(j for j in state.jokers_taken if j in hand),
    )
    return new, events


def _meld(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    melds = action_melds(action)
    if melds is None:
        melds = [action_meld(action.get("cards"))]
    new, events = _lay_melds(state, melds)
    return _maybe_out(new, events)


def _require_opened(state: LaydownState) -> None:
    if not state.opened[state.turn] and not state.laid_this_turn:
        raise RummyError("not_opened", "lay your opening melds first")


def _meld_index(state: LaydownState, action: Mapping[str, Any]) -> int:
    index = action.get("meld")
    if (
        not isinstance(index, int)
        or isinstance(index, bool)
        or not 0 <= index < len(state.table_melds)
    ):
        raise MalformedRummyAction("no_such_meld", f"no meld {index!r} on the table")
    return index


def _layoff(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    _require_opened(state)
    card = action_card(action)
    index = _meld_index(state, action)
    played_as_name = action.get("as")
    played_as = action_card(action, "as") if played_as_name is not None else None
    rest = remove_cards(state.hands[state.turn], [card])
    if rest is None:
        raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
    try:
        grown = lay_off(state.table_melds[index], card, played_as, state.rules.melds)
    except InvalidMeld as exc:
        raise RummyError("invalid_layoff", str(exc)) from exc
    table = tuple(grown if i == index else meld for i, meld in enumerate(state.table_melds))
    new = replace(
        state,
        hands=with_seat(state.hands, state.turn, rest),
        table_melds=table,
        laid_value=with_seat(
            state.laid_value, state.turn, state.laid_value[state.turn] + state.rules.value(card)
        ),
        must_meld=None if state.must_meld == card else state.must_meld,
        jokers_taken=tuple(j for j in state.jokers_taken if j in rest),
    )
    event = Event(
        "LaidOff", {"player": state.players[state.turn], "card": card_name(card), "meld": index}
    )
    return _maybe_out(new, [event])


def _take_joker(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    """The usual rule: a player who has opened puts the natural card a joker stands for in
    its place and takes the joker, which must be played again in the same turn."""
    _require_opened(state)
    card = action_card(action)
    index = _meld_index(state, action)
    rest = remove_cards(state.hands[state.turn], [card])
    if rest is None:
        raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
    try:
        meld, joker = take_joker(state.table_melds[index], card)
    except InvalidMeld as exc:
        raise RummyError("invalid_layoff", str(exc)) from exc
    table = tuple(meld if i == index else old for i, old in enumerate(state.table_melds))
    rules = state.rules
    owner_seat = state.players.index(meld.owner) if meld.owner in state.players else state.turn
    laid = list(state.laid_value)
    laid[state.turn] += rules.value(card)
    laid[owner_seat] -= rules.value(joker)
    new = replace(
        state,
        hands=with_seat(state.hands, state.turn, (*rest, joker)),
        table_melds=table,
        laid_value=tuple(laid),
        jokers_taken=(*state.jokers_taken, joker),
        must_meld=None if state.must_meld == card else state.must_meld,
    )
    event = Event(
        "JokerTaken",
        {"player": state.players[state.turn], "card": card_name(card), "meld": index},
    )
    return new, [event]


def _check_turn_end(state: LaydownState) -> None:
    rules = state.rules
    seat = state.turn
    opening = not state.opened[seat] and state.laid_this_turn
    if opening and state.opening_value < rules.opening_minimum:
        raise RummyError(
            "opening_below_minimum",
            f"the opening melds count {state.opening_value}; at least {rules.opening_minimum}",
        )
    if state.must_meld is not None:
        raise RummyError(
            "taken_card_not_melded",
            f"{card_name(state.must_meld)} taken from the discard pile must be melded this turn",
        )
    if state.jokers_taken:
        raise RummyError("joker_not_played", "a joker taken back must be played this turn")


def _check_layoff_discard(state: LaydownState, card: Card) -> None:
    """Rummy 40: a player who may lay off does not discard a card that fits a table meld."""
    if not state.rules.layoff_discard_banned or not (
        state.opened[state.turn] or state.laid_this_turn
    ):
        return
    for index, meld in enumerate(state.table_melds):
        try:
            lay_off(meld, card, None, state.rules.melds)
        except InvalidMeld:
            continue
        raise RummyError(
            "discard_could_lay_off",
            f"{card_name(card)} could be laid off on meld {index}: lay it off, or discard "
            "another card",
        )


def _discard(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    card = action_card(action)
    return _discard_card(state, card, bool(action.get("auto", False)))


def _discard_card(
    state: LaydownState, card: Card, auto: bool = False
) -> tuple[LaydownState, list[Event]]:
    hand = state.hands[state.turn]
    rest = remove_cards(hand, [card])
    if rest is None:
        raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
    if not auto:
        picked = state.taken[0] if state.taken else None
        if card == picked and hand.count(card) == 1:
            raise RummyError(
                "discard_taken_card", "a card taken from the discard pile cannot be discarded"
            )
        if rest:
            _check_layoff_discard(state, card)
        _check_turn_end(state)
    player = state.players[state.turn]
    new = replace(state, hands=with_seat(state.hands, state.turn, rest))
    new = replace(new, discard_pile=(*state.discard_pile, card))
    events = [Event("CardDiscarded", {"player": player, "card": card_name(card)})]
    if not rest:
        return _go_out(new, events)
    return _next_turn(new), events


def _next_turn(state: LaydownState) -> LaydownState:
    opened = state.opened
    if state.laid_this_turn:
        opened = with_seat(opened, state.turn, True)
    return replace(
        state,
        opened=opened,
        turn=(state.turn + 1) % len(state.players),
        phase=LaydownPhase.DRAW,
        opening_value=0,
        laid_this_turn=False,
        must_meld=None,
        taken=(),
        jokers_taken=(),
        drawn=None,
    )


def _out(state: LaydownState, action: Mapping[str, Any]) -> tuple[LaydownState, list[Event]]:
    melds = action_melds(action) or []
    new, events = _lay_melds(state, melds) if melds else (state, [])
    if "discard" in action:
        card = action_card(action, "discard")
        rest = remove_cards(new.hands[new.turn], [card])
        if rest is None:
            raise RummyError("card_not_held", f"you do not hold {card_name(card)}")
        if rest:
            raise RummyError("cannot_go_out", "cards would be left in hand besides the discard")
        final, more = _discard_card(new, card)
        return final, events + more
    if new.hands[new.turn]:
        raise RummyError("cannot_go_out", "cards would be left in hand")
    return _maybe_out(new, events)


def _maybe_out(state: LaydownState, events: list[Event]) -> tuple[LaydownState, list[Event]]:
    if state.hands[state.turn]:
        return state, events
    _check_turn_end(state)
    return _go_out(state, events)


def _go_out(state: LaydownState, events: list[Event]) -> tuple[LaydownState, list[Event]]:
    """The player to act has no cards left: score the round (rules 27–32)."""
    rules = state.rules
    seat = state.turn
    winner = state.players[seat]
    deadwood = {p: rules.hand_value(state.hands[i]) for i, p in enumerate(state.players)}
    penalty: dict[str, int] = {}
    scores: dict[str, int] = {}
    if rules.scores_melds:
        ending = Ending.OUT
        scores = {p: state.laid_value[i] - deadwood[p] for i, p in enumerate(state.players)}
        for i, p in enumerate(state.players):
            if i != seat:
                penalty[p] = rummy500_penalty(state.laid_value[i], deadwood[p], scores[winner])
    else:
        ending = Ending.OUT if state.opened[seat] else Ending.HAND
        for p in state.players:
            if p != winner:
                penalty[p] = rummy_penalty(ending, deadwood[p], rules.hand_bonus)
    outcome = RoundOutcome(ending, winner, deadwood, penalty, scores)
    final = replace(state, phase=LaydownPhase.OVER, result=outcome)
    return final, [*events, _ended(outcome)]


def _drawn_round(state: LaydownState) -> RoundOutcome:
    rules = state.rules
    deadwood = {p: rules.hand_value(state.hands[i]) for i, p in enumerate(state.players)}
    scores = {}
    if rules.scores_melds:
        scores = {p: state.laid_value[i] - deadwood[p] for i, p in enumerate(state.players)}
    return RoundOutcome(Ending.DRAW, None, deadwood, {}, scores)


def _ended(outcome: RoundOutcome) -> Event:
    return Event(
        "RoundEnded",
        {
            "ending": str(outcome.ending),
            "winner": outcome.winner,
            "deadwood": dict(outcome.deadwood),
            "penalty": dict(outcome.penalty),
        },
    )


_HANDLERS = {
    "draw": _draw,
    "meld": _meld,
    "layoff": _layoff,
    "take_joker": _take_joker,
    "discard": _discard,
    "out": _out,
}
