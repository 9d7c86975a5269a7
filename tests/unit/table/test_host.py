"""The table host with the in-memory log and bus: commitments, voiding, stored and
ambiguous appends, closing, money requests when the bus fails.

The game is Georgian Joker (a real engine); the log and bus are the in-memory adapters,
which the Kafka integration tests replace with the real broker. What the host does the same
for every game (refusals, command ids, rebuilds, clock expiries, a disconnected player,
the gRPC answers, closing) is in contract/.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import ClassVar

import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import ClockSettings, RuleBroken
from croupier.game.fairness import commitment
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import EVENTS_TOPIC, WALLET_REQUESTS_TOPIC
from croupier.table.core.log_entry import LogEntry
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.tables import LogUnavailable, TableVoided
from croupier.table.v1 import table_pb2
from tests.support.contract import LONG_TURN, make_host, open_full_table
from tests.support.games import GAMES
from tests.support.table import FakeClock, Seeds, logged_entries, random_joker_action

JOKER = GAMES["joker"]


def published(bus: InMemoryBus, topic: str, event_type: str) -> list[Envelope]:
    envelopes = [Envelope.FromString(m.value or b"") for m in bus.messages(topic)]
    return [e for e in envelopes if e.type == event_type]


async def test_first_hand_is_dealt_with_a_published_commitment(bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, JOKER)
    await host.flush()
    started = published(bus, EVENTS_TOPIC, "table.hand_started")
    assert len(started) >= 1
    payload = table_pb2.ActionTaken()
    started[0].payload.Unpack(payload)
    seed = Seeds("t")()
    assert commitment(seed) in payload.public_json
    assert seed.hex() not in payload.public_json  # the seed itself stays secret until the end
    assert host.view(table_id, "").view["hand"] is not None


async def test_every_viewer_is_shown_the_dealt_hands_commitment_but_never_its_seed(
    bus: InMemoryBus,
) -> None:
    host = make_host(InMemoryCommandLog(), bus, FakeClock())
    await host.start()
    table_id = await host.open_table("joker", JOKER.options, LONG_TURN)
    waiting = host.view(table_id, "")
    assert (waiting.hand_number, waiting.hand_seed_sha256) == (0, "")
    for seat, player in enumerate(JOKER.players):
        await host.seat(table_id, player, seat, JOKER.stack)
    seed = Seeds("t")()
    for viewer in ("", *JOKER.players):  # a spectator and each player
        view = host.view(table_id, viewer)
        assert (view.hand_number, view.hand_seed_sha256) == (1, commitment(seed))
        assert seed.hex() not in repr(view)
    await host.stop()


async def test_table_with_unreadable_log_is_voided_and_refunded(bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, JOKER)
    await host.stop()
    log.append_raw(table_id, b"\x00garbage")

    rebuilt = make_host(log, bus, FakeClock())
    await rebuilt.start()
    assert table_id in rebuilt.voided
    refunds = published(bus, WALLET_REQUESTS_TOPIC, "wallet.crash_refund_requested")
    assert len(refunds) == 1
    with pytest.raises(TableVoided):
        await rebuilt.act(table_id, "giorgi", "x", {"action": "bid", "tricks": 0})


async def test_engine_version_mismatch_voids_the_table(bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    await log.append(
        [
            LogEntry(
                "t-old", 1, "open", "open", "", {"game": "joker", "options": {}}, 0, "joker", "0"
            )
        ]
    )
    host = make_host(log, bus, FakeClock())
    await host.start()
    assert "engine version mismatch" in host.voided["t-old"]


def test_clock_comes_from_the_game_options_when_not_given() -> None:
    from croupier.table.service.tables import clock_from_options

    assert clock_from_options({}) is None
    assert clock_from_options({"turn_seconds": 20, "reconnect_seconds": 180}) == ClockSettings(
        turn_ms=20_000, reserve_ms=0, reconnect_ms=180_000
    )
    backgammon = clock_from_options({"turn_seconds": 12, "main_clock_seconds": "300"})
    # No reconnect_seconds: 0, which the host replaces by the game's default window.
    assert backgammon == ClockSettings(turn_ms=12_000, reserve_ms=300_000, reconnect_ms=0)
    assert clock_from_options({"decision_seconds": 15}) == ClockSettings(
        turn_ms=15_000, reconnect_ms=0
    )


async def test_outside_evaluation_is_logged_with_the_unseat_and_not_asked_on_replay(
    bus: InMemoryBus,
) -> None:
    from croupier.game import Command, Event
    from croupier.joker.core.table import JokerTable
    from croupier.joker.engine import JokerEngine

    class EvaluatedJoker(JokerEngine):
        asked = 0
        seen: ClassVar[list[object]] = []

        async def evaluate_abandonment(self, state: JokerTable, player: str) -> dict[str, str]:
            EvaluatedJoker.asked += 1
            return {"equity": "0.25", "for": player}

        def apply(self, state: JokerTable, command: Command) -> tuple[JokerTable, list[Event]]:
            if isinstance(command, UnseatPlayer):
                EvaluatedJoker.seen.append(command.evaluation)
            return super().apply(state, command)

    from croupier.game import UnseatPlayer

    log = InMemoryCommandLog()
    engines = {"joker": EvaluatedJoker()}
    host = TableHost(engines=engines, command_log=log, publisher=bus, seeds=Seeds("e"))
    await host.start()
    table_id = await host.open_table("joker", {}, LONG_TURN)
    await host.seat(table_id, "giorgi", 0, 0)
    await host.unseat(table_id, "giorgi")
    (unseat,) = [e for e in await logged_entries(log) if e.kind == "unseat"]
    assert unseat.body == {"evaluation": {"equity": "0.25", "for": "giorgi"}}
    await host.stop()

    rebuilt = TableHost(engines=engines, command_log=log, publisher=bus, seeds=Seeds("f"))
    await rebuilt.start()
    assert EvaluatedJoker.asked == 1
    assert EvaluatedJoker.seen == [unseat.body["evaluation"]] * 2


async def test_the_games_default_window_fills_an_unstated_reconnect_time(bus: InMemoryBus) -> None:
    host = make_host(InMemoryCommandLog(), bus, FakeClock())
    await host.start()
    table_id = await host.open_table("backgammon", {"turn_seconds": 20}, None)
    clock = host.clock_settings(table_id)
    assert (clock.turn_ms, clock.reconnect_ms) == (20_000, 180_000)
    await host.stop()


class AckLostOnce(InMemoryCommandLog):
    """Stores the first action, then reports a failure (the broker's answer was lost)."""

    failed = False

    async def append(self, entries: Sequence[LogEntry]) -> None:
        await super().append(entries)
        if entries[0].kind == "act" and not self.failed:
            self.failed = True
            raise ConnectionError("acknowledgement lost")


async def test_a_command_stored_twice_after_a_lost_acknowledgement_is_replayed_once(
    bus: InMemoryBus,
) -> None:
    log = AckLostOnce()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, JOKER)
    to_act = host.view(table_id, "").view["hand"]["to_act"]
    action = random_joker_action(host.view(table_id, to_act).view["legal"], random.Random(2))
    with pytest.raises(LogUnavailable):
        await host.act(table_id, to_act, "retry-me", action)
    await host.act(table_id, to_act, "retry-me", action)  # the client retries
    digest = host.digest(table_id)
    await host.stop()
    rebuilt = make_host(log, bus, FakeClock(), label="again")
    await rebuilt.start()
    assert table_id not in rebuilt.voided
    assert rebuilt.digest(table_id) == digest


async def test_after_an_ambiguous_append_nothing_else_is_logged_before_it_is_confirmed(
    bus: InMemoryBus,
) -> None:
    """The fence: an append whose acknowledgement was lost may be in the log. The next
    command (here another action, not the client's retry) first logs the same entry again
    and commits it, so the live table never differs from what a replay rebuilds."""

    log = AckLostOnce()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, JOKER)
    before = host.view(table_id, "")
    to_act = before.view["hand"]["to_act"]
    rng = random.Random(3)
    legal = host.view(table_id, to_act).view["legal"]
    action = random_joker_action(legal, rng)
    other = next(a for a in (random_joker_action(legal, rng) for _ in range(99)) if a != action)
    with pytest.raises(LogUnavailable):
        await host.act(table_id, to_act, "lost-ack", action)
    assert host.view(table_id, "").version == before.version  # not committed yet
    # The same player tries something else under a new id: the fence commits the first
    # action, so this one is now out of turn.
    with pytest.raises(RuleBroken):
        await host.act(table_id, to_act, "something-else", other)
    assert host.view(table_id, "").version == before.version + 1
    digest = host.digest(table_id)
    await host.stop()
    rebuilt = make_host(log, bus, FakeClock(), label="again")
    await rebuilt.start()
    assert rebuilt.digest(table_id) == digest


async def test_concurrent_opens_with_one_request_key_log_one_opening(bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    ids = await asyncio.gather(*(host.open_table("joker", {}, None, "same") for _ in range(5)))
    assert len(set(ids)) == 1
    assert [e.kind for e in await logged_entries(log)] == ["open"]


class FlakyBus:
    """A publisher that fails its first `failures` calls, then delivers to a real bus."""

    def __init__(self, bus: InMemoryBus, failures: int) -> None:
        self.bus = bus
        self.failures = failures

    async def publish_many(self, messages: list[tuple[str, Envelope]]) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("broker away")
        await self.bus.publish_many(messages)


async def test_a_failed_publish_after_commit_neither_fails_the_command_nor_stalls_the_table(
    bus: InMemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("croupier.table.service.background.RETRY_SECONDS", 0.01)
    flaky = FlakyBus(bus, failures=3)
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=flaky,
        seeds=Seeds("flaky"),
    )
    await host.start()
    table_id = await open_full_table(host, JOKER)  # the 4th seat's events fail to publish
    assert host.view(table_id, "").view["hand"] is not None  # the hand was dealt anyway
    await asyncio.sleep(0.2)
    assert published(bus, EVENTS_TOPIC, "table.hand_started")  # delivered on a retry
    await host.stop()


async def test_a_timeout_the_log_refused_is_tried_again(
    bus: InMemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    class RefusesTimeoutsOnce(InMemoryCommandLog):
        refused = False

        async def append(self, entries: Sequence[LogEntry]) -> None:
            if entries[0].kind == "timeout" and not self.refused:
                self.refused = True
                raise ConnectionError("broker away")
            await super().append(entries)

    monkeypatch.setattr("croupier.table.service.background.RETRY_SECONDS", 0.01)
    log = RefusesTimeoutsOnce()
    host = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("r"))
    await host.start()
    table_id = await open_full_table(host, JOKER, ClockSettings(turn_ms=30))
    await asyncio.sleep(0.3)
    await host.stop()
    assert log.refused
    # The clock goes on after the refused timeout was logged on its retry: with a 30 ms
    # turn, many more timeouts follow (a stalled clock would leave one).
    assert len([e for e in await logged_entries(log) if e.kind == "timeout"]) >= 4
    assert host.view(table_id, "").version > 6


async def test_closing_during_a_hand_lets_it_settle_and_deals_no_other(bus: InMemoryBus) -> None:
    host = make_host(InMemoryCommandLog(), bus, FakeClock())
    await host.start()
    table_id = await host.open_table(
        "poker",
        {"variant": "nlhe", "blinds": [1, 2], "currency": "USD"},
        ClockSettings(turn_ms=3_600_000),
    )
    for seat, player in enumerate(("ann", "bob")):
        await host.seat(table_id, player, seat, 100)
    dealt = host.view(table_id, "").view["hand"]
    await host.close(table_id)
    closing = host.view(table_id, "")
    assert not closing.closed  # the hand in play goes on
    with pytest.raises(RuleBroken, match="closing"):
        await host.seat(table_id, "cy", 2, 100)
    await host.act(table_id, dealt["to_act"], "fold", {"action": "fold"})
    closed = host.view(table_id, "")
    assert closed.closed and closed.last_finished_hand == 1
    assert closed.view["hand_number"] == 1  # no hand 2
    await host.flush()
    assert len(published(bus, EVENTS_TOPIC, "table.table_closing")) == 1
    assert len(published(bus, EVENTS_TOPIC, "table.table_closed")) == 1
    (settlement,) = published(bus, WALLET_REQUESTS_TOPIC, "wallet.settlement_requested")
    assert settlement.subject == table_id
    with pytest.raises(RuleBroken, match="closed"):
        await host.act(table_id, "bob", "late", {"action": "check"})
    await host.stop()


class SlowAckOnce(InMemoryCommandLog):
    """Stores the first action at once and acknowledges it late."""

    slow = True

    async def append(self, entries: Sequence[LogEntry]) -> None:
        await super().append(entries)
        if entries[0].kind == "act" and self.slow:
            self.slow = False
            await asyncio.sleep(0.3)


async def test_a_caller_that_goes_away_mid_append_leaves_a_table_equal_to_its_replay(
    bus: InMemoryBus,
) -> None:
    """A cancelled call (client deadline) does not cut its command between append and
    commit: the logged action is committed, so the player's next try is out of turn."""
    log = SlowAckOnce()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, JOKER)
    to_act = host.view(table_id, "").view["hand"]["to_act"]
    rng = random.Random(5)
    legal = host.view(table_id, to_act).view["legal"]
    action = random_joker_action(legal, rng)
    other = next(a for a in (random_joker_action(legal, rng) for _ in range(99)) if a != action)
    call = asyncio.create_task(host.act(table_id, to_act, "one", action))
    await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    with pytest.raises(RuleBroken):  # waits for the table's lock: "one" is committed first
        await host.act(table_id, to_act, "two", other)
    digest = host.digest(table_id)
    await host.stop()
    rebuilt = make_host(log, bus, FakeClock(), label="again")
    await rebuilt.start()
    assert rebuilt.digest(table_id) == digest


async def test_money_requests_keep_the_tables_order_when_the_bus_fails(
    bus: InMemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A settlement the bus refused is resent before any later money request of the table."""
    monkeypatch.setattr("croupier.table.service.background.RETRY_SECONDS", 0.01)
    flaky = FlakyBus(bus, failures=0)
    host = TableHost(
        engines=load_engines(), command_log=InMemoryCommandLog(), publisher=flaky, seeds=Seeds("m")
    )
    await host.start()
    table_id = await host.open_table(
        "poker",
        {"variant": "nlhe", "blinds": [1, 2], "currency": "USD"},
        ClockSettings(turn_ms=3_600_000),
    )
    for seat, player in enumerate(("ann", "bob")):
        await host.seat(table_id, player, seat, 100)
    for hand in (1, 2, 3):
        if hand == 1:
            flaky.failures = 2  # hand 1's settlement fails twice
        to_act = host.view(table_id, "").view["hand"]["to_act"]
        await host.act(table_id, to_act, f"fold-{hand}", {"action": "fold"})
    await host.flush()
    settled = published(bus, WALLET_REQUESTS_TOPIC, "wallet.settlement_requested")
    assert [e.sequence for e in settled] == [1, 2, 3]
    await host.stop()


class StalledBus:
    """A publisher that does not answer while `stalled` (a broker gone quiet)."""

    def __init__(self, bus: InMemoryBus) -> None:
        self.bus = bus
        self.back = asyncio.Event()

    async def publish_many(self, messages: list[tuple[str, Envelope]]) -> None:
        await self.back.wait()
        await self.bus.publish_many(messages)


async def test_a_settlement_the_bus_does_not_take_does_not_hold_the_caller_past_the_bound(
    bus: InMemoryBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hand-ending action is logged; its settlement request waits on a silent bus. The
    caller is answered by its deadline all the same (the command stands) and the request
    goes out once the bus answers again."""
    monkeypatch.setattr("croupier.table.service.background.RETRY_SECONDS", 0.01)
    stalled = StalledBus(bus)
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=stalled,
        seeds=Seeds("s"),
    )
    await host.start()
    options = {"variant": "nlhe", "blinds": [1, 2], "currency": "USD"}
    table_id = await host.open_table("poker", options, ClockSettings(turn_ms=3_600_000))
    for seat, player in enumerate(("ann", "bob")):
        await host.seat(table_id, player, seat, 100)
    to_act = host.view(table_id, "").view["hand"]["to_act"]
    started = asyncio.get_running_loop().time()
    answer = await asyncio.wait_for(
        host.act(table_id, to_act, "fold", {"action": "fold"}, within=0.3), 5
    )
    assert asyncio.get_running_loop().time() - started < 1
    assert answer.last_finished_hand == 1
    stalled.back.set()
    await asyncio.wait_for(host.flush(), 5)
    (settlement,) = published(bus, WALLET_REQUESTS_TOPIC, "wallet.settlement_requested")
    assert settlement.subject == table_id
    await host.stop()
