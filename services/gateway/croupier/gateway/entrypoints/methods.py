"""The gateway's RPCs as both transports see them: read from the contract's descriptor, so
a method added to `gateway.proto` and to `GatewayService` is served by both at once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from croupier.gateway.service.gateway import GatewayService
from croupier.gateway.service.identity import Authenticator
from croupier.gateway.v1 import gateway_pb2

__all__ = ["SERVICE_NAME", "GatewayMethod", "gateway_methods"]

_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
SERVICE_NAME = _SERVICE.full_name
AUTHORIZATION = "authorization"


@dataclass(frozen=True)
class GatewayMethod:
    """One RPC: its name, messages and behaviour, the caller authenticated from the
    `authorization` header first (`unary` or `stream`, as the method is)."""

    name: str
    request_class: type[Message]
    response_class: type[Message]
    unary: Callable[[Any, str | None], Awaitable[Any]] | None
    stream: Callable[[Any, str | None], AsyncIterator[Any]] | None


def _unary(
    behaviour: Callable[[Any, Any], Awaitable[Any]], authenticator: Authenticator
) -> Callable[[Any, str | None], Awaitable[Any]]:
    async def call(request: Any, authorization: str | None) -> Any:
        return await behaviour(request, authenticator.identify(authorization))

    return call


def _stream(
    behaviour: Callable[[Any, Any], AsyncIterator[Any]], authenticator: Authenticator
) -> Callable[[Any, str | None], AsyncIterator[Any]]:
    async def call(request: Any, authorization: str | None) -> AsyncIterator[Any]:
        caller = authenticator.identify(authorization)
        async for response in authenticator.until_expiry(behaviour(request, caller), caller):
            yield response

    return call


def gateway_methods(gateway: GatewayService, authenticator: Authenticator) -> list[GatewayMethod]:
    """Every RPC of `croupier.gateway.v1.Gateway`, bound to `gateway`."""
    methods = []
    for method in _SERVICE.methods:
        behaviour = getattr(gateway, method.name)
        streaming = method.server_streaming
        methods.append(
            GatewayMethod(
                name=method.name,
                request_class=getattr(gateway_pb2, method.input_type.name),
                response_class=getattr(gateway_pb2, method.output_type.name),
                unary=None if streaming else _unary(behaviour, authenticator),
                stream=_stream(behaviour, authenticator) if streaming else None,
            )
        )
    return methods
