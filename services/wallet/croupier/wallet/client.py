"""The wallet service as other services call it over gRPC: one channel, one answer to a
refusal, one answer to silence.

The table host (buy-ins) and the tournament director (entries, refunds) call the wallet
through a `WalletClient`. The wallet's refusals come back as the `croupier.game` kinds
the caller's own clients should see (`REFUSALS`); any other status means the wallet did
not answer (`WalletUnavailable`), and since every wallet call carries an idempotency key,
the same request may simply be sent again.
"""

from __future__ import annotations

from typing import Any

import grpc

from croupier.game import Duplicate, Malformed, RuleBroken
from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.errors import Unavailable
from croupier.kit.remote import refusal_reason
from croupier.kit.service_auth import ServiceCredential

__all__ = ["REFUSALS", "WALLET_TIMEOUT_SECONDS", "WalletClient", "WalletUnavailable"]

WALLET_TIMEOUT_SECONDS = 5.0

REFUSALS: dict[grpc.StatusCode, type[RuleBroken]] = {
    grpc.StatusCode.FAILED_PRECONDITION: RuleBroken,
    grpc.StatusCode.NOT_FOUND: RuleBroken,  # the player has no account in that currency
    grpc.StatusCode.ALREADY_EXISTS: Duplicate,  # an idempotency key reused for other content
    grpc.StatusCode.INVALID_ARGUMENT: Malformed,
}


class WalletUnavailable(Unavailable):
    """The wallet did not answer: nothing was recorded; retry the same request."""


class WalletClient:
    """A lazily opened channel to the wallet service and its stub."""

    def __init__(
        self,
        target: Target,
        timeout: float = WALLET_TIMEOUT_SECONDS,
        *,
        credential: ServiceCredential | None = None,
    ) -> None:
        """`target`: the wallet's address, or how to find it once known (the embedded
        platform serves the wallet on its own port, bound after its callers are built).
        `credential`: the calling service's (the wallet answers services only)."""
        self._channel = ServiceChannel(target, credential)
        self._timeout = timeout

    def _wallet(self) -> Any:
        from croupier.wallet.v1 import wallet_pb2_grpc

        return self._channel.stub(wallet_pb2_grpc.WalletStub)

    async def call(self, method: str, request: Any, what: str, retry: str = "retry") -> Any:
        """`Wallet/<method>(request)`; `what` names the request in an error's message and
        `retry` tells the caller's client how to try again."""
        try:
            return await getattr(self._wallet(), method)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            refusal = REFUSALS.get(error.code())
            if refusal is None:
                raise WalletUnavailable(
                    f"the wallet did not confirm the {what} ({error.code().name}); {retry}"
                ) from error
            raise refusal(
                f"the wallet refused the {what}: {error.details()}", refusal_reason(error)
            ) from error

    async def close(self) -> None:
        await self._channel.close()
