"""The in-memory event bus: the same delivery semantics as Kafka, without a broker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from google.protobuf import wrappers_pb2

from croupier.kit.bus import (
    DLQ_REASON_HEADER,
    TYPE_HEADER,
    Envelope,
    EnvelopeDecodeError,
    InMemoryBus,
    InMemoryDeduplicator,
    SubjectSequencer,
    dead_letter_topic,
    decode_envelope,
    make_envelope,
)

TOPIC = "croupier.table.events"


def envelope(subject: str, sequence: int, text: str = "") -> Envelope:
    return make_envelope(
        type="test.happened",
        source="tests",
        subject=subject,
        sequence=sequence,
        payload=wrappers_pb2.StringValue(value=text or f"{subject}#{sequence}"),
    )


async def until(condition: Callable[[], bool], within: float = 2.0) -> None:
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - polling a plain condition is the point
            await asyncio.sleep(0.001)


def test_make_envelope_fills_every_field_and_round_trips() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    made = make_envelope(
        type="table.hand_started",
        source="table",
        subject="table-7",
        sequence=3,
        payload=wrappers_pb2.StringValue(value="x"),
        request_id="req-1",
        now=now,
    )
    decoded = decode_envelope(made.SerializeToString())
    assert decoded == made
    assert len(decoded.id) == 36
    assert decoded.time.ToDatetime(tzinfo=UTC) == now
    unpacked = wrappers_pb2.StringValue()
    assert decoded.payload.Unpack(unpacked)
    assert unpacked.value == "x"
    assert (
        make_envelope(type="t", source="s", subject="x", sequence=1, payload=unpacked).id != made.id
    )


@pytest.mark.parametrize(
    "raw", [b"", b"\xff\xff\xff", Envelope(type="t", subject="s").SerializeToString()]
)
def test_decode_envelope_rejects_what_consumers_cannot_use(raw: bytes) -> None:
    with pytest.raises(EnvelopeDecodeError):
        decode_envelope(raw)


def test_subject_sequencer_counts_per_subject_and_resumes() -> None:
    sequencer = SubjectSequencer()
    assert [sequencer.next("a"), sequencer.next("a"), sequencer.next("b")] == [1, 2, 1]
    sequencer.start_after("c", 41)
    assert sequencer.next("c") == 42


async def test_in_memory_deduplicator_forgets_the_least_recently_seen() -> None:
    dedup = InMemoryDeduplicator(capacity=2)
    await dedup.remember("g", "1")
    await dedup.remember("g", "2")
    assert await dedup.seen("g", "1")  # touches 1: 2 is now the oldest
    await dedup.remember("g", "3")
    assert await dedup.seen("g", "1") and await dedup.seen("g", "3")
    assert not await dedup.seen("g", "2")
    assert not await dedup.seen("other-consumer", "1")


async def test_each_group_receives_each_envelope_once() -> None:
    received: dict[str, list[str]] = {"a": [], "b": []}
    async with InMemoryBus() as bus:
        for group in received:
            await bus.subscribe(
                TOPIC, group=group, handler=lambda e, g=group: _append(received[g], e.id)
            )
        sent = [envelope("t1", n) for n in range(1, 6)]
        for item in sent:
            await bus.publish(TOPIC, item)
        await until(lambda: all(len(ids) == 5 for ids in received.values()))
        await asyncio.sleep(0.01)
    assert received["a"] == received["b"] == [item.id for item in sent]


async def _append(target: list[str], value: str) -> None:
    target.append(value)


async def test_members_of_a_group_split_the_subjects_and_keep_each_subjects_order() -> None:
    by_member: list[list[Envelope]] = [[], []]
    async with InMemoryBus() as bus:
        for index in range(2):
            await bus.subscribe(
                TOPIC, group="g", handler=lambda e, i=index: _append_envelope(by_member[i], e)
            )
        sequencer = SubjectSequencer()
        subjects = [f"table-{n}" for n in range(8)]
        for _ in range(5):
            for subject in subjects:
                await bus.publish(TOPIC, envelope(subject, sequencer.next(subject)))
        await until(lambda: sum(map(len, by_member)) == 40)
    assert all(by_member), "both members got work"
    for member in by_member:
        for subject in {e.subject for e in member}:
            assert [e.sequence for e in member if e.subject == subject] == [1, 2, 3, 4, 5]
    assert not {e.subject for e in by_member[0]} & {e.subject for e in by_member[1]}


async def _append_envelope(target: list[Envelope], value: Envelope) -> None:
    target.append(value)


async def test_undecodable_message_goes_to_the_dlq_and_does_not_block() -> None:
    received: list[int] = []
    async with InMemoryBus() as bus:
        await bus.publish(TOPIC, envelope("s", 1))
        await bus.publish_raw(TOPIC, key=b"s", value=b"\x08\x96\x01 not an envelope \xff")
        await bus.publish(TOPIC, envelope("s", 2))
        await bus.subscribe(TOPIC, group="g", handler=lambda e: _append_int(received, e.sequence))
        await until(lambda: len(received) == 2)
        dead = bus.messages(dead_letter_topic(TOPIC))
    assert received == [1, 2]
    assert len(dead) == 1
    assert dead[0].value == b"\x08\x96\x01 not an envelope \xff"
    reason = dead[0].header(DLQ_REASON_HEADER)
    assert reason is not None and reason.startswith(b"not a protobuf Envelope")


async def _append_int(target: list[int], value: int) -> None:
    target.append(value)


async def test_redelivered_envelope_is_applied_once_with_a_deduplicator() -> None:
    applied: list[str] = []
    without_dedup: list[str] = []
    async with InMemoryBus() as bus:
        await bus.subscribe(
            TOPIC,
            group="deduplicated",
            handler=lambda e: _append(applied, e.id),
            deduplicator=InMemoryDeduplicator(),
        )
        await bus.subscribe(TOPIC, group="plain", handler=lambda e: _append(without_dedup, e.id))
        first, second = envelope("s", 1), envelope("s", 2)
        for item in (first, first, second, first):  # e.g. an outbox relay republishing
            await bus.publish(TOPIC, item)
        await until(lambda: len(without_dedup) == 4)
        await asyncio.sleep(0.01)
    assert applied == [first.id, second.id]
    assert without_dedup == [first.id, first.id, second.id, first.id]


async def test_failing_handler_is_retried_then_dead_lettered() -> None:
    attempts: dict[int, int] = {}

    async def flaky(item: Envelope) -> None:
        attempts[item.sequence] = attempts.get(item.sequence, 0) + 1
        if item.sequence == 1 and attempts[1] < 3:
            raise ConnectionError("database blinked")
        if item.sequence == 2:
            raise ValueError("never works")

    async with InMemoryBus() as bus:
        for number in (1, 2, 3):
            await bus.publish(TOPIC, envelope("s", number))
        await bus.subscribe(TOPIC, group="g", handler=flaky, max_attempts=4)
        await until(lambda: 3 in attempts, within=5)
        dead = bus.messages(dead_letter_topic(TOPIC))
    assert attempts == {1: 3, 2: 4, 3: 1}
    assert [decode_envelope(d.value).sequence for d in dead] == [2]
    reason = dead[0].header(DLQ_REASON_HEADER)
    assert reason is not None and b"ValueError: never works" in reason


async def test_resubscribing_a_group_continues_where_it_stopped() -> None:
    received: list[int] = []
    async with InMemoryBus() as bus:
        subscription = await bus.subscribe(
            TOPIC, group="g", handler=lambda e: _append_int(received, e.sequence)
        )
        for number in (1, 2, 3):
            await bus.publish(TOPIC, envelope("s", number))
        await until(lambda: len(received) == 3)
        await subscription.stop()
        await subscription.stop()  # twice is fine
        for number in (4, 5):
            await bus.publish(TOPIC, envelope("s", number))
        await asyncio.sleep(0.01)
        assert received == [1, 2, 3], "nothing is delivered while the group has no member"
        await bus.subscribe(TOPIC, group="g", handler=lambda e: _append_int(received, e.sequence))
        await until(lambda: len(received) == 5)
    assert received == [1, 2, 3, 4, 5]


async def test_publishing_on_a_stopped_bus_is_an_error() -> None:
    bus = InMemoryBus()
    with pytest.raises(RuntimeError, match="not started"):
        await bus.publish(TOPIC, envelope("s", 1))
    await bus.start()
    await bus.stop()
    await bus.stop()


class FlakyDeduplicator(InMemoryDeduplicator):
    """Its store is unreachable for the first `failures` look-ups."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def seen(self, consumer: str, envelope_id: str) -> bool:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("deduplication store unreachable")
        return await super().seen(consumer, envelope_id)


async def test_a_failing_deduplicator_delays_delivery_but_loses_nothing() -> None:
    received: list[int] = []
    async with InMemoryBus() as bus:
        for number in (1, 2):
            await bus.publish(TOPIC, envelope("s", number))
        await bus.subscribe(
            TOPIC,
            group="g",
            handler=lambda e: _append_int(received, e.sequence),
            deduplicator=FlakyDeduplicator(failures=1),
        )
        await until(lambda: len(received) == 2)
    assert received == [1, 2]


async def test_a_subscription_for_some_types_gets_those_and_passes_the_rest_undecoded() -> None:
    def typed(kind: str, sequence: int) -> Envelope:
        return make_envelope(
            type=kind, source="tests", subject="s", sequence=sequence, payload=envelope("s", 1)
        )

    wanted, other, headless = typed("t.wanted", 1), typed("t.other", 2), typed("t.other", 3)
    received: list[int] = []
    everything: list[int] = []
    async with InMemoryBus() as bus:
        await bus.publish(TOPIC, wanted)
        await bus.publish(TOPIC, other)
        # Bytes that are no envelope, typed as one not taken: passed over, not dead-lettered.
        await bus.publish_raw(
            TOPIC, key=b"s", value=b"\xff not an envelope", headers=[(TYPE_HEADER, b"t.other")]
        )
        # A message without the type header is decoded and handed over: the handler decides.
        await bus.publish_raw(TOPIC, key=b"s", value=headless.SerializeToString())
        await bus.subscribe(
            TOPIC,
            group="some",
            handler=lambda e: _append_int(received, e.sequence),
            types=["t.wanted"],
        )
        await bus.subscribe(
            TOPIC, group="all", handler=lambda e: _append_int(everything, e.sequence)
        )
        await until(lambda: len(everything) == 3 and len(received) == 2)
        await asyncio.sleep(0.01)
        dead = bus.messages(dead_letter_topic(TOPIC))
    assert received == [1, 3]
    assert everything == [1, 2, 3]
    assert len(dead) == 1  # the "all" group's: it decodes every message
