"""The run's faults, drawn from a seed (TigerBeetle's VOPR: the same seed, the same plan):
which process is SIGKILLed and restarted (for "table", which of the table-engine
processes: a game's, or one of its replicas), at what moment of the run. The plan is
printed with its seed, so a failing run is replayed with `--seed`."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from tests.e2e.harness.history import Fault, History
from tests.e2e.harness.network import TOXICS
from tests.e2e.harness.platform import Platform

# What a fault may hit: every service, and the run's own broker (SIGKILL, then started
# again on the same ports and data); with the network faults, the link to the broker.
PROCESSES = ("table", "wallet", "tournament", "lobby", "gateway", "bots", "broker")
TARGETS = PROCESSES + tuple(TOXICS)


@dataclass(frozen=True)
class PlannedFault:
    at: float  # seconds after the scenario began
    target: str


def fault_plan(
    seed: int,
    count: int,
    within: float,
    targets: tuple[str, ...],
    tables: list[str],
) -> list[PlannedFault]:
    """`count` faults at moments spread over `within` seconds (one in each equal slice,
    so two restarts never overlap), each on a target drawn from `targets`; "table" is one
    of the `tables` processes, drawn too."""
    rng = random.Random(seed)
    slice_seconds = within / max(count, 1)
    plan = []
    for i in range(count):
        at = round(i * slice_seconds + rng.uniform(0.2, 0.8) * slice_seconds, 2)
        target = rng.choice(targets)
        plan.append(PlannedFault(at, rng.choice(tables) if target == "table" else target))
    return plan


async def inject(platform: Platform, plan: list[PlannedFault], history: History) -> None:
    """Each planned fault at its moment (counted from now), recorded in the history."""
    began = asyncio.get_running_loop().time()
    for fault in plan:
        delay = began + fault.at - asyncio.get_running_loop().time()
        await asyncio.sleep(max(0.0, delay))
        at = history.now()
        kind, seconds = await asyncio.to_thread(platform.strike, fault.target)
        history.faults.append(Fault(at, fault.target, kind, seconds))
