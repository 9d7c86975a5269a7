"""The `TableHost` port: over the table host's gRPC API (`croupier.table.v1.TableEngine`),
and in process over a `croupier.table` host object (unit tests, a host in the same
process).

Each rummy round, and each poker hand, is a table of its own: opened by the round's (or
hand's) id as request key (opening it again returns the same table), seated in the seat
order with each player's chips (a rummy round's before its fee), then closed, so that the
host deals the round (or hand) the seats complete and no other (CloseTable lets the one in
play finish first). Players already seated are not
seated again: after a director restart the same round is driven again and changes
nothing.
"""

from __future__ import annotations

import json
from typing import Any

from croupier.game import JSON
from croupier.kit.errors import Unavailable
from croupier.kit.service_auth import ServiceCredential
from croupier.table.client import TableHostClient
from croupier.tournament.service.ports import HandTable, RoundTable

__all__ = [
    "GrpcTableHost",
    "InProcessTableHost",
    "TableHostUnavailable",
    "hand_options",
    "table_options",
]

TABLE_TIMEOUT_SECONDS = 10.0
Stacks = tuple[tuple[str, int], ...]
NO_BOTS: frozenset[str] = frozenset()


class TableHostUnavailable(Unavailable):
    """The table host did not answer; the director drives the round again later."""


def table_options(round_table: RoundTable) -> JSON:
    """The rummy table's options for one tournament round (rule 19: the level's terms)."""
    return {
        "variant": round_table.variant,
        "players": len(round_table.stacks),
        "round_fee": round_table.round_fee,
        "chip_ratio": round_table.chip_ratio,
        "limit_to_winner_risk": round_table.winner_risk_limit,
        "turn_seconds": round_table.turn_seconds,
    }


def hand_options(hand: HandTable) -> JSON:
    """The poker table's options for one tournament hand: a seat per player, dealt once
    all are seated (`hand_players`), the level's blinds and ante, a dead small blind when
    the dead button rule left none; tournament chips (the host's default currency), never
    money (rule 55)."""
    options: JSON = {
        "variant": hand.variant,
        "seats": len(hand.seats),
        "hand_players": len(hand.seats),
        "small_blind": hand.small_blind,
        "big_blind": hand.big_blind,
        "ante": hand.ante,
        "big_blind_ante": hand.big_blind_ante,
        "decision_seconds": hand.turn_seconds,
        "bots_allowed": True,
    }
    if hand.dead_small_blind:
        options["dead_small_blind"] = True
    return options


class InProcessTableHost:
    """A `croupier.table.service.host.TableHost` in this process, called directly."""

    def __init__(self, host: Any) -> None:
        self._host = host

    async def play_round(self, round_table: RoundTable) -> str:
        options = table_options(round_table)
        return await self._play("rummy", options, round_table.round_id, round_table.stacks)

    async def play_hand(self, hand: HandTable) -> str:
        options = hand_options(hand)
        return await self._play("poker", options, hand.hand_id, hand.seats, hand.bots)

    async def _play(
        self, game: str, options: JSON, key: str, stacks: Stacks, bots: frozenset[str] = NO_BOTS
    ) -> str:
        host = self._host
        table_id: str = await host.open_table(game, options, None, request_key=key)
        seated = set(host.view(table_id, "").seated)
        for seat, (player, stack) in enumerate(stacks):
            if player not in seated:
                await host.seat(table_id, player, seat, stack, is_bot=player in bots)
        await host.close(table_id)
        return table_id


class GrpcTableHost:
    """The table host's gRPC API, on a lazily opened channel."""

    def __init__(
        self,
        target: str,
        timeout: float = TABLE_TIMEOUT_SECONDS,
        *,
        credential: ServiceCredential | None = None,
    ) -> None:
        """`credential`: the director's (the host answers services only)."""
        # Every status, a refusal too, leaves the round to be driven again later.
        self._client = TableHostClient(
            target,
            timeout,
            credential=credential,
            refusals={},
            unavailable=TableHostUnavailable,
            details=True,
            retry="the round is driven again",
        )

    async def play_round(self, round_table: RoundTable) -> str:
        options = table_options(round_table)
        return await self._play("rummy", options, round_table.round_id, round_table.stacks)

    async def play_hand(self, hand: HandTable) -> str:
        options = hand_options(hand)
        return await self._play("poker", options, hand.hand_id, hand.seats, hand.bots)

    async def _play(
        self, game: str, options: JSON, key: str, stacks: Stacks, bots: frozenset[str] = NO_BOTS
    ) -> str:
        from croupier.table.v1 import table_pb2

        opened = await self._client.call(
            "OpenTable",
            table_pb2.OpenTableRequest(
                game=game, options_json=json.dumps(options), request_key=key
            ),
        )
        table_id: str = opened.table_id
        view = await self._client.call(
            "GetView",
            table_pb2.GetViewRequest(table_id=table_id, view_format=table_pb2.VIEW_FORMAT_JSON),
        )
        seated = set(view.view.seated)
        for seat, (player, stack) in enumerate(stacks):
            if player not in seated:
                await self._client.seat(
                    table_id=table_id,
                    player=player,
                    seat=seat,
                    stack=stack,
                    is_bot=player in bots,
                )
        await self._client.close_table(table_id)
        return table_id

    async def close(self) -> None:
        await self._client.close()
