"""`croupier serve` and `croupier run` refuse what they cannot do with one line naming it.

- A gRPC port another server holds is an error naming the address (SO_REUSEPORT is off: a
  second server used to "start" on the same port and take a random half of the calls);
  so is a busy metrics port.
- A Kafka broker that cannot be reached stops `croupier serve table` within seconds with
  one line naming the bootstrap address (it printed hundreds of librdkafka lines first).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.cli import serving_port

CROUPIER = Path(sys.executable).parent / "croupier"


def serve_env(**variables: str) -> dict[str, str]:
    env = dict(os.environ, CROUPIER_GRPC_HOST="127.0.0.1", CROUPIER_METRICS_PORT="0")
    env.update(variables)
    return env


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
async def busy_port() -> AsyncIterator[int]:
    """The gRPC port of a running `croupier serve diagnostics`."""
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER),
        "serve",
        "diagnostics",
        env=serve_env(CROUPIER_GRPC_PORT="0"),
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield await serving_port(process, "croupier serve diagnostics")
    finally:
        process.kill()
        await process.wait()


def run_to_end(
    command: list[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[int, list[str], float]:
    started = time.monotonic()
    try:
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"still running after 60 s: {expired.stderr!r}")
    lines = (done.stdout + done.stderr).splitlines()
    return done.returncode, lines, time.monotonic() - started


def test_a_metrics_port_in_use_exits_naming_the_address() -> None:
    """The metrics endpoint's port is checked like the gRPC one, before anything serves
    (a busy CROUPIER_METRICS_PORT ended in a traceback after gRPC had started)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        code, lines, _ = run_to_end(
            [str(CROUPIER), "serve", "diagnostics"],
            serve_env(CROUPIER_GRPC_PORT="0", CROUPIER_METRICS_PORT=str(busy)),
        )
    assert code == 2
    assert lines == [
        f"croupier serve diagnostics: cannot listen on 127.0.0.1:{busy}: in use by another process"
    ]


def test_second_server_on_a_port_in_use_exits_naming_the_address(busy_port: int) -> None:
    code, lines, _ = run_to_end(
        [str(CROUPIER), "serve", "diagnostics"], serve_env(CROUPIER_GRPC_PORT=str(busy_port))
    )
    assert code == 2
    assert lines == [
        f"croupier serve diagnostics: cannot listen on 127.0.0.1:{busy_port}: "
        "in use by another process"
    ]


def test_croupier_run_on_a_port_in_use_exits_naming_the_address(
    busy_port: int, tmp_path: Path
) -> None:
    code, lines, _ = run_to_end(
        [str(CROUPIER), "run", "--port", str(busy_port)], dict(os.environ), cwd=tmp_path
    )
    assert code == 2
    assert len(lines) == 1, lines
    assert f"cannot listen on 127.0.0.1:{busy_port}" in lines[0]
    assert lines[0].startswith("croupier run: ")


def test_serve_table_without_a_reachable_kafka_fails_fast_with_one_line() -> None:
    port = closed_port()
    code, lines, seconds = run_to_end(
        [str(CROUPIER), "serve", "table"],
        serve_env(CROUPIER_GRPC_PORT="0", CROUPIER_KAFKA_BOOTSTRAP=f"127.0.0.1:{port}"),
    )
    assert code == 2
    assert len(lines) == 1, lines[:5]
    assert lines[0].startswith(f"croupier serve table: cannot reach Kafka at 127.0.0.1:{port}")
    assert seconds < 10


def test_serve_table_checks_its_port_before_it_touches_kafka(busy_port: int) -> None:
    """A second table host started by mistake on a busy port stops before it joins the
    command log's consumer group (it used to take partitions from the running replica,
    rebuild their tables, and only then find the port taken): here the broker is
    unreachable, and the port is what it names."""
    code, lines, _ = run_to_end(
        [str(CROUPIER), "serve", "table"],
        serve_env(
            CROUPIER_GRPC_PORT=str(busy_port),
            CROUPIER_KAFKA_BOOTSTRAP=f"127.0.0.1:{closed_port()}",
        ),
    )
    assert code == 2
    assert lines == [
        f"croupier serve table: cannot listen on 127.0.0.1:{busy_port}: in use by another process"
    ]
