"""Proto ↔ core translation (the only place that knows both), with input validation.

Everything a client can get wrong in a message raises `InvalidRequest` with a message
naming the field, so the gRPC layer answers INVALID_ARGUMENT before touching the ledger.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from croupier.common.v1 import common_pb2
from croupier.game.commission import FlatRake, PercentRake
from croupier.game.limits import echo
from croupier.wallet.core.coupons import Coupon, CouponStatus
from croupier.wallet.core.errors import InvalidRequest
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    References,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
    check_amount,
    check_currency,
)
from croupier.wallet.core.settlement import (
    CommissionRule,
    backgammon_rule,
    no_commission,
    rake_rule,
)
from croupier.wallet.service.operations import Apply, Operation, PostHold, Reverse, VoidHold
from croupier.wallet.v1 import wallet_pb2

__all__ = [
    "account_kind_from_proto",
    "account_to_proto",
    "amount_from_proto",
    "batch_from_proto",
    "commission_from_proto",
    "coupon_to_proto",
    "day_from_text",
    "fill_transfer",
    "game_from_proto",
    "game_to_proto",
    "new_transfer_from_proto",
    "seconds_nanos",
    "transfer_to_proto",
]

_GAMES: dict[int, str] = {
    common_pb2.GAME_POKER: "poker",
    common_pb2.GAME_BACKGAMMON: "backgammon",
    common_pb2.GAME_RUMMY: "rummy",
    common_pb2.GAME_JOKER: "joker",
}
_GAME_VALUES: dict[str, common_pb2.Game.ValueType] = {
    "poker": common_pb2.GAME_POKER,
    "backgammon": common_pb2.GAME_BACKGAMMON,
    "rummy": common_pb2.GAME_RUMMY,
    "joker": common_pb2.GAME_JOKER,
}


def _enum_name(prefix: str, value: str) -> str:
    return f"{prefix}_{value.upper()}"


def game_from_proto(value: int, *, required: bool = True) -> str:
    if value in _GAMES:
        return _GAMES[value]
    if not required and value == common_pb2.GAME_UNSPECIFIED:
        return ""
    raise InvalidRequest("game is required: GAME_POKER, GAME_BACKGAMMON, GAME_RUMMY or GAME_JOKER")


def game_to_proto(game: str) -> common_pb2.Game.ValueType:
    return _GAME_VALUES.get(game, common_pb2.GAME_UNSPECIFIED)


def account_kind_from_proto(value: int) -> AccountKind:
    for kind in AccountKind:
        if wallet_pb2.AccountKind.Value(_enum_name("ACCOUNT_KIND", kind.value)) == value:
            return kind
    raise InvalidRequest("kind is required, e.g. ACCOUNT_KIND_PLAYER_CASH")


def account_kind_to_proto(kind: AccountKind) -> wallet_pb2.AccountKind.ValueType:
    return wallet_pb2.AccountKind.Value(_enum_name("ACCOUNT_KIND", kind.value))


def transfer_kind_from_proto(value: int) -> TransferKind:
    if value == wallet_pb2.TRANSFER_KIND_UNSPECIFIED:
        raise InvalidRequest("transfer kind is required, e.g. TRANSFER_KIND_DEPOSIT")
    try:
        name = wallet_pb2.TransferKind.Name(value)  # type: ignore[arg-type]
    except ValueError:
        raise InvalidRequest(f"unknown transfer kind {value}") from None
    return TransferKind(name.removeprefix("TRANSFER_KIND_").lower())


_TRANSFER_KINDS: dict[TransferKind, wallet_pb2.TransferKind.ValueType] = {
    kind: wallet_pb2.TransferKind.Value(_enum_name("TRANSFER_KIND", kind.value))
    for kind in TransferKind
}
_STATUSES: dict[TransferStatus, wallet_pb2.TransferStatus.ValueType] = {
    status: wallet_pb2.TransferStatus.Value(_enum_name("TRANSFER_STATUS", status.value))
    for status in TransferStatus
}


def transfer_kind_to_proto(kind: TransferKind) -> wallet_pb2.TransferKind.ValueType:
    return _TRANSFER_KINDS[kind]


def _status_to_proto(status: TransferStatus) -> wallet_pb2.TransferStatus.ValueType:
    return _STATUSES[status]


@functools.lru_cache(maxsize=256)
def seconds_nanos(value: datetime) -> tuple[int, int]:
    """(seconds, nanos) since the epoch, as `Timestamp.FromDatetime` computes them. Cached:
    a batch's transfers share their timestamps, and this runs per transfer event."""
    stamp = Timestamp()
    stamp.FromDatetime(value.astimezone(UTC))
    return stamp.seconds, stamp.nanos


def timestamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    seconds, nanos = seconds_nanos(value)
    return Timestamp(seconds=seconds, nanos=nanos)


#: The instants and days the ledger's reports accept (UTC): 1970-01-01 to 9999-12-30, so
#: that a report's day after or microsecond before always exists for Python and PostgreSQL.
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9999, 12, 30)
_FIRST_SECOND = 0
_LAST_SECOND = int(datetime(9999, 12, 31, tzinfo=UTC).timestamp()) - 1


def datetime_from_proto(value: Timestamp, field: str) -> datetime:
    if value.seconds == 0 and value.nanos == 0:
        raise InvalidRequest(f"{field} is required")
    if not 0 <= value.nanos <= 999_999_999:
        raise InvalidRequest(f"{field}.nanos must be 0–999999999, got {value.nanos}")
    if not _FIRST_SECOND <= value.seconds <= _LAST_SECOND:
        raise InvalidRequest(
            f"{field} must be between {FIRST_DAY}T00:00:00Z and {LAST_DAY}T23:59:59Z "
            f"(seconds {_FIRST_SECOND}–{_LAST_SECOND}), got seconds={value.seconds}"
        )
    return value.ToDatetime(tzinfo=UTC)


def day_from_text(value: str, field: str = "day") -> date:
    """A UTC day, "YYYY-MM-DD", from `FIRST_DAY` to `LAST_DAY`."""
    if not value:
        raise InvalidRequest(f"{field} is required (YYYY-MM-DD)")
    try:
        # Only the extended form's 10 ASCII characters (fromisoformat takes "20261203" too).
        if len(value) != 10 or not value.isascii():
            raise ValueError(value)
        day = date.fromisoformat(value)
    except ValueError:
        raise InvalidRequest(f"{field} must be YYYY-MM-DD, got {echo(value)}") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise InvalidRequest(f"{field} must be between {FIRST_DAY} and {LAST_DAY}, got {day}")
    return day


def amount_from_proto(money: common_pb2.Money, field: str, *, low: int = 1) -> tuple[int, str]:
    if not money.currency:
        raise InvalidRequest(f"{field}.currency is required (e.g. USD, PLAY, CHIP)")
    check_currency(money.currency, f"{field}.currency")
    return check_amount(money.amount_minor, f"{field}.amount_minor", low=low), money.currency


def money(amount: int, currency: str) -> common_pb2.Money:
    return common_pb2.Money(amount_minor=amount, currency=currency)


def references_from_proto(refs: wallet_pb2.References) -> References:
    return References(
        game=game_from_proto(refs.game, required=False),
        table_id=refs.table_id,
        hand_id=refs.hand_id,
        tournament_id=refs.tournament_id,
    )


def new_transfer_from_proto(message: wallet_pb2.NewTransfer, *, pending: bool) -> TransferSpec:
    if not message.transfer_id:
        raise InvalidRequest("transfer_id is required: choose a unique id (the idempotency key)")
    if not message.HasField("amount"):
        raise InvalidRequest("amount is required")
    amount, currency = amount_from_proto(message.amount, "amount")
    spec = TransferSpec(
        transfer_id=message.transfer_id,
        debit_account_id=message.debit_account_id,
        credit_account_id=message.credit_account_id,
        amount=amount,
        currency=currency,
        kind=transfer_kind_from_proto(message.kind),
        pending=pending,
        references=references_from_proto(message.references),
        metadata=dict(message.metadata),
    )
    spec.validate()
    return spec


def batch_from_proto(request: wallet_pb2.TransferBatchRequest) -> list[Operation]:
    operations: list[Operation] = []
    for index, op in enumerate(request.operations):
        which = op.WhichOneof("operation")
        try:
            if which == "transfer":
                operations.append(Apply(new_transfer_from_proto(op.transfer, pending=False)))
            elif which == "hold":
                operations.append(Apply(new_transfer_from_proto(op.hold, pending=True)))
            elif which == "post_hold":
                operations.append(
                    PostHold(
                        transfer_id=op.post_hold.transfer_id,
                        amount=post_amount(op.post_hold.amount_minor),
                    )
                )
            elif which == "void_hold":
                operations.append(VoidHold(transfer_id=op.void_hold.transfer_id))
            elif which == "reverse":
                operations.append(
                    Reverse(
                        original_id=op.reverse.original_transfer_id,
                        transfer_id=op.reverse.transfer_id,
                        metadata=dict(op.reverse.metadata),
                    )
                )
            else:
                raise InvalidRequest("operation is empty")
        except InvalidRequest as error:
            raise InvalidRequest(f"operations[{index}]: {error.message}") from None
    return operations


def post_amount(amount_minor: int) -> int | None:
    if amount_minor < 0:
        raise InvalidRequest(f"amount_minor must be ≥ 0 (0 = the whole hold), got {amount_minor}")
    return check_amount(amount_minor, "amount_minor") if amount_minor else None


def commission_from_proto(rule: wallet_pb2.CommissionRule) -> CommissionRule:
    which = rule.WhichOneof("rule")
    if which == "backgammon":
        return backgammon_rule
    if which == "percent_rake":
        cap = check_amount(rule.percent_rake.cap_minor, "percent_rake.cap_minor", low=0) or None
        return rake_rule(PercentRake(basis_points=rule.percent_rake.basis_points, cap=cap))
    if which == "flat_rake":
        amount = check_amount(rule.flat_rake.amount_minor, "flat_rake.amount_minor", low=0)
        return rake_rule(FlatRake(amount=amount))
    if which == "none":
        return no_commission
    raise InvalidRequest("commission is required: backgammon, percent_rake, flat_rake or none")


def account_to_proto(account: Account) -> wallet_pb2.Account:
    return wallet_pb2.Account(
        account_id=account.account_id,
        kind=account_kind_to_proto(account.kind),
        currency=account.currency,
        owner=account.owner,
        posted_minor=account.posted,
        debits_pending_minor=account.debits_pending,
        credits_pending_minor=account.credits_pending,
        available_minor=account.available,
        opened_at=timestamp(account.opened_at),
    )


def transfer_to_proto(transfer: Transfer) -> wallet_pb2.TransferRecord:
    record = wallet_pb2.TransferRecord()
    fill_transfer(record, transfer)
    return record


def fill_transfer(record: wallet_pb2.TransferRecord, transfer: Transfer) -> None:
    """Set `record` (empty) to `transfer`, in place: no temporary sub-messages to copy (this
    runs once per posted transfer, for its event)."""
    record.transfer_id = transfer.transfer_id
    record.debit_account_id = transfer.debit_account_id
    record.credit_account_id = transfer.credit_account_id
    amount = record.amount
    amount.amount_minor = transfer.amount
    amount.currency = transfer.currency
    record.kind = _TRANSFER_KINDS[transfer.kind]
    record.status = _STATUSES[transfer.status]
    record.is_hold = transfer.is_hold
    refs = transfer.references
    references = record.references
    references.SetInParent()
    if refs.game:
        references.game = game_to_proto(refs.game)
    if refs.table_id:
        references.table_id = refs.table_id
    if refs.hand_id:
        references.hand_id = refs.hand_id
    if refs.tournament_id:
        references.tournament_id = refs.tournament_id
    if transfer.metadata:
        record.metadata.update(transfer.metadata)
    record.reversal_of = transfer.reversal_of
    record.created_at.seconds, record.created_at.nanos = seconds_nanos(transfer.created_at)
    if transfer.resolved_at is not None:
        record.resolved_at.seconds, record.resolved_at.nanos = seconds_nanos(transfer.resolved_at)
    if transfer.posted_amount is not None:
        posted = record.posted_amount
        posted.amount_minor = transfer.posted_amount
        posted.currency = transfer.currency


_COUPON_STATUSES = {
    CouponStatus.HELD: wallet_pb2.COUPON_STATUS_HELD,
    CouponStatus.REDEEMED: wallet_pb2.COUPON_STATUS_REDEEMED,
    CouponStatus.VOIDED: wallet_pb2.COUPON_STATUS_VOIDED,
}


def coupon_to_proto(coupon: Coupon, now: datetime | None = None) -> wallet_pb2.Coupon:
    """`now`: a held coupon past its expiry shows as expired ("My coupons")."""
    expired = now is not None and coupon.expired(now)
    return wallet_pb2.Coupon(
        coupon_id=coupon.coupon_id,
        player_id=coupon.player,
        game=game_to_proto(coupon.game),
        value=money(coupon.value, coupon.currency),
        issued_at=timestamp(coupon.issued_at),
        expires_at=timestamp(coupon.expires_at),
        status=wallet_pb2.COUPON_STATUS_EXPIRED if expired else _COUPON_STATUSES[coupon.status],
        entry_id=coupon.entry_id,
        tournament_id=coupon.tournament_id,
    )
