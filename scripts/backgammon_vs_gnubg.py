"""Cross-check the backgammon legal-play generator against GNU Backgammon.

    .venv/bin/python scripts/backgammon_vs_gnubg.py                 # vs gnubg_nn (PyPI)
    .venv/bin/python scripts/backgammon_vs_gnubg.py --gnubg-program # also vs Debian's gnubg

For N random reachable positions x dice (random self-play; bar, bear-off and no-move cases
included), the set of Position IDs our legal plays lead to must equal the reference's:
- `gnubg_nn.moves(board, d1, d2)` (the position keys gnubg's GenerateMoves produces);
- with `--gnubg-program`: the real `gnubg` program (`gnubg -t -q -r -p this-file`), whose
  `hint` lists every legal move in gnubg notation; each is parsed with gnubg's own
  `parsemove`, applied literally, and encoded with gnubg's `positionid`. Every one of
  those gnubg-printed move strings must also be accepted by our parser and lead to the
  same position (the conformance README's "accept any play as gnubg prints it").
Prints a markdown summary; exit 1 on any mismatch.
"""

from __future__ import annotations

import json
import os
import sys

_IN = "BG_VS_GNUBG_IN"
_OUT = "BG_VS_GNUBG_OUT"


def _inside_gnubg() -> None:
    """Runs inside `gnubg -t -p`: list every legal move of every sample with gnubg itself."""
    import gnubg  # only importable inside the gnubg program

    with open(os.environ[_IN]) as fh:
        samples = json.load(fh)
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation cubedecision evaluation plies 0")
    gnubg.command("new session")
    out = []
    for pid, d1, d2 in samples:
        gnubg.command(f"set board {pid}")
        gnubg.command(f"set dice {d1}{d2}")
        board = [list(side) for side in gnubg.board()]
        try:
            hint = gnubg.hint(10000)
            moves = [entry["move"] for entry in hint["hint"]]
        except Exception:  # noqa: BLE001 - gnubg raises a bare error when nothing can move
            moves = []
        results = []
        for text in moves:
            new = [list(board[0]), list(board[1])]
            for src, dst in gnubg.parsemove(text):
                # gnubg's ApplyMove: points from the mover's side, 25 = bar, 0 = off
                new[1][24 if src == 25 else src - 1] -= 1
                if dst > 0:
                    new[1][dst - 1] += 1
                    if new[0][24 - dst] == 1:
                        new[0][24 - dst] = 0
                        new[0][24] += 1
            results.append([text, gnubg.positionid(new)])
        out.append({"board_id": gnubg.positionid(board), "moves": results})
    with open(os.environ[_OUT], "w") as fh:
        json.dump(out, fh)


def main(argv: list[str]) -> int:
    import argparse
    import random
    import shutil
    import subprocess
    import tempfile
    import time

    import gnubg_nn

    from croupier.backgammon.core.board import STARTING_BOARD, Board, position_id
    from croupier.backgammon.core.moves import legal_plays, legal_positions, match_play
    from croupier.backgammon.core.notation import IllegalPlay
    from croupier.backgammon.tools.sample import describe, random_positions

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--gnubg-program",
        nargs="?",
        const=shutil.which("gnubg") or "/usr/games/gnubg",
        default=None,
        help="also compare with the gnubg program (default path: gnubg on PATH or /usr/games)",
    )
    args = parser.parse_args(argv)

    def ours(b: Board, d1: int, d2: int) -> list[str]:
        return sorted(position_id(x) for x in legal_positions(b, d1, d2))

    def nn(b: Board, d1: int, d2: int) -> list[str]:
        keys = gnubg_nn.moves([list(b[0]), list(b[1])], d1, d2)
        if not keys:
            return [position_id(b)]
        return sorted(
            gnubg_nn.position_id([list(s) for s in gnubg_nn.board_from_position_key(k)])
            for k in keys
        )

    samples = random_positions(random.Random(args.seed), args.samples)
    kinds = describe(samples)
    print(f"# Legal plays vs GNU Backgammon ({args.samples} positions x dice, seed {args.seed})\n")
    print("| sample | count |\n|---|---:|")
    for name, value in kinds.items():
        print(f"| {name} | {value} |")

    failures = 0
    print("\n## Opening position: distinct plays per roll\n")
    print("| roll | ours | gnubg_nn |\n|---|---:|---:|")
    for d1, d2 in ((1, 1), (2, 1), (2, 2), (6, 6), (3, 1), (6, 5), (4, 4), (3, 3), (5, 5)):
        mine, ref = ours(STARTING_BOARD, d1, d2), nn(STARTING_BOARD, d1, d2)
        failures += mine != ref
        print(f"| {d1}{d2} | {len(mine)} | {len(ref)} |")

    start = time.perf_counter()
    mismatched = [s for s in samples if ours(s.board, s.d1, s.d2) != nn(s.board, s.d1, s.d2)]
    failures += len(mismatched)
    total_positions = sum(len(ours(s.board, s.d1, s.d2)) for s in samples)
    notation_failures = 0
    for s in samples:
        for play in legal_plays(s.board, s.d1, s.d2):
            if match_play(s.board, s.d1, s.d2, play.notation) != play.board:
                notation_failures += 1
    failures += notation_failures
    print("\n## vs gnubg_nn.moves\n")
    print(f"- samples compared: {len(samples)}; resulting positions: {total_positions}")
    print(f"- samples whose set of Position IDs differs: **{len(mismatched)}**")
    for s in mismatched[:10]:
        print(f"  - {position_id(s.board)} {s.d1}-{s.d2}")
    print(
        f"- our canonical notations that do not parse back to their position: {notation_failures}"
    )
    print(f"- time: {time.perf_counter() - start:.1f} s")

    if args.gnubg_program:
        program = args.gnubg_program
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "in.json")
            dst = os.path.join(tmp, "out.json")
            with open(src, "w") as fh:
                json.dump([[position_id(s.board), s.d1, s.d2] for s in samples], fh)
            env = dict(os.environ, **{_IN: src, _OUT: dst})
            start = time.perf_counter()
            proc = subprocess.run(
                [program, "-t", "-q", "-r", "-p", os.path.abspath(__file__)],
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=3600,
            )
            elapsed = time.perf_counter() - start
            if not os.path.exists(dst):
                print(f"\n{program} failed (exit {proc.returncode}):")
                print(proc.stderr.decode(errors="replace")[-2000:])
                return 1
            with open(dst) as fh:
                answers = json.load(fh)
        set_mismatch = board_mismatch = parse_failures = gnubg_strings = same_text = 0
        examples: list[str] = []
        for s, answer in zip(samples, answers, strict=True):
            pid = position_id(s.board)
            if answer["board_id"] != pid:
                board_mismatch += 1
                continue
            ref = sorted({p for _, p in answer["moves"]}) or [pid]
            if ours(s.board, s.d1, s.d2) != ref:
                set_mismatch += 1
                if len(examples) < 10:
                    examples.append(f"{pid} {s.d1}-{s.d2}")
            canonical = {position_id(p.board): p.notation for p in legal_plays(s.board, s.d1, s.d2)}
            for text, want in answer["moves"]:
                gnubg_strings += 1
                same_text += canonical.get(want) == text
                try:
                    got = position_id(match_play(s.board, s.d1, s.d2, text))
                except IllegalPlay:
                    got = "rejected"
                if got != want:
                    parse_failures += 1
                    if len(examples) < 10:
                        examples.append(f"{pid} {s.d1}-{s.d2} {text!r}: {got} != {want}")
        failures += set_mismatch + board_mismatch + parse_failures
        print(f"\n## vs the gnubg program ({program})\n")
        print(f"- samples compared: {len(answers)}")
        print(f"- samples whose set of Position IDs differs: **{set_mismatch}**")
        print(f"- boards gnubg read differently: {board_mismatch}")
        print(f"- gnubg move strings checked through our parser: {gnubg_strings}")
        print(f"- gnubg move strings we reject or map elsewhere: **{parse_failures}**")
        print(f"- of those, written exactly as our canonical notation: {same_text}")
        for line in examples:
            print(f"  - {line}")
        print(f"- gnubg time: {elapsed:.0f} s")
    print(f"\n**{'PASS' if failures == 0 else 'FAIL'}**: {failures} problems")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    if os.environ.get(_OUT):
        _inside_gnubg()
    else:
        sys.exit(main(sys.argv[1:]))
