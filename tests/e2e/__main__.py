"""`python -m tests.e2e [--seed N] [--runs K]` (what `make e2e` runs): K seeded fault runs
of the scenario, each in its own folder under .local/e2e/, its report printed; exit 1 if
any check of any run failed. Without --seed a seed is drawn and printed."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import time

from tests.e2e.harness.run import Scenario, run
from tests.support.paths import ROOT


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=None, help="the first run's seed")
    parser.add_argument("--runs", type=int, default=1, help="runs, seeds counting up")
    parser.add_argument("--faults", type=int, default=Scenario.faults)
    parser.add_argument("--actions", type=int, default=Scenario.actions, help="per table")
    args = parser.parse_args()
    dsn = os.environ.get("CROUPIER_POSTGRES_DSN", "")
    if not dsn:
        print("CROUPIER_POSTGRES_DSN is not set: run through deploy/local/with-infra.sh")
        return 2
    first = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    scenario = Scenario(faults=args.faults, actions=args.actions)
    failed = []
    for seed in range(first, first + args.runs):
        folder = ROOT / ".local" / "e2e" / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
        result = asyncio.run(run(seed, folder, dsn, scenario))
        for finding in result.findings:
            print(f"  {'ok    ' if finding.ok else 'FAILED'} {finding.check}: {finding.detail}")
        if not result.passed:
            failed.append(seed)
    print(f"e2e: {args.runs - len(failed)} of {args.runs} runs passed; failed seeds {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
