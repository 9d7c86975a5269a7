"""The gateway over native gRPC (app clients): the token from the `authorization`
metadata. Refusals reach the kit's interceptor, which answers their status from its one
table (`croupier.kit.errors`), UNAUTHENTICATED included."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from croupier.gateway.entrypoints.methods import (
    AUTHORIZATION,
    FORWARDED,
    SERVICE_NAME,
    X_FORWARDED_FOR,
    GatewayMethod,
    Origin,
)

if TYPE_CHECKING:
    from croupier.kit.context import Context

__all__ = ["grpc_handler"]


def _authorization(context: Context) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == AUTHORIZATION and isinstance(value, str):
            return value
    return None


def _origin(context: Context) -> Origin:
    metadata = [(key, value) for key, value in context.invocation_metadata() or ()]
    return Origin(
        peer=context.peer(),
        forwarded=tuple(str(value) for key, value in metadata if key == FORWARDED),
        forwarded_for=tuple(str(value) for key, value in metadata if key == X_FORWARDED_FOR),
    )


def _unary(
    call: Callable[[Any, str | None, Origin], Awaitable[Any]],
) -> Callable[[Any, Context], Awaitable[Any]]:
    async def handle(request: Any, context: Context) -> Any:
        return await call(request, _authorization(context), _origin(context))

    return handle


def _stream(
    call: Callable[[Any, str | None, Origin], AsyncIterator[Any]],
) -> Callable[[Any, Context], AsyncIterator[Any]]:
    async def handle(request: Any, context: Context) -> AsyncIterator[Any]:
        async for response in call(request, _authorization(context), _origin(context)):
            yield response

    return handle


def grpc_handler(methods: list[GatewayMethod]) -> grpc.GenericRpcHandler:
    """`croupier.gateway.v1.Gateway`'s handler for a grpc.aio server."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in methods:
        decode, encode = method.request_class.FromString, method.response_class.SerializeToString
        if method.stream is not None:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _stream(method.stream), request_deserializer=decode, response_serializer=encode
            )
        elif method.unary is not None:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.unary), request_deserializer=decode, response_serializer=encode
            )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)
