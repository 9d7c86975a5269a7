"""A listed table and a ticket in their protobuf forms, and stored and read back as the
PostgreSQL rows keep them."""

from __future__ import annotations

from datetime import timedelta

from croupier.backgammon.v1 import backgammon_pb2
from croupier.common.v1 import common_pb2
from croupier.joker.v1 import joker_pb2
from croupier.lobby import codec
from croupier.lobby.adapters import rows
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.service.ports import TableClock
from croupier.lobby.service.records import TicketStatus
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.table.v1 import table_pb2
from tests.unit.lobby.lobby_setup import HOLD, lobby


async def test_a_listed_table_shows_what_a_player_decides_on_and_is_stored_whole() -> None:
    proto = table_pb2.GameOptions(
        backgammon=backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SINGLE, stake=250, max_win=2_000, currency="USD"
        )
    )
    game, options = codec.options_from_proto(proto)
    async with lobby() as setup:
        record = await setup.tables.open(
            player="ann", request_key="k", game=game, options=options,
            clock=TableClock(turn_seconds=30, reconnect_seconds=180), invited=["bob"],
            with_code=True,
        )  # fmt: skip
        listing = codec.listing(record)
        assert (listing.game, listing.variant) == (common_pb2.GAME_BACKGAMMON, "single")
        assert (listing.stake.amount_minor, listing.stake.currency) == (250, "USD")
        assert listing.max_win.amount_minor == 2_000
        assert (listing.seats, list(listing.seated), listing.seats_taken) == (2, ["ann"], 1)
        assert listing.private and listing.owner_id == "ann"
        assert (listing.clock.turn_seconds, listing.clock.reconnect_seconds) == (30, 180)
        assert listing.status == pb.TABLE_STATUS_WAITING
        assert listing.options == proto
        held, _ = record.table.reserve("bob", setup.clock(), HOLD)
        assert rows.table_from_json(rows.table_to_json(held)) == held


async def test_a_ticket_is_stored_whole() -> None:
    async with lobby() as setup:
        record = await setup.matchmaking.find(
            player="ann", request_key="k", game="poker", options={"variant": "nlhe", "seats": 6},
            min_stake=2, max_stake=10, stack=200,
        )  # fmt: skip
        setup.clock.step(timedelta(minutes=1).total_seconds())
        text = rows.ticket_to_json(record)
        again = rows.ticket_from_json(
            text, request_key=record.request_key, status="waiting", version=record.version
        )
        assert again == record and again.status is TicketStatus.WAITING
        shown = codec.ticket(record)
        assert (shown.min_stake.amount_minor, shown.max_stake.amount_minor) == (2, 10)
        assert shown.status == pb.TICKET_STATUS_WAITING


def test_account_limits_are_stored_whole() -> None:
    limits = AccountLimits((("EUR", 100), ("USD", 500)), self_excluded=True)
    assert rows.limits_from_json(rows.limits_to_json(limits)) == limits


def test_options_text_with_a_control_character_is_refused_naming_the_field() -> None:
    # PostgreSQL's jsonb refuses a NUL outright: the lobby answered INTERNAL (lobby fuzz).
    for text in ("a\x00b", "line\nbreak"):
        options = table_pb2.GameOptions(joker=joker_pb2.Options(multi_premia=text))
        try:
            codec.options_from_proto(options)
        except InvalidInput as refused:
            assert refused.reason == "invalid_options"
            assert "options.joker.multi_premia" in str(refused)
        else:
            raise AssertionError(f"{text!r} was accepted")
    kept = table_pb2.GameOptions(joker=joker_pb2.Options(multi_premia="all"))
    assert codec.options_from_proto(kept) == ("joker", {"multi_premia": "all"})
