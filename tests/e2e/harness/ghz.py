"""Single-method figures with ghz (Go module github.com/bojand/ghz, pinned in gotools):
one gRPC method called by `concurrency` callers for `seconds`, over one connection, the
method described by a protoset compiled from protos/ (the gateway serves no reflection);
its calls a second and latency percentiles from ghz's JSON summary."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scripts.gen_api_docs import descriptor_set
from tests.e2e.harness.gotools import GHZ

_NS_PER_MS = 1e6


@dataclass(frozen=True)
class MethodLoad:
    """What to call: a label for the report, the server, the full method name
    (`package.Service/Method`), the request as protobuf JSON and the call's metadata."""

    label: str
    address: str
    method: str
    request: Mapping[str, object]
    metadata: dict[str, str]


@dataclass(frozen=True)
class MethodFigures:
    load: MethodLoad
    calls: int
    per_second: float
    p50_ms: float
    p99_ms: float
    statuses: dict[str, int]  # gRPC status name -> calls (ghz's statusCodeDistribution)

    def row(self) -> str:
        statuses = ", ".join(f"{name} {n}" for name, n in sorted(self.statuses.items()))
        return (
            f"| {self.load.label} | `{self.load.method.rsplit('/', 1)[1]}` | {self.calls} | "
            f"{self.per_second:.0f} | {self.p50_ms:.1f} | {self.p99_ms:.1f} | {statuses} |"
        )


HEADER = (
    "| what | method | calls | calls/s | p50 ms | p99 ms | statuses |",
    "| --- | --- | --- | --- | --- | --- | --- |",
)


def figures_of(load: MethodLoad, summary: dict[str, object]) -> MethodFigures:
    """The figures in ghz's JSON summary (`-O json`: latencies in nanoseconds)."""
    distribution = summary.get("latencyDistribution") or []
    assert isinstance(distribution, list)
    at = {int(p["percentage"]): float(p["latency"]) / _NS_PER_MS for p in distribution}
    statuses = summary.get("statusCodeDistribution") or {}
    assert isinstance(statuses, dict)
    count, rps = summary.get("count", 0), summary.get("rps", 0.0)
    assert isinstance(count, int) and isinstance(rps, (int, float))
    return MethodFigures(load, count, float(rps), at.get(50, 0.0), at.get(99, 0.0), dict(statuses))


def compile_protoset(path: Path) -> Path:
    """Every proto of protos/ with its imports, as one descriptor set, written to `path`
    (compiled as the API reference's generator compiles them)."""
    path.write_bytes(descriptor_set().SerializeToString())
    return path


def measure(
    load: MethodLoad, protoset: Path, *, concurrency: int = 20, seconds: int = 10
) -> MethodFigures:
    command = [
        str(GHZ.ensure_built()),
        "--insecure",
        "--protoset",
        str(protoset),
        "--call",
        load.method,
        "--data",
        json.dumps(load.request),
        "--metadata",
        json.dumps(load.metadata),
        "--concurrency",
        str(concurrency),
        "--connections",
        "1",
        "--duration",
        f"{seconds}s",
        "--format",
        "json",
        load.address,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0 and not done.stdout:
        raise RuntimeError(f"ghz {load.method} failed: {done.stderr.strip()}")
    summary = json.loads(done.stdout)
    assert isinstance(summary, dict)
    return figures_of(load, summary)
