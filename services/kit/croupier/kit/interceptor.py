"""The kit's server interceptor: request ids, logs, metrics, status codes, malformed bodies.

Every call through a kit server:
- gets a request id (the client's `x-request-id` metadata, or a new one), bound into the
  structlog context and sent back in the trailing metadata (with the status, errors too);
- is counted and timed under grpc-ecosystem's metric names and labels
  (`grpc_server_started_total`, `grpc_server_handled_total{...,grpc_code}`,
  `grpc_server_handling_seconds`, `grpc_server_msg_received_total`,
  `grpc_server_msg_sent_total`, labelled `grpc_type`, `grpc_service`, `grpc_method`); health
  checks are counted but not timed (a Watch lasts as long as its client);
- has refusals turned into their status code (the one table, `croupier.kit.errors`), with
  their message, their reason and their `google.rpc.Status` details in the trailing
  metadata, and any other exception into
  INTERNAL with a message that names only the request id (the details go to the log);
- answers a request body that cannot be decoded with INVALID_ARGUMENT instead of grpc's
  default INTERNAL, naming the expected message type.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import grpc
import structlog
from google.protobuf.message import DecodeError

from croupier.kit.errors import DETAILS_HEADER, REASON_HEADER, status_details, status_of
from croupier.kit.logs import REQUEST_ID_HEADER
from croupier.kit.metrics import (
    GRPC_HANDLED,
    GRPC_HANDLING_SECONDS,
    GRPC_MALFORMED,
    GRPC_MSG_RECEIVED,
    GRPC_MSG_SENT,
    GRPC_STARTED,
)

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


def new_request_id() -> str:
    """An id for a call that came without one (also the gateway's HTTP calls')."""
    return f"{_ID_PREFIX}-{next(_ID_COUNTER):x}"


_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")


def accepted_request_id(given: object) -> str:
    """The client's request id if it can travel on (1-128 visible ASCII characters, what
    gRPC metadata carries to the services behind and a log line shows as it is), else a
    new one: an id with a tab or a non-ASCII letter used to fail the call behind."""
    if isinstance(given, str) and 0 < len(given) <= 128 and _VISIBLE_ASCII.fullmatch(given):
        return given
    return new_request_id()


def _request_id(context: Context) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == REQUEST_ID_HEADER:
            return accepted_request_id(value)
    return new_request_id()


# grpc_code as Go's `codes.Code.String()` spells it: the values stock dashboards filter on.
_GO_CODE_NAMES = {
    code: "".join(part.capitalize() for part in code.name.split("_")) for code in grpc.StatusCode
} | {grpc.StatusCode.OK: "OK", grpc.StatusCode.CANCELLED: "Canceled"}

_HEALTH_SERVICE = "grpc.health.v1.Health"


class MethodMetrics:
    """One method's labelled metric children, looked up once instead of on every call.
    Also the gateway's HTTP transport's (Connect, gRPC-Web): one RPC, counted in the same
    series whichever transport carried it."""

    def __init__(self, method: str, grpc_type: str) -> None:
        service, _, name = method.lstrip("/").rpartition("/")
        self._labels = (grpc_type, service, name)
        self.started = GRPC_STARTED.labels(*self._labels)
        self.received = GRPC_MSG_RECEIVED.labels(*self._labels)
        self.sent = GRPC_MSG_SENT.labels(*self._labels)
        self.malformed = GRPC_MALFORMED.labels(service, name)
        # Health checks would swamp the latency of the calls that matter (and a Watch
        # lasts as long as its client); they are counted, not timed.
        self.latency = (
            None if service == _HEALTH_SERVICE else GRPC_HANDLING_SECONDS.labels(*self._labels)
        )
        self._handled: dict[grpc.StatusCode, Any] = {}

    def handled(self, code: grpc.StatusCode) -> Any:
        """The counter of this method's calls that ended with `code`."""
        child = self._handled.get(code)
        if child is None:
            child = self._handled[code] = GRPC_HANDLED.labels(*self._labels, _GO_CODE_NAMES[code])
        return child

    def ended(self, code: grpc.StatusCode, started: float) -> None:
        """A call begun at `started` (`time.perf_counter()`) ended with `code`."""
        self.handled(code).inc()
        if self.latency is not None:
            self.latency.observe(time.perf_counter() - started)


class _Call:
    """Book-keeping of one call: context binding, metrics, status mapping."""

    def __init__(self, method: str, metrics: MethodMetrics, context: Context) -> None:
        self.method = method
        self.metrics = metrics
        self.context = context
        self.code = grpc.StatusCode.OK
        self.started = time.perf_counter()
        metrics.started.inc()
        metrics.received.inc()

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
                (
                    (REQUEST_ID_HEADER, request_id),
                    (REASON_HEADER, reason),
                    (DETAILS_HEADER, status_details(exc, status)),
                )
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
        self.metrics.ended(self.code, self.started)
        structlog.contextvars.unbind_contextvars("request_id", "method")


class _MalformedRequest(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _wrap_unary_response(
    behaviour: Callable[[Any, Context], Awaitable[Any]], method: str
) -> Callable[[Any, Context], Awaitable[Any]]:
    metrics = MethodMetrics(method, "unary")

    async def handle(request: Any, context: Context) -> Any:
        call = _Call(method, metrics, context)
        try:
            call.begin(request)
            response = await behaviour(request, context)
            metrics.sent.inc()
            return response
        except BaseException as exc:
            await call.fail(exc)
            raise
        finally:
            call.end()

    return handle


def _wrap_stream_response(
    behaviour: Callable[[Any, Context], AsyncIterator[Any]], method: str
) -> Callable[[Any, Context], AsyncIterator[Any]]:
    metrics = MethodMetrics(method, "server_stream")

    async def handle(request: Any, context: Context) -> AsyncIterator[Any]:
        call = _Call(method, metrics, context)
        try:
            call.begin(request)
            async for response in behaviour(request, context):
                metrics.sent.inc()
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
