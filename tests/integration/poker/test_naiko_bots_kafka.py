"""500 Naiko hands of bots through the gRPC TableEngine on the real Kafka broker (issue 5).

The service runs in this process (`KafkaCommandLog` on a topic of its own, `KafkaBus`); six
seats labelled BOT (three `RuleBot`, three `RandomBot`) play 500 hands. Each decision is
the bot's own view (`GetView` for its seat) turned into an action, sent with `Act` (half as
`GameAction.poker`, half as `action_json`); the Act response is that bot's next view. A
busted bot leaves and sits again with a new buy-in between hands.

A shadow table (the pure adapter, with the host's seeds) follows every accepted command, so
the test knows every hole card, peeked and swapped-in card, and checks:

- rule 59 / §7: no message any player received (WatchView stream, GetView, Act responses,
  error details) names another player's hole card (held at any time in that hand) or the
  card another player saw with Sneak Peek / got with Sleeve Swap, unless that message shows
  it on the board or in the showdown;
- every Act response is exactly the adapter's view for that seat (server-confirmed state);
- chips: within each view, stacks + bets + pots are the hand's starting total; each of the
  500 `SettlementRequested` read back from `croupier.wallet.requests` sums to minus its
  commission (0); buy-ins + settled deltas = the table's final stacks;
- rules 25-27: no Destello balance in any view is negative or above 3;
- seats are labelled BOT (JSON `bot`, protobuf `Seat.is_bot`);
- bad actions sent in the run (out of turn, a power the Carousel lacks, a raise above the
  maximum) are refused with the right status and the view version is unchanged.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from croupier.common.v1 import common_pb2
from croupier.game import Act, Command, SeatPlayer, StartHand, UnseatPlayer
from croupier.poker.codec import KIND_ENUMS, POWER_ENUMS
from croupier.poker.core import cards as C
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.tools.bots import Bot, make_bot
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.kafka_table import WalletRequests, kafka_service
from tests.support.table import Seeds

pytestmark = pytest.mark.timeout(240)

HANDS = 500
BUY_IN = 1000
OPTIONS = {"variant": "naiko", "blinds": [5, 10], "seats": 6}
PLAYERS = [f"bot{i}" for i in range(6)]
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


def as_proto(action: dict[str, Any]) -> poker_pb2.Action:
    message = poker_pb2.Action(kind=KIND_ENUMS[action["action"]])
    if "to" in action:
        message.to = action["to"]
    if action["action"] == "power":
        message.power = POWER_ENUMS[action["power"]]
        if "card" in action:
            message.card.CopyFrom(common_pb2.Card(code=action["card"]))
        message.target = action.get("target", "")
    return message


class Shadow:
    """The table as the host must have it: the same commands and seeds, applied locally."""

    def __init__(self, seeds: Seeds) -> None:
        self.state: PokerTable = ENGINE.open(OPTIONS)
        self.seeds = seeds
        # hand number -> player -> every card he held / peeked at in that hand
        self.held: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.peeked: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.start_total: dict[int, int] = {}

    def apply(self, command: Command) -> None:
        self.state, _ = ENGINE.apply(self.state, command)
        self._record()
        if ENGINE.can_start_hand(self.state):  # the host deals as soon as it can
            self.state, _ = ENGINE.apply(self.state, StartHand(self.seeds()))
            hand = self.state.hand
            assert hand is not None
            self.start_total[self.state.hand_number] = sum(hand.initial)
            self._record()

    def _record(self) -> None:
        hand = self.state.hand
        if hand is None:
            return
        number = self.state.hand_number
        for i, pid in enumerate(hand.ids):
            self.held[number][pid].update(C.names(hand.hole[i]))
            if hand.naiko is not None and hand.naiko.peeked[i] is not None:
                self.peeked[number][pid].add(C.name(hand.naiko.peeked[i]))


class Received:
    """Every message a player received, kept as (hand number, texts to scan, view JSON)."""

    def __init__(self) -> None:
        self.messages: dict[str, list[tuple[int, str, dict[str, Any]]]] = defaultdict(list)
        self.errors: dict[str, list[tuple[int, str]]] = defaultdict(list)

    def view(self, player: str, view: table_pb2.TableView) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(view.view_json)
        text = view.view_json + "\n" + str(view.game)
        self.messages[player].append((int(parsed["hand_number"]), text, parsed))
        return parsed


def forbidden_cards(shadow: Shadow, player: str, hand: int) -> set[str]:
    others: set[str] = set()
    for pid, cards in shadow.held[hand].items():
        if pid != player:
            others |= cards
    for pid, cards in shadow.peeked[hand].items():
        if pid != player:
            others |= cards
    return others - shadow.held[hand][player] - shadow.peeked[hand][player]


def shown_cards(view: dict[str, Any]) -> set[str]:
    hand = view.get("hand") or {}
    allowed = set(hand.get("board", []))
    for cards in (hand.get("result") or {}).get("shown", {}).values():
        allowed |= set(cards)
    return allowed


def iter_views(received: Received) -> Iterator[tuple[str, int, str, dict[str, Any]]]:
    for player, messages in received.messages.items():
        for number, text, view in messages:
            yield player, number, text, view


async def test_500_naiko_hands_of_bots_rule_59_no_leaks_chips_conserved(
    kafka_bootstrap: str,
) -> None:
    label = f"naiko-500/{random.random()}"
    shadow = Shadow(Seeds(label))
    rng = random.Random(2026)
    bots: dict[str, Bot] = {
        p: make_bot("rule" if i % 2 == 0 else "random", p, random.Random(i))
        for i, p in enumerate(PLAYERS)
    }
    received = Received()
    bought = dict.fromkeys(PLAYERS, 0)
    powers_used: dict[str, int] = defaultdict(int)
    refusals: dict[str, int] = defaultdict(int)
    started = time.perf_counter()
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_service(kafka_bootstrap, label) as stub,
    ):
        opened = await stub.OpenTable(
            table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(OPTIONS))
        )
        table_id = opened.table_id

        async def watch(player: str) -> None:
            request = table_pb2.WatchViewRequest(table_id=table_id, player_id=player)
            async for message in stub.WatchView(request):
                received.view(player, message.view)

        async def seat(player: str, number: int) -> None:
            response = await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=number, stack=BUY_IN, is_bot=True
                )
            )
            bought[player] += BUY_IN
            shadow.apply(SeatPlayer(player, number, BUY_IN, True))
            view = received.view(player, response.view)
            mine = next(s for s in view["table"] if s["player"] == player)
            assert (mine["seat"], mine["bot"]) == (number, True)
            assert all(s.is_bot for s in response.view.game.poker.seats)

        for number, player in enumerate(PLAYERS):
            await seat(player, number)
            if number == 0:
                watchers = [asyncio.ensure_future(watch(p)) for p in PLAYERS]
                await asyncio.sleep(0.2)

        decisions = 0
        while shadow.state.hand_number < HANDS or shadow.state.running:
            if shadow.state.hand_number > HANDS:
                break
            hand_number = shadow.state.hand_number
            (turn,) = ENGINE.turns(shadow.state)  # whose turn: public (`to_act`)
            player = turn.player
            mine = (
                await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))
            ).view
            view = received.view(player, mine)
            assert view["hand"]["to_act"] == player
            if decisions % 97 == 5:
                await try_bad_actions(stub, table_id, player, view, received, refusals)
            action = bots[player].decide(view)
            assert action is not None
            request = table_pb2.ActRequest(
                table_id=table_id, player_id=player, command_id=f"{player}/{mine.version}"
            )
            if rng.random() < 0.5:
                request.action.poker.CopyFrom(as_proto(action))
            else:
                request.action_json = json.dumps(action)
            response = await stub.Act(request)
            decisions += 1
            if action["action"] == "power":
                powers_used[action["power"]] += 1
            if action["action"] == "seal":
                powers_used["seal"] += 1
            shadow.apply(Act(player, action))
            confirmed = received.view(player, response.view)
            # The server-confirmed state is exactly the adapter's view of the shadow.
            assert confirmed == json.loads(json.dumps(ENGINE.view(shadow.state, player)))
            if shadow.state.hand_number != hand_number or not shadow.state.running:
                # Between hands: a busted bot leaves and buys in again (he joins next hand).
                for number, pid, chips in shadow.state.seats:
                    if chips == 0 and shadow.state.hand_number < HANDS:
                        await stub.UnseatPlayer(
                            table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=pid)
                        )
                        shadow.apply(UnseatPlayer(pid))
                        await seat(pid, number)
        final = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
        await asyncio.sleep(0.5)
        for task in watchers:
            task.cancel()
        settlements = [s for s in await wallet.settlements(table_id) if s.hand_number <= HANDS]
    elapsed = time.perf_counter() - started
    print(f"{HANDS} hands, {decisions} decisions in {elapsed:.1f} s; powers {dict(powers_used)}")

    # The bots used powers through the API, and the bad actions were refused.
    assert powers_used["peek"] and powers_used["swap"] and powers_used["anchor"]
    assert powers_used["seal"]
    assert sum(refusals.values()) >= 3 * 10

    # Chips: every settlement sums to minus its commission, and buy-ins + deltas = stacks.
    assert sorted(s.hand_number for s in settlements) == list(range(1, HANDS + 1))
    totals = dict(bought)
    for settlement in settlements:
        assert sum(settlement.deltas.values()) == -sum(settlement.commission.values()) == 0
        for pid, delta in settlement.deltas.items():
            totals[pid] += delta
    stacks = {seat["player"]: seat["stack"] for seat in json.loads(final.view_json)["table"]}
    assert stacks == {pid: chips for _, pid, chips in shadow.state.seats}
    assert totals == stacks
    assert sum(stacks.values()) == sum(bought.values())

    # Every message: chips conserved, Destellos 0..3, BOT labels, no hidden card.
    scanned = 0
    for player, number, text, view in iter_views(received):
        assert all(seat["bot"] for seat in view["table"]), view["table"]
        assert "is_bot: true" in text or not view["table"]
        assert "is_bot: true" in text or not view["table"]
        balances = list(view.get("table_destellos", {}).values())
        hand = view.get("hand")
        if hand is not None:
            balances += list(hand.get("destellos", {}).values())
            seats = hand["seats"]
            if hand["status"] == "complete":
                assert sum(s["stack"] for s in seats) == shadow.start_total[number]
            else:
                chips = sum(s["stack"] + s["bet"] for s in seats)
                assert chips + sum(p["amount"] for p in hand["pots"]) == shadow.start_total[number]
        assert all(0 <= b <= 3 for b in balances), balances
        leaked = set(CARD.findall(text)) & (
            forbidden_cards(shadow, player, number) - shown_cards(view)
        )
        assert not leaked, f"{player} saw {sorted(leaked)} of others in hand {number}"
        scanned += 1
    for player, errors in received.errors.items():
        for number, details in errors:
            leaked = set(CARD.findall(details)) & forbidden_cards(shadow, player, number)
            assert not leaked, f"an error to {player} names {sorted(leaked)}"
    watched = {p: len(m) for p, m in received.messages.items()}
    assert all(count > HANDS for count in watched.values()), watched
    print(f"scanned {scanned} messages")


async def try_bad_actions(
    stub: table_pb2_grpc.TableEngineStub,
    table_id: str,
    player: str,
    view: dict[str, Any],
    received: Received,
    refusals: dict[str, int],
) -> None:
    """Out of turn, a power the Carousel lacks, a raise above the maximum: refused, nothing
    logged (the version is unchanged), and the message names no hidden card."""
    hand = view["hand"]
    other = next(s["player"] for s in hand["seats"] if s["player"] != player)
    missing = sorted({"peek", "swap"} - set(hand["carousel"]))
    attempts: list[tuple[str, dict[str, Any], set[grpc.StatusCode]]] = [
        (other, {"action": "fold"}, {grpc.StatusCode.FAILED_PRECONDITION}),
        (player, {"action": "raise", "to": 10**9}, {grpc.StatusCode.FAILED_PRECONDITION}),
    ]
    if missing:
        power = {"action": "power", "power": missing[0]}
        if missing[0] == "swap":
            power["card"] = next(s for s in hand["seats"] if s["player"] == player)["hole_cards"][0]
        attempts.append((player, power, {grpc.StatusCode.FAILED_PRECONDITION}))
    else:
        attempts.append((player, {"action": "seal"}, {grpc.StatusCode.FAILED_PRECONDITION}))
    for who, action, codes in attempts:
        before = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view.version
        try:
            await stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=who,
                    command_id=f"bad/{who}/{before}/{action['action']}",
                    action_json=json.dumps(action),
                )
            )
        except grpc.aio.AioRpcError as exc:
            assert exc.code() in codes, (action, exc.code(), exc.details())
            received.errors[who].append((int(view["hand_number"]), exc.details() or ""))
            refusals[action["action"]] += 1
        else:
            raise AssertionError(f"{action} by {who} was accepted")
        after = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view.version
        assert after == before
