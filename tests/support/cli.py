"""Running the `croupier` command in process, as the CLI tests do, and waiting for a
`croupier serve …` started as a process to serve."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from croupier.cli.main import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()


async def serving_record(process: asyncio.subprocess.Process, what: str) -> dict[str, Any]:
    """The log record (`"event": "serving"`, its gRPC and metrics ports) a started
    `croupier serve …` writes once it serves; fails if it exits first or takes a minute.
    The process must have been started with `stderr=PIPE` (and may have `stdout=PIPE`)."""
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while True:
            line = await process.stderr.readline()
            if not line and process.stdout is not None:
                line = await process.stdout.readline()
            if not line:
                pytest.fail(f"{what} exited before serving (code {await process.wait()})")
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("event") == "serving":
                return record


async def serving_port(process: asyncio.subprocess.Process, what: str) -> int:
    """The gRPC port a started `croupier serve …` serves on (see `serving_record`)."""
    return int((await serving_record(process, what))["grpc_port"])
