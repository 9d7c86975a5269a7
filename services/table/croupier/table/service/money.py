"""Cash tables' money: buy-ins confirmed by the wallet before they are logged, and the stack
given back when a player leaves (docs/architecture.md §4: gRPC for what must be confirmed before
play; Kafka requests for what follows from the log).

A table is a *money table* when its currency (`options.currency`, else the host's default)
is not one of the play currencies (`CHIP`, `PLAY` by default): there

- the chips a command brings (a `seat` command's `stack`, a table action
  `{"action": "top_up", "amount": N}`, or what the rules make the player bring, which the
  engine's events state as `buy_in`: a backgammon money game's cover, seed 001 rule 2)
  are moved first by the wallet, player → his seat
  account at the table (Wallet `BuyIn`, transfer id derived from the table, the player and
  the command: a retried command is a replay, moves money once). The host asks only after
  the command passed its check, under the table's lock, and logs it only once the wallet
  confirmed; a refusal (insufficient funds: FAILED_PRECONDITION) leaves the table as it was;
- hands settle between the seats (the host's settlement requests, unchanged);
- a player who leaves with chips (an engine's `player_left` event with `stack` > 0), and
  every player still seated when the table closes (the engine's `HoldsStacks`), is paid
  back: a `CashOut` (player, table, stack: the wallet names the accounts), after the
  hand's settlement, with ids derived from the log entry (redelivery applies once).

What follows from the log is asked as typed requests (`service.requests`) through the
`WalletRequests` port (on the bus: `croupier.table.adapters.wallet_requests`). Play-chip
tables never call the wallet nor ask it to settle, and no table does when no wallet is
configured at all. Adapters of the `Wallet` port: `croupier.table.adapters.wallets`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import structlog

from croupier.game import JSON, Event, HoldsStacks, implements
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import StepOutcome
from croupier.table.ports import BuyIn, Wallet, WalletRequests
from croupier.table.service.background import Background, pause_before_retry
from croupier.table.service.requests import (
    CashOut,
    MoneyRequest,
    RefundCrashedTable,
    SettleHand,
    short_digest,
)
from croupier.table.service.tables import HostedTable

log = structlog.get_logger("croupier.table.host")

PLAY_CURRENCIES = frozenset({"CHIP", "PLAY"})
TOP_UP = "top_up"


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
        self.wallet = wallet  # None: no wallet configured, no table moves money
        self._default_currency = default_currency
        self._play = frozenset(play_currencies)

    def currency(self, options: JSON) -> str:
        return str(options.get("currency") or self._default_currency)

    def is_money_table(self, options: JSON) -> bool:
        return self.wallet is not None and self.currency(options) not in self._play

    def settles(self, options: JSON) -> bool:
        """Whether the wallet is asked to settle the table's hands: never at a play-chip
        table, wallet or not (nobody funds its seats: the wallet could only dead-letter
        the requests); at a real-currency table always, its seats funded by the host's
        buy-ins or, without a wallet configured here, by whoever seated the players (the
        lobby, a tournament)."""
        return self.currency(options) not in self._play

    @staticmethod
    def chips_brought(kind: str, body: JSON, events: Sequence[Event] = ()) -> int:
        """Chips a logged command brings to its table (0: none): what its events say the
        rules made the player bring (`buy_in`), else what he asked to bring."""
        declared = [e.data.get("buy_in") for e in events if "buy_in" in e.data]
        if declared:
            return sum(n for n in declared if isinstance(n, int) and not isinstance(n, bool))
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
        events: Sequence[Event] = (),
    ) -> BuyIn | None:
        """The wallet buy-in a command (its checked `events`) needs before it is logged,
        or None.

        `key` names the command for the transfer id: the same key (a retried command) is
        the same transfer, so the wallet moves the money once.
        """
        amount = self.chips_brought(kind, body, events)
        if not amount or not self.is_money_table(options):
            return None
        return BuyIn(
            transfer_id=f"buyin:{table_id}:{short_digest(key)}",
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
    ) -> list[CashOut]:
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
        return [
            CashOut(table_id, game, player, stack, currency, log_index=index)
            for player, stack in sorted(owed.items())
        ]


class MoneySender:
    """The money a command moves: the buy-in the wallet confirms before it is logged, and
    the requests (settlement, stacks given back) sent before its caller is answered; and
    what a rebuilt or voided table asks of the wallet."""

    def __init__(
        self,
        buyins: Buyins,
        wallet_requests: WalletRequests,
        background: Background,
        currency: str,
    ) -> None:
        self.buyins = buyins
        self._wallet_requests = wallet_requests
        self._background = background
        self._currency = currency

    async def money_in(self, table: HostedTable, entry: LogEntry, outcome: StepOutcome) -> None:
        """Cash tables: the wallet moves the chips a seat or a top-up brings once the
        command passed its check (`CommandPath.submit_locked`) and before it is logged; a
        refusal leaves the table unchanged. A player's n-th seat at a table is one buy-in
        whatever the command id, so a retried SeatPlayer moves the money once.

        Only engines that can say what each player leaves with (`HoldsStacks`: poker,
        backgammon) buy chips in here: the host could not give the others' stacks back.
        Their tables keep the earlier model: whoever seats a player funds the seat in the
        wallet first (a tournament), and the host asks only for settlements."""
        if not implements(table.engine, HoldsStacks):
            return
        state, kind, player = table.state, entry.kind, entry.player
        key = entry.command_id
        if kind == "seat":
            key = f"seat:{player}:{table.seats_taken.get(player, 0) + 1}"
        buy_in = self.buyins.buy_in_for(
            state.table_id,
            state.game,
            state.options,
            kind,
            player,
            entry.body,
            key,
            outcome.events,
        )
        if buy_in is not None and self.buyins.wallet is not None:
            await self.buyins.wallet.buy_in(buy_in)

    def requests(
        self, table: HostedTable, entry: LogEntry, outcome: StepOutcome
    ) -> list[MoneyRequest]:
        """What a committed entry asks of the wallet: the hand's settlement, then the stacks
        of players who left (or sat at a table that closed)."""
        state = outcome.state
        stacks = (
            cast(HoldsStacks, table.engine).stacks
            if implements(table.engine, HoldsStacks)
            else None
        )
        money_requests: list[MoneyRequest] = []
        settlement = outcome.settlement
        if settlement is not None and self.buyins.settles(state.options):
            result = settlement.result
            currency = result.currency or str(state.options.get("currency", self._currency))
            money_requests.append(
                SettleHand(
                    state.table_id,
                    state.game,
                    settlement.hand_number,
                    currency,
                    result.deltas,
                    result.commission,
                    result.details,
                )
            )
        money_requests += self.buyins.cash_outs(
            state.table_id,
            state.game,
            state.options,
            entry.index,
            outcome.events,
            stacks(state.engine_state) if stacks is not None and state.closed else None,
        )
        return money_requests

    async def ask_wallet(
        self, table: HostedTable, requests: list[MoneyRequest], deadline: float
    ) -> None:
        """Send a command's money requests (settlement, stacks given back) before its caller
        is answered, in the table's order: while earlier ones wait for the bus, these queue
        behind them (a cash-out overtaking the settlement it depends on would be refused).
        A bus failure, or no answer by `deadline`, does not fail the caller: the command
        stands; the backlog is resent in the background (the wallet applies each
        idempotency key once)."""
        if table.money_backlog:
            table.money_backlog.extend(requests)
            return
        try:
            async with asyncio.timeout_at(deadline):
                await self._wallet_requests.send(requests)
        except BaseException as exc:  # any bus failure, or the caller gone: resent in order
            table.money_backlog = list(requests)
            if not self._background.stopping:
                table.resending = asyncio.create_task(self._resend(table))
            if not isinstance(exc, Exception):
                raise
            log.error(
                "money requests not sent; retrying", table_id=table.state.table_id, error=str(exc)
            )

    async def _resend(self, table: HostedTable) -> None:
        while table.money_backlog:
            await pause_before_retry()
            batch = list(table.money_backlog)
            try:
                await self._wallet_requests.send(batch)
            except Exception as exc:  # noqa: BLE001 - any bus failure is retried
                log.error(
                    "money requests not sent; retrying",
                    table_id=table.state.table_id,
                    error=str(exc),
                )
                continue
            del table.money_backlog[: len(batch)]

    async def ask_again(self, label: str, requests: list[MoneyRequest]) -> None:
        """Send what rebuilt tables ask the wallet again (their latest money requests);
        retried in the background on a bus failure."""
        try:
            await self._wallet_requests.send(requests)
        except Exception as exc:  # noqa: BLE001 - any bus failure is retried
            log.error("settlement request failed; retrying", table_id=label, error=str(exc))
            self._background.retry_later(lambda: self.ask_again(label, requests))

    async def refund_crashed_table(self, table_id: str, game: str, reason: str) -> None:
        """Ask the wallet to give back the money of a table that could not be rebuilt."""
        await self._wallet_requests.send([RefundCrashedTable(table_id, game, reason)])
