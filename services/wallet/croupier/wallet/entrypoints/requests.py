"""Proto requests → service calls, shared by the gRPC servicer and the Kafka consumer."""

from __future__ import annotations

from croupier.game.limits import MAX_AMOUNT
from croupier.wallet.core.coupons import Coupon
from croupier.wallet.core.errors import InvalidRequest
from croupier.wallet.core.model import Transfer, check_amount, check_currency, check_id
from croupier.wallet.entrypoints import translate as tr
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import BatchResult
from croupier.wallet.v1 import wallet_pb2

__all__ = [
    "cash_out",
    "enter_tournament",
    "issue_coupon",
    "optional_currency",
    "pay_prizes",
    "required",
    "required_currency",
    "settle_game",
]


def required(value: str, name: str) -> str:
    """A required id: present, and valid (`check_id`)."""
    if not value:
        raise InvalidRequest(f"{name} is required")
    return check_id(value, name)


def required_currency(value: str, name: str = "currency") -> str:
    if not value:
        raise InvalidRequest(f"{name} is required (e.g. USD, PLAY, CHIP)")
    return check_currency(value, name)


def optional_currency(value: str, name: str = "currency") -> str:
    """A currency filter: empty = every currency."""
    return check_currency(value, name) if value else ""


async def cash_out(games: GameMoney, request: wallet_pb2.CashOutRequest) -> tuple[Transfer, bool]:
    """Shared by the gRPC method and the Kafka consumer (the table host's cash-outs)."""
    if request.amount.amount_minor < 0:
        raise InvalidRequest("amount.amount_minor must be ≥ 0 (0 = the whole seat)")
    amount, currency = tr.amount_from_proto(request.amount, "amount", low=0)
    return await games.cash_out(
        transfer_id=required(request.transfer_id, "transfer_id"),
        player=required(request.player_id, "player_id"),
        game=tr.game_from_proto(request.game),
        table_id=required(request.table_id, "table_id"),
        currency=currency,
        amount=amount or None,
    )


async def settle_game(games: GameMoney, request: wallet_pb2.SettleGameRequest) -> BatchResult:
    """Shared by the gRPC method and the Kafka consumer."""
    holds: dict[str, str] = {}
    deltas: dict[str, int] = {}
    for index, result in enumerate(request.results):
        player = required(result.player_id, f"results[{index}].player_id")
        if player in deltas:
            raise InvalidRequest(f"player {player!r} appears twice in results")
        holds[player] = required(result.hold_transfer_id, f"results[{index}].hold_transfer_id")
        deltas[player] = check_amount(
            result.delta_minor, f"results[{index}].delta_minor", low=-MAX_AMOUNT
        )
    return await games.settle_game(
        settlement_id=required(request.settlement_id, "settlement_id"),
        game=tr.game_from_proto(request.game),
        table_id=required(request.table_id, "table_id"),
        hand_id=check_id(request.hand_id, "hand_id") if request.hand_id else "",
        currency=required_currency(request.currency),
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
        prizes[player] = check_amount(prize.amount_minor, f"prizes[{index}].amount_minor", low=0)
    return await games.pay_prizes(
        payout_id=required(request.payout_id, "payout_id"),
        tournament_id=required(request.tournament_id, "tournament_id"),
        game=tr.game_from_proto(request.game),
        currency=required_currency(request.currency),
        prizes=prizes,
        final=request.final,
    )


async def enter_tournament(
    games: GameMoney, request: wallet_pb2.EnterTournamentRequest
) -> BatchResult:
    if request.buy_in.amount_minor < 0 or request.fee.amount_minor < 0:
        raise InvalidRequest("buy_in and fee must be ≥ 0")
    buy_in, currency = tr.amount_from_proto(request.buy_in, "buy_in", low=0)
    if request.fee.currency and request.fee.currency != currency:
        raise InvalidRequest("fee.currency must be the buy-in's currency")
    fee = check_amount(request.fee.amount_minor, "fee.amount_minor", low=0)
    prize_pool = None
    if request.HasField("prize_pool"):
        prize_pool, pool_currency = tr.amount_from_proto(request.prize_pool, "prize_pool")
        if pool_currency != currency:
            raise InvalidRequest("prize_pool.currency must be the buy-in's currency")
    return await games.register(
        entry_id=required(request.entry_id, "entry_id"),
        tournament_id=required(request.tournament_id, "tournament_id"),
        game=tr.game_from_proto(request.game),
        player=required(request.player_id, "player_id"),
        currency=currency,
        buy_in=buy_in,
        fee=fee,
        rebuy=request.rebuy,
        prize_pool=prize_pool,
        coupon_id=check_id(request.coupon_id, "coupon_id") if request.coupon_id else "",
    )


async def issue_coupon(
    coupons: Coupons, request: wallet_pb2.IssueCouponRequest
) -> tuple[Coupon, bool]:
    value, currency = tr.amount_from_proto(request.value, "value")
    return await coupons.issue(
        coupon_id=required(request.coupon_id, "coupon_id"),
        player=required(request.player_id, "player_id"),
        game=tr.game_from_proto(request.game),
        currency=currency,
        value=value,
        expires_at=tr.datetime_from_proto(request.expires_at, "expires_at"),
    )
