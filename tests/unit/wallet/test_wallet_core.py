"""The ledger aggregate and settlement math without a database."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from croupier.game.money import CURRENCIES, format_minor
from croupier.wallet.core.errors import (
    AccountNotFound,
    AlreadyReversed,
    BalanceOutOfRange,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidRequest,
    TransferNotPending,
    UnbalancedSettlement,
)
from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    TransferKind,
    TransferSpec,
    TransferStatus,
    account_id_for,
)
from croupier.wallet.core.settlement import backgammon_rule, no_commission, settlement_amounts

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _account(kind: AccountKind, owner: str, posted: int = 0, currency: str = "USD") -> Account:
    return Account(
        account_id=account_id_for(kind, owner, currency),
        kind=kind,
        currency=currency,
        owner=owner,
        posted=posted,
        opened_at=NOW,
    )


def _slice() -> LedgerSlice:
    return LedgerSlice(
        [
            _account(AccountKind.PLAYER_CASH, "alice", 1000),
            _account(AccountKind.PLAYER_CASH, "bob", 0),
            _account(AccountKind.HOUSE_CLEARING, "house", -1000),
            _account(AccountKind.PLAYER_CASH, "carol", 0, "EUR"),
        ]
    )


def _spec(tid: str, debit: str, credit: str, amount: int, **kw: object) -> TransferSpec:
    return TransferSpec(
        transfer_id=tid,
        debit_account_id=f"player_cash:{debit}:USD" if ":" not in debit else debit,
        credit_account_id=f"player_cash:{credit}:USD" if ":" not in credit else credit,
        amount=amount,
        currency=str(kw.pop("currency", "USD")),
        kind=TransferKind.TRANSFER,
        **kw,  # type: ignore[arg-type]
    )


def _total(ledger: LedgerSlice) -> int:
    return sum(a.posted for a in ledger.accounts.values() if a.currency == "USD")


def test_posted_transfer_moves_money_and_writes_two_balanced_postings() -> None:
    ledger = _slice()
    transfer = ledger.apply(_spec("t1", "alice", "bob", 300), NOW)
    assert transfer.status is TransferStatus.POSTED and transfer.posted_amount == 300
    assert ledger.account("player_cash:alice:USD").posted == 700
    assert ledger.account("player_cash:bob:USD").posted == 300
    assert [p.amount for p in ledger.postings] == [-300, 300]
    assert _total(ledger) == 0


def test_player_never_goes_negative_but_house_may() -> None:
    ledger = _slice()
    with pytest.raises(InsufficientFunds, match="1000 available"):
        ledger.apply(_spec("t1", "alice", "bob", 1001), NOW)
    ledger.apply(_spec("t2", "house_clearing:house:USD", "bob", 5000), NOW)
    assert ledger.account("house_clearing:house:USD").posted == -6000


def test_hold_reserves_money_then_partial_post_releases_the_rest() -> None:
    ledger = _slice()
    hold = ledger.apply(_spec("h1", "alice", "bob", 600, pending=True), NOW)
    assert ledger.account("player_cash:alice:USD").available == 400
    with pytest.raises(InsufficientFunds):
        ledger.apply(_spec("t1", "alice", "bob", 500), NOW)
    posted = ledger.post(hold, 250, NOW)
    assert posted.posted_amount == 250
    alice = ledger.account("player_cash:alice:USD")
    assert (alice.posted, alice.debits_pending) == (750, 0)
    with pytest.raises(TransferNotPending):
        ledger.post(posted, None, NOW)
    with pytest.raises(TransferNotPending):
        ledger.void(posted, NOW)


def test_void_releases_hold_and_post_beyond_hold_is_refused() -> None:
    ledger = _slice()
    hold = ledger.apply(_spec("h1", "alice", "bob", 600, pending=True), NOW)
    with pytest.raises(InvalidRequest, match="holds only 600"):
        ledger.post(hold, 601, NOW)
    ledger.void(hold, NOW)
    alice = ledger.account("player_cash:alice:USD")
    bob = ledger.account("player_cash:bob:USD")
    assert (alice.posted, alice.debits_pending, bob.credits_pending) == (1000, 0, 0)
    assert not ledger.postings


def test_reverse_moves_money_back_once() -> None:
    ledger = _slice()
    original = ledger.apply(_spec("t1", "alice", "bob", 300), NOW)
    reversal = ledger.reverse(original, "r1", NOW)
    assert reversal.reversal_of == "t1" and reversal.kind is TransferKind.REVERSAL
    assert ledger.account("player_cash:alice:USD").posted == 1000
    with pytest.raises(AlreadyReversed):
        ledger.reverse(original, "r2", NOW, already_reversed=True)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (_spec("t1", "alice", "bob", 0), InvalidRequest),
        (_spec("t1", "alice", "bob", -5), InvalidRequest),
        (_spec("t1", "alice", "alice", 5), InvalidRequest),
        (_spec("", "alice", "bob", 5), InvalidRequest),
        (_spec("t 1", "alice", "bob", 5), InvalidRequest),
        (_spec("t1", "alice", "nobody", 5), AccountNotFound),
        (_spec("t1", "alice", "player_cash:carol:EUR", 5), CurrencyMismatch),
        (_spec("t1", "alice", "bob", 5, currency="EUR"), CurrencyMismatch),
    ],
)
def test_bad_transfers_are_refused_and_change_nothing(spec: TransferSpec, error: type) -> None:
    ledger = _slice()
    with pytest.raises(error):
        ledger.apply(spec, NOW)
    assert not ledger.new_transfers and not ledger.postings and not ledger.changed_accounts


def test_settlement_amounts_backgammon_vector_1_and_bad_results() -> None:
    usd = CURRENCIES["USD"]
    s = settlement_amounts(
        {"amnon": 1000, "micha": -1000}, {"amnon": 1, "micha": 1000}, usd, backgammon_rule
    )
    assert s.losses == {"micha": 1000} and s.winnings == {"amnon": (870, 130)}
    with pytest.raises(UnbalancedSettlement, match="add up to 1"):
        settlement_amounts({"a": 1, "b": 0}, {"a": 5, "b": 5}, usd, no_commission)
    with pytest.raises(UnbalancedSettlement, match="only 5 was held"):
        settlement_amounts({"a": 6, "b": -6}, {"a": 5, "b": 5}, usd, no_commission)
    with pytest.raises(UnbalancedSettlement, match="no stake hold"):
        settlement_amounts({"a": 6, "b": -6}, {"a": 5}, usd, no_commission)


def test_rummy_section_10_vector_1_round_settlement_in_chips() -> None:
    """Seed 000 §10 vector 1: fee 30 each, ratio 3, Hand, loser holds 2,2,3 → net ±126."""
    pot, loser_pays = 2 * 30, (25 + 2 + 2 + 3) * 3
    deltas = {"player1": pot + loser_pays - 30, "player2": -(30 + loser_pays)}
    s = settlement_amounts(
        deltas, {"player1": 500, "player2": 500}, CURRENCIES["CHIP"], backgammon_rule
    )
    assert s.losses == {"player2": 126} and s.winnings == {"player1": (126, 0)}


def test_format_minor() -> None:
    assert format_minor(-870, 2) == "-8.70"


def test_a_balance_past_a_signed_64_bit_integer_is_refused_as_postgresql_does() -> None:
    """The in-memory copy of the rules refuses what PostgreSQL's bigint cannot hold, with
    the same error (FAILED_PRECONDITION), instead of keeping an unbounded Python int."""
    ledger = LedgerSlice(
        [
            _account(AccountKind.PLAYER_CASH, "alice", 2**63 - 50),
            _account(AccountKind.HOUSE_CLEARING, "house", -(2**63) + 50),
        ]
    )
    deposit = _spec("d", "house_clearing:house:USD", "alice", 100)
    with pytest.raises(BalanceOutOfRange):
        ledger.apply(deposit, NOW)
    assert ledger.accounts["player_cash:alice:USD"].posted == 2**63 - 50  # unchanged
    ledger.apply(dataclasses.replace(deposit, amount=49), NOW)  # up to the limit: fine
