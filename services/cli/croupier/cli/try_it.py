"""`croupier try`: play one hand of poker against two bots on a running platform.

A first look at the platform with nothing but this command: it connects to a running
`croupier run` (default 127.0.0.1:50051), opens a No-Limit Hold'em table for play chips,
seats you and two bots, plays one hand and prints it, then fetches the hand's history
(what `croupier verify` checks). Your seat is played by the same rule bot as the others
(seed 002 rule 59: each bot decides from its own seat's view only, through the same gRPC
calls a frontend makes), so the hand needs no input. It calls the table host as a service
does, with a credential signed with the services' key set (CROUPIER_SERVICE_KEYS, else
the one `croupier run` wrote to .local/service-keys).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from croupier.cli.token import SERVICE_KEYS_FILE, read_key_set
from croupier.kit.channels import call_metadata
from croupier.kit.service_auth import KEYS_VARIABLE as SERVICE_KEYS_VARIABLE
from croupier.kit.service_auth import ServiceCredential

YOU = "you"
BOTS = ("bot1", "bot2")
BLINDS = (1, 2)
STACK = 200
READY_SECONDS = 5.0
# A hand of three rule bots takes a few dozen calls; this only stops a stuck table.
HAND_SECONDS = 60.0

JSON = dict[str, Any]


def _cards(cards: list[str]) -> str:
    return " ".join(cards) if cards else "-"


def _describe(action: JSON) -> str:
    kind = str(action["action"])
    if "to" in action:
        return f"{kind} to {action['to']}"
    return kind


class _Table:
    """The calls of one table: every player's requests go through the same gRPC stub."""

    def __init__(self, stub: Any, table_id: str) -> None:
        from croupier.table.v1 import table_pb2

        self._pb = table_pb2
        self._stub = stub
        self.table_id = table_id

    def view(self, player: str) -> tuple[Any, JSON]:
        response = self._stub.GetView(
            self._pb.GetViewRequest(table_id=self.table_id, player_id=player)
        )
        return response.view, json.loads(response.view.view_json or "{}")

    def act(self, player: str, action: JSON, number: int) -> None:
        self._stub.Act(
            self._pb.ActRequest(
                table_id=self.table_id,
                player_id=player,
                command_id=f"try-{number}",
                action_json=json.dumps(action),
            )
        )


def _play(stub: Any, out: Any, history_file: str) -> int:
    from croupier.poker.tools.bots import RuleBot
    from croupier.table.v1 import table_pb2

    options = {"blinds": list(BLINDS)}
    table_id = stub.OpenTable(
        table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(options))
    ).table_id
    table = _Table(stub, table_id)
    players = (YOU, *BOTS)
    # The bots sit first: the host deals as soon as two players sit, so they may play a
    # hand or two heads-up (unprinted) before yours. Sitting last, you cannot be broke by
    # then, so a hand dealt to you always comes; a bot broke by then sits it out.
    for seat, player in reversed(list(enumerate(players))):
        stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id, player_id=player, seat=seat, stack=STACK, is_bot=player != YOU
            )
        )
    print(
        f"Table {table_id}: No-Limit Hold'em, blinds {BLINDS[0]}/{BLINDS[1]}, play chips; "
        f"{', '.join(players)} with {STACK} chips each.",
        file=out,
    )
    bots = {player: RuleBot(player, random.Random()) for player in players}
    target = 0  # the first hand dealt to you: the one shown
    board: list[str] = []
    actions = 0
    deadline = time.monotonic() + HAND_SECONDS
    while time.monotonic() < deadline:
        table_view, mine = table.view(YOU)
        if target and table_view.last_finished_hand >= target:
            break
        hand = mine.get("hand")
        number = int(mine.get("hand_number", 0))
        seats = hand["seats"] if hand else []
        dealt = [s["player"] for s in seats]
        if not target and YOU in dealt:
            target = number
            cards = next(s["hole_cards"] for s in seats if s["player"] == YOU)
            print(
                f"Hand {target} ({', '.join(dealt)}) - button {mine['hand']['button']}; "
                f"your cards: {_cards(cards)}",
                file=out,
            )
        printing = target == number
        if printing and hand and hand["board"] != board:
            board = list(hand["board"])
            print(f"  {hand['street']}: {_cards(board)}", file=out)
        actor = str(hand.get("to_act") or "") if hand else ""
        action = bots[actor].decide(table.view(actor)[1]) if actor else None
        if action is None:  # between hands, or the view moved on
            time.sleep(0.05)
            continue
        actions += 1
        table.act(actor, action, actions)
        if printing:
            print(f"  {actor}: {_describe(action)}", file=out)
    else:
        print(f"croupier try: the hand did not finish within {HAND_SECONDS:.0f} s", file=sys.stderr)
        return 1
    history = json.loads(
        stub.GetHandHistory(
            table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=target)
        ).history_json
    )
    stub.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))
    result = history["result"]
    shown = result.get("details", {}).get("shown", {})
    for player, cards in sorted(shown.items()):
        print(f"  {player} {'show' if player == YOU else 'shows'} {_cards(cards)}", file=out)
    deltas = ", ".join(f"{p} {result['deltas'].get(p, 0):+d}" for p in players)
    print(f"Hand {target} finished: {deltas} chips.", file=out)
    print(
        f"Its deal was committed before it began: seed sha256 {history['seed_sha256']}.", file=out
    )
    if history_file:
        Path(history_file).write_text(json.dumps(history, indent=2) + "\n", "utf-8")
        print(
            f"History written to {history_file}: check it with `croupier verify {history_file}`.",
            file=out,
        )
    return 0


class _AsService:
    """The table host's stub, every call carrying a service credential: `try` drives the
    host as the lobby does (opening a table, seating), which only services may."""

    def __init__(self, stub: Any, credential: ServiceCredential) -> None:
        self._stub = stub
        self._credential = credential

    def __getattr__(self, method: str) -> Any:
        call = getattr(self._stub, method)
        return lambda request: call(request, metadata=call_metadata(self._credential))


def _handle(args: argparse.Namespace) -> int:
    import grpc

    from croupier.table.v1 import table_pb2_grpc

    try:
        keys = read_key_set(SERVICE_KEYS_VARIABLE, SERVICE_KEYS_FILE)
    except ValueError as error:
        print(f"croupier try: {error}", file=sys.stderr)
        return 2
    credential = ServiceCredential(keys, "try")
    address: str = args.address
    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=READY_SECONDS)
        except grpc.FutureTimeoutError:
            print(
                f"croupier try: nothing answers at {address}; start the platform first "
                "(`make run` or `.venv/bin/croupier run`) or give its address",
                file=sys.stderr,
            )
            return 2
        try:
            stub = _AsService(table_pb2_grpc.TableEngineStub(channel), credential)
            return _play(stub, sys.stdout, args.history)
        except grpc.RpcError as error:
            print(
                f"croupier try: {address} answered {error.code().name}: {error.details()}",
                file=sys.stderr,
            )
            return 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "try",
        help="play one hand of poker against two bots on a running `croupier run`",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--address",
        default="127.0.0.1:50051",
        help="the platform's gRPC address, as `croupier run` prints it (default %(default)s)",
    )
    parser.add_argument(
        "--history",
        default="",
        metavar="FILE",
        help="also write the hand's history (JSON) to FILE, for `croupier verify FILE`",
    )
    parser.set_defaults(handler=_handle)
