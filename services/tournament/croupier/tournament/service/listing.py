"""The director's listing of tournaments (`ListTournaments`): pages in start-time order,
each page's token naming the last tournament it showed (its start time and id), so that
a page stays right while tournaments are created or change status between calls."""

from __future__ import annotations

import base64
from datetime import datetime

from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.service.model import Status, TournamentRecord
from croupier.tournament.service.ports import Repository

__all__ = ["DEFAULT_PAGE_SIZE", "LISTED_BY_DEFAULT", "MAX_PAGE_SIZE", "list_page"]

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_TOKEN = 512
LISTED_BY_DEFAULT = frozenset({Status.REGISTERING, Status.RUNNING})


def _page_token(record: TournamentRecord) -> str:
    """Where the next page starts: after this tournament (its start time, its id)."""
    start = record.settings.start_time.isoformat()
    return base64.urlsafe_b64encode(f"{start}|{record.tournament_id}".encode()).decode()


def _read_page_token(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        if len(token) > MAX_TOKEN:
            raise ValueError("too long")
        start, tournament_id = base64.urlsafe_b64decode(token.encode()).decode().split("|", 1)
        after = datetime.fromisoformat(start)
        if after.tzinfo is None:
            raise ValueError("a start time without its zone")
        return after, tournament_id
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise InvalidInput(
            "invalid_page_token", "page_token is not one this service gave: start over"
        ) from None


async def list_page(
    repository: Repository, statuses: frozenset[Status], page_size: int, page_token: str
) -> tuple[list[TournamentRecord], str]:
    """A page of the tournaments in `statuses` (registering and running when empty),
    soonest start first; the token of the next page ("" after the last)."""
    size = page_size or DEFAULT_PAGE_SIZE
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidInput("invalid_page_size", f"page_size must be 0 (default) to {MAX_PAGE_SIZE}")
    records = await repository.listed(
        statuses or LISTED_BY_DEFAULT, _read_page_token(page_token), size + 1
    )
    page = records[:size]
    return page, _page_token(page[-1]) if len(records) > size else ""
