"""Backgammon's table rules as one object, `BackgammonRules`, a `croupier.game.GameRules`:
the host's commands go to `core.table` (seats, games one after another, leaving), and what
is read from a table is answered here: whose turn, views, the game's settlement, the dice.

Money: a single game settles after each game (capped payout, commission, rules 5 and
39-45); a series settles its stake once, when it ends (OQ 4); other games of a series end
with no money moving (every player named with 0). Commission is charged only in a
real-money currency and never at a tournament table (rules 2, 45), with the one
calculator (`croupier.game.commission`). At a real-money table the seats hold stacks
(`core.table`'s cover, rule 2): a result moves them by its deltas when it is reached, and
a player leaves with his (`player_left` says `stack`), what the host gives back
(`croupier.game.HoldsStacks`).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.backgammon.core import game, table
from croupier.backgammon.core.abandonment import Abandonment
from croupier.backgammon.core.errors import WrongPhase
from croupier.backgammon.core.table import BackgammonTable, awaiting_ready, may_ready
from croupier.game import JSON, ClockSettings, Event, HandResult, TableRules, TableTraits, Turn
from croupier.game.commands import Act, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.commission import backgammon_commission
from croupier.game.fairness import FairStream
from croupier.game.money import CURRENCIES

DEALT_DICE = 256  # how many dice of a seed a hand history lists

Step = tuple[BackgammonTable, list[Event]]


class BackgammonRules(TableRules[BackgammonTable]):
    name = "backgammon"
    # 2: a single game's successor waits for both players' `ready` (version 1 dealt it at
    # once; its logs are not replayed under these rules).
    version = "2"
    # The clocks of a table whose options state none: the seed's 3-minute reconnection
    # window (¶9, rule 11). The seed gives no turn or main clock durations (OQ 6); these
    # are proposals, tables set `turn_seconds` / `main_clock_seconds`.
    # OQ 6: every game starts with a full main clock (the host refills reserves per deal).
    traits = TableTraits(
        default_clock=ClockSettings(turn_ms=30_000, reserve_ms=300_000, reconnect_ms=180_000),
        reserve_per_hand=True,
    )

    def open(self, options: JSON) -> BackgammonTable:
        return table.open_table(options)

    def seat(self, state: BackgammonTable, command: SeatPlayer) -> Step:
        return table.seat(state, command.player, command.stack)

    def unseat(self, state: BackgammonTable, command: UnseatPlayer) -> Step:
        return self._pay(state, *table.unseat(state, command.player, command.evaluation))

    def start_hand(self, state: BackgammonTable, command: StartHand) -> Step:
        return table.start_game(state, command.seed)

    def act(self, state: BackgammonTable, command: Act) -> Step:
        after, events = table.act(state, command.player, command.action, by_clock=command.by_clock)
        return self._pay(state, after, events)

    def _pay(self, before: BackgammonTable, after: BackgammonTable, events: list[Event]) -> Step:
        """Real-money tables: the result a command reached moves the stacks by its deltas
        (what the wallet moves between the seats), and a player who left takes his stack
        with him (his `player_left` says how much)."""
        if not before.stacks:
            return after, events
        stacks = dict(after.stacks)
        result = self.result(after) if self.result(before) is None else None
        for player, delta in (result.deltas if result is not None else {}).items():
            stacks[player] = stacks.get(player, 0) + delta
        paid: list[Event] = []
        for event in events:
            leaver = event.data.get("player")
            if event.type == "player_left" and isinstance(leaver, str):
                event = Event(event.type, {**event.data, "stack": stacks.pop(leaver, 0)})
            paid.append(event)
        return replace(after, stacks=tuple(sorted(stacks.items()))), paid

    def stacks(self, state: BackgammonTable) -> dict[str, int]:
        """What each seated player would leave with now (`croupier.game.HoldsStacks`)."""
        return dict(state.stacks)

    def can_start_hand(self, state: BackgammonTable) -> bool:
        return table.can_start_hand(state)

    def turns(self, state: BackgammonTable) -> list[Turn]:
        """The player on roll or to answer, and which turn his clock is timing (rule 7):
        rolling and moving are one turn (same key), an answer to a double or a
        resignation is a decision of its own."""
        g = state.game
        if g is None or g.actor is None:
            return []
        decision = "turn" if g.phase in ("turn", "moving", "beavered") else str(g.phase)
        return [Turn(g.players[g.actor], f"{g.game_number}:{g.moves_made}:{decision}")]

    def legal_actions(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": ["ready"] if may_ready(state, player) else []}
        if may_ready(state, player):
            return {"actions": ["ready"]}
        if awaiting_ready(state):
            return {"actions": []}
        return game.legal_actions(state.game, player)

    def view(self, state: BackgammonTable, viewer: str | None) -> JSON:
        """The board as everybody sees it, and a player's own legal actions."""
        if state.game is None:
            seen: JSON = {"players": list(state.seats), "phase": "idle"}
        else:
            seen = game.public_view(state.game)
        seen["currency"] = state.currency
        if awaiting_ready(state):
            seen["ready"] = sorted(state.ready)
        if state.abandoned is not None:
            seen["abandoned"] = state.abandoned.public()
        if state.stacks:
            seen["stacks"] = dict(state.stacks)
        if viewer is not None and (
            (state.game is not None and viewer in state.game.players) or may_ready(state, viewer)
        ):
            seen["legal"] = self.legal_actions(state, viewer)
        return seen

    def timeout_action(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            raise WrongPhase("the game has not started")
        return game.timeout_action(state.game, player)

    def result(self, state: BackgammonTable) -> HandResult | None:
        """The settlement of the game that just ended (or was abandoned), None while it runs."""
        if state.abandoned is not None:
            return _abandonment_result(state, state.abandoned)
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
        return _money(state, g.players[winner], g.players[loser], m.amount, details)

    def randomness(self, seed: bytes) -> list[int]:
        """The dice a seed gives, in order (opening roll first; ties are re-rolled)."""
        stream = FairStream(seed, "dice")
        return [stream.die() for _ in range(DEALT_DICE)]

    def snapshot(self, state: BackgammonTable) -> JSON:
        document = {
            "seats": list(state.seats),
            "games_started": state.games_started,
            "currency": state.currency,
            "game": None if state.game is None else game.snapshot(state.game),
            "abandoned": None if state.abandoned is None else state.abandoned.public(),
            "ready": sorted(state.ready),
        }
        if state.stacks:  # absent at play-money tables: their digests are unchanged
            document["stacks"] = dict(state.stacks)
        return document


def _money(
    state: BackgammonTable, winner: str, loser: str, amount: int, details: JSON
) -> HandResult:
    commission = _commission(state, amount)
    return HandResult(
        hand_number=state.games_started,
        currency=state.currency,
        deltas={winner: amount - commission, loser: -amount},
        commission={winner: commission} if commission else {},
        details=details,
    )


def _commission(state: BackgammonTable, amount: int) -> int:
    """Total commission on `amount` passing (rules 39-45; real money only)."""
    if amount <= 0:
        return 0
    currency = CURRENCIES[state.currency]
    return backgammon_commission(amount, currency, tournament=state.options.tournament).total


def _abandonment_result(state: BackgammonTable, a: Abandonment) -> HandResult:
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
    return _money(state, a.payee, a.payer, a.amount, details)
