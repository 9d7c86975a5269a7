"""A rummy table: seats with chips, rounds dealt one after another, each settled in chips.

Players sit with a stack; each round is dealt from its seed (`start_round`; the dealer
moves one seat clockwise per round); actions are in the conformance notation (`act`; on
a clock expiry the host sends the auto-player's action, seed 000 rule 45; the turn clock
times a whole turn, not each action: `core.table_rules`). A round whose
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

The round itself, of either family, is `croupier.rummy.core.table`'s; what is read from a
table (turns, views, the settlement) is `core.table_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from croupier.game import JSON, Event, Malformed, RuleBroken
from croupier.rummy.core import table
from croupier.rummy.core.autoplay import AutoPlay
from croupier.rummy.core.settlement import Settlement
from croupier.rummy.core.table_options import parse_options
from croupier.rummy.core.variant import VariantRules

__all__ = [
    "RummyTable",
    "act",
    "can_start_round",
    "open_table",
    "round_running",
    "seat",
    "start_round",
    "unseat",
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


def round_running(state: RummyTable) -> bool:
    """A round was dealt and has not ended."""
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
    if round_running(state) or len(state.seats) >= (state.players or state.rules.max_players):
        raise RuleBroken("no seat is free now")
    if player in state.seats:
        raise RuleBroken(f"{player!r} is already seated")
    if stack <= 0:
        raise Malformed("a rummy seat needs chips (stack > 0)")
    seated = replace(state, seats=(*state.seats, player), stacks=(*state.stacks, stack))
    return seated, [Event("PlayerSeated", {"player": player})]


def unseat(state: RummyTable, player: str) -> tuple[RummyTable, list[Event]]:
    dealt_in = state.round.players if state.round is not None else ()
    if round_running(state) and player in dealt_in:
        raise RuleBroken("a player cannot leave a running round")
    keep = [i for i, p in enumerate(state.seats) if p != player]
    left = replace(
        state,
        seats=tuple(state.seats[i] for i in keep),
        stacks=tuple(state.stacks[i] for i in keep),
        auto=state.auto.left(player),
    )
    if not round_running(state):  # an eliminated player may leave a running round
        left = replace(left, round=None, settlement=None)
    return left, [Event("PlayerLeft", {"player": player})]


def can_start_round(state: RummyTable) -> bool:
    return (
        not round_running(state)
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
    if state.auto.cancels(by_clock, at_ms) and round_running(state):
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
