"""GNU Backgammon Match ID: the cube, score and turn state in 12 characters.

Layout (gnubg manual, "A technical description of the Match ID"): a 66-bit key, each
field stored least significant bit first, packed little-endian into 9 bytes and written
as base64 without padding (12 characters).

| bits  | field                                                                  |
|-------|------------------------------------------------------------------------|
| 1-4   | log2 of the cube value                                                 |
| 5-6   | cube owner: 0 or 1, 3 = centred                                        |
| 7     | player on roll (or who rolled)                                         |
| 8     | Crawford game                                                          |
| 9-11  | game state: 0 none, 1 playing, 2 over, 3 resigned, 4 ended by a drop   |
| 12    | player to make a decision (turn)                                       |
| 13    | a double is offered                                                    |
| 14-15 | resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon          |
| 16-18 | first die (0 = not rolled)                                             |
| 19-21 | second die                                                             |
| 22-36 | match length (0 = money game)                                          |
| 37-51 | player 0's score                                                       |
| 52-66 | player 1's score                                                       |
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

__all__ = [
    "GAME_DROP",
    "GAME_NONE",
    "GAME_OVER",
    "GAME_PLAYING",
    "GAME_RESIGNED",
    "InvalidMatchId",
    "MatchKey",
    "decode_match_id",
    "match_id",
]

GAME_NONE = 0
GAME_PLAYING = 1
GAME_OVER = 2
GAME_RESIGNED = 3
GAME_DROP = 4

_FIELDS = (  # (name, width) in key order
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
)


class InvalidMatchId(ValueError):
    """A string that is not a Match ID, or values that do not fit one."""


@dataclass(frozen=True)
class MatchKey:
    """The decoded Match ID. Players are 0 and 1 as gnubg numbers them."""

    cube: int = 1
    cube_owner: int | None = None  # None = centred
    on_roll: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0  # 0 none, 1 single, 2 gammon, 3 backgammon
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)


def match_id(key: MatchKey) -> str:
    """Encode a MatchKey as its 12-character Match ID."""
    if key.cube < 1 or key.cube & (key.cube - 1) or key.cube > 1 << 15:
        raise InvalidMatchId(f"cube {key.cube} is not a power of two up to 32768")
    values = {
        "cube_log2": key.cube.bit_length() - 1,
        "cube_owner": 3 if key.cube_owner is None else key.cube_owner,
        "on_roll": key.on_roll,
        "crawford": int(key.crawford),
        "game_state": key.game_state,
        "turn": key.turn,
        "doubled": int(key.doubled),
        "resigned": key.resigned,
        "die1": key.dice[0],
        "die2": key.dice[1],
        "match_length": key.match_length,
        "score0": key.score[0],
        "score1": key.score[1],
    }
    bits = 0
    shift = 0
    for name, width in _FIELDS:
        value = values[name]
        if not 0 <= value < 1 << width:
            raise InvalidMatchId(f"{name}={value} does not fit in {width} bits")
        bits |= value << shift
        shift += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(text: str) -> MatchKey:
    """Decode a 12-character Match ID; raises InvalidMatchId."""
    if not isinstance(text, str) or len(text) != 12:
        raise InvalidMatchId(f"a Match ID has 12 characters, got {text!r}")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidMatchId(f"not a base64 Match ID: {text!r}") from exc
    bits = int.from_bytes(raw, "little")
    values: dict[str, int] = {}
    shift = 0
    for name, width in _FIELDS:
        values[name] = (bits >> shift) & ((1 << width) - 1)
        shift += width
    owner = values["cube_owner"]
    if owner == 2:
        raise InvalidMatchId("cube owner 2 is not defined")
    return MatchKey(
        cube=1 << values["cube_log2"],
        cube_owner=None if owner == 3 else owner,
        on_roll=values["on_roll"],
        crawford=bool(values["crawford"]),
        game_state=values["game_state"],
        turn=values["turn"],
        doubled=bool(values["doubled"]),
        resigned=values["resigned"],
        dice=(values["die1"], values["die2"]),
        match_length=values["match_length"],
        score=(values["score0"], values["score1"]),
    )
