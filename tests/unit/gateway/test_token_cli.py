"""`croupier token --player NAME`: a development token from CROUPIER_AUTH_KEYS or from the
key file `croupier run` writes; `croupier serve gateway` refuses to start without keys."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import grpc
import jwt
import pytest

from croupier.cli.token import write_dev_keys
from croupier.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.kit.auth import KeySet, verify_token
from tests.support.cli import run, serving_port

KEYS = KeySet(keys={"new": "n" * 64, "old": "o" * 64}, signing_kid="new")
CROUPIER = Path(sys.executable).parent / "croupier"


def test_a_token_is_signed_by_the_key_files_signing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEYS", raising=False)
    keys_file = tmp_path / "keys"
    write_dev_keys(KEYS, keys_file)
    assert keys_file.stat().st_mode & 0o077 == 0  # the owner's only
    code, out, _ = run(["token", "--player", "alice", "--keys-file", str(keys_file)], capsys)
    assert code == 0
    issued = out.strip()
    assert jwt.get_unverified_header(issued)["kid"] == "new"
    assert verify_token(issued, KEYS, now=time.time()).player == "alice"


def test_operator_adds_the_operator_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROUPIER_AUTH_KEYS", KEYS.format())
    code, out, _ = run(["token", "--player", "olga", "--operator"], capsys)
    assert code == 0
    assert verify_token(out.strip(), KEYS, now=time.time()).operator
    code, out, _ = run(["token", "--player", "alice"], capsys)
    assert not verify_token(out.strip(), KEYS, now=time.time()).operator


def test_the_environment_key_set_comes_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROUPIER_AUTH_KEYS", KeySet(KEYS.keys, "old").format())
    code, out, _ = run(["token", "--player", "bob", "--keys-file", str(tmp_path / "none")], capsys)
    assert code == 0
    assert jwt.get_unverified_header(out.strip())["kid"] == "old"


def test_without_keys_it_says_where_they_come_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEYS", raising=False)
    code, out, err = run(["token", "--player", "bob", "--keys-file", str(tmp_path / "x")], capsys)
    assert (code, out) == (2, "")
    assert "CROUPIER_AUTH_KEYS" in err[0] and "croupier run" in err[0]


async def test_serve_gateway_serves_with_keys_and_refuses_to_start_without(tmp_path: Path) -> None:
    environment = {
        **os.environ,
        "CROUPIER_GRPC_HOST": "127.0.0.1",
        "CROUPIER_GRPC_PORT": "0",
        "CROUPIER_METRICS_PORT": "0",
        "CROUPIER_GATEWAY_HTTP_PORT": "0",
        "CROUPIER_AUTH_KEYS": "",
    }
    refused = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "gateway", env=environment, stderr=asyncio.subprocess.PIPE
    )
    _, err = await refused.communicate()
    assert refused.returncode == 2
    assert b"CROUPIER_AUTH_KEYS is required" in err
    environment["CROUPIER_AUTH_KEYS"] = KEYS.format()
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "gateway", env=environment, stderr=asyncio.subprocess.PIPE
    )
    try:
        port = await serving_port(process, "croupier serve gateway")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = gateway_pb2_grpc.GatewayStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetBalance(gateway_pb2.GetBalanceRequest(currency="CHIP"))
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    finally:
        process.terminate()
        assert await process.wait() == 0
