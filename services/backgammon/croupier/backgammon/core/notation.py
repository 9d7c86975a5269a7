"""GNU Backgammon's move notation: write a play, read one, apply it as written.

Writing is gnubg's `FormatMove`: points from the mover's side, `bar` = 25, `off` = 0,
moves sorted by decreasing source, one checker's consecutive moves joined (`24/18`), an
intermediate point kept only where it hits (`24/20*/16`), `*` after a hitting move,
repeated identical moves counted (`8/5(2)`).

Reading accepts every form gnubg prints or accepts (`8/5(2) 6/5(2)`, `24/20*/16`,
`bar/22*`, `6/off`, `*` optional, `25`/`0` for bar/off) and applies it like gnubg's
`ApplyMove`: a checker lands, and hits a lone opposing checker, only on the points written.
Whether the result is legal for a roll is `croupier.backgammon.core.moves.match_play`'s job.
"""

from __future__ import annotations

import itertools
import re

from croupier.backgammon.core.board import BAR, Board
from croupier.game.limits import echo

__all__ = ["IllegalPlay", "Move", "apply_moves", "format_play", "parse_play"]

Move = tuple[int, int]  # (from, to): mover's points, 25 = bar, 0 = off


class IllegalPlay(ValueError):
    """A written play that cannot be parsed or does not lead to a legal position."""


def _point_name(n: int) -> str:
    return "off" if n == 0 else "bar" if n == 25 else str(n)


def format_play(board: Board, moves: tuple[Move, ...] | list[Move]) -> str:
    """gnubg's FormatMove for a sequence of single-die moves on `board` (before the play)."""
    opp = board[0]

    def opp_on(point: int) -> bool:
        return 1 <= point <= 24 and opp[24 - point] > 0

    ordered = sorted(moves, key=lambda m: (-m[0], -m[1]))
    # Join one checker's consecutive moves; keep an intermediate point only where it hits.
    chains: list[list[int]] = []  # [source, intermediate hit points..., destination]
    used = [False] * len(ordered)
    for i, (src, dst) in enumerate(ordered):
        if used[i]:
            continue
        used[i] = True
        chain = [src, dst]
        for j in range(i + 1, len(ordered)):
            if not used[j] and ordered[j][0] == chain[-1]:
                if opp_on(chain[-1]):
                    chain.append(ordered[j][1])
                else:
                    chain[-1] = ordered[j][1]
                used[j] = True
        chains.append(chain)
    groups: list[tuple[list[int], int]] = []
    for chain in chains:
        for k, (other, count) in enumerate(groups):
            if other == chain:
                groups[k] = (other, count + 1)
                break
        else:
            groups.append((chain, 1))
    flagged: set[int] = set()
    parts: list[str] = []
    for chain, count in groups:
        text = _point_name(chain[0])
        for mid in chain[1:-1]:
            text += f"/{_point_name(mid)}*"
            flagged.add(mid)
        dst = chain[-1]
        text += f"/{_point_name(dst)}"
        if dst and opp_on(dst) and dst not in flagged:
            text += "*"
            flagged.add(dst)
        if count > 1:
            text += f"({count})"
        parts.append(text)
    return " ".join(parts)


_TOKEN = re.compile(r"\s*(?:(\d+)|(bar|b)|(off|o)|(/)|(\*)|\((\d+)\)|(,))", re.IGNORECASE)


def parse_play(text: str) -> list[Move]:
    """Parse a play as gnubg prints or accepts it into (from, to) moves, largest source first.

    `24/20*/16` gives (24, 20), (20, 16); `8/5(2)` gives (8, 5) twice; `bar/22*`, `6/off`;
    `*` is optional. The empty string (or `""`) is the empty play. Raises IllegalPlay.
    """
    if not isinstance(text, str):
        raise IllegalPlay("a play is a string")
    stripped = text.strip()
    if not stripped:
        return []
    # Each chain is a list of points; chains are separated by whitespace (or commas).
    chains: list[list[int]] = []
    current: list[int] = []
    expect_point = True
    pos = 0
    while pos < len(stripped):
        if stripped[pos].isspace():
            pos += 1
            if current and not expect_point:
                chains.append(current)
                current = []
                expect_point = True
            continue
        m = _TOKEN.match(stripped, pos)
        if not m:
            raise IllegalPlay(f"cannot read the play {echo(text)}")
        pos = m.end()
        number, bar, off, slash, _star, count, comma = m.groups()
        if number is not None or bar is not None or off is not None:
            if not expect_point:
                # a new chain without a separating space ("8/5 6/5" is normal; "8/56/5" is not)
                raise IllegalPlay(f"cannot read the play {echo(text)}")
            value = 25 if bar is not None else 0 if off is not None else int(number)
            if not 0 <= value <= 25:
                raise IllegalPlay(f"no point {value} in {echo(text)}")
            current.append(value)
            expect_point = False
        elif slash is not None:
            if expect_point or not current:
                raise IllegalPlay(f"misplaced '/' in {echo(text)}")
            expect_point = True
        elif count is not None:
            if expect_point or len(current) < 2:
                raise IllegalPlay(f"misplaced count in {echo(text)}")
            n = int(count)
            if n < 1:
                raise IllegalPlay(f"bad count in {echo(text)}")
            for _ in range(n - 1):
                chains.append(list(current))
        elif comma is not None and current and not expect_point:
            chains.append(current)
            current = []
            expect_point = True
    if expect_point and current:
        raise IllegalPlay(f"trailing '/' in {echo(text)}")
    if current:
        chains.append(current)
    moves: list[Move] = []
    for chain in chains:
        if len(chain) < 2:
            raise IllegalPlay(f"a move needs a source and a destination in {echo(text)}")
        for a, b in itertools.pairwise(chain):
            if a == 0 or b == 25:
                raise IllegalPlay(f"cannot move from off or to the bar in {echo(text)}")
            if b >= a:
                raise IllegalPlay(f"checkers move to lower points: {a}/{b} in {echo(text)}")
            moves.append((a, b))
    if len(moves) > 4:
        raise IllegalPlay(f"more than four moves in {echo(text)}")
    moves.sort(key=lambda m: (-m[0], -m[1]))
    return moves


def apply_moves(board: Board, moves: list[Move]) -> Board:
    """Apply written moves literally (gnubg's ApplyMove): a checker lands, and hits a lone
    opposing checker, only on the points written. Raises IllegalPlay when a move starts
    from an empty point or lands on a point the opponent holds."""
    mover = list(board[1])
    opp = list(board[0])
    for src, dst in moves:
        si = BAR if src == 25 else src - 1
        if mover[si] <= 0:
            raise IllegalPlay(f"no checker to move from {_point_name(src)}")
        mover[si] -= 1
        if dst > 0:
            oi = 24 - dst
            if opp[oi] >= 2:
                raise IllegalPlay(f"point {dst} is held by the opponent")
            if opp[oi] == 1:
                opp[oi] = 0
                opp[BAR] += 1
            mover[dst - 1] += 1
    return (tuple(opp), tuple(mover))
