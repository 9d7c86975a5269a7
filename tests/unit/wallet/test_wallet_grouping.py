"""TransferGroups on its own (no database): how groups form, and that nobody is left waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from croupier.wallet.core.model import Transfer, TransferKind, TransferSpec
from croupier.wallet.service.grouping import TransferGroups

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def spec(tid: str) -> TransferSpec:
    return TransferSpec(transfer_id=tid, debit_account_id="a", credit_account_id="b",
                        amount=1, currency="USD", kind=TransferKind.TRANSFER)  # fmt: skip


class Database:
    """Records the groups it is asked to run; refuses any group holding a `bad` transfer."""

    def __init__(self, delay: float = 0.0) -> None:
        self.groups: list[list[str]] = []
        self.ran_alone: list[str] = []
        self.running = 0
        self.most_running = 0
        self.delay = delay

    async def together(self, specs: Sequence[TransferSpec]) -> list[Transfer]:
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await asyncio.sleep(self.delay)
            self.groups.append([s.transfer_id for s in specs])
            if any(s.transfer_id.startswith("bad") for s in specs):
                raise RuntimeError("refused")
            return [s.record(NOW) for s in specs]
        finally:
            self.running -= 1

    async def alone(self, s: TransferSpec) -> tuple[Transfer, bool]:
        await asyncio.sleep(self.delay)
        self.ran_alone.append(s.transfer_id)
        if s.transfer_id.startswith("bad"):
            raise ValueError(f"{s.transfer_id} refused")
        return s.record(NOW), False


def groups_over(db: Database, concurrency: int, max_group: int = 100) -> TransferGroups:
    return TransferGroups(run_alone=db.alone, run_together=db.together,
                          concurrency=concurrency, max_group=max_group)  # fmt: skip


async def test_a_lone_transfer_runs_alone_at_once() -> None:
    db = Database()
    transfer, replayed = await groups_over(db, 2).submit(spec("t1"))
    assert (transfer.transfer_id, replayed) == ("t1", False)
    assert (db.ran_alone, db.groups) == (["t1"], [])


async def test_transfers_waiting_together_form_groups_within_the_limits() -> None:
    db = Database(delay=0.01)
    groups = groups_over(db, concurrency=2, max_group=8)
    results = await asyncio.gather(*(groups.submit(spec(f"t{n}")) for n in range(20)))
    assert [t.transfer_id for t, _ in results] == [f"t{n}" for n in range(20)]
    assert db.most_running <= 2
    assert all(len(group) <= 8 for group in db.groups)
    assert sorted(tid for group in db.groups for tid in group) == sorted(f"t{n}" for n in range(20))


async def test_a_refused_group_runs_again_one_by_one_with_each_callers_answer() -> None:
    db = Database()
    groups = groups_over(db, concurrency=1)
    outcomes = await asyncio.gather(
        groups.submit(spec("t1")), groups.submit(spec("bad")), groups.submit(spec("t2")),
        return_exceptions=True,
    )  # fmt: skip
    assert db.groups == [["t1", "bad", "t2"]]
    assert sorted(db.ran_alone) == ["bad", "t1", "t2"]
    assert isinstance(outcomes[1], ValueError) and "bad refused" in str(outcomes[1])
    assert [o[0].transfer_id for o in (outcomes[0], outcomes[2])] == ["t1", "t2"]  # type: ignore[index]


async def test_the_same_id_never_shares_a_group() -> None:
    db = Database()
    groups = groups_over(db, concurrency=1)
    await asyncio.gather(groups.submit(spec("x")), groups.submit(spec("x")))
    assert (db.groups, db.ran_alone) == ([], ["x", "x"])


async def test_stopping_cancels_every_waiting_caller() -> None:
    db = Database(delay=10)
    groups = groups_over(db, concurrency=1, max_group=1)
    callers = [asyncio.create_task(groups.submit(spec(f"t{n}"))) for n in range(3)]
    await asyncio.sleep(0.01)  # t0 is running, t1 and t2 wait
    # At stop, asyncio cancels the tasks still running: here, the group's own.
    for task in asyncio.all_tasks() - {asyncio.current_task(), *callers}:
        task.cancel()
    outcomes = await asyncio.wait_for(asyncio.gather(*callers, return_exceptions=True), 1)
    assert all(isinstance(o, asyncio.CancelledError) for o in outcomes)


def test_limits_must_be_positive() -> None:
    db = Database()
    with pytest.raises(ValueError, match="at least 1"):
        groups_over(db, concurrency=0)
