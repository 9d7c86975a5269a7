"""The request handler without a broker: every `WalletRequest` kind, dead-lettering rules."""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
from google.protobuf import wrappers_pb2
from google.protobuf.message import Message
from prometheus_client import REGISTRY, CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus import DLQ_REASON_HEADER, make_envelope
from croupier.table.v1 import table_pb2
from croupier.wallet.adapters.requests_pg import PostgresRequestLog
from croupier.wallet.bootstrap import build_wallet
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.entrypoints.consumer import WalletRequestHandler
from croupier.wallet.v1 import wallet_pb2
from tests.support.wallet import Sink, SteppingClock
from tests.support.wallet_stories import table_cash_outs_name_no_account


def request(envelope_id: str, payload: Message) -> Envelope:
    return make_envelope(type="wallet.request", source="tests", subject="s", sequence=1,
                         payload=payload, envelope_id=envelope_id)  # fmt: skip


def usd(amount: int) -> common_pb2.Money:
    return common_pb2.Money(amount_minor=amount, currency="USD")


async def test_every_wallet_request_kind_and_dead_letters(
    wallet_pool: tuple[asyncpg.Pool, str], clock: object
) -> None:
    pool, schema = wallet_pool
    wallet = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry(),
                                clock=clock)  # type: ignore[arg-type]  # fmt: skip
    sink = Sink()
    handler = WalletRequestHandler(ledger=wallet.ledger, games=wallet.games,
                                   requests=PostgresRequestLog(pool), dead_letters=sink,
                                   metrics=wallet.metrics, clock=clock,  # type: ignore[arg-type]
                                   topic="requests", group=f"wallet-{schema}")  # fmt: skip
    house = await wallet.ledger.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    for p in ("a", "b"):
        account = await wallet.ledger.open_account(AccountKind.PLAYER_CASH, p, "USD")
        await wallet.ledger.transfer(TransferSpec(
            transfer_id=f"dep-{p}", debit_account_id=house.account_id,
            credit_account_id=account.account_id, amount=10_000, currency="USD",
            kind=TransferKind.DEPOSIT))  # fmt: skip
    rummy, bg = common_pb2.GAME_RUMMY, common_pb2.GAME_BACKGAMMON
    for p in ("a", "b"):
        await wallet.games.hold_stake(transfer_id=f"g:{p}", player=p, game="backgammon",
                                      table_id="g", currency="USD", amount=5000)  # fmt: skip
        await wallet.games.register(entry_id=f"T:{p}", tournament_id="T", game="rummy",
                                    player=p, currency="USD", buy_in=1000, fee=100)  # fmt: skip
    requests = [
        wallet_pb2.WalletRequest(settle_game=wallet_pb2.SettleGameRequest(
            settlement_id="g:1", game=bg, table_id="g", currency="USD",
            results=[wallet_pb2.PlayerResult(player_id="a", hold_transfer_id="g:a",
                                             delta_minor=1000),
                     wallet_pb2.PlayerResult(player_id="b", hold_transfer_id="g:b",
                                             delta_minor=-1000)],
            commission=wallet_pb2.CommissionRule(
                backgammon=wallet_pb2.CommissionRule.Backgammon()))),
        wallet_pb2.WalletRequest(refund_tournament_entry=wallet_pb2.RefundTournamentEntryRequest(
            entry_id="T:b", refund_id="T:b:out")),
        wallet_pb2.WalletRequest(pay_tournament_prizes=wallet_pb2.PayTournamentPrizesRequest(
            payout_id="T:pay", tournament_id="T", game=rummy, currency="USD",
            prizes=[wallet_pb2.Prize(player_id="a", amount_minor=600)], final=False)),
        wallet_pb2.WalletRequest(refund_crashed_table=wallet_pb2.RefundCrashedTableRequest(
            table_id="g", game=bg, currency="USD")),
        wallet_pb2.WalletRequest(transfer_batch=wallet_pb2.TransferBatchRequest(
            batch_id="promo", operations=[wallet_pb2.BatchOperation(transfer=wallet_pb2.NewTransfer(
                transfer_id="promo-a", debit_account_id=house.account_id,
                credit_account_id="player_cash:a:USD", amount=usd(50),
                kind=wallet_pb2.TRANSFER_KIND_PROMOTION))])),
    ]  # fmt: skip
    for number, payload in enumerate(requests):
        await handler(request(f"req-{number}", payload))
        await handler(request(f"req-{number}", payload))  # redelivered: moves nothing
    a = await wallet.ledger.account("player_cash:a:USD")
    b = await wallet.ledger.account("player_cash:b:USD")
    assert a.posted == 10_000 + 870 - 1100 + 600 + 50
    assert b.posted == 10_000 - 1000
    assert a.debits_pending == b.debits_pending == 0  # the settled game left no hold
    assert sink.sent == []

    # Can never apply: dead-lettered once with the reason, recorded, counted; a redelivery
    # of the same envelope is sent to the DLQ again but counted once.
    crash = wallet_pb2.WalletRequest(
        refund_crashed_tournament=(
            wallet_pb2.RefundCrashedTournamentRequest(tournament_id="T", game=rummy, currency="USD")
        )
    )
    await handler(request("crash-T", crash))
    await handler(request("crash-T", crash))
    await handler(request("odd", wrappers_pb2.StringValue(value="?")))
    reasons = [headers[DLQ_REASON_HEADER].decode().split(":")[0] for _, _, headers in sink.sent]
    assert reasons == ["already_settled", "already_settled", "invalid_request"]
    assert all(topic == "requests.dlq" for topic, _, _ in sink.sent)
    assert wallet.metrics.dead_letters.labels("already_settled")._value.get() == 1
    # Every copy sent is counted with all the bus consumers' dead letters.
    dead = {"group": f"wallet-{schema}", "topic": "requests"}
    assert REGISTRY.get_sample_value("croupier_kafka_dead_lettered_total", dead) == 3
    assert await PostgresRequestLog(pool).outcome("odd") == (
        "dead_lettered", "invalid_request: unknown request payload "
        "type.googleapis.com/google.protobuf.StringValue of type 'wallet.request'",
    )  # fmt: skip


async def test_a_settlement_of_a_play_chip_table_the_wallet_never_funded_is_not_dead_lettered(
    wallet_pool: tuple[asyncpg.Pool, str], clock: object
) -> None:
    """A play-chip table keeps its chips in the table host (no buy-in reaches the wallet), so
    its settlement is none of the wallet's money: ignored and counted, not dead-lettered (a
    host without a wallet sent 2,883 of them: false alerts on "any dead letter"). A real-money
    table's settlement without seats is still dead-lettered."""
    pool, schema = wallet_pool
    wallet = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry(),
                                clock=clock)  # type: ignore[arg-type]  # fmt: skip
    sink = Sink()
    handler = WalletRequestHandler(ledger=wallet.ledger, games=wallet.games,
                                   requests=PostgresRequestLog(pool), dead_letters=sink,
                                   metrics=wallet.metrics, clock=clock,  # type: ignore[arg-type]
                                   topic="requests")  # fmt: skip

    def settlement(key: str, currency: str) -> table_pb2.SettlementRequested:
        return table_pb2.SettlementRequested(
            idempotency_key=key, table_id="play-1", hand_number=1, game=common_pb2.GAME_POKER,
            currency=currency, deltas={"a": 40, "b": -40},
        )  # fmt: skip

    await handler(request("chips-1", settlement("play-1:1", "CHIP")))
    await handler(request("play-1", settlement("play-1:2", "PLAY")))
    assert sink.sent == []
    assert wallet.metrics.ignored_requests.labels("unfunded_play_table")._value.get() == 2
    assert await PostgresRequestLog(pool).outcome("chips-1") is None
    async with pool.acquire() as connection:
        assert await connection.fetchval("SELECT count(*) FROM accounts") == 0

    await handler(request("usd-1", settlement("play-1:3", "USD")))
    reasons = [headers[DLQ_REASON_HEADER].decode().split(":")[0] for _, _, headers in sink.sent]
    assert reasons == ["account_not_found"]


async def test_a_table_cash_out_request_names_no_account(
    wallet_pool: tuple[asyncpg.Pool, str], clock: SteppingClock
) -> None:
    pool, schema = wallet_pool
    wallet = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry(),
                                clock=clock)  # fmt: skip
    await table_cash_outs_name_no_account(wallet.ledger, wallet.games, PostgresRequestLog(pool),
                                          clock)  # fmt: skip
