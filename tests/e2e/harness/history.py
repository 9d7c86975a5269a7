"""The run's recorded history (Jepsen's client history): every call a client bot made
through the gateway, with its status and a summary of the answer, and every fault the
run injected; written as JSON lines into the run folder and read by the checks and the
report."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Call:
    at: float  # seconds since the run began, when the call was sent
    player: str
    method: str
    request: str  # the request's summary: table, command id, action
    status: str  # the gRPC status name: OK, UNAVAILABLE, ...
    answer: str  # the answer's summary (view version) or the error's details
    latency_ms: float
    command_id: str = ""
    table_id: str = ""


@dataclass(frozen=True)
class Fault:
    at: float
    target: str
    kind: str
    recovered_seconds: float


@dataclass
class History:
    began: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)

    def now(self) -> float:
        return time.monotonic() - self.began

    def acknowledged(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.status == "OK"]

    def write(self, folder: Path) -> None:
        with open(folder / "calls.jsonl", "w") as out:
            out.writelines(json.dumps(asdict(call)) + "\n" for call in self.calls)
        with open(folder / "faults.jsonl", "w") as out:
            out.writelines(json.dumps(asdict(fault)) + "\n" for fault in self.faults)
