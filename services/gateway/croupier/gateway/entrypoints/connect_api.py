"""The gateway over HTTP for browsers: Connect (JSON or binary) and gRPC-Web, with the
`connectrpc` ASGI application, and the web page beside it, served by uvicorn
(`HttpServer`).

The same `GatewayMethod`s as the gRPC server: one implementation, two transports. The
token comes from the `authorization` header. Refusals get their status from the kit's one
table (`croupier.kit.errors.status_of`), as Connect codes of the same names, with the
reason in the `x-error-reason` trailer and the `google.rpc` details in the error's
details (`croupier.kit.errors.error_details`); anything else is a bug, answered `internal`
with the request id only (the details go to the log), as the kit's gRPC interceptor does.
A call runs under its request id (the `x-request-id` header, or a new one), which the
gateway's calls to the services behind carry on (`croupier.kit.channels`) and which comes
back in the `x-request-id` trailer.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import grpc
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from protobuf.wkt import Any as PackedAny

from croupier.gateway.entrypoints.methods import (
    AUTHORIZATION,
    FORWARDED,
    SERVICE_NAME,
    X_FORWARDED_FOR,
    GatewayMethod,
    Origin,
)
from croupier.gateway.entrypoints.web_page import App, Receive, Scope, Send, with_web_page
from croupier.kit.errors import REASON_HEADER, error_details, status_of
from croupier.kit.interceptor import MethodMetrics, accepted_request_id
from croupier.kit.logs import REQUEST_ID_HEADER
from croupier.kit.server import CannotListen

__all__ = ["GatewayApp", "HttpServer", "connect_app"]

log = structlog.get_logger("croupier.gateway.connect")
STOP_GRACE_SECONDS = 5


class _Call:
    """One HTTP call's book-keeping, as the kit's interceptor keeps a gRPC call's: its
    request id (the `x-request-id` header, or a new one), bound to the log context (and so
    to the outgoing calls) until it ends, and its metrics (the same `grpc_server_*` series
    as the gateway's gRPC calls: one RPC, whichever transport carried it)."""

    def __init__(
        self, method: GatewayMethod, metrics: MethodMetrics, context: RequestContext[Any, Any]
    ) -> None:
        self.method = method.name
        self.metrics = metrics
        self.context = context
        self.code = grpc.StatusCode.OK
        self.started = time.perf_counter()
        self.request_id = accepted_request_id(context.request_headers.get(REQUEST_ID_HEADER))
        context.response_trailers[REQUEST_ID_HEADER] = self.request_id
        structlog.contextvars.bind_contextvars(request_id=self.request_id, method=self.method)
        metrics.started.inc()
        metrics.received.inc()

    def cancelled(self) -> None:
        """The client went away (or the server is stopping)."""
        self.code = grpc.StatusCode.CANCELLED

    def failed(self, error: Exception) -> ConnectError:
        """The Connect error to answer for `error`."""
        status = status_of(error)
        self.code = status or grpc.StatusCode.INTERNAL
        if status is not None:
            reason = str(getattr(error, "reason", ""))
            self.context.response_trailers[REASON_HEADER] = reason
            log.info("call rejected", method=self.method, code=status.name, reason=reason)
            return ConnectError(Code[status.name], str(error), details=_details(error))
        log.error("call failed", method=self.method, request_id=self.request_id, exc_info=error)
        return ConnectError(
            Code.INTERNAL,
            f"internal error while handling {self.method} (request id {self.request_id})",
        )

    def end(self) -> None:
        self.metrics.ended(self.code, self.started)
        structlog.contextvars.unbind_contextvars("request_id", "method")


def _details(error: Exception) -> list[ErrorDetail]:
    """The error's `google.rpc` details, packed as connectrpc's own protobuf runtime packs
    them (it does not take the `google.protobuf` messages)."""
    return [
        ErrorDetail(
            PackedAny(
                type_url=f"type.googleapis.com/{detail.DESCRIPTOR.full_name}",
                value=detail.SerializeToString(),
            )
        )
        for detail in error_details(error)
    ]


def _origin(context: RequestContext[Any, Any]) -> Origin:
    headers = context.request_headers
    return Origin(
        peer=context.client_address,
        forwarded=tuple(headers.getall(FORWARDED)),
        forwarded_for=tuple(headers.getall(X_FORWARDED_FOR)),
    )


def _unary(
    method: GatewayMethod, call: Callable[[Any, str | None, Origin], Awaitable[Any]]
) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    metrics = MethodMetrics(f"/{SERVICE_NAME}/{method.name}", "unary")

    async def handle(request: Any, context: RequestContext[Any, Any]) -> Any:
        authorization = context.request_headers.get(AUTHORIZATION)
        http_call = _Call(method, metrics, context)
        try:
            response = await call(request, authorization, _origin(context))
            metrics.sent.inc()
            return response
        except (asyncio.CancelledError, GeneratorExit):
            http_call.cancelled()
            raise
        except Exception as error:  # noqa: BLE001 - every failure becomes a Connect status
            raise http_call.failed(error) from None
        finally:
            http_call.end()

    return handle


def _stream(
    method: GatewayMethod, call: Callable[[Any, str | None, Origin], AsyncIterator[Any]]
) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    metrics = MethodMetrics(f"/{SERVICE_NAME}/{method.name}", "server_stream")

    async def handle(request: Any, context: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        authorization = context.request_headers.get(AUTHORIZATION)
        http_call = _Call(method, metrics, context)
        try:
            async for response in call(request, authorization, _origin(context)):
                metrics.sent.inc()
                yield response
        except (asyncio.CancelledError, GeneratorExit):
            http_call.cancelled()
            raise
        except Exception as error:  # noqa: BLE001 - every failure becomes a Connect status
            raise http_call.failed(error) from None
        finally:
            http_call.end()

    return handle


def _endpoint(method: GatewayMethod) -> Endpoint[Any, Any]:
    info: MethodInfo[Any, Any] = MethodInfo(
        name=method.name,
        service_name=SERVICE_NAME,
        input=method.request_class,
        output=method.response_class,
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if method.stream else StreamType.UNARY,
    )
    if method.stream is not None:
        return Endpoint.server_stream(info, _stream(method, method.stream))
    assert method.unary is not None
    return Endpoint.unary(info, _unary(method, method.unary))


class GatewayApp(ConnectASGIApplication[list[GatewayMethod]]):
    """`croupier.gateway.v1.Gateway` as an ASGI application (Connect, gRPC-Web, gRPC)."""

    @property
    def path(self) -> str:
        return f"/{SERVICE_NAME}"


def _endpoints(methods: list[GatewayMethod]) -> dict[str, Any]:
    return {f"/{SERVICE_NAME}/{method.name}": _endpoint(method) for method in methods}


def _with_text_headers(api: App) -> App:
    """`api`, given every header's value as UTF-8 text. HTTP lets a value hold any byte,
    and connectrpc decodes them as UTF-8 before any code of ours runs, failing the call
    `unknown` on the first that is not; such bytes become U+FFFD instead, so the header
    gets the answer its content deserves (an unreadable token is `token_malformed`, an
    unusable request id is replaced)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = dict(scope, headers=[_as_text(h) for h in scope.get("headers", ())])
        await api(scope, receive, send)

    return app


def _as_text(header: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    name, value = header
    try:
        name.decode(), value.decode()
    except UnicodeDecodeError:
        return name.decode(errors="replace").encode(), value.decode(errors="replace").encode()
    return header


def connect_app(methods: list[GatewayMethod]) -> App:
    """The API under its service path, the web page (`web_page`) at `/`."""
    api = GatewayApp(service=methods, endpoints=_endpoints, codecs=google_protobuf_codecs())
    return with_web_page(_with_text_headers(api), f"/{SERVICE_NAME}")


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # SIGTERM and SIGINT are the kit's ServiceHost's: it stops this server too


class HttpServer:
    """An ASGI application served over HTTP/1.1 on `host:port` (0: any free port)."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self._app = app
        self._host = host
        self._requested_port = port
        self._server: _Server | None = None
        self._task: asyncio.Task[None] | None = None
        self.port = 0

    async def start(self) -> None:
        try:
            listening = socket.create_server((self._host, self._requested_port))
        except OSError as error:
            address = f"{self._host}:{self._requested_port}"
            raise CannotListen(f"cannot listen on {address} (HTTP): {error.strerror}") from None
        self.port = listening.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            lifespan="off",
            log_config=None,
            access_log=False,
            # The peer as it is: the gateway reads forwarding headers itself, from the
            # proxies it was told to trust (uvicorn's own rule would trust 127.0.0.1).
            proxy_headers=False,
            # Streams do not end on their own: past this, stopping closes them.
            timeout_graceful_shutdown=STOP_GRACE_SECONDS,
        )
        self._server = _Server(config)
        self._task = asyncio.create_task(
            self._server.serve(sockets=[listening]), name="gateway:http"
        )
        while not self._server.started:
            if self._task.done():
                self._task.result()  # its start-up failed: say why
            await asyncio.sleep(0.01)
        log.info("serving http", port=self.port)

    async def stop(self) -> None:
        """Stop serving (open streams are ended); safe to call twice."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        await self._task
        self._server, self._task = None, None
