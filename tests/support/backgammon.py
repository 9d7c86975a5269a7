"""Small builders for backgammon tests."""

from __future__ import annotations

from croupier.backgammon.core.board import Board, Side


def side(points: dict[int | str, int]) -> Side:
    """A side from {own point: checkers}, 'bar' for the bar; the rest are borne off."""
    slots = [0] * 25
    for point, n in points.items():
        slots[24 if point == "bar" else int(point) - 1] = n
    assert sum(slots) <= 15
    return tuple(slots)


def board(mover: dict[int | str, int], opponent: dict[int | str, int]) -> Board:
    """gnubg board (opponent, mover), each side in its own numbering."""
    return (side(opponent), side(mover))
