"""The `Wallet` port over the wallet service's gRPC tournament RPCs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from croupier.game import Duplicate, Malformed, RuleBroken
from croupier.kit.errors import Unavailable
from croupier.tournament.codec import GAME_ENUMS, money

__all__ = ["GrpcWallet", "WalletUnavailable"]

WALLET_TIMEOUT_SECONDS = 5.0

# The wallet's refusals as the director's caller sees them; any other status means the
# wallet did not answer, and the same request may be retried (every call is idempotent).
_REFUSALS: dict[grpc.StatusCode, type[RuleBroken]] = {
    grpc.StatusCode.FAILED_PRECONDITION: RuleBroken,
    grpc.StatusCode.NOT_FOUND: RuleBroken,  # the player has no account in that currency
    grpc.StatusCode.ALREADY_EXISTS: Duplicate,
    grpc.StatusCode.INVALID_ARGUMENT: Malformed,
}


class WalletUnavailable(Unavailable):
    """The wallet did not answer: nothing was recorded here; retry the same request."""


class GrpcWallet:
    def __init__(
        self, target: str | Callable[[], str], timeout: float = WALLET_TIMEOUT_SECONDS
    ) -> None:
        """`target`: the wallet's address, or how to find it once known (the embedded
        platform serves the wallet on its own port, bound after the director is built)."""
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

    async def _call(self, method: str, request: Any, what: str) -> Any:
        try:
            return await getattr(self._wallet(), method)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            refusal = _REFUSALS.get(error.code())
            if refusal is None:
                raise WalletUnavailable(
                    f"the wallet did not confirm the {what} ({error.code().name}); retry"
                ) from error
            raise refusal(f"the wallet refused the {what}: {error.details()}") from error

    async def enter(
        self,
        *,
        entry_id: str,
        tournament_id: str,
        game: str,
        player: str,
        currency: str,
        buy_in: int,
        fee: int,
    ) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.EnterTournamentRequest(
            entry_id=entry_id,
            tournament_id=tournament_id,
            game=GAME_ENUMS[game],
            player_id=player,
            buy_in=money(buy_in, currency),
            fee=money(fee, currency),
        )
        await self._call("EnterTournament", request, "entry")

    async def refund_entry(self, *, entry_id: str, refund_id: str) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.RefundTournamentEntryRequest(entry_id=entry_id, refund_id=refund_id)
        await self._call("RefundTournamentEntry", request, "refund")

    async def refund_crashed(self, *, tournament_id: str, game: str, currency: str) -> int:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.RefundCrashedTournamentRequest(
            tournament_id=tournament_id, game=GAME_ENUMS[game], currency=currency
        )
        response = await self._call("RefundCrashedTournament", request, "crash refund")
        return len(response.refunds)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel, self._stub = None, None
