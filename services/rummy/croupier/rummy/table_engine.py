"""The rummy family as the table host runs it (`croupier.table.engine.GameEngine`).

Translation only, no rules (they live in `knock_game` / `laydown_game`, reached through
`croupier.rummy.table`): players sit; each `StartHand` deals a round from its seed (the
dealer moves one seat clockwise per round); `Act` carries conformance-notation actions
(on a clock expiry the host sends `timeout_action`: the auto-player, seed 000 rule 45).
When a round ends it is settled in chips (seed 000 §10: fee into the pot, negative
points × chip ratio within what each side risked, the pot to the winner) and the seats'
stacks move by the deltas.

Options (plain JSON or protobuf JSON of `croupier.rummy.v1.Options`): `variant`,
`round_fee`, `chip_ratio`, `limit_to_winner_risk` (default true).

To register it, the table host adds `"rummy": "croupier.rummy.table_engine"` to
`croupier.table.games.ENGINE_MODULES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from croupier.kit.fairness import shuffled
from croupier.rummy import table
from croupier.rummy.cards import card_names, standard_deck
from croupier.rummy.knock_game import GinState
from croupier.rummy.settlement import Settlement
from croupier.rummy.variant import VariantRules
from croupier.rummy.variants import VARIANTS
from croupier.table.engine import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Rejected,
    SeatPlayer,
    StartHand,
    UnseatPlayer,
)

__all__ = ["ENGINE", "RummyEngine", "RummyTable"]


@dataclass(frozen=True)
class RummyTable:
    rules: VariantRules
    round_fee: int
    chip_ratio: int
    limit_to_winner_risk: bool = True
    seats: tuple[str, ...] = ()
    stacks: tuple[int, ...] = ()
    round: table.RoundState | None = None
    rounds_started: int = 0
    settlement: Settlement | None = None


def _integer(raw: JSON, key: str, default: int) -> int:
    value = raw.get(key, default)
    try:
        number = int(value)  # protobuf JSON writes int64 as text
    except (TypeError, ValueError):
        raise Rejected("invalid_argument", f"{key} must be an integer") from None
    if number < 0:
        raise Rejected("invalid_argument", f"{key} must not be negative")
    return number


def parse_options(raw: JSON) -> tuple[VariantRules, int, int, bool]:
    variant = str(raw.get("variant", "")).lower().removeprefix("variant_")
    if variant not in VARIANTS:
        raise Rejected("invalid_argument", f"unknown rummy variant {raw.get('variant')!r}")
    flag = raw.get("limit_to_winner_risk", True)
    return (
        VARIANTS[variant],
        _integer(raw, "round_fee", 0),
        _integer(raw, "chip_ratio", 1),
        bool(flag),
    )


class RummyEngine:
    name = "rummy"
    version = "1"

    def open(self, options: JSON) -> RummyTable:
        rules, fee, ratio, flag = parse_options(options)
        return RummyTable(rules=rules, round_fee=fee, chip_ratio=ratio, limit_to_winner_risk=flag)

    @staticmethod
    def _running(state: RummyTable) -> bool:
        return state.round is not None and state.round.result is None

    def apply(self, state: RummyTable, command: Command) -> tuple[RummyTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            if self._running(state) or len(state.seats) >= state.rules.max_players:
                raise Rejected("failed_precondition", "no seat is free now")
            if command.player in state.seats:
                raise Rejected("failed_precondition", f"{command.player!r} is already seated")
            seated = replace(
                state, seats=(*state.seats, command.player), stacks=(*state.stacks, command.stack)
            )
            return seated, [Event("PlayerSeated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            if self._running(state) and command.player in state.seats:
                raise Rejected("failed_precondition", "a player cannot leave a running round")
            keep = [i for i, p in enumerate(state.seats) if p != command.player]
            left = replace(
                state,
                seats=tuple(state.seats[i] for i in keep),
                stacks=tuple(state.stacks[i] for i in keep),
                round=None,
                settlement=None,
            )
            return left, [Event("PlayerLeft", {"player": command.player})]
        if isinstance(command, StartHand):
            if not self.can_start_hand(state):
                raise Rejected("failed_precondition", "no round can start now")
            dealer = state.seats[state.rounds_started % len(state.seats)]
            dealt = table.start(state.rules, state.seats, dealer, command.seed)
            started = replace(
                state, round=dealt, rounds_started=state.rounds_started + 1, settlement=None
            )
            return started, [
                Event("RoundStarted", {"dealer": dealer, "players": list(state.seats)})
            ]
        if isinstance(command, Act):
            if state.round is None or state.round.result is not None:
                raise Rejected("failed_precondition", "no round is running")
            played, events = table.apply(state.round, command.player, command.action)
            new = replace(state, round=played)
            if played.result is not None:
                new = self._settle(new)
                assert new.settlement is not None
                events.append(Event("RoundSettled", {"deltas": dict(new.settlement.deltas)}))
            return new, events
        raise Rejected("invalid_argument", f"unsupported command {command!r}")

    @staticmethod
    def _settle(state: RummyTable) -> RummyTable:
        assert state.round is not None
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
        return replace(state, stacks=stacks, settlement=settlement)

    def can_start_hand(self, state: RummyTable) -> bool:
        seated = len(state.seats)
        return (
            not self._running(state)
            and state.rules.min_players <= seated <= state.rules.max_players
            and all(stack > 0 for stack in state.stacks)
        )

    def to_act(self, state: RummyTable) -> list[str]:
        if not self._running(state):
            return []
        assert state.round is not None
        player = state.round.to_act
        return [] if player is None else [player]

    def legal_actions(self, state: RummyTable, player: str) -> JSON:
        if state.round is None:
            return {"actions": []}
        return table.legal_actions(state.round, player)

    def _table_part(self, state: RummyTable) -> JSON:
        return {
            "variant": state.rules.name,
            "seats": list(state.seats),
            "stacks": dict(zip(state.seats, state.stacks, strict=True)),
            "round_fee": state.round_fee,
            "chip_ratio": state.chip_ratio,
        }

    def view(self, state: RummyTable, player: str) -> JSON:
        seen = self._table_part(state)
        if state.round is not None:
            seen["round"] = table.view(state.round, player)
            seen["legal"] = table.legal_actions(state.round, player)
        return seen

    def public_view(self, state: RummyTable) -> JSON:
        seen = self._table_part(state)
        if state.round is not None:
            seen["round"] = table.view(state.round, "")
        return seen

    def timeout_action(self, state: RummyTable, player: str) -> JSON:
        if state.round is None:
            raise Rejected("failed_precondition", "no round is running")
        return table.timeout_action(state.round, player)

    def result(self, state: RummyTable) -> HandResult | None:
        outcome = None if state.round is None else state.round.result
        if outcome is None or state.settlement is None:
            return None
        s = state.settlement
        return HandResult(
            hand_number=state.rounds_started,
            deltas=dict(s.deltas),
            details={
                "ending": str(outcome.ending),
                "winner": outcome.winner,
                "deadwood": dict(outcome.deadwood),
                "penalty": dict(outcome.penalty),
                "scores": dict(outcome.scores),
                "fees": dict(s.fees),
                "pot": s.pot,
                "chips_paid": dict(s.chips_paid),
                "chips_won": s.chips_won,
                "tournament_points": dict(s.tournament_points),
            },
        )

    def randomness(self, seed: bytes) -> list[Any]:
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

    def snapshot(self, state: RummyTable) -> JSON:
        snap: JSON = {
            **self._table_part(state),
            "rounds_started": state.rounds_started,
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


ENGINE = RummyEngine()
