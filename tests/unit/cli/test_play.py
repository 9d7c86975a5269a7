"""`croupier play` on a real `croupier run` (started here as a subprocess on free ports),
its choices typed on standard input: it takes a seat through the gateway only (a table
opened in the lobby, a bot asked for the other seat), plays a poker hand to its end
against the bot and a backgammon turn, then leaves."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.test_embedded import CROUPIER, start_embedded


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    cwd = tmp_path_factory.mktemp("play")
    process, address = start_embedded(cwd)
    try:
        yield cwd, address
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def play(platform: tuple[Path, str], *args: str, typed: str) -> subprocess.CompletedProcess[str]:
    cwd, address = platform
    return subprocess.run(
        [str(CROUPIER), "play", *args, "--address", address],
        input=typed,
        cwd=cwd,  # where `croupier run` wrote the key set `play` issues its token with
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_poker_hand_is_played_to_its_end_against_a_bot(platform: tuple[Path, str]) -> None:
    # Choice 2 is always check or call (fold comes first): the hand goes to its end. Three
    # seats: the table its bots keep open is not one the quick-seat test's 2-seat tickets
    # would be seated at (a quick seat takes a compatible open table's free seat first).
    done = play(
        platform, "poker", "--player", "ana", "--hands", "1", "--seats", "3", typed="2\n" * 60
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Opened poker table" in out and "2 bot(s) asked to sit" in out
    first_hand = out[out.index("Hand 1 - preflop") :]
    own_line = next(line for line in first_hand.splitlines() if "ana (you)" in line)
    assert (
        own_line.count("♣") + own_line.count("♦") + own_line.count("♥") + own_line.count("♠") == 2
    )
    bot_line = next(line for line in first_hand.splitlines() if " BOT " in line)
    assert "[?? ??]" in bot_line  # the bot's cards are not ana's to see
    assert "2) call 1" in out and "Your choice" in out
    finished = next(line for line in out.splitlines() if line.startswith("Hand 1 finished: "))
    deltas = dict(part.rsplit(" ", 1) for part in finished[17:-1].split(", "))
    assert "ana" in deltas and sum(int(d) for d in deltas.values()) == 0
    assert "committed as sha256 " in out
    assert "the seed hashes to the commitment shown when the hand was dealt" in out


def test_a_backgammon_turn_is_played_against_a_bot_then_the_player_leaves(
    platform: tuple[Path, str],
) -> None:
    # Choice 1: the first legal play, or roll; then q leaves the table.
    done = play(platform, "backgammon", "--player", "bob", typed="1\n1\n1\nq\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    boards = out.split("Backgammon game 1 - ")[1:]
    moved = next(i for i, board in enumerate(boards) if "1) move " in board)
    play_made = boards[moved].split("1) move ", 1)[1].splitlines()[0]
    # The board after the move is a different one, and the bot is to act on it.
    after = boards[moved + 1]
    assert after.splitlines()[1:5] != boards[moved].splitlines()[1:5], play_made
    assert "bot:" in after.splitlines()[-1] and after.splitlines()[-1].endswith(" to act")
    assert out.rstrip().endswith("Leaving the table.")


def test_two_quick_seat_players_are_matched_at_one_table_and_play_a_hand(
    platform: tuple[Path, str],
) -> None:
    cwd, address = platform
    players = [
        subprocess.Popen(
            [
                str(CROUPIER),
                "play",
                "poker",
                "--quick",
                "--hands",
                "1",
                "--player",
                name,
                "--address",
                address,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            text=True,
        )
        for name in ("quick-ana", "quick-bob")
    ]
    try:
        # Both typed at once: each waits for the other's choices.
        with ThreadPoolExecutor(len(players)) as typing:
            outs = list(typing.map(lambda p: p.communicate("2\n" * 40, timeout=120), players))
    finally:
        for player in players:
            player.kill()
    assert [player.returncode for player in players] == [0, 0], [err for _, err in outs]
    seated = [
        next(line for line in out.splitlines() if line.startswith("Seated at ")) for out, _ in outs
    ]
    assert len({line.split(",")[0] for line in seated}) == 1, seated  # the same table
    finished = {
        next(line for line in out.splitlines() if line.startswith("Hand 1 finished: "))
        for out, _ in outs
    }
    assert len(finished) == 1 and "quick-ana" in finished.pop()


def test_without_a_platform_it_says_how_to_start_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(CROUPIER), "play", "poker", "--address", "127.0.0.1:1", "--token", "x.y.z"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert "--token is not a token" in done.stderr
    done = subprocess.run(
        [str(CROUPIER), "play", "poker", "--address", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "CROUPIER_AUTH_KEYS": "k1=" + "s" * 40},
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert "no gateway answers at 127.0.0.1:1; start the platform first" in done.stderr


def test_a_choice_made_after_the_turn_clock_played_is_not_sent(platform: tuple[Path, str]) -> None:
    cwd, address = platform
    player = subprocess.Popen(
        [
            *(str(CROUPIER), "play", "poker", "--turn-seconds", "1", "--hands", "1"),
            *("--player", "slow-sam", "--address", address),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        text=True,
    )
    watchdog = threading.Timer(120, player.kill)
    watchdog.start()
    try:
        assert player.stdout is not None and player.stdin is not None
        shown = ""
        while "Your choice" not in shown:
            line = player.stdout.readline()
            assert line, shown + (player.stderr.read() if player.stderr else "")
            shown += line
        time.sleep(3)  # thinking past the 1 s turn: the clock plays for him meanwhile
        player.stdin.write("2\n" * 40)
        player.stdin.close()
        shown += player.stdout.read()
        assert player.wait() == 0
    finally:
        watchdog.cancel()
        player.kill()
    late = shown.index("Your choice")
    assert shown[late:].splitlines()[1] == "  too late: the table moved on while you chose"
    assert "Hand 1 finished: " in shown
