"""Cash tables' money: buy-ins confirmed by the wallet before they are logged, and the stack
given back when a player leaves (docs/architecture.md §4: gRPC for what must be confirmed before
play; Kafka requests for what follows from the log).

A table is a *money table* when its currency (`options.currency`, else the host's default)
is not one of the play currencies (`CHIP`, `PLAY` by default): there

- the chips a command brings (a `seat` command's `stack`, a table action
  `{"action": "top_up", "amount": N}`) are moved first by the wallet, player → his seat
  account at the table (Wallet `BuyIn`, transfer id derived from the table, the player and
  the command: a retried command is a replay, moves money once). The host asks only after
  the command passed its check, under the table's lock, and logs it only once the wallet
  confirmed; a refusal (insufficient funds: FAILED_PRECONDITION) leaves the table as it was;
- hands settle between the seats (the host's settlement requests, unchanged);
- a player who leaves with chips (an engine's `player_left` event with `stack` > 0), and
  every player still seated when the table closes (the engine's `HoldsStacks`), is paid
  back: a `WalletRequest.transfer_batch` with one CASH_OUT transfer, seat → player, for that
  stack, on `croupier.wallet.requests`, keyed by the table, after the hand's settlement
  (same key, same order), with ids derived from the log entry (redelivery applies once).

Play-chip tables never call the wallet nor ask it to settle (`NoWallet` when no wallet is
configured at all).
Adapters of the `Wallet` port: `GrpcWallet` (the wallet service), `InMemoryWallet` (a tiny
ledger for unit tests and the embedded mode without PostgreSQL), `NoWallet`.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import JSON, Event, Malformed, RuleBroken
from croupier.kit.bus.envelope import make_envelope
from croupier.kit.errors import Unavailable
from croupier.table.sink import GAMES, WALLET_REQUESTS_TOPIC

PLAY_CURRENCIES = frozenset({"CHIP", "PLAY"})
WALLET_TIMEOUT_SECONDS = 5.0
TOP_UP = "top_up"


class WalletUnavailable(Unavailable):
    """The wallet did not answer a buy-in: nothing was logged; retry the same command."""


@dataclass(frozen=True)
class BuyIn:
    """Chips a player brings to a table, to be moved by the wallet before play."""

    transfer_id: str
    table_id: str
    game: str
    player: str
    currency: str
    amount: int


class Wallet(Protocol):
    """What a cash table needs of the wallet before it logs a command."""

    async def buy_in(self, buy_in: BuyIn) -> None:
        """Move the chips (idempotent by `transfer_id`). Raises `RuleBroken` when the wallet
        refuses (with its reason), `WalletUnavailable` when it cannot
        tell."""
        ...


class NoWallet:
    """No wallet configured: every table seats without moving money."""

    async def buy_in(self, buy_in: BuyIn) -> None:
        return None


# The wallet's refusals, as the table's caller should see them (any other status: the
# wallet did not answer, and the same command may be retried).
_REFUSALS: dict[grpc.StatusCode, type[RuleBroken]] = {
    grpc.StatusCode.FAILED_PRECONDITION: RuleBroken,
    grpc.StatusCode.NOT_FOUND: RuleBroken,  # no account in that currency
    grpc.StatusCode.ALREADY_EXISTS: RuleBroken,  # id reused for another amount
    grpc.StatusCode.INVALID_ARGUMENT: Malformed,
}


class GrpcWallet:
    """The wallet service over gRPC (`croupier.wallet.v1.Wallet/BuyIn`)."""

    def __init__(
        self, target: str | Callable[[], str], timeout: float = WALLET_TIMEOUT_SECONDS
    ) -> None:
        """`target`: the wallet's address, or how to find it once known (the embedded
        platform serves the wallet on its own port, bound after the host is built)."""
        self._target = target
        self._timeout = timeout
        self._channel: grpc.aio.Channel | None = None
        self._stub: Any = None

    def _wallet(self) -> Any:
        if self._stub is None:
            from croupier.wallet.v1 import wallet_pb2_grpc

            target = self._target if isinstance(self._target, str) else self._target()
            self._channel = grpc.aio.insecure_channel(target)
            self._stub = wallet_pb2_grpc.WalletStub(self._channel)
        return self._stub

    async def buy_in(self, buy_in: BuyIn) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.BuyInRequest(
            transfer_id=buy_in.transfer_id,
            player_id=buy_in.player,
            game=GAMES.get(buy_in.game, common_pb2.GAME_UNSPECIFIED),
            table_id=buy_in.table_id,
            amount=common_pb2.Money(amount_minor=buy_in.amount, currency=buy_in.currency),
        )
        try:
            await self._wallet().BuyIn(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            refusal = _REFUSALS.get(error.code())
            if refusal is None:
                raise WalletUnavailable(
                    f"the wallet did not confirm the buy-in ({error.code().name}); "
                    "retry with the same command"
                ) from error
            raise refusal(f"the wallet refused the buy-in: {error.details()}") from error

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel, self._stub = None, None


@dataclass
class InMemoryWallet:
    """A minimal ledger: players' balances and seat accounts per currency, for unit tests
    (and a host that has no wallet service but must still count what it seats)."""

    balances: dict[tuple[str, str], int] = field(default_factory=dict)  # (player, ccy)
    seats: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (table, player, ccy)
    transfers: dict[str, BuyIn] = field(default_factory=dict)

    def deposit(self, player: str, currency: str, amount: int) -> None:
        key = (player, currency)
        self.balances[key] = self.balances.get(key, 0) + amount

    async def buy_in(self, buy_in: BuyIn) -> None:
        earlier = self.transfers.get(buy_in.transfer_id)
        if earlier is not None:
            if earlier != buy_in:
                raise RuleBroken(
                    f"the wallet refused the buy-in: transfer {buy_in.transfer_id!r} "
                    "was used for another buy-in",
                )
            return
        key = (buy_in.player, buy_in.currency)
        available = self.balances.get(key, 0)
        if available < buy_in.amount:
            raise RuleBroken(
                f"the wallet refused the buy-in: {buy_in.player!r} has {available} "
                f"{buy_in.currency} available, {buy_in.amount} needed",
            )
        self.balances[key] = available - buy_in.amount
        seat = (buy_in.table_id, buy_in.player, buy_in.currency)
        self.seats[seat] = self.seats.get(seat, 0) + buy_in.amount
        self.transfers[buy_in.transfer_id] = buy_in

    def cash_out(self, table_id: str, player: str, currency: str, amount: int) -> None:
        """What a cash-out request does (tests apply the host's requests with it)."""
        seat = (table_id, player, currency)
        if self.seats.get(seat, 0) < amount:
            raise ValueError(f"seat {seat} holds {self.seats.get(seat, 0)}, {amount} asked")
        self.seats[seat] -= amount
        self.deposit(player, currency, amount)

    def settle(self, table_id: str, currency: str, deltas: dict[str, int]) -> None:
        for player, delta in deltas.items():
            seat = (table_id, player, currency)
            self.seats[seat] = self.seats.get(seat, 0) + delta


def _digest(text: str, length: int = 32) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


class Buyins:
    """The host's side of cash tables: which commands bring chips and what they cost in the
    wallet, and the cash-out requests of a committed command."""

    def __init__(
        self,
        wallet: Wallet | None = None,
        *,
        default_currency: str = "CHIP",
        play_currencies: Iterable[str] = PLAY_CURRENCIES,
    ) -> None:
        self.wallet: Wallet = wallet if wallet is not None else NoWallet()
        self._default_currency = default_currency
        self._play = frozenset(play_currencies)

    def currency(self, options: JSON) -> str:
        return str(options.get("currency") or self._default_currency)

    def is_money_table(self, options: JSON) -> bool:
        return not isinstance(self.wallet, NoWallet) and self.currency(options) not in self._play

    def settles(self, options: JSON) -> bool:
        """Whether the wallet is asked to settle the table's hands: never at a play-chip
        table, wallet or not (nobody funds its seats: the wallet could only dead-letter
        the requests); at a real-currency table always, its seats funded by the host's
        buy-ins or, without a wallet configured here, by whoever seated the players (the
        lobby, a tournament)."""
        return self.currency(options) not in self._play

    @staticmethod
    def chips_brought(kind: str, body: JSON) -> int:
        """Chips a logged command brings to its table (0: none)."""
        if kind == "seat":
            stack = body.get("stack", 0)
            return stack if isinstance(stack, int) and stack > 0 else 0
        if kind == "act":
            action = body.get("action")
            if isinstance(action, dict) and action.get("action") == TOP_UP:
                amount = action.get("amount")
                if isinstance(amount, int) and not isinstance(amount, bool) and amount > 0:
                    return amount
        return 0

    def buy_in_for(
        self,
        table_id: str,
        game: str,
        options: JSON,
        kind: str,
        player: str,
        body: JSON,
        key: str,
    ) -> BuyIn | None:
        """The wallet buy-in a command needs before it is logged, or None.

        `key` names the command for the transfer id: the same key (a retried command) is
        the same transfer, so the wallet moves the money once.
        """
        amount = self.chips_brought(kind, body)
        if not amount or not self.is_money_table(options):
            return None
        return BuyIn(
            transfer_id=f"buyin:{table_id}:{_digest(key)}",
            table_id=table_id,
            game=game,
            player=player,
            currency=self.currency(options),
            amount=amount,
        )

    def cash_outs(
        self,
        table_id: str,
        game: str,
        options: JSON,
        index: int,
        events: Sequence[Event],
        seated: Mapping[str, int] | None = None,
    ) -> list[tuple[str, Envelope]]:
        """Cash-out requests for the players a committed log entry (`index`) let go with
        chips (`player_left` events with a `stack`), and, when the entry closed the table
        (`table_closed`), for every stack still seated (`seated`: the engine's
        `HoldsStacks.stacks`): put them after that entry's settlement, on the same topic."""
        if not self.is_money_table(options):
            return []
        leaving: list[tuple[Any, Any]] = [
            (e.data.get("player"), e.data.get("stack")) for e in events if e.type == "player_left"
        ]
        # A top-up the cap turned away when it landed (poker) is paid back the same way.
        leaving += [
            (e.data.get("player"), e.data.get("amount"))
            for e in events
            if e.type == "top_up_returned"
        ]
        if seated and any(e.type == "table_closed" for e in events):
            leaving += sorted(seated.items())
        currency = self.currency(options)
        owed: dict[str, int] = {}  # one request per player and entry: its ids are per player
        for player, stack in leaving:
            if not isinstance(player, str):
                continue
            if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
                continue
            owed[player] = owed.get(player, 0) + stack
        out = []
        for player, stack in sorted(owed.items()):
            request = cash_out_request(table_id, game, currency, player, stack, index)
            out.append(
                (
                    WALLET_REQUESTS_TOPIC,
                    make_envelope(
                        type="wallet.cash_out_requested",
                        source="table",
                        subject=table_id,
                        sequence=max(1, index),
                        payload=request,
                        envelope_id=str(
                            uuid.uuid5(uuid.NAMESPACE_URL, f"{table_id}/cash_out/{index}/{player}")
                        ),
                    ),
                )
            )
        return out


def cash_out_request(
    table_id: str, game: str, currency: str, player: str, amount: int, index: int
) -> Any:
    """A `croupier.wallet.v1.WalletRequest`: one CASH_OUT transfer, the player's seat
    account at the table → his own account, for `amount` (what the table gives back)."""
    from croupier.wallet.v1 import wallet_pb2

    kind = "player_chips" if currency == "CHIP" else "player_cash"
    transfer_id = f"cashout:{table_id}:{index}:{_digest(player, 16)}"
    transfer = wallet_pb2.NewTransfer(
        transfer_id=transfer_id,
        debit_account_id=f"table_escrow:{table_id}/{player}:{currency}",
        credit_account_id=f"{kind}:{player}:{currency}",
        amount=common_pb2.Money(amount_minor=amount, currency=currency),
        kind=wallet_pb2.TRANSFER_KIND_CASH_OUT,
        references=wallet_pb2.References(
            game=GAMES.get(game, common_pb2.GAME_UNSPECIFIED), table_id=table_id
        ),
    )
    batch = wallet_pb2.TransferBatchRequest(
        batch_id=transfer_id, operations=[wallet_pb2.BatchOperation(transfer=transfer)]
    )
    return wallet_pb2.WalletRequest(transfer_batch=batch)
