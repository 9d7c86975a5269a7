"""Everything that can go wrong with a ledger operation, named in the ledger's terms.

The gRPC entry point maps each class to a status code by its `category` attribute
(`invalid`, `not_found`, `precondition`, `conflict`); messages are written for the
frontend developer who will read them. No error ever leaves a partial write behind: in
PostgreSQL a batch is one statement (`ledger_execute`), in memory a discarded copy.
"""

from __future__ import annotations

from typing import ClassVar, Literal

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

Category = Literal["invalid", "not_found", "precondition", "conflict"]


class LedgerError(Exception):
    """Root of the wallet's errors. `category` tells callers how to react."""

    category: ClassVar[Category] = "precondition"
    #: Short machine-readable reason, used as the `reason` label of the rejection metric.
    reason: ClassVar[str] = "ledger_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(LedgerError):
    """The request itself is malformed (empty id, amount ≤ 0, same debit and credit...)."""

    category = "invalid"
    reason = "invalid_request"


class UnknownCurrency(LedgerError):
    """The currency code is not one the wallet knows."""

    category = "invalid"
    reason = "unknown_currency"


class AccountNotFound(LedgerError):
    category = "not_found"
    reason = "account_not_found"


class TransferNotFound(LedgerError):
    category = "not_found"
    reason = "transfer_not_found"


class CurrencyMismatch(LedgerError):
    """A transfer's currency differs from one of its accounts' currency."""

    category = "precondition"
    reason = "currency_mismatch"


class InsufficientFunds(LedgerError):
    """The debit would take a non-house account below zero."""

    category = "precondition"
    reason = "insufficient_funds"


class BalanceOutOfRange(LedgerError):
    """Every amount is within `MAX_AMOUNT`, but the movement would take a balance (or a
    pending total) past what a signed 64-bit integer holds: a state the ledger cannot
    record, so FAILED_PRECONDITION (an amount past `MAX_AMOUNT` alone is invalid)."""

    category = "precondition"
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
    category = "precondition"
    reason = "account_closed"


class TransferNotPending(LedgerError):
    """Post or void of a transfer that is not (or no longer) a pending hold."""

    category = "precondition"
    reason = "transfer_not_pending"


class AlreadyReversed(LedgerError):
    category = "precondition"
    reason = "already_reversed"


class AlreadySettled(LedgerError):
    """A refund asked for something already paid out (a tournament whose prizes were paid)."""

    category = "precondition"
    reason = "already_settled"


class UnbalancedSettlement(LedgerError):
    """An engine result whose deltas do not add up, or exceed what was held."""

    category = "precondition"
    reason = "unbalanced_settlement"


class IdempotencyConflict(LedgerError):
    """A transfer id was already used by a request with different content."""

    category = "conflict"
    reason = "idempotency_conflict"
