"""The gateway's pure rules: the shape of a request, a seat to act at."""

from __future__ import annotations

import grpc
import pytest

from croupier.gateway.core.access import NotSeated, require_seat
from croupier.gateway.core.requests import (
    MAX_ACTION_JSON,
    MAX_ID,
    MAX_PAGE_SIZE,
    InvalidRequest,
    check_action,
    check_currency,
    check_id,
    check_optional_id,
    check_page,
)
from croupier.kit.errors import status_of


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
