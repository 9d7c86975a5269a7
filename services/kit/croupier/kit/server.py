"""Run gRPC services the same way everywhere: health, reflection, metrics, logs, draining.

`ServiceHost` owns one grpc.aio server:
- every service given to it plus `grpc.health.v1.Health` (SERVING while up, NOT_SERVING
  from the first moment of shutdown), reflection, and the Diagnostics echo;
- the `KitInterceptor` (request ids, latency histogram, status mapping);
- given the services' key set, the `ServiceGuard`: every service not marked `public` is
  called only with a service credential (croupier.kit.service_auth);
- Prometheus `/metrics` on its own port;
- on SIGTERM/SIGINT: health goes NOT_SERVING, the server stops accepting calls, in-flight
  calls get `shutdown_grace_seconds` to finish, then the `on_stop` hooks run in order
  (stop consumers, flush producers, close pools).
"""

from __future__ import annotations

import asyncio
import errno
import signal
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from croupier.diagnostics.v1 import diagnostics_pb2, diagnostics_pb2_grpc
from croupier.kit.auth import KeySet
from croupier.kit.diagnostics import DiagnosticsService
from croupier.kit.interceptor import KitInterceptor
from croupier.kit.metrics import MetricsEndpoint, serve_metrics
from croupier.kit.service_auth import ServiceGuard
from croupier.kit.settings import ServerSettings

log = structlog.get_logger("croupier.kit.server")

StopHook = Callable[[], Awaitable[None]]

# What every kit server serves to anyone: probes, reflection, the diagnostics echo.
_KIT_SERVICES = [
    health.SERVICE_NAME,
    reflection.SERVICE_NAME,
    diagnostics_pb2.DESCRIPTOR.services_by_name["Diagnostics"].full_name,
]


class CannotListen(Exception):
    """The gRPC or metrics address cannot be listened on (e.g. another process holds the
    port); the message names the address."""


def check_free(host: str, port: int) -> None:
    """Refuse an address another process listens on, with a message naming it.

    gRPC refuses it too (SO_REUSEPORT is off, so a second server cannot share the port and
    take half of the calls), but only after logging its own multi-line error on stderr.
    """
    if port == 0:
        return
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
            probe.bind(address)
    except OSError as error:
        reason = "in use by another process" if error.errno == errno.EADDRINUSE else error
        raise CannotListen(f"cannot listen on {host}:{port}: {reason}") from None


def check_ports(settings: ServerSettings, *, metrics: bool = True) -> None:
    """The gRPC port and (when served) the metrics port are free, before anything serves:
    `croupier serve` checks them before a service joins Kafka or rebuilds its tables, so a
    second process started by mistake takes nothing from the first one."""
    check_free(settings.grpc_host, settings.grpc_port)
    if metrics:
        check_free(settings.grpc_host, settings.metrics_port)


@dataclass(frozen=True)
class Service:
    """One gRPC service to serve: its full name (for health/reflection) and its registrar.

    `drain` runs when shutdown begins, before in-flight calls are awaited: a service with
    endless server streams ends them there, so the grace period is not spent waiting.
    `public`: anyone may call it (the gateway, which authenticates players itself); the
    others are internal, called by services only.
    """

    name: str
    register: Callable[[grpc.aio.Server], None]
    drain: StopHook | None = None
    public: bool = False


@dataclass
class ServiceHost:
    settings: ServerSettings
    services: Sequence[Service]
    on_stop: list[StopHook] = field(default_factory=list)
    serve_metrics_endpoint: bool = True
    service_keys: KeySet | None = None
    """The services' key set: with it, the internal services answer service callers only.
    `croupier serve` and `croupier run` always give one; None serves them open, for tests
    that build a server in process."""

    def __post_init__(self) -> None:
        interceptors: list[grpc.aio.ServerInterceptor] = [KitInterceptor()]
        if self.service_keys is not None:
            # The kit's interceptor wraps the guard's refusal like any other: request id,
            # metrics, UNAUTHENTICATED from the one error table.
            public = [service.name for service in self.services if service.public]
            interceptors.append(ServiceGuard(self.service_keys, public=_KIT_SERVICES + public))
        # No SO_REUSEPORT: a second server on a busy port must fail, not silently share
        # the port and receive a random half of the calls.
        self._server = grpc.aio.server(
            interceptors=interceptors, options=[("grpc.so_reuseport", 0)]
        )
        self._health = health.aio.HealthServicer()
        self._metrics: MetricsEndpoint | None = None
        self._stopped = asyncio.Event()
        self._stopping = False
        self.port = 0

    @property
    def metrics_port(self) -> int | None:
        return self._metrics.port if self._metrics else None

    async def start(self) -> None:
        diagnostics_pb2_grpc.add_DiagnosticsServicer_to_server(DiagnosticsService(), self._server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        for service in self.services:
            service.register(self._server)
        names = [s.name for s in self.services]
        diagnostics_name = diagnostics_pb2.DESCRIPTOR.services_by_name["Diagnostics"].full_name
        reflection.enable_server_reflection(
            [*names, diagnostics_name, health.SERVICE_NAME, reflection.SERVICE_NAME],
            self._server,
        )
        address = f"{self.settings.grpc_host}:{self.settings.grpc_port}"
        check_ports(self.settings, metrics=self.serve_metrics_endpoint)
        try:
            self.port = self._server.add_insecure_port(address)
        except RuntimeError:  # lost a race for the port since the check
            self.port = 0
        if self.port == 0:
            raise CannotListen(f"cannot listen on {address}")
        await self._server.start()
        for name in ("", *names, diagnostics_name):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if self.serve_metrics_endpoint:
            self._metrics = serve_metrics(self.settings.grpc_host, self.settings.metrics_port)
        log.info(
            "serving",
            grpc_port=self.port,
            metrics_port=self.metrics_port,
            services=names,
        )

    async def stop(self) -> None:
        """Drain and stop; safe to call twice."""
        if self._stopping:
            await self._stopped.wait()
            return
        self._stopping = True
        log.info("shutting down", grace_seconds=self.settings.shutdown_grace_seconds)
        await self._health.enter_graceful_shutdown()
        for service in self.services:
            if service.drain is not None:
                await service.drain()
        await self._server.stop(self.settings.shutdown_grace_seconds)
        for hook in self.on_stop:
            try:
                await hook()
            except Exception:
                log.exception("stop hook failed", hook=getattr(hook, "__qualname__", repr(hook)))
        if self._metrics:
            self._metrics.stop()
        log.info("stopped")
        self._stopped.set()

    async def run_until_signalled(self, on_started: Callable[[], None] | None = None) -> None:
        """Start, then serve until SIGTERM or SIGINT, then drain and stop."""
        loop = asyncio.get_running_loop()
        stop_requested = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop_requested.set)
        await self.start()
        if on_started is not None:
            on_started()
        await stop_requested.wait()
        await self.stop()
