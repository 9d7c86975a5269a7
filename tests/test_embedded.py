"""`croupier run`: the embedded platform answers on both services and cleans up on Ctrl-C
or SIGTERM, leaving no process behind."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import psutil
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.services import service_stub

CROUPIER = Path(sys.executable).parent / "croupier"


def start_embedded(cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Start `croupier run` and read its address from the banner."""
    process = subprocess.Popen(
        [str(CROUPIER), "run", "--port", "0"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    address = ""
    for line in process.stdout:
        if match := re.search(r"gRPC\s+(\S+:\d+)", line):
            address = match.group(1)
        if line.startswith("Stop with Ctrl-C"):
            break
    assert address, f"no address printed; stderr: {process.stderr.read() if process.stderr else ''}"
    return process, address


async def test_embedded_platform_serves_table_and_wallet_then_stops_cleanly(
    tmp_path: Path,
) -> None:
    process, address = start_embedded(tmp_path)
    try:
        async with (
            service_stub(address, wallet_pb2_grpc.WalletStub) as wallet,
            service_stub(address, table_pb2_grpc.TableEngineStub) as table,
        ):
            opened = await wallet.OpenAccount(
                wallet_pb2.OpenAccountRequest(
                    kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner="ana", currency="USD"
                )
            )
            balance = await wallet.GetBalance(
                wallet_pb2.GetBalanceRequest(account_id=opened.account.account_id)
            )
            assert (balance.balance.amount_minor, balance.balance.currency) == (0, "USD")
            table_id = (
                await table.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
            ).table_id
            view = await table.GetView(table_pb2.GetViewRequest(table_id=table_id))
            assert view.view.table_id == table_id
            # A money table buys seats in through the embedded wallet: ana has no dollars.
            cash = await table.OpenTable(
                table_pb2.OpenTableRequest(
                    game="poker", options_json='{"blinds": [1, 2], "currency": "USD"}'
                )
            )
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await table.SeatPlayer(
                    table_pb2.SeatPlayerRequest(
                        table_id=cash.table_id, player_id="ana", seat=0, stack=100
                    )
                )
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "the wallet refused the buy-in" in (refused.value.details() or "")
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    assert not list((tmp_path / ".local").glob("embedded-postgres-*"))


def embedded_postgres(run_dir: Path) -> list[psutil.Process]:
    """The PostgreSQL processes of the `croupier run` started in `run_dir`: the postmaster
    (whose data directory lies under `run_dir`) and its children."""
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or ()
        if cmdline and Path(cmdline[0]).name == "postgres" and str(run_dir) in " ".join(cmdline):
            return [process, *process.children(recursive=True)]
    return []


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
async def test_embedded_platform_stop_leaves_no_process_behind(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    process, address = start_embedded(tmp_path)
    try:
        postgres = embedded_postgres(tmp_path)
        assert postgres, "the embedded PostgreSQL was not found while the platform ran"
        async with service_stub(address, wallet_pb2_grpc.WalletStub) as wallet:  # the ledger
            await wallet.OpenAccount(
                wallet_pb2.OpenAccountRequest(
                    kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner="ana", currency="USD"
                )
            )
    finally:
        process.send_signal(stop_signal)
        assert process.wait(timeout=60) == 0
    _, alive = psutil.wait_procs(postgres, timeout=10)
    survivors = [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
    for survivor in survivors:  # not left to leak into the next runs
        survivor.kill()
    assert not survivors, f"processes of the run survived it: {survivors}"
    assert not list((tmp_path / ".local").glob("embedded-postgres-*"))
