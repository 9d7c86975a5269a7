"""Accounts, transfers and postings: the ledger's vocabulary as frozen values.

Sign convention: a transfer *debits* one account and *credits* another by the same
positive amount; an account's balance is credits − debits. A deposit debits the house
clearing account (which goes negative: money the house owes players) and credits the
player's cash account. So, per currency, the balances of all accounts add up to zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from croupier.game.limits import OutOfBounds, echo
from croupier.game.limits import check_amount as bounded_amount
from croupier.game.money import CurrencyKind
from croupier.wallet.core.errors import InvalidRequest

__all__ = [
    "Account",
    "AccountKind",
    "Posting",
    "References",
    "Transfer",
    "TransferKind",
    "TransferSpec",
    "TransferStatus",
    "account_id_for",
    "check_amount",
    "check_currency",
    "check_id",
    "check_metadata",
    "check_text",
]

# Full matches only: `$` also matches before a trailing newline ("alice\n" passed).
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")
_CURRENCY = re.compile(r"[A-Z][A-Z0-9]{1,15}")
# C0 and C1 control characters, NUL included (PostgreSQL text cannot hold NUL at all).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
MAX_METADATA_ENTRIES = 64
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 1024


class AccountKind(StrEnum):
    PLAYER_CASH = "player_cash"
    """A player's money in one currency (real money or play money)."""
    PLAYER_CHIPS = "player_chips"
    """A player's virtual chips (currency CHIP)."""
    TABLE_ESCROW = "table_escrow"
    """Money on a table or in a game. Owner `<table>`: the table's pot (stake holds, a hand
    being settled); owner `<table>/<player>`: that player's seat (bought-in money)."""
    TOURNAMENT_POOL = "tournament_pool"
    """A tournament's prize pool: entries and rebuys until the payouts."""
    HOUSE_COMMISSION = "house_commission"
    """Commission and rake earned, one account per game and currency."""
    HOUSE_PROMOTIONS = "house_promotions"
    """Money the house has set aside to give away, one account per game (owner = game
    name) and currency: bonuses, goodwill refunds, and the tournaments' prize fund (a
    Spin's prizes above its entries come from it, its pool's surplus goes back to it).
    Funded by the operator; unlike the other house accounts it never goes below zero, so
    nothing it pays is money created."""
    HOUSE_FLOAT = "house_float"
    """Source of play money and virtual chips (may go negative)."""
    HOUSE_CLEARING = "house_clearing"
    """Counterpart of deposits and withdrawals (real money held for players)."""

    @property
    def is_house(self) -> bool:
        return self.value.startswith("house_")

    @property
    def is_player(self) -> bool:
        return self.value.startswith("player_")

    @property
    def may_go_negative(self) -> bool:
        """House accounts may (the float issues play money, clearing owes deposits), except
        the promotions fund, which pays only what the operator put in."""
        return self.is_house and self is not AccountKind.HOUSE_PROMOTIONS

    def allows(self, currency_kind: CurrencyKind) -> bool:
        """Which currency kinds an account of this kind may hold."""
        if self is AccountKind.PLAYER_CHIPS:
            return currency_kind is CurrencyKind.CHIP
        if self is AccountKind.PLAYER_CASH:
            return currency_kind is not CurrencyKind.CHIP
        if self is AccountKind.HOUSE_FLOAT:
            return currency_kind is not CurrencyKind.REAL
        if self in (AccountKind.HOUSE_CLEARING, AccountKind.HOUSE_COMMISSION):
            return currency_kind is CurrencyKind.REAL
        return True


class TransferKind(StrEnum):
    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    GRANT = "grant"
    """Play money or chips issued from the house float."""
    TRANSFER = "transfer"
    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"
    STAKE_HOLD = "stake_hold"
    STAKE = "stake"
    """Chips lost in a hand: a seat's money into the table pot."""
    WINNINGS = "winnings"
    COMMISSION = "commission"
    RAKE = "rake"
    TOURNAMENT_ENTRY = "tournament_entry"
    TOURNAMENT_FEE = "tournament_fee"
    TOURNAMENT_REBUY = "tournament_rebuy"
    TOURNAMENT_REBUY_FEE = "tournament_rebuy_fee"
    TOURNAMENT_PAYOUT = "tournament_payout"
    TOURNAMENT_OVERLAY = "tournament_overlay"
    """The house's prize fund → a prize pool: prizes larger than the entries (a Spin)."""
    TOURNAMENT_SURPLUS = "tournament_surplus"
    """A prize pool → the house's prize fund: entries larger than the prizes (a Spin)."""
    TOURNAMENT_COUPON_ENTRY = "tournament_coupon_entry"
    """The house's prize fund → a prize pool: the buy-in of an entry a coupon paid."""
    UNREGISTER_REFUND = "unregister_refund"
    CRASH_REFUND = "crash_refund"
    PROMOTION = "promotion"
    REVERSAL = "reversal"
    ADJUSTMENT = "adjustment"


class TransferStatus(StrEnum):
    PENDING = "pending"
    POSTED = "posted"
    VOIDED = "voided"


def account_id_for(kind: AccountKind, owner: str, currency: str) -> str:
    """The one id of the account of `kind` owned by `owner` in `currency`.

    >>> account_id_for(AccountKind.PLAYER_CASH, "alice", "USD")
    'player_cash:alice:USD'
    """
    return f"{kind.value}:{owner}:{currency}"


def check_id(value: str, what: str) -> str:
    """Ids are 1–200 characters of letters, digits and `._:/@+-`, starting alphanumeric.

    Every id a caller sends (accounts, owners, transfers, tables, players, hands...) passes
    here before it reaches the database or a log line."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidRequest(
            f"{what} {echo(value)} is not a valid id: use 1–200 letters, digits or ._:/@+- "
            "starting with a letter or digit"
        )
    return value


def check_currency(value: str, what: str = "currency") -> str:
    """A currency code's shape (upper-case letters and digits: USD, PLAY, CHIP); whether
    the wallet knows it is the `currencies` table's answer."""
    if not isinstance(value, str) or not _CURRENCY.fullmatch(value):
        raise InvalidRequest(
            f"{what} {echo(value)} is not a currency code: use an ISO 4217 code such as USD, "
            "PLAY (play money) or CHIP (virtual chips)"
        )
    return value


def check_text(value: str, what: str, max_length: int) -> str:
    """Free text (metadata): at most `max_length` characters, no control characters."""
    if not isinstance(value, str):
        raise InvalidRequest(f"{what} must be a string")
    if len(value) > max_length:
        raise InvalidRequest(f"{what} has {len(value)} characters; at most {max_length}")
    if _CONTROL.search(value):
        raise InvalidRequest(f"{what} {echo(value)} contains a control character (NUL, newline...)")
    return value


def check_metadata(metadata: Mapping[str, str]) -> None:
    """Metadata: at most 64 entries, keys ≤ 64 and values ≤ 1024 characters, no control
    characters."""
    if len(metadata) > MAX_METADATA_ENTRIES:
        raise InvalidRequest(
            f"metadata has {len(metadata)} entries; at most {MAX_METADATA_ENTRIES}"
        )
    for key, value in metadata.items():
        check_text(key, "metadata key", MAX_METADATA_KEY)
        check_text(value, f"metadata[{echo(key)}]", MAX_METADATA_VALUE)


def check_amount(value: int, what: str, *, low: int = 1) -> int:
    """An amount in `low..MAX_AMOUNT` (`croupier.game.limits`). A single amount past the
    bound is INVALID_ARGUMENT; a movement that would push a balance past what PostgreSQL's
    bigint holds is FAILED_PRECONDITION (`BalanceOutOfRange`, from the database)."""
    if low == 1 and isinstance(value, int) and not isinstance(value, bool) and value <= 0:
        raise InvalidRequest(f"{what} must be greater than zero, got {value}")
    try:
        return bounded_amount(value, what, low=low)
    except OutOfBounds as error:
        raise InvalidRequest(error.message) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Account:
    """An account and its balances (minor units).

    `posted` is the settled balance; `debits_pending` / `credits_pending` are held by
    pending transfers. `available` = posted − debits_pending is what may still be debited.
    """

    account_id: str
    kind: AccountKind
    currency: str
    owner: str
    posted: int = 0
    debits_pending: int = 0
    credits_pending: int = 0
    posting_count: int = 0
    opened_at: datetime

    @property
    def may_go_negative(self) -> bool:
        return self.kind.may_go_negative

    @property
    def available(self) -> int:
        return self.posted - self.debits_pending


@dataclass(frozen=True, slots=True, kw_only=True)
class References:
    """What a transfer is about: any of game, table, hand, tournament (empty = none)."""

    game: str = ""
    table_id: str = ""
    hand_id: str = ""
    tournament_id: str = ""

    def validate(self) -> None:
        for what, value in (
            ("references.table_id", self.table_id),
            ("references.hand_id", self.hand_id),
            ("references.tournament_id", self.tournament_id),
        ):
            if value:
                check_id(value, what)


@dataclass(frozen=True, slots=True, kw_only=True)
class TransferSpec:
    """A request to move money: posted at once, or held (`pending=True`) until post/void."""

    transfer_id: str
    debit_account_id: str
    credit_account_id: str
    amount: int
    currency: str
    kind: TransferKind
    pending: bool = False
    references: References = field(default_factory=References)
    metadata: Mapping[str, str] = field(default_factory=dict)
    reversal_of: str = ""

    def record(self, now: datetime) -> Transfer:
        """The transfer this request records at `now`: posted at once, or pending (a hold)."""
        pending = self.pending
        return Transfer(
            transfer_id=self.transfer_id,
            debit_account_id=self.debit_account_id,
            credit_account_id=self.credit_account_id,
            amount=self.amount,
            currency=self.currency,
            kind=self.kind,
            status=TransferStatus.PENDING if pending else TransferStatus.POSTED,
            is_hold=pending,
            posted_amount=None if pending else self.amount,
            references=self.references,
            metadata=dict(self.metadata),
            reversal_of=self.reversal_of,
            created_at=now,
            resolved_at=None if pending else now,
        )

    def validate(self) -> None:
        check_id(self.transfer_id, "transfer_id")
        check_id(self.debit_account_id, "debit_account_id")
        check_id(self.credit_account_id, "credit_account_id")
        check_currency(self.currency)
        check_amount(self.amount, "amount")
        if self.debit_account_id == self.credit_account_id:
            raise InvalidRequest(
                f"debit and credit account are both {self.debit_account_id!r}; "
                "a transfer moves money between two different accounts"
            )
        self.references.validate()
        check_metadata(self.metadata)
        if self.reversal_of:
            check_id(self.reversal_of, "reversal_of")


@dataclass(frozen=True, slots=True, kw_only=True)
class Transfer:
    """A transfer as recorded. Once `posted` or `voided` it never changes again."""

    transfer_id: str
    debit_account_id: str
    credit_account_id: str
    amount: int
    currency: str
    kind: TransferKind
    status: TransferStatus
    is_hold: bool
    posted_amount: int | None
    references: References
    metadata: Mapping[str, str]
    reversal_of: str
    created_at: datetime
    resolved_at: datetime | None = None

    def same_request_as(self, spec: TransferSpec) -> bool:
        """Whether `spec` asks for exactly this transfer (idempotent replay)."""
        return (
            self.debit_account_id == spec.debit_account_id
            and self.credit_account_id == spec.credit_account_id
            and self.amount == spec.amount
            and self.currency == spec.currency
            and self.kind == spec.kind
            and self.is_hold == spec.pending
            and self.references == spec.references
            and dict(self.metadata) == dict(spec.metadata)
            and self.reversal_of == spec.reversal_of
        )

    def differences_from(self, spec: TransferSpec) -> list[str]:
        """Names of the fields where `spec` differs (for the ALREADY_EXISTS message)."""
        pairs = {
            "debit_account_id": (self.debit_account_id, spec.debit_account_id),
            "credit_account_id": (self.credit_account_id, spec.credit_account_id),
            "amount": (self.amount, spec.amount),
            "currency": (self.currency, spec.currency),
            "kind": (self.kind, spec.kind),
            "pending": (self.is_hold, spec.pending),
            "references": (self.references, spec.references),
            "metadata": (dict(self.metadata), dict(spec.metadata)),
            "reversal_of": (self.reversal_of, spec.reversal_of),
        }
        return [name for name, (a, b) in pairs.items() if a != b]


@dataclass(frozen=True, slots=True, kw_only=True)
class Posting:
    """One journal line: a signed change (+ credit, − debit) to one account's posted balance."""

    transfer_id: str
    account_id: str
    currency: str
    amount: int
    balance_after: int
    posted_at: datetime
    #: 1 for the account's first posting, 2 for the next… (event sequence per account).
    sequence: int = 0
