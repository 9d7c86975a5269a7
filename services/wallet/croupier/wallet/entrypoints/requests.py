"""Proto requests → service calls, shared by the gRPC servicer and the Kafka consumer."""

from __future__ import annotations

from croupier.wallet.core.errors import InvalidRequest
from croupier.wallet.entrypoints import translate as tr
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import BatchResult
from croupier.wallet.v1 import wallet_pb2

__all__ = ["pay_prizes", "required", "settle_game"]


def required(value: str, name: str) -> str:
    if not value:
        raise InvalidRequest(f"{name} is required")
    return value


async def settle_game(games: GameMoney, request: wallet_pb2.SettleGameRequest) -> BatchResult:
    """Shared by the gRPC method and the Kafka consumer."""
    holds: dict[str, str] = {}
    deltas: dict[str, int] = {}
    for index, result in enumerate(request.results):
        player = required(result.player_id, f"results[{index}].player_id")
        if player in deltas:
            raise InvalidRequest(f"player {player!r} appears twice in results")
        holds[player] = required(result.hold_transfer_id, f"results[{index}].hold_transfer_id")
        deltas[player] = result.delta_minor
    return await games.settle_game(
        settlement_id=required(request.settlement_id, "settlement_id"),
        game=tr.game_from_proto(request.game),
        table_id=required(request.table_id, "table_id"),
        hand_id=request.hand_id,
        currency=required(request.currency, "currency"),
        holds=holds,
        deltas=deltas,
        commission=tr.commission_from_proto(request.commission),
    )


async def pay_prizes(
    games: GameMoney, request: wallet_pb2.PayTournamentPrizesRequest
) -> BatchResult:
    prizes: dict[str, int] = {}
    for index, prize in enumerate(request.prizes):
        player = required(prize.player_id, f"prizes[{index}].player_id")
        if player in prizes:
            raise InvalidRequest(f"player {player!r} appears twice in prizes")
        prizes[player] = prize.amount_minor
    return await games.pay_prizes(
        payout_id=required(request.payout_id, "payout_id"),
        tournament_id=required(request.tournament_id, "tournament_id"),
        game=tr.game_from_proto(request.game),
        currency=required(request.currency, "currency"),
        prizes=prizes,
        final=request.final,
    )
