"""`croupier kafka ensure-topics` on the real broker: the missing topics created with the
code's settings (each with its `.dlq`), a second run finds them right, and an existing
topic of another shape is reported, never changed. The list is replaced by topics of the
test's own names, so the shared broker's real topics are left alone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from croupier.cli import kafka
from croupier.table.adapters.kafka_topics import describe
from tests.support.cli import run
from tests.support.infra import unique_name

ENSURE = ["kafka", "ensure-topics", "--games", "", "--replication-factor", "1"]
ENSURE += ["--min-insync-replicas", "1"]


@pytest.fixture
def own_topics(monkeypatch: pytest.MonkeyPatch, kafka_bootstrap: str) -> Iterator[list[str]]:
    """TOPICS replaced by a log-like and a compacted topic of unique names; every topic
    the test made is deleted at the end."""
    stem = unique_name("ensure")
    topics = (
        kafka.Topic(f"{stem}.log", 3, {"cleanup.policy": "delete", "retention.ms": "86400000"}),
        kafka.Topic(f"{stem}.compacted", 2, {"cleanup.policy": "compact"}),
    )
    monkeypatch.setattr(kafka, "TOPICS", topics)
    monkeypatch.setenv("CROUPIER_KAFKA_BOOTSTRAP", kafka_bootstrap)
    names = [t.name for t in kafka.topics_for([])]
    yield names

    async def delete() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            existing = set(await admin.list_topics())
            await admin.delete_topics([name for name in names if name in existing])
        finally:
            await admin.close()

    asyncio.run(delete())


async def facts(bootstrap: str, name: str) -> tuple[int, str] | None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        found = await describe(admin, name)
        return None if found is None else (found.partitions, found.cleanup_policy)
    finally:
        await admin.close()


def test_ensure_topics_creates_the_missing_then_finds_them_right(
    own_topics: list[str], kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _, compacted, compacted_dlq = own_topics
    code, out, err = run(ENSURE, capsys)
    assert (code, err) == (0, [])
    assert out.splitlines() == [f"created {name}" for name in own_topics]
    assert asyncio.run(facts(kafka_bootstrap, log)) == (3, "delete")
    assert asyncio.run(facts(kafka_bootstrap, compacted)) == (2, "compact")
    assert asyncio.run(facts(kafka_bootstrap, compacted_dlq)) == (1, "delete")

    code, out, err = run(ENSURE, capsys)
    assert (code, err) == (0, [])
    assert out.splitlines() == [f"ok {name}" for name in own_topics]


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "made_after_the_listing"])
def test_ensure_topics_reports_a_topic_of_another_shape_and_leaves_it(
    own_topics: list[str],
    kafka_bootstrap: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    listed: bool,
) -> None:
    """`listed` False: the topic is made by another after ensure-topics listed the topics
    (as when two run at once, or the listing lags): its creation is refused as existing,
    and the topic is checked all the same."""
    log = own_topics[0]
    if not listed:
        real_listing, calls = AIOKafkaAdminClient.list_topics, []

        async def listing_before_it(self: AIOKafkaAdminClient) -> list[str]:
            calls.append(1)  # the first listing is ensure-topics', taken before the topic
            return [] if len(calls) == 1 else await real_listing(self)

        monkeypatch.setattr(AIOKafkaAdminClient, "list_topics", listing_before_it)

    async def make_wrong() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(log, 5, 1)])
        finally:
            await admin.close()

    asyncio.run(make_wrong())
    code, _, err = run(ENSURE, capsys)
    assert code == 1
    assert err == [
        f"croupier kafka ensure-topics: {log} has 5 partitions and cleanup.policy=delete; "
        "Croupier expects 3 and delete"
    ]
    assert asyncio.run(facts(kafka_bootstrap, log)) == (5, "delete")
