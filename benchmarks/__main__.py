"""`make bench`: run every benchmark module in turn, each in its own process."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time


def main() -> int:
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem for p in here.glob("*.py") if not p.stem.startswith("_"))
    failed = []
    for name in names:
        print(f"\n## {name}\n", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"benchmarks.{name}", *sys.argv[1:]])
        print(f"\n({name}: {time.perf_counter() - started:.0f} s, exit {code})", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
