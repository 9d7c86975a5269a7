"""The board in GNU Backgammon's layout, and its Position ID.

A `Board` is a pair of 25-tuples, exactly gnubg's `TanBoard`: `board[0]` is the player
*not* on roll, `board[1]` the player on roll. In each side's tuple, index `i` (0..23) is
that side's own point `i + 1` (its home board is indices 0..5) and index 24 is its bar.
Borne-off checkers are not stored: a side has `15 - sum(side)` off. A point `p` of the
mover (1..24) is the opponent's point `25 - p`, i.e. `board[0][24 - p]`.

The Position ID (gnubg manual, "A technical description of the Position ID") is the
80-bit key of the position: for each side in the order above, for each of its 25 slots,
as many 1 bits as checkers then a 0 bit; packed little-endian into 10 bytes; then
base64 without the trailing padding (14 characters).
"""

from __future__ import annotations

import base64
import binascii

__all__ = [
    "BAR",
    "CHECKERS",
    "STARTING_BOARD",
    "Board",
    "InvalidPosition",
    "Side",
    "board_from_key",
    "board_from_position_id",
    "borne_off",
    "check_board",
    "pip_count",
    "position_id",
    "position_key",
    "swap",
]

Side = tuple[int, ...]
Board = tuple[Side, Side]

CHECKERS = 15
BAR = 24  # index of the bar in a side's tuple

_START_SIDE: Side = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
STARTING_BOARD: Board = (_START_SIDE, _START_SIDE)


class InvalidPosition(ValueError):
    """A Position ID or board that does not describe a legal backgammon position."""


def swap(board: Board) -> Board:
    """The same position seen by the other player (gnubg's SwapSides)."""
    return (board[1], board[0])


def borne_off(side: Side) -> int:
    return CHECKERS - sum(side)


def pip_count(side: Side) -> int:
    return sum((i + 1) * n for i, n in enumerate(side))


def check_board(board: Board) -> None:
    """Raise InvalidPosition unless the board is a legal position (gnubg's CheckPosition)."""
    if len(board) != 2 or any(len(side) != 25 for side in board):
        raise InvalidPosition("a board is two sides of 25 slots")
    for side in board:
        if any(not isinstance(n, int) or n < 0 for n in side):
            raise InvalidPosition("checker counts must be non-negative integers")
        if sum(side) > CHECKERS:
            raise InvalidPosition(f"a side has more than {CHECKERS} checkers")
    mover, opponent = board[1], board[0]
    for i in range(24):
        if mover[i] and opponent[23 - i]:
            raise InvalidPosition(f"point {i + 1} holds checkers of both sides")


_UNARY = ["1" * n + "0" for n in range(16)]


def position_key(board: Board) -> bytes:
    """The 10-byte key (80 bits, little-endian): the bit string, first bit least significant."""
    unary = _UNARY
    bits = "".join([unary[n] for n in board[0]] + [unary[n] for n in board[1]])
    return int(bits[::-1], 2).to_bytes(10, "little")


def position_id(board: Board) -> str:
    """The 14-character GNU Backgammon Position ID (mover = board[1])."""
    return base64.b64encode(position_key(board)).decode("ascii")[:14]


def board_from_key(key: bytes) -> Board:
    if len(key) != 10:
        raise InvalidPosition("a position key has 10 bytes")
    bits = int.from_bytes(key, "little")
    sides: list[Side] = []
    pos = 0
    for _ in range(2):
        side = []
        for _ in range(25):
            n = 0
            while (bits >> pos) & 1:
                n += 1
                pos += 1
                if pos >= 80:
                    raise InvalidPosition("position key overflows 80 bits")
            pos += 1
            side.append(n)
        sides.append(tuple(side))
    board: Board = (sides[0], sides[1])
    check_board(board)
    return board


def board_from_position_id(pid: str) -> Board:
    """Decode a Position ID; raises InvalidPosition when it is not one."""
    if not isinstance(pid, str) or len(pid) != 14:
        raise InvalidPosition(f"a Position ID has 14 characters, got {pid!r}")
    try:
        key = base64.b64decode(pid + "==", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidPosition(f"not a base64 Position ID: {pid!r}") from exc
    return board_from_key(key)
