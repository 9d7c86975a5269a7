"""`croupier kafka …`: Croupier's Kafka topics, for clusters without the Strimzi operator.

    croupier kafka topics                      the topics, their partitions and settings
    croupier kafka ensure-topics [--games poker,rummy|all] [--replication-factor 3]
                                 [--min-insync-replicas 2]

`TOPICS` is the one list of the topics and their settings: the chart's `kafkaTopics`
values are checked against it (tests/test_deploy_chart.py), and `ensure-topics` creates
the missing ones with it (each with its `.dlq`, and the table host's command log and
snapshots once per game, as the chart's per-game table services use them). An existing
topic is never changed: one whose partition count or cleanup policy differs is reported
(exit 1), since a command log's partition count cannot change without losing its tables.
The broker comes from `CROUPIER_KAFKA_BOOTSTRAP`, TLS and SASL from `CROUPIER_KAFKA_*`
(croupier.kit.kafka_security). Exit codes: 0 every topic right, 1 a topic differs, 2 the
broker refused or cannot be reached (one line on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["TOPICS", "Topic", "register", "topics_for"]

DAY_MS = 24 * 3600 * 1000
DEAD_LETTERS_RETENTION_MS = str(30 * DAY_MS)
TABLE_TOPICS = ("croupier.table.commands", "croupier.table.snapshots")


@dataclass(frozen=True)
class Topic:
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)


def _table_topics() -> tuple[Topic, Topic]:
    from croupier.table.adapters.kafka_topics import (
        DEFAULT_PARTITIONS,
        LOG_TOPIC_CONFIGS,
        SNAPSHOT_TOPIC_CONFIGS,
    )

    commands, snapshots = TABLE_TOPICS
    return (
        Topic(commands, DEFAULT_PARTITIONS, dict(LOG_TOPIC_CONFIGS)),
        Topic(snapshots, DEFAULT_PARTITIONS, dict(SNAPSHOT_TOPIC_CONFIGS)),
    )


TOPICS: tuple[Topic, ...] = (
    *_table_topics(),
    Topic("croupier.table.events", 6, {"retention.ms": str(7 * DAY_MS)}),
    Topic("croupier.wallet.requests", 6, {"retention.ms": str(7 * DAY_MS)}),
    Topic("croupier.wallet.transfers", 6, {"retention.ms": str(30 * DAY_MS)}),
    Topic("croupier.tournament.events", 3, {"retention.ms": str(30 * DAY_MS)}),
    Topic("croupier.lobby.events", 3, {"retention.ms": str(7 * DAY_MS)}),
)


def topics_for(games: Sequence[str]) -> list[Topic]:
    """Every topic and its dead-letter topic; the table host's two once per game of
    `games` (`croupier.table.<game>.commands`), or once for a host of every game (empty)."""
    found: list[Topic] = []
    for topic in TOPICS:
        names = [topic.name]
        if games and topic.name in TABLE_TOPICS:
            names = [topic.name.replace(".table.", f".table.{game}.") for game in games]
        for name in names:
            found.append(Topic(name, topic.partitions, topic.config))
            dead = {"retention.ms": DEAD_LETTERS_RETENTION_MS}
            found.append(Topic(f"{name}.dlq", 1, dead))
    return found


_TOPIC_ALREADY_EXISTS = 36
"""Kafka's error code for a topic created by someone else first."""


async def _ensure(
    bootstrap: str, topics: Sequence[Topic], replication: int, min_insync: int
) -> list[str]:
    """Create the missing topics; the problems of the existing ones."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    from croupier.kit.kafka_security import KafkaSecurity
    from croupier.table.adapters.kafka_topics import describe

    admin = AIOKafkaAdminClient(
        bootstrap_servers=bootstrap, **KafkaSecurity.from_environment().aiokafka()
    )
    await admin.start()
    problems = []
    try:
        existing = set(await admin.list_topics())
        missing = [t for t in topics if t.name not in existing]
        if missing:
            insync = {"min.insync.replicas": str(min_insync)}
            response = await admin.create_topics(
                [
                    NewTopic(
                        t.name, t.partitions, replication, topic_configs={**t.config, **insync}
                    )
                    for t in missing
                ]
            )
            for name, code, *rest in response.topic_errors:
                if code == _TOPIC_ALREADY_EXISTS:
                    # Made meanwhile (another ensure-topics, or a listing not yet up to
                    # date): checked below like any topic that was there.
                    existing.add(name)
                    continue
                if code != 0:
                    raise RuntimeError(
                        f"the broker refused to create {name} (error {code}: {rest})"
                    )
                print(f"created {name}")
        for topic in topics:
            if topic.name in existing:
                facts = await describe(admin, topic.name)
                if facts is None:  # just made by another, not yet in this broker's metadata
                    problems.append(f"{topic.name} exists but is not described yet: run again")
                    continue
                wanted = topic.config.get("cleanup.policy", "delete")
                if (facts.partitions, facts.cleanup_policy) != (topic.partitions, wanted):
                    problems.append(
                        f"{topic.name} has {facts.partitions} partitions and cleanup.policy="
                        f"{facts.cleanup_policy}; Croupier expects {topic.partitions} and {wanted}"
                    )
                else:
                    print(f"ok {topic.name}")
    finally:
        await admin.close()
    return problems


def _games(text: str) -> list[str]:
    from croupier.table.games import game_names

    return [] if text == "" else list(game_names(text))


def _run(args: argparse.Namespace) -> int:
    topics = topics_for(args.games)
    if args.action == "topics":
        for topic in topics:
            settings = " ".join(f"{k}={v}" for k, v in sorted(topic.config.items()))
            print(f"{topic.name} partitions={topic.partitions} {settings}")
        return 0
    bootstrap = os.environ.get("CROUPIER_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    try:
        problems = asyncio.run(
            _ensure(bootstrap, topics, args.replication_factor, args.min_insync_replicas)
        )
    except (OSError, RuntimeError, ValueError) as exc:  # unreachable, refused, settings
        print(f"croupier kafka ensure-topics: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"croupier kafka ensure-topics: {problem}", file=sys.stderr)
    return 1 if problems else 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "kafka",
        help="Croupier's Kafka topics: list them, create the missing ones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=("topics", "ensure-topics"))
    parser.add_argument(
        "--games",
        type=_games,
        default=_games("all"),
        help="the games with a table service of their own (default: all; '' for one host "
        "of every game on croupier.table.commands)",
    )
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument("--min-insync-replicas", type=int, default=2)
    parser.set_defaults(handler=_run)
