"""`croupier run` serves the gateway on its gRPC port and on HTTP, with a key set made at
its start that `croupier token` reads, and removes on exit."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
from pathlib import Path

import grpc
import pytest

from croupier.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.gateway import connect_call
from tests.support.services import service_stub
from tests.test_embedded import CROUPIER


async def test_the_embedded_gateway_answers_a_dev_tokens_player(tmp_path: Path) -> None:
    process, address, http = _start_embedded(tmp_path)
    try:
        keys_file = tmp_path / ".local" / "gateway-keys"
        assert keys_file.exists()
        # No CROUPIER_AUTH_KEYS in its environment: the key file is read.
        token_process = await asyncio.create_subprocess_exec(
            str(CROUPIER),
            "token",
            "--player",
            "ana",
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin"},
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await token_process.communicate()
        assert token_process.returncode == 0
        issued = out.decode().strip()
        metadata = (("authorization", f"Bearer {issued}"),)
        open_joker = table_pb2.OpenTableRequest(game="joker", options_json="{}")
        async with service_stub(address, table_pb2_grpc.TableEngineStub) as host:
            opened = await host.OpenTable(open_joker)
        async with grpc.aio.insecure_channel(address) as channel:
            # The table host answers services only; players go through the gateway.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await table_pb2_grpc.TableEngineStub(channel).OpenTable(open_joker)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            gateway = gateway_pb2_grpc.GatewayStub(channel)
            request = gateway_pb2.GetTableViewRequest(table_id=opened.table_id)
            view = await gateway.GetTableView(request, metadata=metadata)
            assert view.view.table_id == opened.table_id
        status, body = await connect_call(http, "GetTableView", request, f"Bearer {issued}")
        assert (status, body["view"]["tableId"]) == (200, opened.table_id)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    assert not keys_file.exists()


def _start_embedded(cwd: Path) -> tuple[subprocess.Popen[str], str, str]:
    """`croupier run` on free ports, and the gRPC and HTTP addresses its banner names."""
    process = subprocess.Popen(
        [str(CROUPIER), "run", "--port", "0"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    banner = ""
    for line in process.stdout:
        banner += line
        if line.startswith("Stop with Ctrl-C"):
            break
    grpc_address = re.search(r"gRPC\s+(\S+:\d+)", banner)
    http_address = re.search(r"gRPC-Web on (http://\S+)", banner)
    assert grpc_address and http_address, banner + (process.stderr.read() if process.stderr else "")
    return process, grpc_address.group(1), http_address.group(1)
