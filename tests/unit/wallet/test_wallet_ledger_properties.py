"""Property test of the ledger aggregate: any sequence of transfers, holds, posts, voids and
reversals keeps the books balanced, and a refused operation changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.wallet.core.errors import LedgerError
from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
    account_id_for,
)

NOW = datetime(2026, 11, 29, tzinfo=UTC)
OWNERS = [(AccountKind.PLAYER_CASH, f"p{i}") for i in range(4)] + [
    (AccountKind.TABLE_ESCROW, "t1"),
    (AccountKind.HOUSE_CLEARING, "house"),
]
IDS = [account_id_for(kind, owner, "USD") for kind, owner in OWNERS]

operation = st.one_of(
    st.tuples(st.just("transfer"), st.sampled_from(IDS), st.sampled_from(IDS),
              st.integers(-5, 400), st.booleans()),
    st.tuples(st.just("post"), st.integers(0, 50), st.integers(0, 400)),
    st.tuples(st.just("void"), st.integers(0, 50)),
    st.tuples(st.just("reverse"), st.integers(0, 50)),
)  # fmt: skip


def state(ledger: LedgerSlice) -> tuple[object, ...]:
    return (
        tuple(sorted((a.account_id, a.posted, a.debits_pending, a.credits_pending)
                     for a in ledger.accounts.values())),
        len(ledger.new_transfers), len(ledger.resolved_transfers), len(ledger.postings),
    )  # fmt: skip


def check_books(ledger: LedgerSlice) -> None:
    accounts = list(ledger.accounts.values())
    assert sum(a.posted for a in accounts) == 0
    assert sum(a.debits_pending for a in accounts) == sum(a.credits_pending for a in accounts)
    for account in accounts:
        assert account.may_go_negative or account.available >= 0, account
        postings = [p.amount for p in ledger.postings if p.account_id == account.account_id]
        assert sum(postings) == account.posted
    assert sum(p.amount for p in ledger.postings) == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(operation, max_size=40))
def test_any_sequence_of_operations_keeps_the_books_balanced(ops: list[tuple]) -> None:  # type: ignore[type-arg]
    ledger = LedgerSlice(
        Account(account_id=i, kind=kind, currency="USD", owner=owner, opened_at=NOW)
        for i, (kind, owner) in zip(IDS, OWNERS, strict=True)
    )
    transfers: list[Transfer] = []
    reversed_ids: set[str] = set()
    for number, op in enumerate(ops):
        before = state(ledger)
        try:
            if op[0] == "transfer":
                _, debit, credit, amount, pending = op
                transfers.append(ledger.apply(TransferSpec(
                    transfer_id=f"t{number}", debit_account_id=debit, credit_account_id=credit,
                    amount=amount, currency="USD", kind=TransferKind.TRANSFER, pending=pending,
                ), NOW))  # fmt: skip
            elif not transfers:
                continue
            elif op[0] == "post":
                index = op[1] % len(transfers)
                transfers[index] = ledger.post(transfers[index], op[2] or None, NOW)
            elif op[0] == "void":
                index = op[1] % len(transfers)
                transfers[index] = ledger.void(transfers[index], NOW)
            else:
                original = transfers[op[1] % len(transfers)]
                transfers.append(ledger.reverse(
                    original, f"r{number}", NOW,
                    already_reversed=original.transfer_id in reversed_ids,
                ))  # fmt: skip
                reversed_ids.add(original.transfer_id)
        except LedgerError:
            assert state(ledger) == before, "a refused operation must change nothing"
        check_books(ledger)
    for transfer in transfers:
        if transfer.status is TransferStatus.POSTED:
            assert transfer.posted_amount is not None and transfer.posted_amount > 0
