"""The documented bounds of every amount, count and duration a caller can send.

One place for them, so the table host, the engines and the wallet refuse the same absurd
values, and refuse them before anything is logged or stored. The bounds are chosen so
that what one table or one request adds up cannot leave a signed 64-bit integer
(protobuf int64, PostgreSQL bigint): `MAX_AMOUNT` is 10^15 minor units (ten trillion
dollars in cents), and 9,000 such amounts added together still stay below 2^63 ≈ 9.2 ×
10^18 (a table's stacks, pots and payments are a handful of them). A balance that many
movements would push past it is the wallet's to refuse (`BalanceOutOfRange`).

Stdlib only: pure cores import it. `OutOfBounds` is a `Malformed` refusal, so whoever
lets one escape answers INVALID_ARGUMENT (`croupier.kit.errors`).
"""

from __future__ import annotations

import re

from croupier.game.errors import Malformed

# Any single amount of money or chips: a stake, a stack, a blind, a top-up, a deposit.
MAX_AMOUNT = 10**15
# A clock or window in seconds (turn clocks, time banks, reconnection): one day.
MAX_CLOCK_SECONDS = 86_400
# Points to win a match or series (backgammon matches, rummy targets).
MAX_MATCH_POINTS = 10_000
# The longest echo of a caller's value in an error message.
MAX_ECHO = 64


# Control characters (C0 and DEL): no id or text a caller sends needs one, and they end up
# in log lines, in other ids and in stored JSON (PostgreSQL's jsonb refuses a NUL outright).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def has_control_character(text: str) -> bool:
    return _CONTROL.search(text) is not None


class OutOfBounds(Malformed):
    """A value outside its documented bound; `message` names the field and the bound."""

    reason = "out_of_bounds"


def echo(value: object) -> str:
    """`value` as an error message may quote it: cut to `MAX_ECHO` characters."""
    text = repr(value)
    return text if len(text) <= MAX_ECHO else text[: MAX_ECHO - 3] + "..."


def json_int(value: object) -> object:
    """Protobuf's JSON form writes 64-bit integers as text ("300"): ASCII digits become the
    int they spell (up to 4,000 of them, under Python's limit for int() of a text; such a
    number is far out of bounds anyway). Any other value comes back as it was, for the
    check to refuse it."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 4000:
        return int(value)
    return value


def check_int(value: object, what: str, low: int, high: int) -> int:
    """`value` if it is an int (not a bool) in `low..high`, else `OutOfBounds`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OutOfBounds(f"{what} must be a whole number, got {echo(value)}")
    if not low <= value <= high:
        raise OutOfBounds(f"{what} must be between {low} and {high}, got {echo(value)}")
    return value


def check_amount(value: object, what: str, *, low: int = 0) -> int:
    """An amount of money or chips in `low..MAX_AMOUNT`."""
    return check_int(value, what, low, MAX_AMOUNT)


def check_seconds(value: object, what: str, *, low: int = 0) -> int:
    """A duration in whole seconds in `low..MAX_CLOCK_SECONDS`."""
    return check_int(value, what, low, MAX_CLOCK_SECONDS)
