"""`croupier.game.limits`: the one place of the documented bounds and how values are read."""

from __future__ import annotations

import pytest

from croupier.game.limits import (
    MAX_AMOUNT,
    MAX_CLOCK_SECONDS,
    MAX_ECHO,
    OutOfBounds,
    check_amount,
    check_int,
    check_seconds,
    echo,
    json_int,
)


def test_every_bound_keeps_sums_inside_a_signed_64_bit_integer() -> None:
    """9,000 amounts at the bound still add up below 2^63 (protobuf int64, bigint)."""
    assert MAX_AMOUNT * 9_000 < 2**63


@pytest.mark.parametrize("value", [True, 1.0, "5", None, [1]])
def test_only_whole_numbers_pass(value: object) -> None:
    with pytest.raises(OutOfBounds, match="stack must be a whole number"):
        check_int(value, "stack", 0, 10)


def test_amounts_and_seconds_at_and_past_their_bounds() -> None:
    assert check_amount(MAX_AMOUNT, "stake") == MAX_AMOUNT
    assert check_seconds(MAX_CLOCK_SECONDS, "turn") == MAX_CLOCK_SECONDS
    with pytest.raises(OutOfBounds, match=f"stake must be between 0 and {MAX_AMOUNT}"):
        check_amount(MAX_AMOUNT + 1, "stake")
    with pytest.raises(OutOfBounds, match="turn must be between 1 and"):
        check_seconds(0, "turn", low=1)


def test_json_int_reads_protobuf_json_int64_text_and_leaves_the_rest() -> None:
    assert json_int("300") == 300
    assert json_int("9" * 500) == int("9" * 500)  # read, then refused by its bound
    for value in ("-3", "²", " 3", "9" * 4001, 3.0, None):
        assert json_int(value) == value


def test_echo_cuts_what_a_message_quotes() -> None:
    assert echo("abc") == "'abc'"
    cut = echo("x" * 60_000)
    assert len(cut) == MAX_ECHO and cut.endswith("...")
