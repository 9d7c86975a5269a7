"""The state of a backgammon table: options, one game or series, and its result.

Frozen values: `croupier.backgammon.core.game` makes new ones with `dataclasses.replace`.
Players are 0 and 1 in `players` order; `boards[i]` is player i's checkers on their own
side (gnubg layout), so `board` is gnubg's TanBoard from the view of the player on turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from croupier.backgammon.core.board import STARTING_BOARD, Board, Side
from croupier.backgammon.core.commission import MAX_CUBE
from croupier.backgammon.core.errors import InvalidAction, UnknownPlayer
from croupier.game.limits import MAX_MATCH_POINTS, OutOfBounds, check_amount, check_int, echo

__all__ = [
    "MULTIPLIER",
    "RESULTS",
    "GameResult",
    "Mode",
    "Options",
    "Phase",
    "State",
    "new_table",
]


RESULTS = ("single", "gammon", "backgammon")
MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}  # rules 3, 36-38


class Mode(StrEnum):
    SINGLE = "single"  # one money game for a stake per point (rule 5)
    MATCH = "match"  # a series to `points` (rules 3, 4)


class Phase(StrEnum):
    IDLE = "idle"  # no game started yet
    TURN = "turn"  # the player on turn may double, resign or roll
    MOVING = "moving"  # dice rolled: the player plays or resigns
    DOUBLED = "doubled"  # the other player takes, drops or beavers
    BEAVERED = "beavered"  # the doubler takes or drops the beaver
    RESIGNING = "resigning"  # the other player accepts or rejects
    GAME_OVER = "game_over"  # between games of a series, or the end


@dataclass(frozen=True, kw_only=True)
class Options:
    """Table settings. Amounts in minor units (cents)."""

    mode: Mode = Mode.SINGLE
    stake: int = 0  # single: per point; match: the series stake
    max_win: int | None = None  # single: the most the loser pays (OQ 16: None = no cap)
    beaver: bool = False  # single mode only (rule 19)
    points: int = 0  # match length
    crawford: bool = True  # OQ 10
    tournament: bool = False  # rule 45: no commission

    def __post_init__(self) -> None:
        if self.mode not in ("single", "match"):
            raise InvalidAction(f"mode must be single or match, not {echo(self.mode)}")
        object.__setattr__(self, "mode", Mode(self.mode))

    def validate(self) -> None:
        """Each amount and the match length within its documented bound
        (`croupier.game.limits`): a stake of 2^70 made a settlement no int64 holds."""
        try:
            check_amount(self.stake, "stake")
            if self.max_win is not None:
                check_amount(self.max_win, "max_win")
            if self.mode == "match":
                check_int(self.points, "a series' points", 1, MAX_MATCH_POINTS)
        except OutOfBounds as exc:
            raise InvalidAction(exc.message) from None


@dataclass(frozen=True, kw_only=True)
class GameResult:
    winner: int
    result: str  # single | gammon | backgammon
    cube: int
    points: int  # cube x multiplier
    how: str  # "bear_off" | "drop" | "resign" | "timeout"


@dataclass(frozen=True, kw_only=True)
class State:
    options: Options
    players: tuple[str, str]
    phase: Phase = Phase.IDLE
    boards: tuple[Side, Side] = STARTING_BOARD  # boards[i]: player i's checkers, own side
    turn: int = 0  # the player on turn (roller / mover)
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    doubler: int | None = None  # while doubled/beavered
    resign_level: str | None = None  # while resigning
    resume_phase: Phase | None = None  # the phase a rejected resignation returns to
    crawford_game: bool = False
    crawford_used: bool = False
    score: tuple[int, int] = (0, 0)
    game_number: int = 0
    last_result: GameResult | None = None
    match_winner: int | None = None
    auto_move: tuple[bool, bool] = (False, False)
    seed: bytes | None = field(default=None, repr=False)
    dice_drawn: int = 0
    moves_made: int = 0  # plays made in this game

    # --- queries ---------------------------------------------------------------------

    def index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise UnknownPlayer(f"{echo(player)} is not at this table") from None

    @property
    def board(self) -> Board:
        """gnubg's board from the view of the player on turn (mover = board[1])."""
        return (self.boards[1 - self.turn], self.boards[self.turn])

    @property
    def actor(self) -> int | None:
        """The player who must act now, or None."""
        if self.phase in ("turn", "moving"):
            return self.turn
        if self.phase in ("doubled", "resigning"):
            return 1 - self.turn
        if self.phase == "beavered":
            return self.turn
        return None

    @property
    def game_over(self) -> bool:
        return self.phase == "game_over"

    @property
    def complete(self) -> bool:
        """The single game, or the whole series, is over."""
        if self.options.mode == "match":
            return self.match_winner is not None
        return self.phase == "game_over"

    def can_double(self, player: int) -> bool:
        return (
            self.phase == "turn"
            and player == self.turn
            and (self.cube_owner is None or self.cube_owner == player)
            and self.cube * 2 <= MAX_CUBE
            and not (self.options.mode == "match" and self.crawford_game)
        )

    def can_beaver(self) -> bool:
        return (
            self.phase == "doubled"
            and self.options.mode == "single"
            and self.options.beaver
            and self.cube * 4 <= MAX_CUBE
        )


def new_table(options: Options, players: tuple[str, ...] | list[str]) -> State:
    """A table with no game started yet (phase `idle`)."""
    options.validate()
    if len(players) != 2 or players[0] == players[1]:
        raise InvalidAction("backgammon needs two different players")
    return State(options=options, players=(players[0], players[1]))
