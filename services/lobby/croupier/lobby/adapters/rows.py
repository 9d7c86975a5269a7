"""The lobby's records as the PostgreSQL rows keep them: JSON documents (a table's seats,
holds and invitations; a ticket with its outcome), read back into the same records."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from croupier.lobby.core.matchmaker import Ticket
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.core.ratings import Rating, RatingRange
from croupier.lobby.core.seats import Hold, LobbyTable
from croupier.lobby.core.terms import Terms
from croupier.lobby.service.records import TicketRecord, TicketStatus, WaitingEntry

__all__ = [
    "limits_from_json",
    "limits_to_json",
    "rating_from_json",
    "rating_to_json",
    "table_from_json",
    "table_to_json",
    "ticket_from_json",
    "ticket_to_json",
    "waiting_from_json",
    "waiting_to_json",
]


def table_to_json(table: LobbyTable) -> str:
    return json.dumps(
        {
            "table_id": table.table_id,
            "options_json": table.options_json,
            "terms": asdict(table.terms),
            "owner": table.owner,
            "private": table.private,
            "invited": sorted(table.invited),
            "invite_code": table.invite_code,
            "seated": [list(seat) for seat in table.seated],
            "holds": [[h.player, h.seat, h.until.isoformat(), h.bot] for h in table.holds],
            "closed": table.closed,
            "clock_seconds": list(table.clock_seconds),
            "bots": sorted(table.bots),
            "bots_wanted": table.bots_wanted,
            "recent_pots": list(table.recent_pots),
            "pots_through": table.pots_through,
        }
    )


def table_from_json(text: str) -> LobbyTable:
    raw: dict[str, Any] = json.loads(text)
    return LobbyTable(
        table_id=raw["table_id"],
        options_json=raw["options_json"],
        terms=Terms(**raw["terms"]),
        owner=raw["owner"],
        private=raw["private"],
        invited=frozenset(raw["invited"]),
        invite_code=raw["invite_code"],
        seated=tuple((seat, player) for seat, player in raw["seated"]),
        # Rows written before bots carry neither the holds' bot flag nor the bot fields.
        holds=tuple(
            Hold(p, s, datetime.fromisoformat(u), bool(bot[0]) if bot else False)
            for p, s, u, *bot in raw["holds"]
        ),
        closed=raw["closed"],
        clock_seconds=tuple(raw["clock_seconds"]),
        bots=frozenset(raw.get("bots", ())),
        bots_wanted=raw.get("bots_wanted", 0),
        recent_pots=tuple(raw.get("recent_pots", ())),  # rows before average pots: none
        pots_through=raw.get("pots_through", 0),
    )


def ticket_to_json(record: TicketRecord) -> str:
    ticket = {
        **asdict(record.ticket),
        "created": record.ticket.created.isoformat(),
        "avoid": sorted(record.ticket.avoid),
        "rating_range": None
        if record.ticket.rating_range is None
        else [record.ticket.rating_range.low, record.ticket.rating_range.high],
    }
    return json.dumps(
        {
            "ticket": ticket,
            "options_json": record.options_json,
            "stack": record.stack,
            "match_id": record.match_id,
            "stake": record.stake,
            "table_id": record.table_id,
            "seat": record.seat,
            "failure": record.failure,
        }
    )


def ticket_from_json(text: str, *, request_key: str, status: str, version: int) -> TicketRecord:
    raw: dict[str, Any] = json.loads(text)
    ticket = raw.pop("ticket")
    ticket["created"] = datetime.fromisoformat(ticket["created"])
    # Rows written before ratings carry no rating, range or players to avoid.
    ticket["avoid"] = frozenset(ticket.get("avoid", ()))
    bounds = ticket.get("rating_range")
    ticket["rating_range"] = None if bounds is None else RatingRange(*bounds)
    return TicketRecord(
        ticket=Ticket(**ticket),
        request_key=request_key,
        status=TicketStatus(status),
        version=version,
        **raw,
    )


def limits_to_json(limits: AccountLimits) -> str:
    return json.dumps(
        {"max_stakes": dict(limits.max_stakes), "self_excluded": limits.self_excluded}
    )


def limits_from_json(text: str) -> AccountLimits:
    raw: dict[str, Any] = json.loads(text)
    return AccountLimits(tuple(sorted(raw["max_stakes"].items())), raw["self_excluded"])


def rating_to_json(rating: Rating) -> str:
    return json.dumps(asdict(rating))


def rating_from_json(text: str) -> Rating:
    return Rating(**json.loads(text))


def waiting_to_json(entry: WaitingEntry) -> str:
    return json.dumps({**asdict(entry), "created": entry.created.isoformat()})


def waiting_from_json(text: str) -> WaitingEntry:
    raw: dict[str, Any] = json.loads(text)
    return WaitingEntry(**{**raw, "created": datetime.fromisoformat(raw["created"])})
