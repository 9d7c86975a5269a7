"""`croupier play`: play poker, backgammon or Joker against bots in a terminal, through the gateway.

A developer's view of what a client does, calling nothing but the gateway's gRPC API
(`croupier.gateway.v1.Gateway`) with a player's token: it looks at the lobby, takes a seat
(opens a table for play chips and asks the lobby for bots in its other seats, joins the
table `--table` names, or with `--quick` waits for the lobby to match it with other
players), then follows the player's own view of the table (`WatchTable`),
prints the board, the cards he may see and the actions he may take, numbered, and reads
his choice from standard input (`Act`). After each hand it prints the hand's result from
its history (`GetHandHistory`, the deal's seed revealed). End of input, or `q`, leaves the
seat (`LeaveTable`).

The token is `--token`, else one issued for `--player` exactly as `croupier token` does
(CROUPIER_AUTH_KEYS, else the key set a running `croupier run` wrote to .local/).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from croupier.cli.play_render import RENDERERS, card, choose
from croupier.cli.token import DEV_KEYS_FILE, KEYS_VARIABLE, read_key_set
from croupier.kit.auth import check_player_name, issue_token

__all__ = ["register"]

READY_SECONDS = 5.0
STACK = 100  # a poker seat's chips (play chips: bots sit only at play-currency tables)
JOKER_SEATS = 4
BIG_BLIND = 2
TICKET_POLL_SECONDS = 0.5


class NoSeat(Exception):
    """The lobby gave no seat (a quick-seat ticket expired, was cancelled or failed)."""


QUIT = frozenset({"q", "quit", "leave"})


@dataclass
class _Session:
    """One player at one table: the gateway's stub and what he typed and was shown."""

    stub: Any
    metadata: tuple[tuple[str, str], ...]
    player: str
    game: str
    table_id: str
    lines: Iterator[str]
    out: TextIO

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def _game_options(game: str, seats: int) -> Any:
    from croupier.backgammon.v1 import backgammon_pb2
    from croupier.joker.v1 import joker_pb2
    from croupier.poker.v1 import poker_pb2
    from croupier.table.v1 import table_pb2

    if game == "poker":
        poker = poker_pb2.Options(
            variant=poker_pb2.VARIANT_NLHE,
            small_blind=BIG_BLIND // 2,
            big_blind=BIG_BLIND,
            seats=seats,
        )
        return table_pb2.GameOptions(poker=poker)
    if game == "joker":
        return table_pb2.GameOptions(joker=joker_pb2.Options())
    return table_pb2.GameOptions(backgammon=backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE))


def _quick_seat(stub: Any, metadata: Any, game: str, stack: int, out: TextIO) -> str:
    """Quick seat: a matchmaking ticket for this game, followed until the lobby seats us."""
    from croupier.gateway.v1 import gateway_pb2 as pb
    from croupier.lobby.v1 import lobby_pb2

    stake = BIG_BLIND if game == "poker" else 0  # poker's stake is its big blind
    ticket = stub.FindGame(
        pb.FindGameRequest(
            request_key=f"play-{uuid.uuid4()}",
            options=_game_options(game, 2),
            min_stake=stake,
            max_stake=stake,
            stack=stack,
        ),
        metadata=metadata,
    ).ticket
    print(f"Quick seat: waiting for other players (ticket {ticket.ticket_id}).", file=out)
    pending = (lobby_pb2.TICKET_STATUS_WAITING, lobby_pb2.TICKET_STATUS_MATCHED)
    while ticket.status in pending:
        time.sleep(TICKET_POLL_SECONDS)
        request = pb.GetTicketRequest(ticket_id=ticket.ticket_id)
        ticket = stub.GetTicket(request, metadata=metadata).ticket
    if ticket.status != lobby_pb2.TICKET_STATUS_SEATED:
        status = lobby_pb2.TicketStatus.Name(ticket.status).removeprefix("TICKET_STATUS_")
        raise NoSeat(f"no seat: the ticket is {status.lower()} {ticket.failure}".rstrip())
    print(f"Seated at {ticket.table_id}, seat {ticket.seat}.", file=out)
    return str(ticket.table_id)


def _take_seat(stub: Any, metadata: Any, args: argparse.Namespace, out: TextIO) -> str:
    """The lobby: list it, then quick-seat, join `--table`, or open a table and ask bots
    for its other seats."""
    from croupier.gateway.v1 import gateway_pb2 as pb
    from croupier.table.v1 import table_pb2

    listed = stub.ListTables(pb.ListTablesRequest(), metadata=metadata)
    print(f"Lobby: {len(listed.tables)} open table(s).", file=out)
    stack = STACK if args.game == "poker" else 0
    if args.quick:
        return _quick_seat(stub, metadata, args.game, stack, out)
    if args.table:
        joined = stub.JoinTable(
            pb.JoinTableRequest(table_id=args.table, stack=stack), metadata=metadata
        )
        print(f"Seated at {args.table}, seat {joined.seat}.", file=out)
        return str(args.table)
    seats = args.seats if args.game == "poker" else JOKER_SEATS if args.game == "joker" else 2
    opened = stub.OpenTable(
        pb.OpenTableRequest(
            request_key=f"play-{uuid.uuid4()}",
            options=_game_options(args.game, seats),
            clock=table_pb2.TableClock(turn_seconds=args.turn_seconds),
            stack=stack,
        ),
        metadata=metadata,
    )
    table_id = str(opened.table.table_id)
    stub.AddBots(pb.AddBotsRequest(table_id=table_id, count=seats - 1), metadata=metadata)
    print(f"Opened {args.game} table {table_id}; {seats - 1} bot(s) asked to sit.", file=out)
    return table_id


def _result(session: _Session, hand: int, shown_at_deal: str | None) -> None:
    """Hand `hand`'s result and its seed, checked against the commitment the table showed
    when it dealt (`shown_at_deal`, None if the stream began after the deal)."""
    from croupier.game.fairness import commitment
    from croupier.gateway.v1 import gateway_pb2 as pb

    answer = session.stub.GetHandHistory(
        pb.GetHandHistoryRequest(table_id=session.table_id, hand_number=hand),
        metadata=session.metadata,
    )
    history = json.loads(answer.history_json)
    result = history.get("result", {})
    deltas = ", ".join(f"{p} {d:+d}" for p, d in sorted(result.get("deltas", {}).items()))
    what = "Hand" if session.game == "poker" else "Game"
    session.say(f"{what} {hand} finished: {deltas or 'no chips moved'}.")
    for player, cards in sorted(result.get("details", {}).get("shown", {}).items()):
        session.say(f"  {player} showed {' '.join(card(c) for c in cards)}")
    seed = str(history.get("seed", ""))
    session.say(f"  seed {seed} (committed as sha256 {history.get('seed_sha256')})")
    if shown_at_deal is not None:
        try:
            honest = commitment(bytes.fromhex(seed)) == shown_at_deal
        except ValueError:  # not hexadecimal: no seed at all
            honest = False
        session.say(
            "  the seed hashes to the commitment shown when the hand was dealt"
            if honest
            else f"  WARNING: the seed does not hash to {shown_at_deal}, shown at the deal"
        )


def _decide(session: _Session, offers: Any) -> dict[str, Any] | None:
    """The player's choice among `offers`, asked until it is one; None: he leaves."""
    for number, offer in enumerate(offers, 1):
        session.say(f"  {number}) {offer.label}")
    while True:
        session.say("Your choice (number, or q to leave):")
        line = next(session.lines, None)
        if line is None or line.strip() in QUIT:
            return None
        chosen = choose(offers, line)
        if isinstance(chosen, dict):
            return chosen
        session.say(f"  {chosen}")


def _play(session: _Session, hands: int) -> int:
    """Follow the view stream; act when the view offers the player something."""
    import grpc

    from croupier.gateway.v1 import gateway_pb2 as pb
    from croupier.table.v1 import table_pb2

    render = RENDERERS[session.game]
    stream = session.stub.WatchTable(
        pb.WatchTableRequest(table_id=session.table_id, view_format=table_pb2.VIEW_FORMAT_JSON),
        metadata=session.metadata,
    )
    finished_before: int | None = None  # hands finished before we sat: not ours to report
    reported = 0
    # Views older than the one our last action made were answered already; that one itself
    # may offer the next choice (a backgammon roll, then its move).
    acted_version = 0
    shown = ""
    dealt: dict[int, str] = {}  # hand number -> the commitment the view showed from its deal
    try:
        for response in stream:
            view = response.view
            if view.hand_number:
                dealt.setdefault(view.hand_number, view.hand_seed_sha256)
            if finished_before is None:
                finished_before = reported = view.last_finished_hand
            for hand in range(reported + 1, view.last_finished_hand + 1):
                _result(session, hand, dealt.get(hand))
            reported = view.last_finished_hand
            if hands and view.last_finished_hand - finished_before >= hands:
                return 0
            screen = render(json.loads(view.view_json or "{}"), session.player)
            if screen.text != shown:
                shown = screen.text
                session.say(shown)
            if view.closed:
                session.say("The table closed.")
                return 0
            if not screen.offers or view.version < acted_version:
                continue
            action = _decide(session, screen.offers)
            if action is None:
                session.say("Leaving the table.")
                return 0
            if _moved_on(session, view.version):
                # The turn clock played for him while he chose: his choice was for a table
                # that is gone (the stream brings the new one and asks again).
                session.say("  too late: the table moved on while you chose")
                continue
            try:
                acted = session.stub.Act(
                    pb.ActRequest(
                        table_id=session.table_id,
                        command_id=f"play-{uuid.uuid4()}",
                        action_json=json.dumps(action),
                        view_format=table_pb2.VIEW_FORMAT_JSON,
                    ),
                    metadata=session.metadata,
                )
                acted_version = acted.view.version
            except grpc.RpcError as refused:  # the next view offers the choices again
                session.say(f"  refused: {refused.details()}")
        return 0
    finally:
        stream.cancel()


def _moved_on(session: _Session, version: int) -> bool:
    from croupier.gateway.v1 import gateway_pb2 as pb
    from croupier.table.v1 import table_pb2

    request = pb.GetTableViewRequest(
        table_id=session.table_id, view_format=table_pb2.VIEW_FORMAT_JSON
    )
    now: int = session.stub.GetTableView(request, metadata=session.metadata).view.version
    return now != version


def _leave(session: _Session) -> None:
    import grpc

    from croupier.gateway.v1 import gateway_pb2 as pb

    try:
        session.stub.LeaveTable(
            pb.LeaveTableRequest(table_id=session.table_id), metadata=session.metadata
        )
    except grpc.RpcError as error:  # a hand in play: the table lets him go at its end
        session.say(f"(leaving: {error.details()})")


def _token(args: argparse.Namespace) -> str:
    if args.token:
        return str(args.token)
    key_set = read_key_set(KEYS_VARIABLE, args.keys_file)
    return issue_token(key_set, args.player, now=time.time(), ttl_seconds=3600)


def _player_of(token: str) -> str:
    """The token's subject, to know which seat is ours: the gateway checks the signature,
    a client holding no key cannot (and need not)."""
    import jwt

    try:
        return str(jwt.decode(token, options={"verify_signature": False})["sub"])
    except (jwt.InvalidTokenError, KeyError):
        raise ValueError("--token is not a token: use `croupier token --player NAME`") from None


def run_play(args: argparse.Namespace, lines: Iterator[str], out: TextIO) -> int:
    import grpc

    from croupier.gateway.v1 import gateway_pb2_grpc

    try:
        token = _token(args)
        player = _player_of(token) if args.token else args.player
    except ValueError as error:
        print(f"croupier play: {error}", file=sys.stderr)
        return 2
    metadata = (("authorization", f"Bearer {token}"),)
    with grpc.insecure_channel(args.address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=READY_SECONDS)
        except grpc.FutureTimeoutError:
            print(
                f"croupier play: no gateway answers at {args.address}; start the platform "
                "first (`make run` or `.venv/bin/croupier run`) or give its address",
                file=sys.stderr,
            )
            return 2
        stub = gateway_pb2_grpc.GatewayStub(channel)
        try:
            table_id = _take_seat(stub, metadata, args, out)
            session = _Session(stub, metadata, player, args.game, table_id, lines, out)
            try:
                return _play(session, args.hands)
            finally:
                _leave(session)
        except NoSeat as error:
            print(f"croupier play: {error}", file=sys.stderr)
            return 1
        except grpc.RpcError as error:
            print(
                f"croupier play: the gateway answered {error.code().name}: {error.details()}",
                file=sys.stderr,
            )
            return 1


def _handle(args: argparse.Namespace) -> int:
    return run_play(args, iter(sys.stdin), sys.stdout)


def _player(text: str) -> str:
    try:
        return check_player_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _count(least: int, most: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or not least <= int(text) <= most:
            raise argparse.ArgumentTypeError(f"{least} to {most}")
        return int(text)

    return parse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play poker, backgammon or Joker against bots in this terminal, via the gateway",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", choices=sorted(RENDERERS), help="the game to play")
    parser.add_argument(
        "--address",
        default="127.0.0.1:50051",
        help="the gateway's gRPC address, as `croupier run` prints it (default %(default)s)",
    )
    parser.add_argument(
        "--player", type=_player, default="you", help="the player (default %(default)s)"
    )
    parser.add_argument("--token", default="", help="a token to use instead of issuing one")
    parser.add_argument(
        "--keys-file",
        type=Path,
        default=DEV_KEYS_FILE,
        help="the embedded platform's key set, read when CROUPIER_AUTH_KEYS is not set",
    )
    seat = parser.add_mutually_exclusive_group()
    seat.add_argument("--table", default="", help="join this listed table instead of opening one")
    seat.add_argument(
        "--quick",
        action="store_true",
        help="quick seat: wait for the lobby to match you with other players (FindGame)",
    )
    parser.add_argument(
        "--seats",
        type=_count(2, 9),
        default=2,
        help="poker: the table's seats (bots fill all but yours)",
    )
    parser.add_argument(
        "--turn-seconds",
        type=_count(0, 3600),
        default=0,
        help="the seconds a player has for each decision at the table opened (0: the game's)",
    )
    parser.add_argument(
        "--hands", type=_count(0, 10_000), default=0, help="stop after this many hands (0: never)"
    )
    parser.set_defaults(handler=_handle)
