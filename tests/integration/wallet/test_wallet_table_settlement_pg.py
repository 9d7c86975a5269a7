"""Table-hosted settlements (what the table host sends): seats, pot, commission checks."""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
import pytest

from croupier.kit.migrations import MigrationError, available_migrations
from croupier.wallet.bootstrap import migrate_ledger
from croupier.wallet.core.errors import InsufficientFunds, InvalidRequest, UnbalancedSettlement
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService


async def seated(service: LedgerService, table: str, game: str, currency: str,
                 players: dict[str, int]) -> GameMoney:  # fmt: skip
    money = GameMoney(service)
    float_kind = AccountKind.HOUSE_CLEARING if currency == "USD" else AccountKind.HOUSE_FLOAT
    house = await service.open_account(float_kind, "house", currency)
    kind = AccountKind.PLAYER_CHIPS if currency == "CHIP" else AccountKind.PLAYER_CASH
    for player, amount in players.items():
        account = await service.open_account(kind, player, currency)
        await service.transfer(TransferSpec(
            transfer_id=f"fund-{player}-{currency}", debit_account_id=house.account_id,
            credit_account_id=account.account_id, amount=amount, currency=currency,
            kind=TransferKind.DEPOSIT if currency == "USD" else TransferKind.GRANT))  # fmt: skip
        await money.buy_in(transfer_id=f"{table}:{player}:in", player=player, game=game,
                           table_id=table, currency=currency, amount=amount)  # fmt: skip
    return money


async def seat(service: LedgerService, table: str, player: str, currency: str) -> int:
    return (await service.account(f"table_escrow:{table}/{player}:{currency}")).posted


async def test_backgammon_settlement_commission_must_match_the_wallets_seed_001_rules(
    ledger_service: LedgerService,
) -> None:
    """Seed 001 vector 1 as the table host sends it: deltas after commission + commission."""
    money = await seated(ledger_service, "bgt", "backgammon", "USD",
                         {"amnon": 20_000, "micha": 20_000})  # fmt: skip
    with pytest.raises(UnbalancedSettlement, match="the wallet computes 130"):
        await money.settle_result(settlement_id="bgt:1", game="backgammon", table_id="bgt",
                                  currency="USD", deltas={"amnon": 880, "micha": -1000},
                                  commission={"amnon": 120})  # fmt: skip
    result = await money.settle_result(settlement_id="bgt:1", game="backgammon", table_id="bgt",
                                       currency="USD", deltas={"amnon": 870, "micha": -1000},
                                       commission={"amnon": 130})  # fmt: skip
    assert not result.replayed
    assert await seat(ledger_service, "bgt", "amnon", "USD") == 20_870
    assert await seat(ledger_service, "bgt", "micha", "USD") == 19_000
    assert (await ledger_service.account("house_commission:backgammon:USD")).posted == 130
    assert (await ledger_service.account("table_escrow:bgt:USD")).posted == 0
    again = await money.settle_result(settlement_id="bgt:1", game="backgammon", table_id="bgt",
                                      currency="USD", deltas={"amnon": 870, "micha": -1000},
                                      commission={"amnon": 130})  # fmt: skip
    assert again.replayed
    out, _ = await money.cash_out(transfer_id="bgt:amnon:out", player="amnon", game="backgammon",
                                  table_id="bgt", currency="USD")  # fmt: skip
    assert out.amount == 20_870
    assert (await ledger_service.account("player_cash:amnon:USD")).posted == 20_870


async def test_chips_carry_no_commission_and_bad_results_are_refused(
    ledger_service: LedgerService,
) -> None:
    money = await seated(ledger_service, "jt", "joker", "CHIP", {"a": 500, "b": 500, "c": 500})
    with pytest.raises(UnbalancedSettlement, match="CHIP carries no commission"):
        await money.settle_result(settlement_id="jt:1", game="joker", table_id="jt",
                                  currency="CHIP", deltas={"a": 90, "b": -100},
                                  commission={"a": 10})  # fmt: skip
    with pytest.raises(UnbalancedSettlement, match="add up to 1"):
        await money.settle_result(settlement_id="jt:1", game="joker", table_id="jt",
                                  currency="CHIP", deltas={"a": 101, "b": -100},
                                  commission={})  # fmt: skip
    with pytest.raises(InvalidRequest, match="not in the result"):
        await money.settle_result(settlement_id="jt:1", game="joker", table_id="jt",
                                  currency="CHIP", deltas={"a": 100, "b": -100},
                                  commission={"z": 0})  # fmt: skip
    with pytest.raises(InsufficientFunds):
        await money.settle_result(settlement_id="jt:1", game="joker", table_id="jt",
                                  currency="CHIP", deltas={"a": 600, "b": -600},
                                  commission={})  # fmt: skip
    await money.settle_result(settlement_id="jt:1", game="joker", table_id="jt", currency="CHIP",
                              deltas={"a": 150, "b": -100, "c": -50}, commission={})  # fmt: skip
    assert [await seat(ledger_service, "jt", p, "CHIP") for p in "abc"] == [650, 400, 450]
    crash = await money.crash_refund_table(table_id="jt", game="joker")
    assert sorted(t.amount for t in crash.refunds) == [400, 450, 650]
    assert (await ledger_service.account("player_chips:a:CHIP")).posted == 650


async def test_poker_rake_from_the_engine_goes_to_the_house(ledger_service: LedgerService) -> None:
    money = await seated(ledger_service, "pt", "poker", "USD", {"a": 1000, "b": 1000})
    await money.settle_result(settlement_id="pt:1", game="poker", table_id="pt", currency="USD",
                              deltas={"a": 190, "b": -200}, commission={"a": 10})  # fmt: skip
    assert (await ledger_service.account("house_commission:poker:USD")).posted == 10


async def test_migrations_are_forward_only_and_tracked(
    wallet_dsn: str, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    _, schema = wallet_pool
    connection = await asyncpg.connect(wallet_dsn)
    try:
        assert await migrate_ledger(connection, schema) == []  # already applied: nothing to do
        versions = await connection.fetch(f'SELECT version FROM "{schema}".schema_migrations')
        wallet_migrations = available_migrations("croupier.wallet.adapters")
        assert [r["version"] for r in versions] == [m.version for m in wallet_migrations]
        await connection.execute(
            f"UPDATE \"{schema}\".schema_migrations SET checksum = 'edited' WHERE version = 1"
        )
        with pytest.raises(MigrationError, match="edited after it was applied"):
            await migrate_ledger(connection, schema)
    finally:
        await connection.close()
