"""The run's report: a Markdown page in the run folder with the checks' findings, the
faults and three plots drawn as SVG by hand (no plotting library is a dependency): the
latency of every Act over time with the faults marked, actions per second, and the
service processes' memory."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.harness.checks import Finding
from tests.e2e.harness.history import Call, History

_W, _H, _PAD = 800, 260, 40


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def svg_plot(
    points: list[tuple[float, float]],
    marks: list[tuple[float, str]],
    y_label: str,
    duration: float,
    *,
    line: bool,
) -> str:
    """`points` (seconds, value) as dots or a line, each mark (seconds, label) a red
    dashed line: the faults of a run, the steps of a load."""
    top = max((y for _, y in points), default=1.0) or 1.0

    def x(t: float) -> float:
        return _PAD + (_W - 2 * _PAD) * t / max(duration, 1e-9)

    def y(v: float) -> float:
        return _H - _PAD - (_H - 2 * _PAD) * v / top

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{_W}" height="{_H}" fill="white"/>',
        f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="black"/>',
        f'<line x1="{_PAD}" y1="{_PAD}" x2="{_PAD}" y2="{_H - _PAD}" stroke="black"/>',
        f'<text x="{_PAD}" y="{_PAD - 8}">{y_label} (max {top:.1f})</text>',
        f'<text x="{_W - _PAD}" y="{_H - 8}" text-anchor="end">seconds ({duration:.0f})</text>',
    ]
    for at, label in marks:
        parts.append(
            f'<line x1="{x(at):.1f}" y1="{_PAD}" x2="{x(at):.1f}" '
            f'y2="{_H - _PAD}" stroke="red" stroke-dasharray="4 3"/>'
            f'<text x="{x(at) + 2:.1f}" y="{_PAD + 10}" fill="red">{label}</text>'
        )
    if line:
        path = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="steelblue"/>')
    else:
        parts.extend(
            f'<circle cx="{x(t):.1f}" cy="{y(v):.1f}" r="1.5" fill="steelblue"/>' for t, v in points
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _throughput(acts: list[Call], duration: float) -> list[tuple[float, float]]:
    seconds = [0] * (int(duration) + 1)
    for call in acts:
        seconds[min(int(call.at), len(seconds) - 1)] += 1
    return [(float(i), float(n)) for i, n in enumerate(seconds)]


@dataclass(frozen=True)
class Memory:
    """Resident memory sampled over a run: (seconds, MB), and whose."""

    points: list[tuple[float, float]]
    whose: str


def write_plots(
    folder: Path, acts: list[Call], marks: list[tuple[float, str]], memory: Memory
) -> None:
    """latency.svg (every acknowledged Act), throughput.svg (Acts a second) and memory.svg
    in `folder`, each with the marks (faults, steps)."""
    duration = max([c.at for c in acts] + [t for t, _ in memory.points], default=1.0)
    points = [(c.at, c.latency_ms) for c in acts]
    (folder / "latency.svg").write_text(
        svg_plot(points, marks, "Act latency, ms", duration, line=False)
    )
    (folder / "throughput.svg").write_text(
        svg_plot(_throughput(acts, duration), marks, "actions per second", duration, line=True)
    )
    (folder / "memory.svg").write_text(
        svg_plot(memory.points, marks, f"{memory.whose} RSS, MB", duration, line=True)
    )


def write_report(
    folder: Path,
    *,
    seed: int,
    history: History,
    findings: list[Finding],
    summary: dict[str, str],
    memory: Memory,
) -> Path:
    acts = history.acknowledged("Act")
    latencies = [c.latency_ms for c in acts]
    write_plots(folder, acts, [(fault.at, fault.target) for fault in history.faults], memory)
    passed = all(f.ok for f in findings)
    lines = [
        f"# End-to-end run, seed {seed}: {'PASSED' if passed else 'FAILED'}",
        "",
        f"Replay: `make e2e SEED={seed}`.",
        "",
        *(f"- {key}: {value}" for key, value in summary.items()),
        f"- calls through the gateway: {len(history.calls)}, acknowledged actions: "
        f"{len(acts)}, Act p50 {percentile(latencies, 0.5):.1f} ms, "
        f"p99 {percentile(latencies, 0.99):.1f} ms",
        "",
        "## Checks",
        "",
        "| check | result | detail |",
        "| --- | --- | --- |",
        *(
            f"| {f.check} | {'ok' if f.ok else 'FAILED'} | {f.detail.replace('|', '/')} |"
            for f in findings
        ),
        "",
        "## Faults",
        "",
        "| at (s) | target | kind | back after (s) |",
        "| --- | --- | --- | --- |",
        *(
            f"| {f.at:.1f} | {f.target} | {f.kind} | {f.recovered_seconds:.1f} |"
            for f in history.faults
        ),
        "",
        "## Latency of Act over time (faults in red)",
        "",
        "![latency](latency.svg)",
        "",
        "## Throughput",
        "",
        "![throughput](throughput.svg)",
        "",
        f"## Memory: {memory.whose}",
        "",
        "![memory](memory.svg)",
        "",
    ]
    report = folder / "report.md"
    report.write_text("\n".join(lines))
    return report
