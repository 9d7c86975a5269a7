"""Another service over gRPC (the gateway's services behind it, the lobby's director): one
channel, its refusals passed on as they came.

A refusal (a status the kit's one table gives to a refusal kind, `STATUS_BY_ROOT`) comes
back as that kind with the service's message and `x-error-reason`, so the caller answers
its own client the same status and reason. Any other status means the service did not answer
usefully (down, overloaded, past the deadline, a bug there): `Unavailable`, which names
the service and never passes on its internals.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc

from croupier.game.errors import RuleBroken
from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.errors import REASON_HEADER, STATUS_BY_ROOT, Unavailable
from croupier.kit.service_auth import ServiceCredential

__all__ = ["CALL_TIMEOUT_SECONDS", "Remote", "refusal_reason"]

CALL_TIMEOUT_SECONDS = 10.0
# The refusal kind each status stands for: the one table read backwards (its kinds only).
_REFUSAL_BY_STATUS: dict[grpc.StatusCode, type[RuleBroken]] = {
    status: kind for kind, status in STATUS_BY_ROOT.items() if issubclass(kind, RuleBroken)
}


def refusal_reason(error: grpc.aio.AioRpcError) -> str | None:
    """The reason the service sent with its refusal (`x-error-reason`), if any."""
    reasons = [v for k, v in error.trailing_metadata() or () if k == REASON_HEADER]
    return str(reasons[0]) if reasons and reasons[0] else None


def _passed_on(error: grpc.aio.AioRpcError, service: str) -> Exception:
    kind = _REFUSAL_BY_STATUS.get(error.code())
    if kind is None:
        return Unavailable(f"the {service} did not answer ({error.code().name}); retry")
    return kind(error.details() or f"refused by the {service}", refusal_reason(error))


class Remote:
    """The stub of one service (`stub_class`), on a channel opened at the first call.

    `target` is the service's address, or how to find it once known (the embedded platform
    serves every service on its own port, bound after the caller is built); `credential`
    the caller's service credential (the services behind answer services only); `options`
    the channel's."""

    def __init__(
        self,
        service: str,
        target: Target,
        stub_class: Callable[[grpc.aio.Channel], Any],
        credential: ServiceCredential | None,
        timeout: float = CALL_TIMEOUT_SECONDS,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self._service = service
        self._channel = ServiceChannel(target, credential, options)
        self._stub_class = stub_class
        self._timeout = timeout

    def _stub_now(self) -> Any:
        return self._channel.stub(self._stub_class)

    async def call(self, method: str, request: Any) -> Any:
        """`method(request)` on the service, its refusal passed on."""
        try:
            return await getattr(self._stub_now(), method)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            raise _passed_on(error, self._service) from None

    async def stream(self, method: str, request: Any) -> AsyncIterator[Any]:
        """The messages of server stream `method(request)`; closing this ends the call."""
        call = getattr(self._stub_now(), method)(request)
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as error:
            raise _passed_on(error, self._service) from None
        finally:
            call.cancel()

    async def close(self) -> None:
        await self._channel.close()
