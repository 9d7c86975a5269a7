"""Commands for the ledger: imperative, frozen, and run together all-or-nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec, account_id_for

__all__ = ["Apply", "ExpectPosted", "OpenAccount", "Operation", "PostHold", "Reverse", "VoidHold"]


@dataclass(frozen=True, slots=True)
class Apply:
    """Record a new transfer (posted, or pending if `spec.pending`)."""

    spec: TransferSpec


@dataclass(frozen=True, slots=True, kw_only=True)
class PostHold:
    """Post a pending transfer; `amount=None` posts all of it, less posts part."""

    transfer_id: str
    amount: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidHold:
    transfer_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Reverse:
    """A new transfer `transfer_id` moving `original_id`'s posted amount back."""

    original_id: str
    transfer_id: str
    kind: TransferKind = TransferKind.REVERSAL
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectPosted:
    """Check, at this point of the batch, that an account's posted balance is `posted`
    (e.g. a tournament pool is empty after the final payouts); otherwise nothing applies."""

    account_id: str
    posted: int = 0


Operation = Apply | PostHold | VoidHold | Reverse | ExpectPosted


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAccount:
    """An account a batch needs, opened (unless it exists) in the batch's own transaction:
    a refused batch leaves no account behind (a refused buy-in opened the seat before)."""

    kind: AccountKind
    owner: str
    currency: str

    @property
    def account_id(self) -> str:
        return account_id_for(self.kind, self.owner, self.currency)
