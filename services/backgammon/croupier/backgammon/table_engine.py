"""Backgammon as the table host runs it (`croupier.game.GameRules`).

Translation only, no rules (they live in `croupier.backgammon.game`): two seats fill up;
each `StartHand` starts the next game with its seed (the opening roll and every later die
come from `FairStream(seed, "dice")`); `Act` carries conformance-notation actions
(`{"action": "roll"}`, `{"action": "move", "play": "8/5 6/5"}`, `double`, `take`, ...);
a clock expiry plays `{"action": "timeout"}` (OQ 5: that player loses: a single game at
the current cube x 1, a series as a whole; answering a double, it is a drop).

Next game: a series' games follow each other at once (one agreement, ¶4); after a
single (money) game the next one starts only when both players have sent
`{"action": "ready"}` (ACTION_KIND_READY): each money game is an amount agreed anew (¶2,
¶5), so a player is never dealt into another stake he did not ask for, and either may
leave instead (nothing is at stake between games).

Money: a single game settles after each game (capped payout, commission, rules 5 and
39-45); a series settles its stake once, when it ends (OQ 4); other games of a series
end with no money moving (every player named with 0). Amounts are minor units of the
table's `currency` option (default CHIP, the host's default); commission is charged only
in a real-money currency and never at a tournament table (rules 2, 45), with the
wallet's calculator (`croupier.game.commission`).

Leaving a running game (rule 12, OQ 7): the host asks `evaluate_abandonment` (GNU
Backgammon's evaluation, `croupier.backgammon.gnubg_bridge`) before logging the
`UnseatPlayer` and puts the answer in the command, so `apply` stays pure and a replay
never re-evaluates. A single game settles |E| x stake x cube (to the cent, capped at the
maximum) to the side the connected player's cubeful equity E favours; a series settles
its stake x |2 x MWC - 1| to the side the connected player's match winning chance MWC
favours (the proportional reading of ¶9: each side gets its expected share of the
stake). Commission applies as to any game. An `UnseatPlayer` of a running game without
an evaluation, or with one of another position, is refused.

To register it, the table host adds `"backgammon": "croupier.backgammon.table_engine"` to
`croupier.table.games.ENGINE_MODULES`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

from google.protobuf.message import Message

from croupier.backgammon import game
from croupier.backgammon.board import position_id
from croupier.backgammon.commission import abandoned_game_settlement
from croupier.backgammon.gnubg_bridge import GnubgError
from croupier.backgammon.gnubg_bridge import evaluate_abandonment as gnubg_evaluation
from croupier.backgammon.matchid import match_id
from croupier.backgammon.notation import IllegalPlay, parse_play
from croupier.backgammon.v1 import backgammon_pb2
from croupier.game import (
    JSON,
    Act,
    ClockSettings,
    Command,
    Event,
    HandResult,
    Malformed,
    RuleBroken,
    SeatPlayer,
    StartHand,
    Unknown,
    UnseatPlayer,
)
from croupier.game.commission import backgammon_commission
from croupier.game.fairness import FairStream
from croupier.game.limits import echo
from croupier.game.money import CURRENCIES
from croupier.table.v1 import table_pb2

__all__ = [
    "ENGINE",
    "Abandonment",
    "BackgammonEngine",
    "BackgammonTable",
    "action_from_message",
    "parse_currency",
    "parse_options",
    "view_message",
]

SEATS = 2
DEALT_DICE = 256  # how many dice of a seed a hand history lists
DEFAULT_CURRENCY = "CHIP"  # the host's default (TableHost(currency=...))


def parse_options(raw: JSON) -> game.Options:
    """Table options (protobuf JSON of croupier.backgammon.v1.Options, or plain values)."""
    name = str(raw.get("mode", "single")).lower()
    name = {"mode_single": "single", "mode_series": "match", "series": "match"}.get(name, name)
    if name not in ("single", "match"):
        raise Malformed(f"mode must be single or series, not {echo(name)}")
    mode = game.Mode(name)

    def number(key: str, default: int | None) -> int | None:
        value = raw.get(key, default)
        if value is None:
            return None
        try:
            return int(value)  # protobuf JSON writes int64 as text
        except (TypeError, ValueError):
            raise Malformed(f"{key} must be an integer") from None

    if mode == "match" and raw.get("beaver"):
        raise Malformed("beavers are a single-game option (rule 19)")
    options = game.Options(
        mode=mode,
        stake=number("stake", 0) or 0,
        max_win=number("max_win", None),
        beaver=bool(raw.get("beaver", False)),
        points=number("points", 0) or 0,
        crawford=bool(raw.get("crawford", True)),
        tournament=bool(raw.get("tournament", False)),
    )
    options.validate()
    return options


def parse_currency(raw: JSON) -> str:
    """The table's currency option (a code the wallet knows); CHIP when absent."""
    code = str(raw.get("currency") or DEFAULT_CURRENCY).upper()
    if code not in CURRENCIES:
        known = ", ".join(sorted(CURRENCIES))
        raise Malformed(f"unknown currency {echo(code)}; known: {known}")
    return code


@dataclass(frozen=True)
class Abandonment:
    """A running game (or series) settled because a player left (rule 12, OQ 7)."""

    leaver: str
    player: str  # the connected player, whose value the evaluation states
    value: str  # money: equity E (stake x cube units); series: match winning chance
    kind: str  # "equity" | "mwc"
    payee: str | None
    payer: str | None
    amount: int
    details: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class BackgammonTable:
    options: game.Options
    seats: tuple[str, ...] = ()
    game: game.State | None = None
    games_started: int = 0
    currency: str = DEFAULT_CURRENCY
    abandoned: Abandonment | None = None
    ready: frozenset[str] = frozenset()  # players ready for the next single game


class BackgammonEngine:
    name = "backgammon"
    # 2: a single game's successor waits for both players' `ready` (version 1 dealt it at
    # once; its logs are not replayed under these rules).
    version = "2"
    # Seed defaults for the host (not applied by it yet): the 3-minute reconnection
    # window (¶9, rule 11). The seed gives no turn or main clock durations (OQ 6); these
    # are proposals, tables set `turn_seconds` / `main_clock_seconds`.
    default_clock = ClockSettings(turn_ms=30_000, reserve_ms=300_000, reconnect_ms=180_000)
    # OQ 6: every game starts with a full main clock (the host refills reserves per deal).
    reserve_per_hand = True

    def open(self, options: JSON) -> BackgammonTable:
        parsed, currency = parse_options(options), parse_currency(options)
        if parsed.tournament and CURRENCIES[currency].carries_commission:
            # Tournament games are played for the tournament's chips; the money (entry,
            # fee, prizes) moves through the tournament's own wallet operations.
            raise Malformed("a tournament table plays for chips: use currency CHIP")
        return BackgammonTable(options=parsed, currency=currency)

    def apply(
        self, state: BackgammonTable, command: Command
    ) -> tuple[BackgammonTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            if state.game is not None or len(state.seats) >= SEATS:
                raise RuleBroken("the table is full")
            if command.player in state.seats:
                raise RuleBroken(f"{echo(command.player)} is already seated")
            seated = replace(state, seats=(*state.seats, command.player))
            return seated, [Event("player_seated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            if command.player not in state.seats:
                raise Unknown(f"{echo(command.player)} is not seated at this table")
            if state.game is not None and self._at_stake(state.game):
                return self._abandon(state, command.player, command.evaluation)
            seats = tuple(p for p in state.seats if p != command.player)
            left = replace(state, seats=seats, game=None, ready=frozenset())
            return left, [Event("player_left", {"player": command.player})]
        if isinstance(command, StartHand):
            if not self.can_start_hand(state):
                raise RuleBroken("no game can start now")
            current = state.game or game.new_table(state.options, state.seats)
            started, events = game.start_game(current, seed=command.seed)
            started_table = replace(
                state,
                game=started,
                games_started=state.games_started + 1,
                abandoned=None,
                ready=frozenset(),
            )
            return started_table, events
        if isinstance(command, Act):
            if state.game is None:
                raise RuleBroken("the game has not started")
            if command.action.get("action") == "timeout" and not command.by_clock:
                raise Malformed("a loss on time is the clock's to declare")
            if command.action.get("action") == "ready":
                return self._ready(state, command.player)
            _check_play_text(command.action)
            new_game, events = game.apply(state.game, command.player, command.action)
            return replace(state, game=new_game), events
        raise Malformed(f"unsupported command {command!r}")

    @staticmethod
    def _awaiting_ready(state: BackgammonTable) -> bool:
        """A single game is over and the next waits for both players' `ready`."""
        g = state.game
        return g is not None and g.options.mode == "single" and g.phase == "game_over"

    def _ready(self, state: BackgammonTable, player: str) -> tuple[BackgammonTable, list[Event]]:
        if player not in state.seats:
            raise Unknown(f"{echo(player)} is not seated at this table")
        if not self._awaiting_ready(state):
            raise RuleBroken(
                "ready is for the next single game, once the last one is over",
            )
        if player in state.ready:
            raise RuleBroken("you are already ready for the next game")
        ready = replace(state, ready=state.ready | {player})
        return ready, [Event("player_ready", {"player": player})]

    @staticmethod
    def _at_stake(g: game.State) -> bool:
        """A game runs, or a series is between two games: leaving must be settled."""
        return g.phase != "idle" and not g.complete

    def _abandon(
        self, state: BackgammonTable, leaver: str, evaluation: JSON | None
    ) -> tuple[BackgammonTable, list[Event]]:
        g = state.game
        assert g is not None
        if evaluation is None:
            raise RuleBroken(
                "a running game is left only with GNU Backgammon's evaluation of its "
                "position (the table host asks for it)",
            )
        connected = 1 - g.index(leaver)
        if (
            evaluation.get("player") != g.players[connected]
            or evaluation.get("position_id") != position_id(g.board)
            or evaluation.get("match_id") != match_id(game.match_key(g))
        ):
            raise RuleBroken("the evaluation is of another position or player")
        series = g.options.mode == "match"
        kind = "mwc" if series else "equity"
        try:
            value = Decimal(str(evaluation[kind]))
        except (KeyError, InvalidOperation):
            raise Malformed(f"the evaluation has no numeric {kind!r}") from None
        if not value.is_finite():
            raise Malformed(f"the evaluation's {kind} is not finite")
        if series:
            if not Decimal(0) <= value <= Decimal(1):
                raise Malformed("a match winning chance lies in [0, 1]")
            mine = 2 * value - 1  # the connected player's share of the series stake
            cube, cap = 1, None
        else:
            mine, cube, cap = value, g.cube, g.options.max_win
        # abandoned_game_settlement takes player 0's equity, at most 3 cube units; a
        # pending double or beaver is valued on a larger cube (same amount).
        e0 = mine if connected == 0 else -mine
        while abs(e0) > 3 and cube < 4 * g.cube:
            e0, cube = e0 / 2, cube * 2
        if abs(e0) > 3:
            raise Malformed(f"{kind} {value} is out of range")
        moved = abandoned_game_settlement(e0, g.options.stake, cube, cap, tournament=True)
        amount = moved.settlement.amount
        payee = None if moved.payee is None else g.players[moved.payee]
        payer = None if moved.payer is None else g.players[moved.payer]
        record = Abandonment(
            leaver=leaver,
            player=g.players[connected],
            value=str(value),
            kind=kind,
            payee=payee,
            payer=payer,
            amount=amount,
            details={
                "evaluator": evaluation.get("evaluator", ""),
                "position_id": evaluation["position_id"],
                "match_id": evaluation["match_id"],
                "phase": str(g.phase),
                "cube": g.cube,
                "score": {g.players[0]: g.score[0], g.players[1]: g.score[1]},
            },
        )
        seats = tuple(p for p in state.seats if p != leaver)
        left = replace(state, seats=seats, game=None, abandoned=record)
        event = Event(
            "game_abandoned",
            {
                "player": leaver,
                "evaluated_for": record.player,
                kind: record.value,
                "amount": amount,
                "to": payee,
            },
        )
        return left, [event, Event("player_left", {"player": leaver})]

    def _commission(self, state: BackgammonTable, amount: int) -> int:
        """Total commission on `amount` passing (rules 39-45; real money only)."""
        if amount <= 0:
            return 0
        currency = CURRENCIES[state.currency]
        return backgammon_commission(amount, currency, tournament=state.options.tournament).total

    async def evaluate_abandonment(self, state: BackgammonTable, player: str) -> JSON | None:
        """GNU Backgammon's evaluation of `player` leaving now (the host's hook)."""
        g = state.game
        if g is None or player not in g.players or not self._at_stake(g):
            return None
        try:
            return await gnubg_evaluation(g, player)
        except (GnubgError, OSError, ValueError, KeyError) as exc:
            raise RuleBroken(f"the position could not be evaluated now: {exc}") from exc

    def can_start_hand(self, state: BackgammonTable) -> bool:
        if len(state.seats) != SEATS:
            return False
        if state.game is None:
            return True
        g = state.game
        if g.phase not in ("idle", "game_over"):
            return False
        if self._awaiting_ready(state):
            return set(state.seats) <= state.ready
        return not (g.options.mode == "match" and g.match_winner is not None)

    def to_act(self, state: BackgammonTable) -> list[str]:
        if state.game is None or state.game.actor is None:
            return []
        return [state.game.players[state.game.actor]]

    def turn_key(self, state: BackgammonTable, player: str) -> str | None:
        """Which turn `player`'s clock is timing (rule 7), for a host that restarts a turn
        clock only when this changes: rolling and moving are one turn (same key), an
        answer to a double or a resignation is a decision of its own. None: not acting.
        (The host does not ask for it yet; it restarts the clock on every action.)"""
        g = state.game
        if g is None or g.actor is None or g.players[g.actor] != player:
            return None
        decision = "turn" if g.phase in ("turn", "moving", "beavered") else str(g.phase)
        return f"{g.game_number}:{g.moves_made}:{decision}"

    def legal_actions(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": []}
        if self._awaiting_ready(state):
            ready = player in state.seats and player not in state.ready
            return {"actions": ["ready"] if ready else []}
        return game.legal_actions(state.game, player)

    def view(self, state: BackgammonTable, player: str) -> JSON:
        view = self.public_view(state)
        if state.game is not None and player in state.game.players:
            view["legal"] = self.legal_actions(state, player)
        return view

    def public_view(self, state: BackgammonTable) -> JSON:
        if state.game is None:
            view: JSON = {"players": list(state.seats), "phase": "idle"}
        else:
            view = game.public_view(state.game)
        view["currency"] = state.currency
        if self._awaiting_ready(state):
            view["ready"] = sorted(state.ready)
        if state.abandoned is not None:
            a = state.abandoned
            view["abandoned"] = {
                "player": a.leaver,
                "evaluated_for": a.player,
                a.kind: a.value,
                "amount": a.amount,
                "to": a.payee,
            }
        return view

    def timeout_action(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            raise RuleBroken("the game has not started")
        return game.timeout_action(state.game, player)

    def result(self, state: BackgammonTable) -> HandResult | None:
        if state.abandoned is not None:
            return self._abandonment_result(state, state.abandoned)
        g = state.game
        if g is None or g.phase != "game_over" or g.last_result is None:
            return None
        r = g.last_result
        details: JSON = {
            "winner": g.players[r.winner],
            "result": r.result,
            "cube": r.cube,
            "points": r.points,
            "how": r.how,
        }
        if g.options.mode == "match":
            details["score"] = {g.players[0]: g.score[0], g.players[1]: g.score[1]}
            details["match_winner"] = None if g.match_winner is None else g.players[g.match_winner]
        money = game.settlement(g)
        if money is None:  # a game inside a series: points, no money (OQ 4)
            return HandResult(
                hand_number=state.games_started,
                currency=state.currency,
                deltas=dict.fromkeys(g.players, 0),
                details=details,
            )
        winner, loser, m = money
        details["amount"] = m.amount
        return self._money(state, g.players[winner], g.players[loser], m.amount, details)

    def _money(
        self, state: BackgammonTable, winner: str, loser: str, amount: int, details: JSON
    ) -> HandResult:
        commission = self._commission(state, amount)
        return HandResult(
            hand_number=state.games_started,
            currency=state.currency,
            deltas={winner: amount - commission, loser: -amount},
            commission={winner: commission} if commission else {},
            details=details,
        )

    def _abandonment_result(self, state: BackgammonTable, a: Abandonment) -> HandResult:
        details: JSON = {
            "how": "abandoned",
            "left": a.leaver,
            "evaluated_for": a.player,
            a.kind: a.value,
            "amount": a.amount,
            "winner": a.payee,
            **a.details,
        }
        if a.payee is None or a.payer is None:
            return HandResult(
                hand_number=state.games_started,
                currency=state.currency,
                deltas={a.leaver: 0, a.player: 0},
                details=details,
            )
        return self._money(state, a.payee, a.payer, a.amount, details)

    def randomness(self, seed: bytes) -> list[int]:
        """The dice a seed gives, in order (opening roll first; ties are re-rolled)."""
        stream = FairStream(seed, "dice")
        return [stream.die() for _ in range(DEALT_DICE)]

    def snapshot(self, state: BackgammonTable) -> JSON:
        return {
            "seats": list(state.seats),
            "games_started": state.games_started,
            "currency": state.currency,
            "game": None if state.game is None else game.snapshot(state.game),
            "abandoned": None if state.abandoned is None else self.public_view(state)["abandoned"],
            "ready": sorted(state.ready),
        }

    # ---- ProtoCodec (croupier.table.grpc_api): protobuf actions and views ------------

    def action_from_message(self, message: Message) -> JSON:
        return action_from_message(message)

    def view_to_message(self, view: JSON) -> table_pb2.GameView:
        return table_pb2.GameView(backgammon=view_message(view))


def _check_play_text(action: JSON) -> None:
    """A move whose play cannot be read is malformed (INVALID_ARGUMENT); one that reads
    but is not legal for the roll is refused by the engine (FAILED_PRECONDITION)."""
    play = action.get("play") if isinstance(action, dict) else None
    if action.get("action") == "move" and isinstance(play, str):
        try:
            parse_play(play)
        except IllegalPlay as exc:
            raise Malformed(str(exc)) from None


ACTION_NAMES = {
    backgammon_pb2.ACTION_KIND_ROLL: "roll",
    backgammon_pb2.ACTION_KIND_MOVE: "move",
    backgammon_pb2.ACTION_KIND_DOUBLE: "double",
    backgammon_pb2.ACTION_KIND_TAKE: "take",
    backgammon_pb2.ACTION_KIND_DROP: "drop",
    backgammon_pb2.ACTION_KIND_BEAVER: "beaver",
    backgammon_pb2.ACTION_KIND_RESIGN: "resign",
    backgammon_pb2.ACTION_KIND_ACCEPT: "accept",
    backgammon_pb2.ACTION_KIND_REJECT: "reject",
    backgammon_pb2.ACTION_KIND_AUTO_MOVE: "auto_move",
    backgammon_pb2.ACTION_KIND_READY: "ready",
}
ACTION_FIELDS = {"move": {"play"}, "resign": {"level"}, "auto_move": {"on"}}
RESULT_ENUMS = {
    "single": backgammon_pb2.RESULT_SINGLE,
    "gammon": backgammon_pb2.RESULT_GAMMON,
    "backgammon": backgammon_pb2.RESULT_BACKGAMMON,
}


def action_from_message(message: Message) -> JSON:
    """A `croupier.backgammon.v1.Action` in the conformance notation; refuses malformed ones.

    MOVE carries `play` (gnubg notation, "" when no checker can move), RESIGN `level`
    (default single), AUTO_MOVE `on`; the other kinds carry nothing. Whether the action is
    legal now is the engine's decision.
    """
    if not isinstance(message, backgammon_pb2.Action):
        raise Malformed("a backgammon action is a croupier.backgammon.v1.Action")
    name = ACTION_NAMES.get(message.kind)
    if name is None:
        raise Malformed("an action needs its kind (roll, move, double, ...)")
    present = {f.name for f, _ in message.ListFields()} - {"kind"}
    stray = sorted(present - ACTION_FIELDS.get(name, set()))
    if stray:
        raise Malformed(f"a {name} action carries no {', '.join(stray)}")
    action: JSON = {"action": name}
    if name == "move":
        action["play"] = message.play
    elif name == "resign":
        action["level"] = message.level or "single"
    elif name == "auto_move":
        action["on"] = message.on
    return action


def view_message(view: JSON) -> backgammon_pb2.View:
    """The JSON view (`public_view` / `view`) as a `croupier.backgammon.v1.View`."""
    message = backgammon_pb2.View(
        phase=str(view.get("phase", "")),
        position_id=str(view.get("position_id") or ""),
        match_id=str(view.get("match_id") or ""),
        to_act=str(view.get("to_act") or ""),
        on_roll=str(view.get("on_roll") or ""),
        dice=list(view.get("dice") or []),
        cube=int(view.get("cube", 1)),
        cube_owner=str(view.get("cube_owner") or ""),
        score={str(p): int(v) for p, v in (view.get("score") or {}).items()},
        crawford=bool(view.get("crawford", False)),
        game_number=int(view.get("game", 0)),
        resignation=str(view.get("resignation") or ""),
        currency=str(view.get("currency", "")),
        ready=[str(p) for p in view.get("ready") or []],
    )
    legal = view.get("legal") or {}
    message.actions.extend(str(a) for a in legal.get("actions", []))
    if "move" in legal.get("actions", []):
        message.legal_plays.extend(str(p) for p in legal.get("plays", []))
    last = view.get("last_result")
    if last:
        message.last_result.CopyFrom(
            backgammon_pb2.GameResult(
                winner=str(last["winner"]),
                result=RESULT_ENUMS.get(str(last["result"]), backgammon_pb2.RESULT_UNSPECIFIED),
                cube=int(last["cube"]),
                points=int(last["points"]),
                how=str(last["how"]),
            )
        )
    gone = view.get("abandoned")
    if gone:
        message.abandoned.CopyFrom(
            backgammon_pb2.Abandonment(
                player=str(gone["player"]),
                evaluated_for=str(gone["evaluated_for"]),
                equity=str(gone.get("equity", "")),
                mwc=str(gone.get("mwc", "")),
                amount=int(gone["amount"]),
                to=str(gone.get("to") or ""),
            )
        )
    return message


ENGINE = BackgammonEngine()
