"""How a service calls another one: one lazily opened gRPC channel whose every call carries
the caller's service credential and the request id of the call being served.

Every internal client (the wallet client, the table host client, the gateway's remotes)
opens its channel here, so none can forget the credential (`croupier.kit.service_auth`)
or drop the request id: the id the kit's interceptor bound for the call in progress goes
out as `x-request-id`, and the service called logs it under the same id, end to end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import grpc
import structlog

from croupier.kit.logs import REQUEST_ID_HEADER
from croupier.kit.service_auth import AUTHORIZATION_HEADER, ServiceCredential

__all__ = ["ServiceChannel", "Target", "call_metadata"]

Target = str | Callable[[], str]
"""An address, or how to find it once known (the embedded platform's own port, bound
after its clients are built)."""

S = TypeVar("S")


def call_metadata(credential: ServiceCredential | None) -> list[tuple[str, str]]:
    """The metadata an internal call made now carries: the credential, the request id."""
    metadata: list[tuple[str, str]] = []
    if credential is not None:
        metadata.append((AUTHORIZATION_HEADER, credential.authorization()))
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    if isinstance(request_id, str) and request_id:
        metadata.append((REQUEST_ID_HEADER, request_id))
    return metadata


def _with_ours(
    details: grpc.aio.ClientCallDetails, credential: ServiceCredential | None
) -> grpc.aio.ClientCallDetails:
    ours = call_metadata(credential)
    if not ours:
        return details
    names = {name for name, _ in ours}
    theirs = [item for item in details.metadata or () if item[0] not in names]
    return grpc.aio.ClientCallDetails(
        method=details.method,
        timeout=details.timeout,
        metadata=grpc.aio.Metadata(*theirs, *ours),
        credentials=details.credentials,
        wait_for_ready=details.wait_for_ready,
    )


# Two classes: grpc.aio files an interceptor under one kind of call only.
class _AttachToUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, credential: ServiceCredential | None) -> None:
        self._credential = credential

    async def intercept_unary_unary(
        self, continuation: Any, client_call_details: Any, request: Any
    ) -> Any:
        return await continuation(_with_ours(client_call_details, self._credential), request)


class _AttachToStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, credential: ServiceCredential | None) -> None:
        self._credential = credential

    async def intercept_unary_stream(
        self, continuation: Any, client_call_details: Any, request: Any
    ) -> Any:
        return await continuation(_with_ours(client_call_details, self._credential), request)


class ServiceChannel:
    """A channel to the service at `target`, opened at the first call, whose calls carry
    `credential` (None only where the service called is not guarded: tests' servers)."""

    def __init__(
        self,
        target: Target,
        credential: ServiceCredential | None,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self._target = target
        self._credential = credential
        self._options = list(options)
        self._channel: grpc.aio.Channel | None = None
        self._stubs: dict[Callable[[grpc.aio.Channel], Any], Any] = {}

    def stub(self, stub_class: Callable[[grpc.aio.Channel], S]) -> S:
        """`stub_class` on this channel (one per class)."""
        stub = self._stubs.get(stub_class)
        if stub is None:
            if self._channel is None:
                target = self._target if isinstance(self._target, str) else self._target()
                self._channel = grpc.aio.insecure_channel(
                    target,
                    options=self._options,
                    interceptors=[
                        _AttachToUnary(self._credential),
                        _AttachToStream(self._credential),
                    ],
                )
            stub = self._stubs[stub_class] = stub_class(self._channel)
        return stub

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
            self._stubs.clear()
