"""Property: no request makes the wallet answer INTERNAL or UNKNOWN, or change the ledger
when it refuses.

Hypothesis sends generated absurd values (huge and negative integers, NUL and control
characters, huge strings, out-of-range timestamps and enums, random bytes as the whole
request body) to EVERY method of `croupier.wallet.v1.Wallet`, over real gRPC on the real
PostgreSQL, mixed with plausible values so that some calls get past the first check. After
each call: the status is never INTERNAL/UNKNOWN, a refused call left accounts, transfers and
postings exactly as they were, and the server still answers.
"""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.common.v1 import common_pb2
from croupier.game.limits import MAX_AMOUNT
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.hostile import fill, scalar

SERVICE = wallet_pb2.DESCRIPTOR.services_by_name["Wallet"]
METHODS = sorted(method.name for method in SERVICE.methods)

# Plausible values (so that calls reach the ledger) next to absurd ones.
IDS = [
    "alice",
    "bob",
    "house",
    "t1",
    "h1",
    "deposit-alice",
    "player_cash:alice:USD",
    "player_cash:bob:USD",
    "house_clearing:house:USD",
    "table_escrow:t1:USD",
    "cup",
]
ABSURD_TEXT = [
    "",
    "\x00",
    "a\x00b",
    "alice\n",
    "player_cash:alice\n:USD",
    "\x7f\x85\u2028",
    "x" * 201,
    "9" * 400,
    "USD",
    "US\x00D",
    "usd",
    "PLAY",
    "CHIP",
    "9999-12-31",
    "0001-01-01",
    "2026-11-29",
    "2026-02-30",
    "20261129",
    "١٢٣",
    "😀",
    "'; DROP TABLE accounts; --",
]
INTS = [0, 1, -1, 5, 100, MAX_AMOUNT, MAX_AMOUNT + 1, 2**31 - 1, -(2**31), 2**62, -(2**62)]

text = st.one_of(
    st.sampled_from(IDS),
    st.sampled_from(ABSURD_TEXT),
    st.text(max_size=12),
    st.integers(1000, 300_000).map(lambda n: "y" * n),
)


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    return scalar(field, INTS, text)


def _message(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Values for some of the message's fields (a dict the `fill` below applies)."""
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = _scalar(field.message_type.fields_by_name["value"])
            optional[field.name] = st.dictionaries(text, value, max_size=3)
            continue
        if field.message_type is not None:
            if depth >= 4:
                continue
            single = _message(field.message_type, depth + 1)
        else:
            single = _scalar(field)
        is_repeated = field.is_repeated
        optional[field.name] = st.lists(single, max_size=3) if is_repeated else single
    return st.fixed_dictionaries({}, optional=optional)  # type: ignore[arg-type]


USD = {"amount_minor": 50, "currency": "USD"}
NEW = {
    "transfer_id": "n1",
    "debit_account_id": "player_cash:alice:USD",
    "credit_account_id": "player_cash:bob:USD",
    "amount": USD,
    "kind": wallet_pb2.TRANSFER_KIND_TRANSFER,
    "references": {"table_id": "t1", "hand_id": "1"},
    "metadata": {"note": "hi"},
}
DAY = {"seconds": 1_764_417_600}  # 2025-11-29
GAME = {"game": common_pb2.GAME_BACKGAMMON, "table_id": "t1", "player_id": "alice"}
#: A valid request per method: mutated one or two leaves at a time, these reach the ledger.
VALID: dict[str, dict[str, Any]] = {
    "OpenAccount": {
        "kind": wallet_pb2.ACCOUNT_KIND_PLAYER_CASH,
        "owner": "carol",
        "currency": "USD",
    },
    "GetAccount": {"account_id": "player_cash:alice:USD"},
    "GetBalance": {"account_id": "player_cash:alice:USD"},
    "Transfer": {"transfer": NEW},
    "Hold": {"transfer": {**NEW, "transfer_id": "n2"}},
    "PostHold": {"transfer_id": "h1", "amount_minor": 60},
    "VoidHold": {"transfer_id": "h1"},
    "Reverse": {"original_transfer_id": "n1", "transfer_id": "r1", "metadata": {"why": "test"}},
    "TransferBatch": {
        "batch_id": "b1",
        "operations": [
            {"transfer": {**NEW, "transfer_id": "n3"}},
            {"void_hold": {"transfer_id": "h1"}},
        ],
    },
    "GetTransfer": {"transfer_id": "deposit-alice"},
    "GetStatement": {"account_id": "player_cash:alice:USD", "page": {"page_size": 2}},
    "HoldStake": {**GAME, "transfer_id": "h2", "hand_id": "2", "amount": USD},
    "BuyIn": {**GAME, "transfer_id": "buy1", "amount": USD},
    "CashOut": {**GAME, "transfer_id": "out1", "amount": {"amount_minor": 0, "currency": "USD"}},
    "SettleGame": {
        "settlement_id": "s1",
        "game": common_pb2.GAME_BACKGAMMON,
        "table_id": "t1",
        "hand_id": "1",
        "currency": "USD",
        "results": [{"player_id": "alice", "hold_transfer_id": "h1", "delta_minor": 0}],
        "commission": {"backgammon": {}},
    },
    "EnterTournament": {
        "entry_id": "e1",
        "tournament_id": "cup",
        "game": common_pb2.GAME_POKER,
        "player_id": "alice",
        "buy_in": USD,
        "fee": {"amount_minor": 5, "currency": "USD"},
    },
    "RefundTournamentEntry": {"entry_id": "e1", "refund_id": "u1"},
    "IssueCoupon": {
        "coupon_id": "c1",
        "player_id": "alice",
        "game": common_pb2.GAME_POKER,
        "value": {"amount_minor": 25, "currency": "USD"},
        "expires_at": {"seconds": 4_102_444_800},  # 2100-01-01
    },
    "ListCoupons": {"player_id": "alice"},
    "PayTournamentPrizes": {
        "payout_id": "p1",
        "tournament_id": "cup",
        "game": common_pb2.GAME_POKER,
        "currency": "USD",
        "prizes": [{"player_id": "bob", "amount_minor": 50}],
        "final": True,
    },
    "RefundCrashedTable": {"table_id": "t1", "game": common_pb2.GAME_BACKGAMMON, "currency": "USD"},
    "RefundCrashedTournament": {
        "tournament_id": "cup",
        "game": common_pb2.GAME_POKER,
        "currency": "USD",
    },
    "ExportJournal": {"from": DAY, "to": {"seconds": DAY["seconds"] + 86_400}, "format": 1},
    "GetTrialBalance": {"at": DAY, "currency": "USD"},
    "GetReconciliationReport": {"day": "2025-11-29", "currency": "USD"},
}


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _leaves(item, (*path, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _leaves(item, (*path, i))]
    return [path]


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


def _absurd_like(original: Any) -> st.SearchStrategy[Any]:
    if isinstance(original, bool):
        return st.booleans()
    if isinstance(original, str):
        return text
    return st.one_of(st.sampled_from([*INTS, 2**63 - 1, -(2**63)]), st.integers(-(2**31), 2**31))


@st.composite
def mutated(draw: st.DrawFn, method: str) -> dict[str, Any]:
    """The method's valid request with up to two leaves replaced by absurd values."""
    values = VALID[method]
    for _ in range(draw(st.integers(0, 2))):
        path = draw(st.sampled_from(_leaves(values)))
        original: Any = values
        for key in path:
            original = original[key]
        values = _replace(values, path, draw(_absurd_like(original)))
    return values


def _serialized(cls: type[Message], values: dict[str, Any]) -> bytes | None:
    try:
        return fill(cls(), values).SerializeToString()
    except (ValueError, TypeError):  # a value the field's type cannot hold (int32 range...)
        return None


def request(method: str) -> st.SearchStrategy[bytes]:
    descriptor = SERVICE.methods_by_name[method].input_type
    cls = getattr(wallet_pb2, descriptor.name)
    generated = _message(descriptor).map(lambda values: _serialized(cls, values))
    near_valid = mutated(method).map(lambda values: _serialized(cls, values))
    return st.one_of(
        near_valid.filter(lambda body: body is not None),
        generated.filter(lambda body: body is not None),
        st.binary(max_size=64),  # random bytes as the whole body
    )  # type: ignore[return-value]


calls = st.sampled_from(METHODS).flatmap(lambda m: st.tuples(st.just(m), request(m)))


async def ledger_state(pool: asyncpg.Pool) -> tuple[object, ...]:
    async with pool.acquire() as connection:
        state = []
        for table in ("accounts", "transfers", "postings", "coupons"):
            rows = await connection.fetch(f"SELECT * FROM {table} ORDER BY 1")
            state.append([tuple(row) for row in rows])
        return tuple(state)


@pytest.fixture
async def channel(wallet_channel: grpc.aio.Channel) -> grpc.aio.Channel:
    await seed(wallet_pb2_grpc.WalletStub(wallet_channel))
    return wallet_channel


async def seed(stub: wallet_pb2_grpc.WalletStub) -> None:
    """Accounts, a deposit and a stake hold for the generated requests to find."""
    for kind, owner in (
        (wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, "house"),
        (wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, "alice"),
        (wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, "bob"),
    ):
        await stub.OpenAccount(
            wallet_pb2.OpenAccountRequest(kind=kind, owner=owner, currency="USD")
        )
    await stub.Transfer(
        wallet_pb2.TransferRequest(
            transfer=wallet_pb2.NewTransfer(
                transfer_id="deposit-alice",
                debit_account_id="house_clearing:house:USD",
                credit_account_id="player_cash:alice:USD",
                amount=common_pb2.Money(amount_minor=10_000, currency="USD"),
                kind=wallet_pb2.TRANSFER_KIND_DEPOSIT,
            )
        )
    )
    await stub.HoldStake(
        wallet_pb2.HoldStakeRequest(
            transfer_id="h1",
            player_id="alice",
            game=common_pb2.GAME_BACKGAMMON,
            table_id="t1",
            amount=common_pb2.Money(amount_minor=100, currency="USD"),
        )
    )


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(call=calls)
async def test_no_request_gets_internal_or_changes_the_ledger_when_refused(
    channel: grpc.aio.Channel,
    wallet_pool: tuple[asyncpg.Pool, str],
    call: tuple[str, bytes],
) -> None:
    method, body = call
    pool = wallet_pool[0]
    invoke = channel.unary_unary(f"/{SERVICE.full_name}/{method}")
    before = await ledger_state(pool)
    try:
        await invoke(body, timeout=30)
    except grpc.aio.AioRpcError as error:
        assert error.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (
            method,
            error.code(),
            error.details(),
        )
        assert len(error.details() or "") < 1000, (method, len(error.details() or ""))
        assert await ledger_state(pool) == before, f"{method} refused but changed the ledger"
    # The server is still there.
    account = await wallet_pb2_grpc.WalletStub(channel).GetAccount(
        wallet_pb2.GetAccountRequest(account_id="house_clearing:house:USD")
    )
    assert account.account.account_id == "house_clearing:house:USD"
