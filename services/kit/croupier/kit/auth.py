"""Who is calling: signed JWTs (docs/architecture.md §7, docs/gateway.md).

A token is an HS256 JWT whose header names its key (`kid`) and whose claims are the player
(`sub`), the issuer (`iss` = "croupier"), the audience (`aud` = "croupier-gateway"), when
it was issued (`iat`) and when it expires (`exp`); an operator's token also carries `roles`
= ["operator"] (`OPERATOR_ROLE`: the back-office calls, docs/gateway.md). The verifier pins
everything an attacker could choose: the algorithm is this module's (a header saying
`none`, `RS256` or anything else is refused before any key is looked at), the key comes
from the verifier's key set by `kid` (an unknown `kid` is refused), and time is the
caller's clock with at most `MAX_CLOCK_SKEW_SECONDS` of leeway either way. Every refusal is
`Unauthenticated` with a reason a program can read and a message a developer can act on.

Rotation: a `KeySet` holds every key still accepted and names the one that signs. Add the
new key, make it the signer, and drop the old one once the longest-lived token it signed
has expired; tokens signed by either verify meanwhile.

Services prove themselves to each other the same way (`croupier.kit.service_auth`): a
service token has the audience `croupier-services`, the claim `role` = "service" and the
calling service's name as subject, and is signed with the services' own key set
(`CROUPIER_SERVICE_KEYS`), so a player's token is never a service's, nor the reverse.

Pure except `new_key_set` (fresh random secrets): time is an argument everywhere.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import jwt

from croupier.kit.errors import Unauthenticated

__all__ = [
    "ALGORITHM",
    "AUDIENCE",
    "ISSUER",
    "MAX_CLOCK_SKEW_SECONDS",
    "OPERATOR_ROLE",
    "SERVICE_AUDIENCE",
    "SERVICE_ROLE",
    "Identity",
    "KeySet",
    "ServiceIdentity",
    "VerifiedTokens",
    "bearer_token",
    "check_player_name",
    "check_service_name",
    "issue_service_token",
    "issue_token",
    "new_key_set",
    "verify_service_token",
    "verify_token",
]

ALGORITHM = "HS256"
ISSUER = "croupier"
AUDIENCE = "croupier-gateway"
SERVICE_AUDIENCE = "croupier-services"
SERVICE_ROLE = "service"
OPERATOR_ROLE = "operator"
# The roles a player's token may carry: any other is refused, not ignored, so a typo in
# an identity provider's mapping shows at once instead of as a missing permission.
PLAYER_ROLES = frozenset({OPERATOR_ROLE})
MAX_CLOCK_SKEW_SECONDS = 30
# HMAC keys shorter than the hash (32 bytes for SHA-256) weaken the signature (RFC 7518 §3.2).
MIN_SECRET_LENGTH = 32
MAX_TOKEN_LENGTH = 4096
# A player's name is part of account and seat ids elsewhere (`player_cash:<name>:USD`,
# `<table>/<name>`): no ':' or '/', and short enough to fit every id it joins.
_PLAYER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
_KID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_SERVICE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


@dataclass(frozen=True)
class Identity:
    """An authenticated caller: the player and when his token stops being accepted."""

    player: str
    expires_at: float
    """Seconds since the epoch, leeway included: past it, the token is refused."""
    roles: frozenset[str] = frozenset()

    @property
    def operator(self) -> bool:
        return OPERATOR_ROLE in self.roles


@dataclass(frozen=True)
class ServiceIdentity:
    """An authenticated service (`croupier.kit.service_auth`) and when its token expires."""

    service: str
    expires_at: float


class _Expiring(Protocol):
    @property
    def expires_at(self) -> float: ...


Proven = TypeVar("Proven", bound=_Expiring)


class VerifiedTokens(Generic[Proven]):
    """Tokens verified by `verify(token, now)`, remembered until they expire, so a caller
    who keeps his token for minutes costs a lookup per call, not an HMAC. Past `size`
    tokens, the memory starts over (each is verified again at its next call)."""

    def __init__(self, verify: Callable[[str, float], Proven], size: int) -> None:
        self._verify = verify
        self._size = size
        self._known: dict[str, Proven] = {}

    def identity(self, token: str, now: float) -> Proven:
        known = self._known.get(token)
        if known is not None and now < known.expires_at:
            return known
        identity = self._verify(token, now)
        if len(self._known) >= self._size:
            self._known.clear()
        self._known[token] = identity
        return identity


@dataclass(frozen=True)
class KeySet:
    """The HMAC secrets tokens may be signed with, by `kid`, and the one that signs now."""

    keys: Mapping[str, str]
    signing_kid: str

    def __post_init__(self) -> None:
        if self.signing_kid not in self.keys:
            raise ValueError(f"the signing key {self.signing_kid!r} is not in the key set")
        for kid, secret in self.keys.items():
            if not _KID.fullmatch(kid):
                raise ValueError(f"key id {kid!r}: 1-64 letters, digits or ._-")
            if len(secret) < MIN_SECRET_LENGTH:
                raise ValueError(
                    f"key {kid!r}: a secret has at least {MIN_SECRET_LENGTH} characters"
                )

    @classmethod
    def parse(cls, text: str) -> KeySet:
        """`kid=secret,kid=secret...`; the first key signs (the form of
        `CROUPIER_AUTH_KEYS` and of the embedded platform's key file)."""
        keys: dict[str, str] = {}
        for item in text.strip().split(","):
            kid, separator, secret = item.strip().partition("=")
            if not separator:
                raise ValueError("expected kid=secret[,kid=secret...]")
            if kid in keys:
                raise ValueError(f"key id {kid!r} appears twice")
            keys[kid] = secret
        return cls(keys=keys, signing_kid=next(iter(keys)))

    def format(self) -> str:
        """The text `parse` reads back, the signing key first."""
        order = [self.signing_kid, *(kid for kid in self.keys if kid != self.signing_kid)]
        return ",".join(f"{kid}={self.keys[kid]}" for kid in order)


def new_key_set(kid: str = "dev-1") -> KeySet:
    """A key set of one fresh random key (the embedded platform's, made at each start)."""
    return KeySet(keys={kid: secrets.token_urlsafe(48)}, signing_kid=kid)


def check_player_name(name: str) -> str:
    """A player name a token may carry, or ValueError saying what one looks like."""
    if not _PLAYER_NAME.fullmatch(name):
        raise ValueError(
            "a player name is 1-64 letters, digits or ._@+-, starting with a letter or digit"
        )
    return name


def check_service_name(name: str) -> str:
    """A service name a service token may carry ("gateway", "table"...), or ValueError."""
    if not _SERVICE_NAME.fullmatch(name):
        raise ValueError("a service name is 1-32 lower-case letters, digits or -")
    return name


def _sign(key_set: KeySet, claims: dict[str, Any], *, now: float, ttl_seconds: int) -> str:
    if ttl_seconds <= 0:
        raise ValueError("a token's lifetime is a positive number of seconds")
    issued = int(now)
    claims = {**claims, "iss": ISSUER, "iat": issued, "exp": issued + ttl_seconds}
    kid = key_set.signing_kid
    return jwt.encode(claims, key_set.keys[kid], algorithm=ALGORITHM, headers={"kid": kid})


def issue_token(
    key_set: KeySet,
    player: str,
    *,
    now: float,
    ttl_seconds: int,
    roles: frozenset[str] = frozenset(),
) -> str:
    """A token for `player` with `roles` (`PLAYER_ROLES`), signed by the key set's signing
    key, valid `ttl_seconds`."""
    check_player_name(player)
    if not roles <= PLAYER_ROLES:
        raise ValueError(f"unknown roles {sorted(roles - PLAYER_ROLES)}")
    claims: dict[str, Any] = {"sub": player, "aud": AUDIENCE}
    if roles:
        claims["roles"] = sorted(roles)
    return _sign(key_set, claims, now=now, ttl_seconds=ttl_seconds)


def issue_service_token(key_set: KeySet, service: str, *, now: float, ttl_seconds: int) -> str:
    """A service token for the calling `service`, signed by the services' key set."""
    check_service_name(service)
    claims = {"sub": service, "aud": SERVICE_AUDIENCE, "role": SERVICE_ROLE}
    return _sign(key_set, claims, now=now, ttl_seconds=ttl_seconds)


def bearer_token(authorization: str | None) -> str:
    """The token of an `authorization: Bearer <token>` header value."""
    if not authorization:
        raise Unauthenticated(
            "no token: send `authorization: Bearer <token>` (`croupier token --player NAME` "
            "issues one for development)",
            "token_missing",
        )
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(
            "the authorization header must be `Bearer <token>`", "token_malformed"
        )
    return token.strip()


def _header(token: str) -> dict[str, Any]:
    if len(token) > MAX_TOKEN_LENGTH:
        raise Unauthenticated(
            f"the token is longer than {MAX_TOKEN_LENGTH} characters", "token_malformed"
        )
    try:
        return jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise Unauthenticated("the token is not a JWT", "token_malformed") from None


def _verified_claims(token: str, key_set: KeySet, audience: str, whose: str) -> Mapping[str, Any]:
    header = _header(token)
    if header.get("alg") != ALGORITHM:
        raise Unauthenticated(
            f"the token is signed with {str(header.get('alg'))[:16]!r}; only {ALGORITHM} "
            "is accepted",
            "token_algorithm",
        )
    kid = header.get("kid")
    secret = key_set.keys.get(kid) if isinstance(kid, str) else None
    if secret is None:
        raise Unauthenticated(
            f"the token's key id (kid) is not one of the {whose} keys (rotated out?): "
            "get a new token",
            "token_unknown_key",
        )
    try:
        return jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            audience=audience,
            issuer=ISSUER,
            # Expiry is checked below against `now`, the caller's clock, not PyJWT's.
            options={"require": ["sub", "iat", "exp"], "verify_exp": False, "verify_iat": False},
        )
    except jwt.InvalidSignatureError:
        raise Unauthenticated("the token's signature is not valid", "token_signature") from None
    except jwt.InvalidTokenError as error:
        raise Unauthenticated(f"the token is not valid: {error}", "token_invalid") from None


def verify_token(token: str, key_set: KeySet, *, now: float) -> Identity:
    """The identity a valid token proves, or `Unauthenticated` naming what is wrong."""
    claims = _verified_claims(token, key_set, AUDIENCE, "gateway's")
    expires_at = _expires_at(claims, now)
    player = claims["sub"]
    try:
        check_player_name(player if isinstance(player, str) else "")
    except ValueError as error:
        raise Unauthenticated(
            f"the token's subject is not a player: {error}", "token_invalid"
        ) from None
    return Identity(player=player, expires_at=expires_at, roles=_roles(claims))


def _roles(claims: Mapping[str, Any]) -> frozenset[str]:
    roles = claims.get("roles", [])
    if not (
        isinstance(roles, list)
        and all(isinstance(role, str) and role in PLAYER_ROLES for role in roles)
    ):
        known = ", ".join(sorted(PLAYER_ROLES))
        raise Unauthenticated(
            f"the token's roles must be a list of known roles ({known})", "token_invalid"
        )
    return frozenset(roles)


def verify_service_token(token: str, key_set: KeySet, *, now: float) -> ServiceIdentity:
    """The calling service a valid service token proves, or `Unauthenticated`; a player's
    token fails here on its audience."""
    claims = _verified_claims(token, key_set, SERVICE_AUDIENCE, "services'")
    expires_at = _expires_at(claims, now)
    service = claims["sub"]
    if claims.get("role") != SERVICE_ROLE or not isinstance(service, str):
        raise Unauthenticated("the token is not a service's", "token_invalid")
    try:
        check_service_name(service)
    except ValueError as error:
        raise Unauthenticated(
            f"the token's subject is not a service: {error}", "token_invalid"
        ) from None
    return ServiceIdentity(service=service, expires_at=expires_at)


def _expires_at(claims: Mapping[str, Any], now: float) -> float:
    expires, issued = claims["exp"], claims["iat"]
    if not all(
        isinstance(value, int) and not isinstance(value, bool) for value in (expires, issued)
    ):
        raise Unauthenticated("the token's exp and iat must be whole seconds", "token_invalid")
    if issued > now + MAX_CLOCK_SKEW_SECONDS:
        raise Unauthenticated("the token is issued in the future", "token_invalid")
    expires_at = float(expires + MAX_CLOCK_SKEW_SECONDS)
    if now >= expires_at:
        raise Unauthenticated("the token has expired: get a new one", "token_expired")
    return expires_at
