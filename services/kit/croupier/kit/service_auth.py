"""Only services call services: the service credential and the server interceptor that
asks for it (docs/architecture.md §7, docs/gateway.md "Service credentials").

The internal services (wallet, table host, tournament director, lobby) act on whatever
player id a request names, so they must hear only from the gateway and from each other.
Every internal call carries `authorization: Bearer <service token>`: a short-lived JWT
(`croupier.kit.auth.issue_service_token`: audience `croupier-services`, role `service`,
the caller's name as subject) signed with the services' key set, `CROUPIER_SERVICE_KEYS`
(`kid=secret[,kid=secret...]`, rotated like the gateway's keys). `ServiceCredential`
makes and renews the caller's token; `croupier.kit.channels` attaches it to every call.
`ServiceGuard`, registered by the kit's `ServiceHost`, refuses a call to any service but
the public ones (the gateway, which checks players' tokens itself, health, reflection and
the diagnostics echo) without a valid service token: `UNAUTHENTICATED`, with the reason in
`x-error-reason`. A player's token is not a service token (its audience differs), so a
player who reaches an internal port still cannot act for another player.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import grpc

from croupier.kit.auth import (
    KeySet,
    ServiceIdentity,
    VerifiedTokens,
    bearer_token,
    check_service_name,
    issue_service_token,
    verify_service_token,
)
from croupier.kit.errors import Unauthenticated
from croupier.kit.settings import env, load

if TYPE_CHECKING:
    from croupier.kit.context import Handler

__all__ = [
    "AUTHORIZATION_HEADER",
    "KEYS_VARIABLE",
    "ServiceAuthSettings",
    "ServiceCredential",
    "ServiceGuard",
    "credential_from_environment",
]

AUTHORIZATION_HEADER = "authorization"
KEYS_VARIABLE = "CROUPIER_SERVICE_KEYS"
TOKEN_TTL_SECONDS = 300
# A token is renewed once this much of its lifetime is left, so a call never carries one
# that expires in flight or on a server whose clock runs a little ahead.
RENEW_BEFORE_SECONDS = 120
# Verified tokens are remembered so each call costs a lookup, not an HMAC; a caller keeps
# its token for minutes, so few are alive at once. Past this many, the memory starts over.
VERIFIED_CACHE_SIZE = 1024


def _service_keys(text: str) -> str:
    KeySet.parse(text)  # a bad key set stops the process at start, with the reason
    return text


@dataclass(frozen=True)
class ServiceAuthSettings:
    """The services' key set, which every `croupier serve` process needs: it signs the
    service's own calls and checks the calls it receives. Required: a service without it
    refuses to start rather than serve open."""

    service_keys: str = env(
        KEYS_VARIABLE,
        _service_keys,
        doc="the services' key set, kid=secret[,kid=secret...] (secrets of 32+ characters; "
        "the first signs, every one verifies)",
    )

    def key_set(self) -> KeySet:
        return KeySet.parse(self.service_keys)


class ServiceCredential:
    """The token `service` sends with its calls, renewed before it expires."""

    def __init__(
        self,
        key_set: KeySet,
        service: str,
        *,
        clock: Callable[[], float] = time.time,
        ttl_seconds: int = TOKEN_TTL_SECONDS,
    ) -> None:
        check_service_name(service)
        if ttl_seconds <= RENEW_BEFORE_SECONDS:
            raise ValueError(f"a service token lives more than {RENEW_BEFORE_SECONDS} seconds")
        self.service = service
        self._key_set = key_set
        self._clock = clock
        self._ttl = ttl_seconds
        self._header = ""
        self._renew_at = 0.0

    def authorization(self) -> str:
        """The `authorization` metadata value of a call made now."""
        now = self._clock()
        if now >= self._renew_at:
            token = issue_service_token(self._key_set, self.service, now=now, ttl_seconds=self._ttl)
            self._header = f"Bearer {token}"
            self._renew_at = now + self._ttl - RENEW_BEFORE_SECONDS
        return self._header


def credential_from_environment(service: str) -> ServiceCredential:
    """`service`'s credential, signed with `CROUPIER_SERVICE_KEYS` (SettingsError without
    it): what a service started by `croupier serve` sends with its calls."""
    return ServiceCredential(load(ServiceAuthSettings).key_set(), service)


def _refusing(handler: Handler, error: Unauthenticated) -> Handler:
    """`handler`'s shape, answering `error` (the kit's interceptor maps it to its status)."""

    async def refuse_unary(request: object, context: object) -> None:
        raise error

    async def refuse_stream(request: object, context: object):  # type: ignore[no-untyped-def]
        raise error
        yield  # a generator, as a server-stream handler is

    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            refuse_stream,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    return grpc.unary_unary_rpc_method_handler(
        refuse_unary,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


class ServiceGuard(grpc.aio.ServerInterceptor):
    """Lets a call to a service not in `public` through only with a valid service token."""

    def __init__(
        self,
        key_set: KeySet,
        public: Collection[str],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._public = frozenset(public)
        self._clock = clock
        self._verified = VerifiedTokens(
            lambda token, now: verify_service_token(token, key_set, now=now),
            VERIFIED_CACHE_SIZE,
        )

    def caller(self, metadata: object) -> ServiceIdentity:
        """The service whose token `metadata` (the call's invocation metadata) carries."""
        authorization = None
        for key, value in metadata or ():  # type: ignore[attr-defined]
            if key == AUTHORIZATION_HEADER and isinstance(value, str):
                authorization = value
                break
        if authorization is None:
            raise Unauthenticated(
                "this is an internal service: only the gateway and the other services may "
                f"call it, with a service token signed with {KEYS_VARIABLE}; players call "
                "the gateway",
                "service_token_missing",
            )
        return self._verified.identity(bearer_token(authorization), self._clock())

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        service = handler_call_details.method.lstrip("/").partition("/")[0]
        if handler is None or service in self._public:
            return handler
        try:
            self.caller(handler_call_details.invocation_metadata)
        except Unauthenticated as error:
            return _refusing(handler, error)
        return handler
