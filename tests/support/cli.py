"""Running the `croupier` command in process, as the CLI tests do."""

from __future__ import annotations

import asyncio
import json

import pytest

from croupier.cli.main import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()


async def serving_port(process: asyncio.subprocess.Process, what: str) -> int:
    """The gRPC port a started `croupier serve …` logs once it serves (within a minute)."""
    assert process.stderr is not None and process.stdout is not None
    async with asyncio.timeout(60):
        while True:
            line = await process.stderr.readline() or await process.stdout.readline()
            if not line:
                pytest.fail(f"{what} exited before serving (code {await process.wait()})")
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("event") == "serving":
                return int(record["grpc_port"])
