"""The rummy family as the table host runs it (`croupier.game.GameRules`).

Translation only, no rules (they live in `knock_game` / `laydown_game`, reached through
`croupier.rummy.table`): players sit; each `StartHand` deals a round from its seed (the
dealer moves one seat clockwise per round); `Act` carries conformance-notation actions
(on a clock expiry the host sends `timeout_action`: the auto-player, seed 000 rule 45;
`turn_key` makes the turn clock time a whole turn, not each action). A round whose
players have all been automatic for 5 minutes is cancelled, every fee given back (rule
46, OQ 24; `croupier.rummy.autoplay`, timed by the log's timestamps).
When a round ends it is settled in chips (seed 000 §10: fee into the pot, negative
points × chip ratio within what each side risked, the pot to the winner) and the seats'
stacks move by the deltas. A player left with 0 chips then is eliminated (seed 000 rules
9–10: checked only at the end of a round, and a short stack still plays): the seat is
kept (the player may leave) but is dealt no more rounds, which go on among the players
with chips while they are enough for the variant.

Options (plain JSON or protobuf JSON of `croupier.rummy.v1.Options`, enums by name such as
`VARIANT_GIN`, int64 as text): `variant` (required), `players` (the seats a round waits
for), `round_fee`, `chip_ratio` (default 1), `limit_to_winner_risk` (default true), and
for the host `turn_seconds`, `reconnect_seconds`, `reserve_seconds`, `currency`. Anything
else is refused by name. Without `players` (or 0) a round starts as soon as the variant's
minimum is seated, so under the host, which deals at once, a 3–4 player table needs it.

Views: the player's round view (own hand, discard pile, table melds, card counts) with the
player's legal actions, the seats and stacks, and `last_round` (the previous round's result
and settlement: the host deals the next round as soon as one ends). `ProtoCodec`: actions
from `croupier.rummy.v1.Action`, views as `croupier.rummy.v1.View`.

Registered in `croupier.table.games.ENGINE_MODULES` as "rummy".
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.message import Message

from croupier.game import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Malformed,
    RuleBroken,
    SeatPlayer,
    StartHand,
    UnseatPlayer,
)
from croupier.game.fairness import shuffled
from croupier.rummy import table
from croupier.rummy.autoplay import AutoPlay
from croupier.rummy.cards import CardError, card_names, parse_card, standard_deck
from croupier.rummy.knock_game import GinState
from croupier.rummy.settlement import Settlement
from croupier.rummy.v1 import rummy_pb2
from croupier.rummy.variant import VariantRules
from croupier.rummy.variants import VARIANTS

__all__ = [
    "ENGINE",
    "RummyEngine",
    "RummyTable",
    "action_from_message",
    "parse_options",
    "view_message",
]

OPTION_KEYS = frozenset(
    {
        "variant",
        "players",
        "round_fee",
        "chip_ratio",
        "limit_to_winner_risk",
        "turn_seconds",
        "reconnect_seconds",
        "reserve_seconds",
        "currency",
    }
)


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


def _integer(raw: JSON, key: str, default: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, (bool, float)):
        raise Malformed(f"options.{key} must be an integer")
    try:
        number = int(value)  # protobuf JSON writes int64 as text
    except (TypeError, ValueError):
        raise Malformed(f"options.{key} must be an integer") from None
    if number < 0:
        raise Malformed(f"options.{key} must not be negative")
    return number


def parse_options(raw: JSON) -> tuple[VariantRules, int, int, bool, int]:
    """(rules, round fee, chip ratio, winner-risk flag, players) from a table's options."""
    unknown = sorted(set(raw) - OPTION_KEYS)
    if unknown:
        known = ", ".join(sorted(OPTION_KEYS))
        raise Malformed(f"unknown rummy option(s) {', '.join(unknown)}; known: {known}")
    given = raw.get("variant", "")
    variant = str(given).lower().removeprefix("variant_")
    if not isinstance(given, str) or variant not in VARIANTS:
        names = ", ".join(sorted(VARIANTS))
        raise Malformed(f"options.variant {given!r} is not a rummy variant ({names})")
    rules = VARIANTS[variant]
    flag = raw.get("limit_to_winner_risk", True)
    if not isinstance(flag, bool):
        raise Malformed("options.limit_to_winner_risk must be true or false")
    for key in ("turn_seconds", "reconnect_seconds", "reserve_seconds"):
        _integer(raw, key, 0)
    players = _integer(raw, "players", 0)
    if players and not rules.min_players <= players <= rules.max_players:
        raise Malformed(
            f"options.players: {rules.name} is played by {rules.min_players} to "
            f"{rules.max_players} players, not {players}",
        )
    return rules, _integer(raw, "round_fee", 0), _integer(raw, "chip_ratio", 1), flag, players


class RummyEngine:
    name = "rummy"
    # 2: Rummy 40's discard ban, rule 9 eliminations, rule 46's cancel and per-turn clock
    # keys, and the dealer moving past eliminated seats deal version-1 logs differently.
    version = "2"
    # Seed 000 rule 45: after a timeout the player is in auto-player mode: the host plays
    # their turns (draw from the stock, discard it), paced by its clock, until they act.
    auto_play_after_timeout = True

    def open(self, options: JSON) -> RummyTable:
        rules, fee, ratio, flag, players = parse_options(options)
        return RummyTable(
            rules=rules,
            round_fee=fee,
            chip_ratio=ratio,
            limit_to_winner_risk=flag,
            players=players,
        )

    @staticmethod
    def _running(state: RummyTable) -> bool:
        return state.round is not None and state.round.result is None

    @staticmethod
    def _in_play(state: RummyTable) -> tuple[str, ...]:
        """The seats dealt the next round: every one not eliminated (rule 9: 0 chips)."""
        return tuple(p for p, stack in zip(state.seats, state.stacks, strict=True) if stack)

    @staticmethod
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

    def apply(self, state: RummyTable, command: Command) -> tuple[RummyTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            if self._running(state) or len(state.seats) >= (
                state.players or state.rules.max_players
            ):
                raise RuleBroken("no seat is free now")
            if command.player in state.seats:
                raise RuleBroken(f"{command.player!r} is already seated")
            if command.stack <= 0:
                raise Malformed("a rummy seat needs chips (stack > 0)")
            seated = replace(
                state, seats=(*state.seats, command.player), stacks=(*state.stacks, command.stack)
            )
            return seated, [Event("PlayerSeated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            dealt_in = state.round.players if state.round is not None else ()
            if self._running(state) and command.player in dealt_in:
                raise RuleBroken("a player cannot leave a running round")
            keep = [i for i, p in enumerate(state.seats) if p != command.player]
            left = replace(
                state,
                seats=tuple(state.seats[i] for i in keep),
                stacks=tuple(state.stacks[i] for i in keep),
                auto=state.auto.left(command.player),
            )
            if not self._running(state):  # an eliminated player may leave a running round
                left = replace(left, round=None, settlement=None)
            return left, [Event("PlayerLeft", {"player": command.player})]
        if isinstance(command, StartHand):
            if not self.can_start_hand(state):
                raise RuleBroken("no round can start now")
            players = self._in_play(state)
            dealer = self._next_dealer(state, players)
            dealt = table.start(state.rules, players, dealer, command.seed)
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
                    {
                        "round": started.rounds_started,
                        "dealer": dealer,
                        "players": list(players),
                    },
                )
            ]
        if isinstance(command, Act):
            if state.round is None:
                raise RuleBroken("no round is running")
            if "auto" in command.action and not command.by_clock:
                raise Malformed("the auto-player's discard is the clock's")
            if state.auto.cancels(command.by_clock, command.at_ms) and self._running(state):
                played = table.cancel(state.round)
                events = [
                    Event(
                        "RoundCancelled",
                        {"reason": "every player was automatic for 5 minutes (rule 46)"},
                    )
                ]
            else:
                # A finished round answers with its own reason ("no lay-offs on gin", ...).
                played, events = table.apply(state.round, command.player, command.action)
            auto = state.auto.after_act(
                played.players, command.player, command.by_clock, command.at_ms
            )
            turns = state.turns + (played.to_act != state.round.to_act)
            new = replace(state, round=played, auto=auto, turns=turns)
            if played.result is not None:
                new = self._settle(new)
                assert new.last_round is not None
                events.append(Event("RoundSettled", dict(new.last_round)))
                events += [
                    Event("PlayerEliminated", {"player": player})
                    for player in new.last_round["eliminated"]
                ]
            return new, events
        raise Malformed(f"unsupported command {command!r}")

    @staticmethod
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

    def can_start_hand(self, state: RummyTable) -> bool:
        return (
            not self._running(state)
            and (
                len(state.seats) == state.players
                if state.players
                else len(state.seats) <= state.rules.max_players
            )
            and len(self._in_play(state)) >= state.rules.min_players
        )

    def to_act(self, state: RummyTable) -> list[str]:
        if not self._running(state):
            return []
        assert state.round is not None
        player = state.round.to_act
        return [] if player is None else [player]

    def turn_key(self, state: RummyTable, player: str) -> str | None:
        """The turn `player`'s clock is timing (`croupier.game.TracksTurns`).

        Rule 45 times a whole turn (draw, melds, lay-offs, discard), and the defender's
        lay-offs after a knock are one turn: the key is the number of the turn, so the
        host restarts the clock only when the turn passes to someone else. Each turn has
        its own key: the host resumes a paused turn with the same key where it stopped, so
        a key repeated on the seat's next turn (the round and seat once were the key) gave
        that turn only what the last one left, and an automatic turn none (runaway).
        """
        if player not in self.to_act(state):
            return None
        return str(state.turns)

    def legal_actions(self, state: RummyTable, player: str) -> JSON:
        if state.round is None:
            return {"actions": []}
        return table.legal_actions(state.round, player)

    def _table_part(self, state: RummyTable) -> JSON:
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
            raise RuleBroken("no round is running")
        return table.timeout_action(state.round, player)

    def result(self, state: RummyTable) -> HandResult | None:
        """The round's settlement: chips only, no commission (Σ deltas = 0)."""
        outcome = None if state.round is None else state.round.result
        if outcome is None or state.settlement is None or state.last_round is None:
            return None
        return HandResult(
            hand_number=state.rounds_started,
            deltas=dict(state.settlement.deltas),
            details=dict(state.last_round),
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

    # ---- ProtoCodec (croupier.table.grpc_api) ---------------------------------------

    def action_from_message(self, message: Message) -> JSON:
        return action_from_message(message)

    def view_to_message(self, view: JSON) -> Any:
        """A `croupier.table.v1.GameView` holding the rummy view."""
        return _game_view_class()(rummy=view_message(view))


# ---- protobuf actions and views --------------------------------------------------------

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


def _game_view_class() -> Any:
    """`croupier.table.v1.GameView`, found in the protobuf pool the host loaded.

    Not imported: this package's purity test admits no croupier module beside the rummy
    ones and the engine interface (tests/rummy/test_purity.py), and the host, which calls
    this, has always loaded table.proto.
    """
    descriptor = descriptor_pool.Default().FindMessageTypeByName("croupier.table.v1.GameView")
    return message_factory.GetMessageClass(descriptor)


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


ENGINE = RummyEngine()
