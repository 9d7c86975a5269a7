"""Tokens (croupier.kit.auth): what verifies, and every way a token is refused."""

from __future__ import annotations

import base64
import json

import grpc
import jwt
import pytest

from croupier.kit.auth import (
    MAX_CLOCK_SKEW_SECONDS,
    OPERATOR_ROLE,
    KeySet,
    bearer_token,
    issue_token,
    new_key_set,
    verify_token,
)
from croupier.kit.errors import Unauthenticated, status_of

NOW = 1_800_000_000.0
SECRET = "s" * 64


def _keys(**secrets: str) -> KeySet:
    return KeySet(keys=secrets, signing_kid=next(iter(secrets)))


def _refusal(token: str, keys: KeySet, now: float = NOW) -> Unauthenticated:
    with pytest.raises(Unauthenticated) as caught:
        verify_token(token, keys, now=now)
    assert status_of(caught.value) is grpc.StatusCode.UNAUTHENTICATED
    return caught.value


def test_a_token_proves_its_player_until_it_expires() -> None:
    keys = _keys(k1=SECRET)
    identity = verify_token(issue_token(keys, "alice", now=NOW, ttl_seconds=60), keys, now=NOW)
    assert identity.player == "alice"
    assert identity.expires_at == int(NOW) + 60 + MAX_CLOCK_SKEW_SECONDS


def test_an_operators_token_proves_the_role_and_a_players_does_not() -> None:
    keys = _keys(k1=SECRET)
    roles = frozenset({OPERATOR_ROLE})
    operator = verify_token(
        issue_token(keys, "olga", now=NOW, ttl_seconds=60, roles=roles), keys, now=NOW
    )
    player = verify_token(issue_token(keys, "alice", now=NOW, ttl_seconds=60), keys, now=NOW)
    assert (operator.player, operator.operator) == ("olga", True)
    assert (player.roles, player.operator) == (frozenset(), False)
    with pytest.raises(ValueError, match="unknown roles"):
        issue_token(keys, "alice", now=NOW, ttl_seconds=60, roles=frozenset({"admin"}))


@pytest.mark.parametrize("roles", ["operator", ["admin"], [1], {"operator": True}])
def test_a_token_with_roles_not_a_list_of_known_ones_is_refused(roles: object) -> None:
    keys = _keys(k1=SECRET)
    claims: dict[str, object] = {"sub": "alice", "iss": "croupier", "aud": "croupier-gateway"}
    claims |= {"iat": int(NOW), "exp": int(NOW) + 60, "roles": roles}
    token = jwt.encode(claims, SECRET, "HS256", headers={"kid": "k1"})
    assert _refusal(token, keys).reason == "token_invalid"


def test_an_expired_token_is_refused_after_the_allowed_skew() -> None:
    keys = _keys(k1=SECRET)
    token = issue_token(keys, "alice", now=NOW, ttl_seconds=60)
    verify_token(token, keys, now=NOW + 60 + MAX_CLOCK_SKEW_SECONDS - 1)
    assert _refusal(token, keys, NOW + 60 + MAX_CLOCK_SKEW_SECONDS).reason == "token_expired"


def test_a_token_issued_in_the_future_beyond_the_skew_is_refused() -> None:
    keys = _keys(k1=SECRET)
    token = issue_token(keys, "alice", now=NOW + MAX_CLOCK_SKEW_SECONDS + 5, ttl_seconds=600)
    assert _refusal(token, keys).reason == "token_invalid"


def test_a_forged_signature_is_refused() -> None:
    keys = _keys(k1=SECRET)
    forged = issue_token(_keys(k1="f" * 64), "alice", now=NOW, ttl_seconds=60)
    assert _refusal(forged, keys).reason == "token_signature"


def test_a_tampered_subject_is_refused() -> None:
    keys = _keys(k1=SECRET)
    header, payload, signature = issue_token(keys, "alice", now=NOW, ttl_seconds=60).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["sub"] = "mallory"
    tampered = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    assert _refusal(f"{header}.{tampered}.{signature}", keys).reason == "token_signature"


@pytest.mark.parametrize("algorithm", ["none", "HS512", "HS384"])
def test_a_token_with_another_algorithm_is_refused(algorithm: str) -> None:
    keys = _keys(k1=SECRET)
    claims: dict[str, object] = {"sub": "alice", "iss": "croupier", "aud": "croupier-gateway"}
    claims |= {"iat": int(NOW), "exp": int(NOW) + 60}
    key = None if algorithm == "none" else SECRET
    token = jwt.encode(claims, key, algorithm=algorithm, headers={"kid": "k1"})
    assert _refusal(token, keys).reason == "token_algorithm"


def test_an_unknown_or_missing_key_id_is_refused() -> None:
    keys = _keys(k1=SECRET)
    other = issue_token(_keys(k9=SECRET), "alice", now=NOW, ttl_seconds=60)
    assert _refusal(other, keys).reason == "token_unknown_key"
    claims: dict[str, object] = {"sub": "alice", "iss": "croupier", "aud": "croupier-gateway"}
    no_kid = jwt.encode(claims | {"iat": int(NOW), "exp": int(NOW) + 60}, SECRET, "HS256")
    assert _refusal(no_kid, keys).reason == "token_unknown_key"


def test_a_token_for_another_audience_is_refused() -> None:
    keys = _keys(k1=SECRET)
    claims: dict[str, object] = {"sub": "alice", "iss": "croupier", "aud": "someone-else"}
    claims |= {"iat": int(NOW), "exp": int(NOW) + 60}
    token = jwt.encode(claims, SECRET, "HS256", headers={"kid": "k1"})
    assert _refusal(token, keys).reason == "token_invalid"


def test_a_token_without_an_expiry_is_refused() -> None:
    keys = _keys(k1=SECRET)
    claims = {"sub": "alice", "iss": "croupier", "aud": "croupier-gateway", "iat": int(NOW)}
    token = jwt.encode(claims, SECRET, "HS256", headers={"kid": "k1"})
    assert _refusal(token, keys).reason == "token_invalid"


@pytest.mark.parametrize("garbage", ["", "abc", "a.b.c", "x" * 5000, "Bearer"])
def test_garbage_is_not_a_token(garbage: str) -> None:
    assert _refusal(garbage, _keys(k1=SECRET)).reason == "token_malformed"


def test_rotation_keeps_the_old_key_verifying_while_the_new_one_signs() -> None:
    old = _keys(old=SECRET)
    old_token = issue_token(old, "alice", now=NOW, ttl_seconds=60)
    rotated = KeySet(keys={"old": SECRET, "new": "n" * 64}, signing_kid="new")
    new_token = issue_token(rotated, "bob", now=NOW, ttl_seconds=60)
    assert jwt.get_unverified_header(new_token)["kid"] == "new"
    assert verify_token(old_token, rotated, now=NOW).player == "alice"
    assert verify_token(new_token, rotated, now=NOW).player == "bob"
    retired = KeySet(keys={"new": "n" * 64}, signing_kid="new")
    assert _refusal(old_token, retired).reason == "token_unknown_key"


def test_a_key_set_reads_back_what_it_writes_signing_key_first() -> None:
    keys = KeySet(keys={"a": SECRET, "b": "b" * 64}, signing_kid="b")
    assert KeySet.parse(keys.format()) == keys
    assert KeySet.parse(new_key_set().format()).signing_kid == "dev-1"


@pytest.mark.parametrize(
    "text", ["", "k1", f"k1={SECRET},k1={SECRET}", "k1=short", f"bad kid={SECRET}"]
)
def test_a_bad_key_set_is_refused_at_start(text: str) -> None:
    with pytest.raises(ValueError):
        KeySet.parse(text)


@pytest.mark.parametrize("name", ["", "a:b", "a/b", " alice", "x" * 65])
def test_tokens_are_issued_only_for_valid_player_names(name: str) -> None:
    with pytest.raises(ValueError):
        issue_token(_keys(k1=SECRET), name, now=NOW, ttl_seconds=60)


def test_the_bearer_header_is_required() -> None:
    assert bearer_token("Bearer abc") == "abc"
    assert bearer_token("bearer  abc ") == "abc"
    for value, reason in [(None, "token_missing"), ("", "token_missing")]:
        with pytest.raises(Unauthenticated) as caught:
            bearer_token(value)
        assert caught.value.reason == reason
    for value in ["Basic abc", "Bearer ", "abc"]:
        with pytest.raises(Unauthenticated) as caught:
            bearer_token(value)
        assert caught.value.reason == "token_malformed"
