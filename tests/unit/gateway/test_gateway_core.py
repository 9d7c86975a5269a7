"""The gateway's pure rules: the shape of a request, a seat to act at, an operator's call."""

from __future__ import annotations

import grpc
import pytest

from croupier.game.limits import MAX_AMOUNT
from croupier.gateway.core.access import NotOperator, NotSeated, require_operator, require_seat
from croupier.gateway.core.requests import (
    MAX_ACTION_JSON,
    MAX_ID,
    MAX_LIMITED_CURRENCIES,
    MAX_PAGE_SIZE,
    InvalidRequest,
    check_action,
    check_currency,
    check_id,
    check_optional_id,
    check_page,
    check_stake_limits,
)
from croupier.kit.errors import status_of


def test_only_an_operator_makes_an_operators_call() -> None:
    require_operator(True, "SetAccountLimits")
    with pytest.raises(NotOperator) as caught:
        require_operator(False, "SetAccountLimits")
    assert status_of(caught.value) is grpc.StatusCode.PERMISSION_DENIED
    assert caught.value.reason == "operator_only"


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        ([("CHIP", 1), ("CHIP", 2)], "max_stakes[1].currency"),
        ([("chip", 1)], "currency"),
        ([("USD", -1)], "max_stakes[0].amount_minor"),
        ([("USD", MAX_AMOUNT + 1)], "max_stakes[0].amount_minor"),
        ([(f"C{n}", 1) for n in range(MAX_LIMITED_CURRENCIES + 1)], "max_stakes"),
    ],
    ids=["twice", "lower-case", "negative", "above-max", "too-many"],
)
def test_stake_limits_out_of_bounds_name_their_field(
    limits: list[tuple[str, int]], field: str
) -> None:
    check_stake_limits([("CHIP", 0), ("USD", MAX_AMOUNT)])
    with pytest.raises(InvalidRequest) as caught:
        check_stake_limits(limits)
    assert caught.value.field == field


def test_only_a_seated_player_may_act_and_others_are_denied() -> None:
    require_seat(("p0", "p1"), "p1", "t")
    with pytest.raises(NotSeated) as caught:
        require_seat(("p0", "p1"), "eve", "t")
    assert status_of(caught.value) is grpc.StatusCode.PERMISSION_DENIED
    assert caught.value.reason == "not_seated"


@pytest.mark.parametrize("value", ["", "x" * (MAX_ID + 1), "a\nb", "nul\x00"])
def test_an_id_is_required_bounded_and_without_control_characters(value: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        check_id(value, "table_id")
    assert status_of(caught.value) is grpc.StatusCode.INVALID_ARGUMENT
    assert check_id("x" * MAX_ID, "table_id") == "x" * MAX_ID
    assert check_optional_id("", "coupon_id") == ""


@pytest.mark.parametrize("value", ["", "usd", "US D", "X" * 17, "€"])
def test_a_currency_is_a_code(value: str) -> None:
    with pytest.raises(InvalidRequest):
        check_currency(value)
    assert check_currency("CHIP") == "CHIP"


def test_a_page_is_bounded() -> None:
    assert check_page(MAX_PAGE_SIZE, "") == (MAX_PAGE_SIZE, "")
    with pytest.raises(InvalidRequest):
        check_page(MAX_PAGE_SIZE + 1, "")
    with pytest.raises(InvalidRequest):
        check_page(1, "t" * 1025)


def test_an_action_comes_in_exactly_one_form_and_bounded() -> None:
    check_action(True, "")
    check_action(False, "{}")
    for has_message, text in [(True, "{}"), (False, ""), (False, "x" * (MAX_ACTION_JSON + 1))]:
        with pytest.raises(InvalidRequest):
            check_action(has_message, text)
