"""The kit's server interceptor: request ids, logs, metrics, status codes, malformed bodies.

Every call through a kit server:
- gets a request id (the client's `x-request-id` metadata, or a new one), bound into the
  structlog context and sent back in the trailing metadata (with the status, errors too);
- is timed into `croupier_grpc_server_handling_seconds{method,code}` and counted in
  `croupier_grpc_server_in_flight{method}`;
- has refusals turned into their status code (the one table, `croupier.kit.errors`), with
  their message and their reason in the trailing metadata, and any other exception into
  INTERNAL with a message that names only the request id (the details go to the log);
- answers a request body that cannot be decoded with INVALID_ARGUMENT instead of grpc's
  default INTERNAL, naming the expected message type.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import grpc
import structlog
from google.protobuf.message import DecodeError

from croupier.kit.errors import REASON_HEADER, status_of
from croupier.kit.logs import REQUEST_ID_HEADER
from croupier.kit.metrics import GRPC_IN_FLIGHT, GRPC_LATENCY, GRPC_MALFORMED

if TYPE_CHECKING:
    from croupier.kit.context import Context, Handler

log = structlog.get_logger("croupier.kit.interceptor")


class _Malformed:
    """Stands in for a request whose bytes did not decode; the handler wrapper rejects it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _tolerant(
    deserializer: Callable[[bytes], Any] | None, method: str
) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except (DecodeError, ValueError, TypeError) as exc:
            return _Malformed(f"the request body is not a valid message for {method}: {exc}")

    return decode


# A new request id is this process's random prefix and a counter: unique across replicas
# and restarts like a uuid4, without drawing 16 random bytes from the OS on every call.
_ID_PREFIX = uuid.uuid4().hex[:16]
_ID_COUNTER = itertools.count(1)


def _request_id(context: Context) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == REQUEST_ID_HEADER and isinstance(value, str) and 0 < len(value) <= 128:
            return value
    return f"{_ID_PREFIX}-{next(_ID_COUNTER):x}"


class _MethodMetrics:
    """One method's labelled metric children, looked up once instead of on every call."""

    def __init__(self, method: str) -> None:
        self._method = method
        self.in_flight = GRPC_IN_FLIGHT.labels(method)
        self.malformed = GRPC_MALFORMED.labels(method)
        self._latency: dict[grpc.StatusCode, Any] = {}

    def latency(self, code: grpc.StatusCode) -> Any:
        """The handling-time histogram of this method's calls that ended with `code`."""
        child = self._latency.get(code)
        if child is None:
            child = self._latency[code] = GRPC_LATENCY.labels(self._method, code.name)
        return child


class _Call:
    """Book-keeping of one call: context binding, metrics, status mapping."""

    def __init__(self, method: str, metrics: _MethodMetrics, context: Context) -> None:
        self.method = method
        self.metrics = metrics
        self.context = context
        self.code = grpc.StatusCode.OK
        self.started = time.perf_counter()
        metrics.in_flight.inc()

    def begin(self, request: Any) -> None:
        request_id = _request_id(self.context)
        structlog.contextvars.bind_contextvars(request_id=request_id, method=self.method)
        # With the status (trailing metadata), not ahead of the answer: sending initial
        # metadata on its own is one more operation per call for the server.
        self.context.set_trailing_metadata(((REQUEST_ID_HEADER, request_id),))
        if isinstance(request, _Malformed):
            self.metrics.malformed.inc()
            raise _MalformedRequest(request.reason)

    async def fail(self, exc: BaseException) -> None:
        if isinstance(exc, _MalformedRequest):
            self.code = grpc.StatusCode.INVALID_ARGUMENT
            await self.context.abort(self.code, exc.reason)
        status = status_of(exc)
        if status is not None:
            self.code = status
            message = str(exc)
            reason = str(getattr(exc, "reason", ""))
            log.info("call rejected", code=status.name, reason=reason, message=message)
            request_id = structlog.contextvars.get_contextvars().get("request_id", "")
            self.context.set_trailing_metadata(
                ((REQUEST_ID_HEADER, request_id), (REASON_HEADER, reason))
            )
            await self.context.abort(status, message)
        if isinstance(exc, asyncio.CancelledError):
            self.code = grpc.StatusCode.CANCELLED
            raise exc
        if isinstance(exc, grpc.aio.AbortError):
            code = self.context.code()
            self.code = code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN
            raise exc
        self.code = grpc.StatusCode.INTERNAL
        log.error("call failed", exc_info=exc)
        request_id = structlog.contextvars.get_contextvars().get("request_id", "")
        await self.context.abort(
            self.code, f"internal error while handling {self.method} (request id {request_id})"
        )

    def end(self) -> None:
        self.metrics.in_flight.dec()
        self.metrics.latency(self.code).observe(time.perf_counter() - self.started)
        structlog.contextvars.unbind_contextvars("request_id", "method")


class _MalformedRequest(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _wrap_unary_response(
    behaviour: Callable[[Any, Context], Awaitable[Any]], method: str
) -> Callable[[Any, Context], Awaitable[Any]]:
    metrics = _MethodMetrics(method)

    async def handle(request: Any, context: Context) -> Any:
        call = _Call(method, metrics, context)
        try:
            call.begin(request)
            return await behaviour(request, context)
        except BaseException as exc:
            await call.fail(exc)
            raise
        finally:
            call.end()

    return handle


def _wrap_stream_response(
    behaviour: Callable[[Any, Context], AsyncIterator[Any]], method: str
) -> Callable[[Any, Context], AsyncIterator[Any]]:
    metrics = _MethodMetrics(method)

    async def handle(request: Any, context: Context) -> AsyncIterator[Any]:
        call = _Call(method, metrics, context)
        try:
            call.begin(request)
            async for response in behaviour(request, context):
                yield response
        except BaseException as exc:
            await call.fail(exc)
            raise
        finally:
            call.end()

    return handle


class KitInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self) -> None:
        # Per method, the service's handler and its wrapped version: wrapping (and looking
        # up the method's metrics) once, not on every call.
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method: str = handler_call_details.method
        known = self._wrapped.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = _wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped


def _wrap(handler: Handler, method: str) -> Handler:
    decode = _tolerant(handler.request_deserializer, method)
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            _wrap_unary_response(cast(Any, handler.unary_unary), method),
            request_deserializer=decode,
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            _wrap_stream_response(cast(Any, handler.unary_stream), method),
            request_deserializer=decode,
            response_serializer=handler.response_serializer,
        )
    # Client-streaming methods (reflection) pass through untouched.
    return handler
