"""A table as the host sees it, and the one pure step that applies a log entry to it.

`step` is used both live (to check a command before it is logged) and in replay (to
rebuild a table from its log), so a rebuilt table cannot differ from the lost one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from croupier.game import (
    Act,
    Command,
    Event,
    GameRules,
    HandResult,
    Malformed,
    RuleBroken,
    SeatPlayer,
    StartHand,
    Unknown,
    UnseatPlayer,
)
from croupier.game.fairness import commitment
from croupier.table.core.clocks import Clocks
from croupier.table.core.log_entry import LogEntry


@dataclass(frozen=True)
class Settlement:
    """A finished hand's result, to be asked of the wallet once."""

    hand_number: int
    result: HandResult
    seed_hex: str


@dataclass(frozen=True)
class TableState:
    table_id: str
    game: str
    options: dict[str, Any]
    engine_state: Any
    clocks: Clocks
    index: int = 0
    seated: tuple[str, ...] = ()
    hand_number: int = 0
    hand_seed_hex: str = ""
    hand_first_index: int = 0
    settled_hand: int = 0
    closing: bool = False  # closed while a hand was open: closes when that hand settles
    closed: bool = False
    # Seated players whose session ended, with the time (ms) their reconnection window
    # opened: logged ("disconnect"), so a rebuilt table resumes every window where it was.
    disconnected: tuple[tuple[str, int], ...] = ()

    @property
    def hand_seed_sha256(self) -> str:
        """The latest hand's commitment ("" before any hand): public from its deal on."""
        return commitment(bytes.fromhex(self.hand_seed_hex)) if self.hand_seed_hex else ""

    @property
    def hand_open(self) -> bool:
        """A hand was dealt and has not been settled yet."""
        return self.hand_number > self.settled_hand

    def digest(self, engine: GameRules[Any]) -> str:
        """SHA-256 over everything that defines the table: compared after a rebuild."""
        document = {
            "table_id": self.table_id,
            "index": self.index,
            "seated": list(self.seated),
            "hand_number": self.hand_number,
            "settled_hand": self.settled_hand,
            "closing": self.closing,
            "closed": self.closed,
            "clocks": {
                "started": dict(sorted(self.clocks.turn_started_ms.items())),
                "reserve": dict(sorted(self.clocks.reserve_left_ms.items())),
                "auto": sorted(self.clocks.auto_players),
                "keys": dict(sorted(self.clocks.turn_keys.items())),
                "paused": {p: list(v) for p, v in sorted(self.clocks.paused.items())},
                "allowances": dict(sorted(self.clocks.allowances.items())),
            },
            "engine": engine.snapshot(self.engine_state),
        }
        if self.disconnected:  # absent when empty: digests from before it are unchanged
            document["disconnected"] = sorted(self.disconnected)
        encoded = json.dumps(document, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(encoded.encode()).hexdigest()


@dataclass(frozen=True)
class StepOutcome:
    state: TableState
    events: list[Event]
    settlement: Settlement | None = None


def _command(engine: GameRules[Any], state: TableState, entry: LogEntry) -> Command | None:
    body = entry.body
    if entry.kind == "seat":
        return SeatPlayer(
            player=entry.player,
            seat=int(body.get("seat", 0)),
            stack=int(body.get("stack", 0)),
            is_bot=bool(body.get("is_bot", False)),
            invite_code=str(body.get("invite_code", "")),
        )
    if entry.kind == "unseat":
        evaluation = body.get("evaluation")
        return UnseatPlayer(entry.player, dict(evaluation) if evaluation is not None else None)
    if entry.kind == "start_hand":
        return StartHand(bytes.fromhex(str(body["seed"])))
    if entry.kind == "act":
        return Act(entry.player, dict(body["action"]), at_ms=entry.at_ms)
    if entry.kind == "timeout":
        action = engine.timeout_action(state.engine_state, entry.player)
        return Act(entry.player, action, by_clock=True, at_ms=entry.at_ms)
    if entry.kind == "close":
        return None
    raise Malformed(f"unknown command kind {entry.kind!r}")


def _auto_players(auto: frozenset[str], entry: LogEntry) -> frozenset[str]:
    """A timeout puts the player in auto-player mode; their own action or leaving ends it."""
    if entry.kind == "timeout":
        return auto | {entry.player}
    if entry.kind in ("act", "unseat"):
        return auto - {entry.player}
    return auto


# A seated player's session ended, or he is back: the game is not told (the clock runs on).
PRESENCE_KINDS = ("disconnect", "reconnect")


def _presence(
    disconnected: tuple[tuple[str, int], ...], entry: LogEntry
) -> tuple[tuple[str, int], ...]:
    """Who is away after `entry`: a disconnection opens a window (a second one keeps the
    first); coming back, acting, taking a seat or leaving it closes it."""
    if entry.kind == "disconnect":
        if any(player == entry.player for player, _ in disconnected):
            return disconnected
        return (*disconnected, (entry.player, entry.at_ms))
    if entry.kind in ("reconnect", "act", "seat", "unseat"):
        return tuple(away for away in disconnected if away[0] != entry.player)
    return disconnected


def step(engine: GameRules[Any], state: TableState, entry: LogEntry) -> StepOutcome:
    """Apply one log entry. Raises RuleBroken (and changes nothing) when it is not allowed."""
    if entry.kind in PRESENCE_KINDS:  # also at a closed table: a player back at its end
        if entry.player not in state.seated:
            raise Unknown(f"player {entry.player!r} is not seated at this table")
        presence = _presence(state.disconnected, entry)
        return StepOutcome(replace(state, index=entry.index, disconnected=presence), [])
    if state.closed:
        raise RuleBroken("the table is closed")
    if state.closing and entry.kind in ("seat", "close"):
        raise RuleBroken("the table is closing after the hand in play")
    if entry.kind == "act" and entry.player not in state.seated:
        raise Unknown(f"player {entry.player!r} is not seated at this table")
    if entry.kind == "timeout" and all(
        turn.player != entry.player for turn in engine.turns(state.engine_state)
    ):
        # A player who left mid-hand may still be waited for (a poker hand folds them
        # when their clock runs out), so the clock, not the seat list, decides.
        raise RuleBroken(f"the table is not waiting for {entry.player!r}")
    command = _command(engine, state, entry)
    events: list[Event] = []
    engine_state = state.engine_state
    if command is not None:
        engine_state, engine_events = engine.apply(engine_state, command)
        events.extend(engine_events)
    seated = state.seated
    hand_number, seed_hex, first_index = (
        state.hand_number,
        state.hand_seed_hex,
        state.hand_first_index,
    )
    if isinstance(command, SeatPlayer):
        seated = (*seated, command.player)
    elif isinstance(command, UnseatPlayer):
        seated = tuple(p for p in seated if p != command.player)
    elif isinstance(command, StartHand):
        hand_number += 1
        seed_hex = command.seed.hex()
        first_index = entry.index
        events.insert(
            0,
            Event(
                "hand_started",
                {"hand_number": hand_number, "seed_sha256": commitment(command.seed)},
            ),
        )
    acted = entry.player if entry.kind in ("act", "timeout") else None
    clocks = state.clocks
    if isinstance(command, StartHand) and engine.traits.reserve_per_hand:
        clocks = clocks.new_hand()
    clocks = clocks.after(entry.at_ms, acted, engine.turns(engine_state))
    if engine.traits.auto_play_after_timeout:
        clocks = replace(clocks, auto_players=_auto_players(clocks.auto_players, entry))
    new_state = replace(
        state,
        engine_state=engine_state,
        clocks=clocks,
        index=entry.index,
        seated=seated,
        hand_number=hand_number,
        hand_seed_hex=seed_hex,
        hand_first_index=first_index,
        # Closing during a hand lets the hand finish and settle; no new hand is dealt.
        closing=state.closing or (entry.kind == "close" and state.hand_open),
        closed=entry.kind == "close" and not state.hand_open,
        disconnected=_presence(state.disconnected, entry),
    )
    settlement = None
    result = engine.result(engine_state) if hand_number > state.settled_hand else None
    if result is not None:
        settlement = Settlement(hand_number, result, seed_hex)
        new_state = replace(new_state, settled_hand=hand_number)
        events.append(
            Event(
                "hand_ended",
                # The commitment again, not the seed: the seed re-derives every card
                # dealt, folded hands included, so it is revealed only in the hand
                # history (GetHandHistory, for the hand's players), never on the bus.
                {
                    "hand_number": hand_number,
                    "seed_sha256": new_state.hand_seed_sha256,
                    "result": dict(result.details),
                },
            )
        )
        if new_state.closing:
            new_state = replace(new_state, closing=False, closed=True)
    if entry.kind == "close" or new_state.closed != state.closed:
        events.append(Event("table_closed" if new_state.closed else "table_closing", {}))
    return StepOutcome(new_state, events, settlement)
