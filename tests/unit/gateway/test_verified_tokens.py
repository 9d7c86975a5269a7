"""Players' tokens are verified once and remembered until they expire
(croupier.kit.auth.VerifiedTokens, the gateway's Authenticator): a remembered token is
still refused once expired, a forged one is never remembered."""

from __future__ import annotations

import pytest

from croupier.gateway.service.identity import Authenticator
from croupier.kit.auth import MAX_CLOCK_SKEW_SECONDS, Identity, VerifiedTokens, issue_token
from croupier.kit.errors import Unauthenticated
from tests.support.gateway import KEYS


def test_a_token_is_verified_once_then_remembered_until_it_expires() -> None:
    checked: list[str] = []

    def verify(token: str, now: float) -> Identity:
        checked.append(token)
        return Identity(player=token, expires_at=100.0)

    tokens = VerifiedTokens(verify, size=2)
    assert tokens.identity("ana", 10.0) == tokens.identity("ana", 99.0)
    assert checked == ["ana"]
    tokens.identity("ana", 100.0)  # expired: verified again (and refused by `verify`)
    assert checked == ["ana", "ana"]
    for name in ("bob", "eve"):  # past `size`, the memory starts over
        tokens.identity(name, 10.0)
    tokens.identity("ana", 10.0)
    assert checked == ["ana", "ana", "bob", "eve", "ana"]


def test_the_gateway_refuses_a_remembered_token_once_it_expired() -> None:
    now = [1_000.0]
    authenticator = Authenticator(KEYS, clock=lambda: now[0])
    header = "Bearer " + issue_token(KEYS, "ana", now=now[0], ttl_seconds=60)
    assert authenticator.identify(header).player == "ana"
    now[0] += 60 + MAX_CLOCK_SKEW_SECONDS
    with pytest.raises(Unauthenticated) as refused:
        authenticator.identify(header)
    assert refused.value.reason == "token_expired"
    with pytest.raises(Unauthenticated):  # a forged token is checked, every time
        authenticator.identify(header[:-2] + ("AA" if not header.endswith("AA") else "BB"))
