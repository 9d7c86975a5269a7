"""The gateway's RPCs as both transports see them: read from the contract's descriptor, so
a method added to `gateway.proto` and to `GatewayService` is served by both at once. Each
call is admitted by the rate limits of its address, authenticated, then admitted by its
player's (`CallLimits`; a stream also by his count of open streams). A transport hands
over the call's `Origin`: the TCP peer and the forwarding headers (believed only from
trusted proxies)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from croupier.gateway.core.client_address import forwarded_chain
from croupier.gateway.service.gateway import GatewayService
from croupier.gateway.service.identity import Authenticator
from croupier.gateway.service.limits import CallLimits
from croupier.gateway.v1 import gateway_pb2
from croupier.kit.auth import Identity

__all__ = [
    "FORWARDED",
    "SERVICE_NAME",
    "X_FORWARDED_FOR",
    "GatewayMethod",
    "Origin",
    "gateway_methods",
]

_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
SERVICE_NAME = _SERVICE.full_name
AUTHORIZATION = "authorization"
FORWARDED = "forwarded"
X_FORWARDED_FOR = "x-forwarded-for"


@dataclass(frozen=True)
class Origin:
    """Where a call came from: the TCP `peer` as the transport names it, and every line of
    the `Forwarded` and `X-Forwarded-For` headers, in order."""

    peer: str | None
    forwarded: tuple[str, ...] = ()
    forwarded_for: tuple[str, ...] = ()


@dataclass(frozen=True)
class GatewayMethod:
    """One RPC: its name, messages and behaviour, called with the request, the
    `authorization` header and the call's `Origin` (`unary` or `stream`, as the method
    is)."""

    name: str
    request_class: type[Message]
    response_class: type[Message]
    unary: Callable[[Any, str | None, Origin], Awaitable[Any]] | None
    stream: Callable[[Any, str | None, Origin], AsyncIterator[Any]] | None


@dataclass(frozen=True)
class _Admission:
    authenticator: Authenticator
    limits: CallLimits

    def caller(self, authorization: str | None, origin: Origin) -> Identity:
        chain = forwarded_chain(origin.forwarded, origin.forwarded_for)
        self.limits.admit_address(origin.peer, chain)
        caller = self.authenticator.identify(authorization)
        self.limits.admit_player(caller.player)
        return caller


def _unary(
    behaviour: Callable[[Any, Any], Awaitable[Any]], admission: _Admission
) -> Callable[[Any, str | None, Origin], Awaitable[Any]]:
    async def call(request: Any, authorization: str | None, origin: Origin) -> Any:
        return await behaviour(request, admission.caller(authorization, origin))

    return call


def _stream(
    behaviour: Callable[[Any, Any], AsyncIterator[Any]], admission: _Admission
) -> Callable[[Any, str | None, Origin], AsyncIterator[Any]]:
    async def call(request: Any, authorization: str | None, origin: Origin) -> AsyncIterator[Any]:
        caller = admission.caller(authorization, origin)
        with admission.limits.open_stream(caller.player):
            stream = behaviour(request, caller)
            async for response in admission.authenticator.until_expiry(stream, caller):
                yield response

    return call


def gateway_methods(
    gateway: GatewayService, authenticator: Authenticator, limits: CallLimits
) -> list[GatewayMethod]:
    """Every RPC of `croupier.gateway.v1.Gateway`, bound to `gateway`."""
    admission = _Admission(authenticator, limits)
    methods = []
    for method in _SERVICE.methods:
        behaviour = getattr(gateway, method.name)
        streaming = method.server_streaming
        methods.append(
            GatewayMethod(
                name=method.name,
                request_class=getattr(gateway_pb2, method.input_type.name),
                response_class=getattr(gateway_pb2, method.output_type.name),
                unary=None if streaming else _unary(behaviour, admission),
                stream=_stream(behaviour, admission) if streaming else None,
            )
        )
    return methods
