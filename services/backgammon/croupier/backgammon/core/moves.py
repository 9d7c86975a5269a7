"""Legal plays: the set of DISTINCT positions a roll can lead to (what gnubg lists).

Rules (seed 001 rules 23-33 and OQ 14): a checker on the bar must enter before any other
checker moves; a die enters on the opponent's home point `25 - d` from the mover's side
unless the opponent holds it; both dice must be used when possible, else the larger one
(gnubg: the play must move the most checkers, then the most pips); doubles are played four
times; bearing off needs every checker home, a die bears off from its own point, a larger
die from the highest occupied point only, and bearing off is never compulsory.

The generator keeps each candidate result as one integer key: the mover's side as one byte
per slot plus a bit per hit point, so a move is an addition of a precomputed delta and
deduping is a dict lookup; a side tuple is built once per distinct result. Plain rolls
without bar or bear-off: the larger die first covers every pair of checkers, and the
smaller first only adds one checker moving through the other intermediate point. Doubles
are generated in non-increasing order of source point (as gnubg does), so each multiset of
moves, i.e. each distinct result, comes out once. Bar and bear-off cases take the general
search, which re-checks legality after every move. `benchmarks/backgammon.py` measures it
against gnubg's C generator and a brute-force Python one.

Each play carries one canonical notation (`croupier.backgammon.core.notation`); a written play
is legal when, applied as written, it reaches one of the roll's positions (`match_play`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from croupier.backgammon.core.board import BAR, Board, Side
from croupier.backgammon.core.notation import (
    IllegalPlay,
    Move,
    apply_moves,
    format_play,
    parse_play,
)
from croupier.game.limits import echo

__all__ = [
    "Play",
    "count_legal_positions",
    "has_legal_move",
    "legal_plays",
    "legal_positions",
    "match_play",
    "raw_generate",
]


@dataclass(frozen=True)
class Play:
    """One legal play: the position it leads to (mover still board[1]) and how to write it."""

    board: Board
    moves: tuple[Move, ...]
    notation: str


# Keys: the mover's side as one byte per slot (index i at bits 8i..8i+7, i = 0..24,
# 24 = bar; the bytes of the side tuple read little-endian) plus one bit per hit point
# index j at bit 200 + j. Moving i -> j adds _DELTA[i][j + 1] (j = -1 is off).
_DELTA = [
    [(1 << (8 * j) if j >= 0 else 0) - (1 << (8 * i)) for j in range(-1, 25)] for i in range(25)
]
_HIT = [1 << (200 + j) for j in range(25)]


_SIDE_MASK = (1 << 200) - 1
_Found = dict[int, tuple[Move, ...]]


def _side_of(key: int) -> Side:
    """The mover's side encoded in a generator key."""
    return tuple((key & _SIDE_MASK).to_bytes(25, "little"))


def _generate(board: Board, d1: int, d2: int, track: bool) -> _Found:
    """Every distinct legal result: key -> the first move sequence found (when tracking).

    The key holds the mover's side after the play (`_side_of`) and the hit points
    (`key >> 200`). Moves in the sequences are written as points (25 = bar, 0 = off). An
    empty dict means no checker can move.
    """
    mover, opp = board[1], board[0]
    held = opp[23::-1]  # opponent checkers on the mover's point index j
    blocked = [n > 1 for n in held]
    blot = [n == 1 for n in held]
    outside = sum(mover[6:])  # checkers not yet home (bar included)
    key0 = int.from_bytes(bytes(mover), "little")
    delta = _DELTA
    hitbit = _HIT
    seen: _Found = {}

    if d1 != d2 and not mover[24] and outside >= 2:
        # No bar and no bearing off this turn: a move's legality never depends on the other
        # move, so (larger, smaller) covers every pair of checkers and (smaller, larger) only
        # adds one checker moving through the other intermediate point.
        a, b = (d1, d2) if d1 > d2 else (d2, d1)
        occupied = [i for i in range(23, -1, -1) if mover[i]]
        la = [(i, i - a) for i in occupied if i >= a and not blocked[i - a]]
        lb = [(i, i - b) for i in occupied if i >= b and not blocked[i - b]]
        for i1, j1 in la:
            k1 = key0 + delta[i1][j1 + 1]
            if blot[j1]:
                k1 |= hitbit[j1]
            for i2, j2 in lb:
                if i2 == i1 and mover[i1] < 2:
                    continue
                k = k1 + delta[i2][j2 + 1]
                if blot[j2]:
                    k |= hitbit[j2]
                if k not in seen:
                    seen[k] = ((i1 + 1, j1 + 1), (i2 + 1, j2 + 1)) if track else ()
            if not mover[j1]:  # the moved checker goes on (a checker already there: above)
                j2 = j1 - b
                if j2 >= 0 and not blocked[j2]:
                    k = k1 + delta[j1][j2 + 1]
                    if blot[j2]:
                        k |= hitbit[j2]
                    if k not in seen:
                        seen[k] = ((i1 + 1, j1 + 1), (j1 + 1, j2 + 1)) if track else ()
        for i1, j1 in lb:
            j2 = j1 - a
            if j2 >= 0 and not blocked[j2]:
                k = key0 + delta[i1][j1 + 1] + delta[j1][j2 + 1]
                if blot[j1]:
                    k |= hitbit[j1]
                if blot[j2]:
                    k |= hitbit[j2]
                if k not in seen:
                    seen[k] = ((i1 + 1, j1 + 1), (j1 + 1, j2 + 1)) if track else ()
        if seen:
            return seen
        # Not even one pair: fall through to the general search (one die only).

    p = list(mover)
    if d1 == d2 and not p[24] and outside >= 4:
        # Doubles, no bar and no bearing off this turn: legality is static per point.
        return _doubles_static(p, d1, blocked, blot, key0, track)

    best_depth = 0
    path: list[Move] = []

    def leaf(depth: int, key: int) -> None:
        nonlocal seen, best_depth
        if depth < best_depth:
            return
        if depth > best_depth:
            seen = {}
            best_depth = depth
        if key not in seen:
            seen[key] = tuple(path) if track else ()

    def can_move(i: int, d: int) -> int:
        """Target index of moving the checker at index i by d (-1 = off), or -2 if illegal."""
        j = i - d
        if j >= 0:
            return -2 if blocked[j] else j
        if outside == 0 and (j == -1 or not any(p[i + 1 : 6])):
            return -1
        return -2

    def step(depth: int, dice: tuple[int, ...], start: int, key: int) -> None:
        nonlocal outside
        d = dice[depth]
        moved = False
        sources = (24,) if p[24] else range(min(start, 23), -1, -1)
        for i in sources:
            if not p[i]:
                continue
            j = can_move(i, d)
            if j == -2:
                continue
            moved = True
            k = key + delta[i][j + 1]
            if j >= 0 and blot[j]:
                k |= hitbit[j]
            p[i] -= 1
            if j >= 0:
                p[j] += 1
            crossed = i > 5 >= j
            if crossed:
                outside -= 1
            path.append((i + 1, j + 1))
            if depth + 1 < len(dice):
                # doubles: never a source above this one (each multiset of moves once)
                step(depth + 1, dice, i if dice[0] == dice[-1] else 24, k)
            else:
                leaf(depth + 1, k)
            path.pop()
            if crossed:
                outside += 1
            if j >= 0:
                p[j] -= 1
            p[i] += 1
        if not moved and depth:
            leaf(depth, key)

    if d1 == d2:
        step(0, (d1, d1, d1, d1), 24, key0)
    else:
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        step(0, (hi, lo), 24, key0)
        if best_depth < 2:
            # Only one die playable from the first order; the smaller first may play both.
            saved, saved_depth = seen, best_depth
            seen, best_depth = {}, 0
            step(0, (lo, hi), 24, key0)
            if best_depth < saved_depth or (best_depth == saved_depth == 1):
                seen, best_depth = saved, saved_depth
        else:
            step(0, (lo, hi), 24, key0)
    return seen


def _doubles_static(
    p: list[int], d: int, blocked: list[bool], blot: list[bool], key0: int, track: bool
) -> _Found:
    """Doubles when no checker is on the bar and none can bear off during the turn.

    Sources are taken in non-increasing order (each multiset of moves once); the points a
    checker may move from are the occupied ones and those a moved checker can reach.
    """
    ok = [i >= d and not blocked[i - d] for i in range(24)]
    reach = set()
    for i in range(24):
        if p[i]:
            j = i
            for _ in range(4):
                if not ok[j]:
                    break
                reach.add(j)
                j -= d
    cand = sorted(reach, reverse=True)
    n = len(cand)
    step = [_DELTA[i][i - d + 1] if i >= d else 0 for i in range(24)]
    hitbit = _HIT
    found: list[_Found] = [{}, {}, {}, {}, {}]
    found4 = found[4]
    path: list[int] = []  # source indices, only when tracking

    def moves(*last: int) -> tuple[Move, ...]:
        return tuple((i + 1, i + 1 - d) for i in (*path, *last))

    def rec(depth: int, first: int, key: int) -> bool:
        """Extend by one move from cand[first:]; record leaves; True if any move was made.

        Each multiset of sources is one distinct result (the number of checkers leaving
        each point determines the position), so the four-move leaves need no dedupe."""
        moved = False
        if depth == 3:
            for c in range(first, n):
                i = cand[c]
                if p[i]:
                    moved = True
                    j = i - d
                    k = key + step[i]
                    if blot[j]:
                        k |= hitbit[j]
                    found4[k] = moves(i) if track else ()
            return moved
        for c in range(first, n):
            i = cand[c]
            if not p[i]:
                continue
            moved = True
            j = i - d
            k = key + step[i]
            if blot[j]:
                k |= hitbit[j]
            p[i] -= 1
            p[j] += 1
            if track:
                path.append(i)
            if not rec(depth + 1, c, k) and k not in found[depth + 1]:
                found[depth + 1][k] = moves() if track else ()
            if track:
                path.pop()
            p[j] -= 1
            p[i] += 1
        return moved

    rec(0, 0, key0)
    for depth in (4, 3, 2, 1):
        if found[depth]:
            return found[depth]
    return {}


def _opponent_sides(board: Board) -> Callable[[int], Side]:
    """The opponent's side after the hits of a key, cached per hit mask."""
    opps: dict[int, Side] = {0: board[0]}

    def after(key: int) -> Side:
        hits = key >> 200
        side = opps.get(hits)
        if side is None:
            opp = list(board[0])
            for j in range(24):
                if hits >> j & 1:
                    opp[23 - j] = 0
                    opp[BAR] += 1
            side = opps[hits] = tuple(opp)
        return side

    return after


def _check_dice(d1: int, d2: int) -> None:
    if not (isinstance(d1, int) and isinstance(d2, int) and 1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be two integers 1..6, got {d1!r}, {d2!r}")


def legal_positions(board: Board, d1: int, d2: int) -> list[Board]:
    """The distinct positions the roll can lead to; `[board]` when no checker can move."""
    _check_dice(d1, d2)
    found = _generate(board, d1, d2, False)
    if not found:
        return [board]
    opponent = _opponent_sides(board)
    opp, mask, limit = board[0], _SIDE_MASK, 1 << 200  # keys below the limit hit nothing
    return [
        (opp, tuple(key.to_bytes(25, "little")))
        if key < limit
        else (opponent(key), tuple((key & mask).to_bytes(25, "little")))
        for key in found
    ]


def count_legal_positions(board: Board, d1: int, d2: int) -> int:
    """How many distinct positions the roll can lead to (1 when no checker can move)."""
    return len(_generate(board, d1, d2, False)) or 1


def legal_plays(board: Board, d1: int, d2: int) -> list[Play]:
    """One canonical play per distinct resulting position; empty when no checker can move.

    The canonical sequence of a position is the first one found with the larger die tried
    first (the order gnubg lists a roll written larger die first).
    """
    _check_dice(d1, d2)
    hi, lo = max(d1, d2), min(d1, d2)
    found = _generate(board, hi, lo, True)
    opponent = _opponent_sides(board)
    return [
        Play((opponent(key), _side_of(key)), seq, format_play(board, seq))
        for key, seq in found.items()
    ]


def match_play(board: Board, d1: int, d2: int, text: str) -> Board:
    """The position a written play leads to, if it is legal for the roll; else IllegalPlay.

    The empty play is legal only when no checker can move.
    """
    moves = parse_play(text)
    if not moves:
        if _can_move(board, d1, d2):
            raise IllegalPlay("a legal play exists: the empty play is not allowed")
        return board
    result = apply_moves(board, moves)
    if result not in set(legal_positions(board, d1, d2)) or not _can_move(board, d1, d2):
        raise IllegalPlay(f"{echo(text)} is not a legal play for {d1}-{d2}")
    return result


def _can_move(board: Board, d1: int, d2: int) -> bool:
    return bool(_generate(board, d1, d2, False))


def has_legal_move(board: Board, d1: int, d2: int) -> bool:
    """True when at least one checker can move with this roll."""
    _check_dice(d1, d2)
    return _can_move(board, d1, d2)


# A hook for tests/benchmarks that want the raw generator (keys only).
raw_generate: Callable[[Board, int, int, bool], _Found] = _generate
