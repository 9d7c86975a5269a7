"""Everything that can go wrong with a ledger operation, named in the ledger's terms.

Every error is a `croupier.game.RuleBroken` of the kind that tells callers how to react
(`Malformed`, `Unknown`, plain `RuleBroken`, `Duplicate`), so the kit's one error table
answers its status; messages are written for the frontend developer who will read them.
No error ever leaves a partial write behind: in PostgreSQL a batch is one statement
(`ledger_execute`), in memory a discarded copy.
"""

from __future__ import annotations

from croupier.game import Duplicate, Malformed, RuleBroken, Unknown

__all__ = [
    "AccountClosed",
    "AccountNotFound",
    "AlreadyReversed",
    "AlreadySettled",
    "BalanceOutOfRange",
    "CurrencyMismatch",
    "IdempotencyConflict",
    "InsufficientFunds",
    "InvalidRequest",
    "LedgerError",
    "TransferNotFound",
    "TransferNotPending",
    "UnbalancedSettlement",
    "UnknownCurrency",
]


class LedgerError(RuleBroken):
    """Root of the wallet's errors; `reason` is also the `reason` label of the rejection metric."""

    reason = "ledger_error"


class InvalidRequest(LedgerError, Malformed):
    """The request itself is malformed (empty id, amount ≤ 0, same debit and credit...)."""

    reason = "invalid_request"


class UnknownCurrency(LedgerError, Malformed):
    """The currency code is not one the wallet knows."""

    reason = "unknown_currency"


class AccountNotFound(LedgerError, Unknown):
    reason = "account_not_found"


class TransferNotFound(LedgerError, Unknown):
    reason = "transfer_not_found"


class CurrencyMismatch(LedgerError):
    """A transfer's currency differs from one of its accounts' currency."""

    reason = "currency_mismatch"


class InsufficientFunds(LedgerError):
    """The debit would take a non-house account below zero."""

    reason = "insufficient_funds"


class BalanceOutOfRange(LedgerError):
    """Every amount is within `MAX_AMOUNT`, but the movement would take a balance (or a
    pending total) past what a signed 64-bit integer holds: a state the ledger cannot
    record, so FAILED_PRECONDITION (an amount past `MAX_AMOUNT` alone is invalid)."""

    reason = "balance_out_of_range"

    #: What PostgreSQL's bigint (the balances' column type) holds.
    LIMIT = 2**63 - 1

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message
            or "this would take an account's balance past the largest amount the ledger "
            f"records ({self.LIMIT} minor units); nothing was applied"
        )


class AccountClosed(LedgerError):
    reason = "account_closed"


class TransferNotPending(LedgerError):
    """Post or void of a transfer that is not (or no longer) a pending hold."""

    reason = "transfer_not_pending"


class AlreadyReversed(LedgerError):
    reason = "already_reversed"


class AlreadySettled(LedgerError):
    """A refund asked for something already paid out (a tournament whose prizes were paid)."""

    reason = "already_settled"


class UnbalancedSettlement(LedgerError):
    """An engine result whose deltas do not add up, or exceed what was held."""

    reason = "unbalanced_settlement"


class IdempotencyConflict(LedgerError, Duplicate):
    """A transfer id was already used by a request with different content."""

    reason = "idempotency_conflict"
