"""What a well-formed gateway request is: the bounds of every field a client sends.

Checked before the request is logged or forwarded, so a malformed one is answered
INVALID_ARGUMENT by the gateway itself and reaches no service behind it. The bounds are
those of the services behind (the table host's 128-character ids and 64 KiB of action
JSON, the wallet's currency codes and 500-line pages), so what passes here is refused
there only by the rules, never for its shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from croupier.game.errors import Malformed
from croupier.game.limits import MAX_AMOUNT, echo, has_control_character

__all__ = [
    "MAX_ACTION_JSON",
    "MAX_ID",
    "MAX_INVITED",
    "MAX_LIMITED_CURRENCIES",
    "MAX_PAGE_SIZE",
    "InvalidRequest",
    "check_action",
    "check_currency",
    "check_id",
    "check_ids",
    "check_optional_id",
    "check_page",
    "check_stake_limits",
]

MAX_ID = 128
MAX_ACTION_JSON = 64 * 1024
MAX_PAGE_SIZE = 500
MAX_PAGE_TOKEN = 1024
MAX_INVITED = 50
MAX_LIMITED_CURRENCIES = 16
_CURRENCY = re.compile(r"[A-Z0-9]{1,16}")


class InvalidRequest(Malformed):
    """A field of a gateway request is missing, too long or of the wrong shape; `field`
    names it (the path of the field in the request, for the error's `BadRequest`)."""

    reason = "invalid_request"

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def check_optional_id(value: str, what: str) -> str:
    """An id that may be empty: at most `MAX_ID` characters, no control characters."""
    if len(value) > MAX_ID:
        raise InvalidRequest(f"{what} is limited to {MAX_ID} characters, got {len(value)}", what)
    if has_control_character(value):
        raise InvalidRequest(f"{what} {echo(value)} contains a control character", what)
    return value


def check_id(value: str, what: str) -> str:
    """A required id: 1-`MAX_ID` characters, no control characters."""
    if not value:
        raise InvalidRequest(f"{what} is required", what)
    return check_optional_id(value, what)


def check_ids(values: Sequence[str], what: str, most: int) -> list[str]:
    """A list of required ids, at most `most` of them."""
    if len(values) > most:
        raise InvalidRequest(f"{what} holds at most {most} entries, got {len(values)}", what)
    return [check_id(value, what) for value in values]


def check_currency(value: str) -> str:
    """A currency code: upper-case letters and digits (USD, PLAY, CHIP)."""
    if not _CURRENCY.fullmatch(value):
        raise InvalidRequest(
            f"currency {echo(value)} is not a currency code: 1-16 upper-case letters or digits "
            "(USD, PLAY, CHIP)",
            "currency",
        )
    return value


def check_stake_limits(max_stakes: Sequence[tuple[str, int]]) -> None:
    """An account's stake limits, (currency, amount) pairs: at most
    `MAX_LIMITED_CURRENCIES`, one per currency, each 0..`MAX_AMOUNT` minor units (0: no
    stake at all in that currency)."""
    if len(max_stakes) > MAX_LIMITED_CURRENCIES:
        raise InvalidRequest(
            f"max_stakes holds at most {MAX_LIMITED_CURRENCIES} currencies", "max_stakes"
        )
    seen: set[str] = set()
    for index, (currency, amount) in enumerate(max_stakes):
        check_currency(currency)
        if currency in seen:
            raise InvalidRequest(f"{currency} is limited twice", f"max_stakes[{index}].currency")
        seen.add(currency)
        if not 0 <= amount <= MAX_AMOUNT:
            raise InvalidRequest(
                f"a stake limit is 0..{MAX_AMOUNT} minor units, got {amount}",
                f"max_stakes[{index}].amount_minor",
            )


def check_page(page_size: int, page_token: str) -> tuple[int, str]:
    """A page request: at most `MAX_PAGE_SIZE` items (0: the service's default)."""
    if page_size > MAX_PAGE_SIZE:
        raise InvalidRequest(
            f"page_size is at most {MAX_PAGE_SIZE}, got {page_size}", "page.page_size"
        )
    if len(page_token) > MAX_PAGE_TOKEN or has_control_character(page_token):
        raise InvalidRequest("page_token is not one the service returned", "page.page_token")
    return page_size, page_token


def check_action(has_message: bool, action_json: str) -> None:
    """Exactly one of the action's forms: the game's message or its JSON notation."""
    if has_message and action_json:
        raise InvalidRequest(
            "send the action once: as action or as action_json, not both", "action_json"
        )
    if not has_message and not action_json:
        raise InvalidRequest("an action is required (action or action_json)", "action")
    if len(action_json) > MAX_ACTION_JSON:
        raise InvalidRequest(f"action_json is limited to {MAX_ACTION_JSON} bytes", "action_json")
