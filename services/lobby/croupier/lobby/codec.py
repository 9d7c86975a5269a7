"""The lobby's records and requests in their protobuf forms (`croupier.lobby.v1`): game
options to and from the game's JSON notation (as the table host reads them), listings,
tickets, filters, and the envelopes of `croupier.lobby.events`."""

from __future__ import annotations

import json
import uuid
from typing import Any

from google.protobuf import json_format

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game.limits import echo, has_control_character
from croupier.kit.bus.envelope import make_envelope
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.service.listing import TableFilter
from croupier.lobby.service.queues import QueueState
from croupier.lobby.service.records import TableRecord, TicketRecord, TicketStatus
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.table.v1 import table_pb2

__all__ = [
    "EVENTS_TOPIC",
    "filter_from_proto",
    "game_name",
    "listing",
    "options_from_proto",
    "queue",
    "table_listed",
    "ticket",
    "ticket_changed",
]

EVENTS_TOPIC = "croupier.lobby.events"
GAMES = {
    "poker": common_pb2.GAME_POKER,
    "backgammon": common_pb2.GAME_BACKGAMMON,
    "rummy": common_pb2.GAME_RUMMY,
    "joker": common_pb2.GAME_JOKER,
}
_NAMES: dict[int, str] = {number: name for name, number in GAMES.items()}
_TICKET_STATUSES = {
    TicketStatus.WAITING: pb.TICKET_STATUS_WAITING,
    TicketStatus.MATCHED: pb.TICKET_STATUS_MATCHED,
    TicketStatus.SEATED: pb.TICKET_STATUS_SEATED,
    TicketStatus.CANCELLED: pb.TICKET_STATUS_CANCELLED,
    TicketStatus.EXPIRED: pb.TICKET_STATUS_EXPIRED,
    TicketStatus.FAILED: pb.TICKET_STATUS_FAILED,
}
_ENVELOPE_NAMESPACE = uuid.UUID("5e1f0c1a-77b3-4b8e-9f0e-10bb1e5e0e17")


def game_name(game: int) -> str:
    """A `croupier.common.v1.Game` as the lobby names it; "" for unset."""
    if game == common_pb2.GAME_UNSPECIFIED:
        return ""
    if game not in _NAMES:
        raise InvalidInput("unknown_game", f"game {echo(game)} is not a game Croupier hosts")
    return _NAMES[game]


def options_from_proto(options: table_pb2.GameOptions) -> tuple[str, dict[str, object]]:
    """The game and its options in the JSON notation the host reads (as its OpenTable
    reads the protobuf member)."""
    member = options.WhichOneof("game")
    if member is None:
        raise InvalidInput("unknown_game", "options must set one game (poker, backgammon, ...)")
    raw = json_format.MessageToDict(getattr(options, member), preserving_proto_field_name=True)
    _check_text(raw, f"options.{member}")
    return member, raw


def _check_text(value: object, path: str) -> None:
    """No text in the options holds a control character (they are stored and logged)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_text(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            _check_text(item, path)
    elif isinstance(value, str) and has_control_character(value):
        raise InvalidInput("invalid_options", f"{path} contains a control character")


def _options_to_proto(game: str, options_json: str) -> table_pb2.GameOptions:
    message = table_pb2.GameOptions()
    member = getattr(message, game)
    member.SetInParent()  # the game is named even when its options are all defaults
    json_format.ParseDict(json.loads(options_json), member, ignore_unknown_fields=True)
    return message


def money(amount: int, currency: str) -> common_pb2.Money:
    return common_pb2.Money(amount_minor=amount, currency=currency)


def listing(record: TableRecord) -> pb.TableListing:
    table = record.table
    terms = table.terms
    status = pb.TABLE_STATUS_WAITING
    if table.closed:
        status = pb.TABLE_STATUS_CLOSED
    elif not table.free_seats():
        status = pb.TABLE_STATUS_FULL
    return pb.TableListing(
        table_id=table.table_id,
        game=GAMES[terms.game],
        variant=terms.variant,
        stake=money(terms.stake, terms.currency),
        max_win=money(terms.max_win, terms.currency),
        seats=terms.seats,
        seated=table.players(),
        seats_taken=len(table.taken()),
        private=table.private,
        owner_id=table.owner,
        bots_allowed=terms.bots_allowed,
        clock=table_pb2.TableClock(
            turn_seconds=table.clock_seconds[0],
            reserve_seconds=table.clock_seconds[1],
            reconnect_seconds=table.clock_seconds[2],
        ),
        status=status,
        options=_options_to_proto(terms.game, table.options_json),
        bots=sorted(table.bots),
        bots_wanted=table.bots_wanted,
        average_pot=money(table.average_pot(), terms.currency),
    )


def ticket(record: TicketRecord) -> pb.Ticket:
    found = record.ticket
    return pb.Ticket(
        ticket_id=found.ticket_id,
        player_id=found.player,
        status=_TICKET_STATUSES[record.status],
        game=GAMES[found.game],
        min_stake=money(found.min_stake, found.currency),
        max_stake=money(found.max_stake, found.currency),
        table_id=record.table_id,
        seat=record.seat,
        stake=money(record.stake, found.currency),
        failure=record.failure,
        rating=found.rating,
    )


def queue(state: QueueState) -> pb.TournamentQueue:
    template = state.template
    return pb.TournamentQueue(
        queue_id=template.queue_id,
        name=template.name,
        game=GAMES[template.game],
        variant=template.variant,
        kind=template.kind,
        buy_in=money(template.buy_in, template.currency),
        fee=money(template.fee, template.currency),
        players=template.players,
        waiting=state.waiting,
        tournament_id=state.tournament_id,
    )


def filter_from_proto(given: pb.TableFilter) -> TableFilter:
    if given.min_stake < 0 or given.max_stake < 0:
        raise InvalidInput("invalid_stake", "stakes in a filter are not negative")
    return TableFilter(
        game=game_name(given.game),
        variant=given.variant,
        currency=given.currency,
        min_stake=given.min_stake,
        max_stake=given.max_stake,
        min_free_seats=given.min_free_seats,
        include_private=given.include_private,
    )


def _envelope(subject: str, kind: str, version: int, payload: Any) -> Envelope:
    # The id derives from the record's version: a save retried after a crash announces
    # the same change with the same id, which consumers drop.
    return make_envelope(
        type=f"lobby.{kind}",
        source="lobby",
        subject=subject,
        sequence=version,
        payload=payload,
        envelope_id=str(uuid.uuid5(_ENVELOPE_NAMESPACE, f"{subject}/{version}")),
    )


def table_listed(record: TableRecord) -> Envelope:
    return _envelope(
        record.table.table_id,
        "table_listed",
        record.version,
        pb.TableListed(table=listing(record)),
    )


def ticket_changed(record: TicketRecord) -> Envelope:
    return _envelope(
        record.ticket.ticket_id,
        "ticket_changed",
        record.version,
        pb.TicketChanged(ticket=ticket(record)),
    )
