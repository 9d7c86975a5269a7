"""The table host's topics, checked before it serves: a host on a wrong topic stops at
once with a message naming the setting, instead of voiding tables later.

- The command log (`croupier.table.commands`): the partition count the host was told
  (`CROUPIER_TABLE_PARTITIONS`: a table's partition is its key's hash modulo the count, so
  a topic re-created with another count scatters every table), `cleanup.policy=delete`
  (compaction would keep one entry per table), and `retention.ms` of at least
  `MIN_LOG_RETENTION_MS` or -1 (for ever). Snapshots make the head of an open table's log
  unnecessary (`service.snapshots`: the sweep keeps every open table's snapshot within a
  minute of the end), so the log's head may expire; closed tables' entries go with it.
- The snapshots (`croupier.table.snapshots`): as many partitions as the command log (a
  table's snapshot lives in the same partition number as its log) and
  `cleanup.policy=compact` alone: the latest snapshot of each table is kept for ever,
  the older ones are compacted away; `delete` would expire idle tables' snapshots.

The host never creates them: an operator does (`deploy/local/kafka_admin.py topics` for
the local broker, the chart's KafkaTopic resources in Kubernetes), with `create_topics`'s
settings; the check looks them up without the metadata request that would create a
missing topic with the broker's defaults (a wiped broker must not come back with an empty
log of another shape: the host refuses to serve on it).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from croupier.kit.kafka_security import KafkaSecurity
from croupier.kit.settings import SettingsError
from croupier.table.adapters.log_codec import TOPIC

DEFAULT_PARTITIONS = 6
# A sweep snapshots every open table each `SnapshotPolicy.sweep_seconds` (30 s); a day of
# retention leaves room for a host stopped for hours.
MIN_LOG_RETENTION_MS = 24 * 3600 * 1000
# The settings `create_topics` gives the topics: Kafka's default week for the log; for
# the snapshots, segments closed hourly so the cleaner compacts them (loading reads what
# is not compacted yet).
LOG_TOPIC_CONFIGS = {"cleanup.policy": "delete", "retention.ms": str(7 * 24 * 3600 * 1000)}
SNAPSHOT_TOPIC_CONFIGS = {
    "cleanup.policy": "compact",
    "segment.ms": str(3600 * 1000),
    "min.cleanable.dirty.ratio": "0.1",
}
TOPIC_ALREADY_EXISTS = 36
# How long the broker may hold a fetch of a consumer that reads a partition to its end
# (a rebuild's reads). Kafka's default, 500 ms, made a start-up wait half a second at
# random: a fetch sent past the last record sits at the broker that long, and the
# consumer's next request on the connection (its position, its end offsets) queues behind.
READ_TO_END_WAIT_MS = 20


def snapshots_topic_for(commands_topic: str) -> str:
    """The snapshot topic that goes with a command log: one per log (a host loads every
    snapshot of its partitions), `croupier.table.snapshots` for `croupier.table.commands`."""
    stem = commands_topic.removesuffix(".commands")
    return f"{stem}.snapshots"


SNAPSHOTS_TOPIC = snapshots_topic_for(TOPIC)


class TopicMisconfigured(SettingsError):
    """The host's topics are missing or set up so that tables would be lost."""


@dataclass(frozen=True)
class TopicFacts:
    partitions: int
    cleanup_policy: str
    retention_ms: int


def log_problems(name: str, facts: TopicFacts | None, partitions: int) -> list[str]:
    if facts is None:
        return [f"the command-log topic {name!r} does not exist"]
    problems = []
    if facts.partitions != partitions:
        problems.append(
            f"the command-log topic {name!r} has {facts.partitions} partitions, the host "
            f"expects {partitions} (CROUPIER_TABLE_PARTITIONS)"
        )
    if set(facts.cleanup_policy.split(",")) != {"delete"}:
        problems.append(
            f"the command-log topic {name!r} has cleanup.policy={facts.cleanup_policy}, "
            "it must be delete"
        )
    if facts.retention_ms != -1 and facts.retention_ms < MIN_LOG_RETENTION_MS:
        problems.append(
            f"the command-log topic {name!r} keeps records {facts.retention_ms} ms, at least "
            f"{MIN_LOG_RETENTION_MS} ms (or -1) is needed"
        )
    return problems


def snapshot_problems(name: str, facts: TopicFacts | None, partitions: int) -> list[str]:
    if facts is None:
        return [f"the snapshot topic {name!r} does not exist"]
    problems = []
    if facts.partitions != partitions:
        problems.append(
            f"the snapshot topic {name!r} has {facts.partitions} partitions, as many as the "
            f"command log's ({partitions}) are needed"
        )
    if facts.cleanup_policy != "compact":
        problems.append(
            f"the snapshot topic {name!r} has cleanup.policy={facts.cleanup_policy}, it "
            "must be compact (alone: delete would expire idle tables' snapshots)"
        )
    return problems


async def describe(admin: AIOKafkaAdminClient, name: str) -> TopicFacts | None:
    """The topic's partition count and retention settings; None when it does not exist."""
    if name not in await admin.list_topics():  # a metadata request for all: creates none
        return None
    (topic,) = await admin.describe_topics([name])
    (response,) = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])
    (resource,) = response.resources
    configs = {entry[0]: entry[1] for entry in resource[4]}
    return TopicFacts(
        partitions=len(topic["partitions"]),
        cleanup_policy=str(configs.get("cleanup.policy", "delete")),
        retention_ms=int(configs.get("retention.ms") or -1),
    )


async def check_topics(
    bootstrap: str,
    commands_topic: str,
    snapshots_topic: str,
    partitions: int,
    security: KafkaSecurity | None = None,
) -> None:
    """Raise `TopicMisconfigured`, naming every problem, unless both topics are right."""
    security = security or KafkaSecurity.from_environment()
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **security.aiokafka())
    await admin.start()
    try:
        problems = log_problems(commands_topic, await describe(admin, commands_topic), partitions)
        problems += snapshot_problems(
            snapshots_topic, await describe(admin, snapshots_topic), partitions
        )
    finally:
        await admin.close()
    if problems:
        raise TopicMisconfigured(
            "the table host will not serve on these topics: "
            + "; ".join(problems)
            + " (docs/table-host.md, 'Topics')"
        )


async def create_topics(
    bootstrap: str,
    commands_topic: str = TOPIC,
    snapshots_topic: str = SNAPSHOTS_TOPIC,
    partitions: int = DEFAULT_PARTITIONS,
) -> None:
    """Create the two topics as the check wants them (an existing one is left as it is),
    and wait until the broker lists them."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        response = await admin.create_topics(
            [
                NewTopic(commands_topic, partitions, 1, topic_configs=LOG_TOPIC_CONFIGS),
                NewTopic(snapshots_topic, partitions, 1, topic_configs=SNAPSHOT_TOPIC_CONFIGS),
            ]
        )
        failed = [
            (topic, code)
            for topic, code, *_ in response.topic_errors
            if code not in (0, TOPIC_ALREADY_EXISTS)
        ]
        if failed:
            raise RuntimeError(f"could not create the table host's topics: {failed}")
        for _ in range(300):
            if {commands_topic, snapshots_topic} <= set(await admin.list_topics()):
                return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"{commands_topic} and {snapshots_topic} not listed after creation")
    finally:
        await admin.close()
