"""A rummy table: seats with chips, rounds dealt one after another, each settled in chips.

Players sit with a stack; each round is dealt from its seed (`start_round`; the dealer
moves one seat clockwise per round); actions are in the conformance notation (`act`; on
a clock expiry the host sends `timeout_action`, the auto-player, seed 000 rule 45;
`turn_key` makes the turn clock time a whole turn, not each action). A round whose
players have all been automatic for 5 minutes is cancelled, every fee given back (rule
46, OQ 24; `croupier.rummy.core.autoplay`, timed by the log's timestamps).
When a round ends it is settled in chips (seed 000 §10: fee into the pot, negative
points × chip ratio within what each side risked, the pot to the winner) and the seats'
stacks move by the deltas. A player left with 0 chips then is eliminated (seed 000 rules
9–10: checked only at the end of a round, and a short stack still plays): the seat is
kept (the player may leave) but is dealt no more rounds, which go on among the players
with chips while they are enough for the variant.

Views: the player's round view (own hand, discard pile, table melds, card counts) with the
player's legal actions, the seats and stacks, and `last_round` (the previous round's result
and settlement: the host deals the next round as soon as one ends).

The round itself, of either family, is `croupier.rummy.core.table`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from croupier.game import JSON, Event, HandResult, Malformed, RuleBroken
from croupier.game.fairness import shuffled
from croupier.rummy.core import table
from croupier.rummy.core.autoplay import AutoPlay
from croupier.rummy.core.cards import card_names, standard_deck
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.settlement import Settlement
from croupier.rummy.core.table_options import parse_options
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.core.variants import VARIANTS

__all__ = [
    "RummyTable",
    "act",
    "can_start_round",
    "legal_actions",
    "open_table",
    "public_view",
    "randomness",
    "result",
    "seat",
    "snapshot",
    "start_round",
    "timeout_action",
    "to_act",
    "turn_key",
    "unseat",
    "view",
]


@dataclass(frozen=True)
class RummyTable:
    rules: VariantRules
    round_fee: int
    chip_ratio: int
    limit_to_winner_risk: bool = True
    players: int = 0
    """The seats a round waits for; 0: a round starts once the variant's minimum sit."""
    seats: tuple[str, ...] = ()
    stacks: tuple[int, ...] = ()
    round: table.RoundState | None = None
    rounds_started: int = 0
    turns: int = 0
    """Turns begun at this table: a new one each time the player to act changes."""
    settlement: Settlement | None = None
    last_round: JSON | None = None
    """The last finished round's result and settlement (public), shown in every view."""
    auto: AutoPlay = field(default_factory=AutoPlay)
    """Rules 45–46: the players in auto-player mode, and since when all of them are."""


def open_table(options: JSON) -> RummyTable:
    rules, fee, ratio, flag, players = parse_options(options)
    return RummyTable(
        rules=rules,
        round_fee=fee,
        chip_ratio=ratio,
        limit_to_winner_risk=flag,
        players=players,
    )


def _running(state: RummyTable) -> bool:
    return state.round is not None and state.round.result is None


def _in_play(state: RummyTable) -> tuple[str, ...]:
    """The seats dealt the next round: every one not eliminated (rule 9: 0 chips)."""
    return tuple(p for p, stack in zip(state.seats, state.stacks, strict=True) if stack)


def _next_dealer(state: RummyTable, players: tuple[str, ...]) -> str:
    """The deal moves one seat clockwise per round, past the seats no longer dealt in
    (rule 9): counting rounds over the players left skipped a seat after an
    elimination. With no last round to go by (a player left since), count rounds."""
    last = state.round.dealer if state.round is not None else ""
    if last in state.seats:
        start = state.seats.index(last)
        for step in range(1, len(state.seats) + 1):
            candidate = state.seats[(start + step) % len(state.seats)]
            if candidate in players:
                return candidate
    return players[state.rounds_started % len(players)]


def seat(state: RummyTable, player: str, stack: int) -> tuple[RummyTable, list[Event]]:
    if _running(state) or len(state.seats) >= (state.players or state.rules.max_players):
        raise RuleBroken("no seat is free now")
    if player in state.seats:
        raise RuleBroken(f"{player!r} is already seated")
    if stack <= 0:
        raise Malformed("a rummy seat needs chips (stack > 0)")
    seated = replace(state, seats=(*state.seats, player), stacks=(*state.stacks, stack))
    return seated, [Event("PlayerSeated", {"player": player})]


def unseat(state: RummyTable, player: str) -> tuple[RummyTable, list[Event]]:
    dealt_in = state.round.players if state.round is not None else ()
    if _running(state) and player in dealt_in:
        raise RuleBroken("a player cannot leave a running round")
    keep = [i for i, p in enumerate(state.seats) if p != player]
    left = replace(
        state,
        seats=tuple(state.seats[i] for i in keep),
        stacks=tuple(state.stacks[i] for i in keep),
        auto=state.auto.left(player),
    )
    if not _running(state):  # an eliminated player may leave a running round
        left = replace(left, round=None, settlement=None)
    return left, [Event("PlayerLeft", {"player": player})]


def can_start_round(state: RummyTable) -> bool:
    return (
        not _running(state)
        and (
            len(state.seats) == state.players
            if state.players
            else len(state.seats) <= state.rules.max_players
        )
        and len(_in_play(state)) >= state.rules.min_players
    )


def start_round(state: RummyTable, seed: bytes) -> tuple[RummyTable, list[Event]]:
    if not can_start_round(state):
        raise RuleBroken("no round can start now")
    players = _in_play(state)
    dealer = _next_dealer(state, players)
    dealt = table.start(state.rules, players, dealer, seed)
    started = replace(
        state,
        round=dealt,
        rounds_started=state.rounds_started + 1,
        settlement=None,
        auto=state.auto.new_round(),
    )
    return started, [
        Event(
            "RoundStarted",
            {"round": started.rounds_started, "dealer": dealer, "players": list(players)},
        )
    ]


def act(
    state: RummyTable, player: str, action: JSON, *, by_clock: bool, at_ms: int
) -> tuple[RummyTable, list[Event]]:
    """`player`'s action, or the clock's for them (`by_clock`), logged at `at_ms`."""
    if state.round is None:
        raise RuleBroken("no round is running")
    if "auto" in action and not by_clock:
        raise Malformed("the auto-player's discard is the clock's")
    if state.auto.cancels(by_clock, at_ms) and _running(state):
        played = table.cancel(state.round)
        events = [
            Event(
                "RoundCancelled",
                {"reason": "every player was automatic for 5 minutes (rule 46)"},
            )
        ]
    else:
        # A finished round answers with its own reason ("no lay-offs on gin", ...).
        played, events = table.apply(state.round, player, action)
    auto = state.auto.after_act(played.players, player, by_clock, at_ms)
    turns = state.turns + (played.to_act != state.round.to_act)
    new = replace(state, round=played, auto=auto, turns=turns)
    if played.result is not None:
        new = _settle(new)
        assert new.last_round is not None
        events.append(Event("RoundSettled", dict(new.last_round)))
        events += [
            Event("PlayerEliminated", {"player": eliminated})
            for eliminated in new.last_round["eliminated"]
        ]
    return new, events


def _settle(state: RummyTable) -> RummyTable:
    assert state.round is not None and state.round.result is not None
    chips = dict(zip(state.seats, state.stacks, strict=True))
    settlement = table.settle_round(
        state.round,
        round_fee=state.round_fee,
        chip_ratio=state.chip_ratio,
        chips=chips,
        limit_to_winner_risk=state.limit_to_winner_risk,
    )
    assert settlement is not None
    stacks = tuple(stack + settlement.deltas.get(p, 0) for p, stack in chips.items())
    outcome = state.round.result
    after = dict(zip(state.seats, stacks, strict=True))
    last: JSON = {
        "round": state.rounds_started,
        "ending": str(outcome.ending),
        "winner": outcome.winner,
        "deadwood": dict(outcome.deadwood),
        "penalty": dict(outcome.penalty),
        "scores": dict(outcome.scores),
        "fees": dict(settlement.fees),
        "pot": settlement.pot,
        "chips_paid": dict(settlement.chips_paid),
        "chips_won": settlement.chips_won,
        "deltas": dict(settlement.deltas),
        "tournament_points": dict(settlement.tournament_points),
        # Rule 9: elimination is checked here, at the end of the round, and only here.
        "eliminated": [p for p in state.round.players if after[p] == 0],
    }
    return replace(state, stacks=stacks, settlement=settlement, last_round=last)


def to_act(state: RummyTable) -> list[str]:
    if not _running(state):
        return []
    assert state.round is not None
    player = state.round.to_act
    return [] if player is None else [player]


def turn_key(state: RummyTable, player: str) -> str | None:
    """The turn `player`'s clock is timing (`croupier.game.TracksTurns`).

    Rule 45 times a whole turn (draw, melds, lay-offs, discard), and the defender's
    lay-offs after a knock are one turn: the key is the number of the turn, so the
    host restarts the clock only when the turn passes to someone else. Each turn has
    its own key: the host resumes a paused turn with the same key where it stopped, so
    a key repeated on the seat's next turn (the round and seat once were the key) gave
    that turn only what the last one left, and an automatic turn none (runaway).
    """
    if player not in to_act(state):
        return None
    return str(state.turns)


def legal_actions(state: RummyTable, player: str) -> JSON:
    if state.round is None:
        return {"actions": []}
    return table.legal_actions(state.round, player)


def _table_part(state: RummyTable) -> JSON:
    return {
        "variant": state.rules.name,
        "players": state.players,
        "seats": list(state.seats),
        "stacks": dict(zip(state.seats, state.stacks, strict=True)),
        "round_fee": state.round_fee,
        "chip_ratio": state.chip_ratio,
        "round_number": state.rounds_started,
        "dealer": None if state.round is None else state.round.dealer,
        "last_round": state.last_round,
    }


def view(state: RummyTable, player: str) -> JSON:
    seen = _table_part(state)
    if state.round is not None:
        seen["round"] = table.view(state.round, player)
        seen["legal"] = table.legal_actions(state.round, player)
    return seen


def public_view(state: RummyTable) -> JSON:
    seen = _table_part(state)
    if state.round is not None:
        seen["round"] = table.view(state.round, "")
    return seen


def timeout_action(state: RummyTable, player: str) -> JSON:
    if state.round is None:
        raise RuleBroken("no round is running")
    return table.timeout_action(state.round, player)


def result(state: RummyTable) -> HandResult | None:
    """The round's settlement: chips only, no commission (Σ deltas = 0)."""
    outcome = None if state.round is None else state.round.result
    if outcome is None or state.settlement is None or state.last_round is None:
        return None
    return HandResult(
        hand_number=state.rounds_started,
        deltas=dict(state.settlement.deltas),
        details=dict(state.last_round),
    )


def randomness(seed: bytes) -> list[Any]:
    """The deck orders a seed gives, one per deck the variants use (dealt in that order)."""
    shapes = sorted({(rules.decks, rules.jokers) for rules in VARIANTS.values()})
    return [
        {
            "decks": decks,
            "jokers": jokers,
            "order": card_names(shuffled(standard_deck(decks, jokers), seed, "deck")),
        }
        for decks, jokers in shapes
    ]


def snapshot(state: RummyTable) -> JSON:
    snap: JSON = {
        **_table_part(state),
        "rounds_started": state.rounds_started,
        "turns": state.turns,
        "auto_players": sorted(state.auto.players),
        "all_automatic_since_ms": state.auto.all_since_ms,
        "round": None,
    }
    if state.round is not None:
        r = state.round
        snap["round"] = {
            "kind": "gin" if isinstance(r, GinState) else "laydown",
            "players": list(r.players),
            "dealer": r.dealer,
            "hands": {p: card_names(r.hands[i]) for i, p in enumerate(r.players)},
            "stock": card_names(r.stock),
            "discard_pile": card_names(r.discard_pile),
            "melds": [meld.to_json() for meld in r.table_melds],
            "phase": str(r.phase),
            "turn": r.turn,
            "result": None if r.result is None else str(r.result.ending),
        }
    return snap
