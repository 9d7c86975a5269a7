"""Readiness check and topic creation for the local Kafka broker (used by deploy/local/kafka.sh).

    kafka_admin.py ready  --bootstrap 127.0.0.1:9092 --timeout 60 [--pid 1234]
    kafka_admin.py topics --bootstrap 127.0.0.1:9092

`ready` waits until a metadata request succeeds (and gives up early if the broker process,
`--pid`, has died). `topics` creates Croupier's well-known topics and their dead-letter
topics; an existing topic is left as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError

from croupier.table.adapters.kafka_topics import (
    LOG_TOPIC_CONFIGS,
    SNAPSHOT_TOPIC_CONFIGS,
    SNAPSHOTS_TOPIC,
)

# (name, partitions). Each topic `t` also gets `t.dlq` with one partition for undecodable messages.
TOPICS: tuple[tuple[str, int], ...] = (
    ("croupier.table.commands", 6),
    (SNAPSHOTS_TOPIC, 6),
    ("croupier.table.events", 6),
    ("croupier.wallet.requests", 6),
    ("croupier.wallet.transfers", 6),
    ("croupier.tournament.events", 3),
    ("croupier.lobby.events", 3),
)
TOPIC_ALREADY_EXISTS = 36


def _alive(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _ready(bootstrap: str, within: float, pid: int | None) -> int:
    deadline = time.monotonic() + within
    last_error = "no attempt"
    while time.monotonic() < deadline:
        if not _alive(pid):
            print(f"kafka_admin: broker process {pid} exited", file=sys.stderr)
            return 1
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000)
        try:
            await admin.start()
            cluster = await admin.describe_cluster()
            if cluster.get("brokers"):
                return 0
            last_error = "metadata lists no broker yet"
        except (TimeoutError, KafkaError, OSError) as error:
            last_error = f"{type(error).__name__}: {error}"
        finally:
            await admin.close()
        await asyncio.sleep(0.3)
    print(f"kafka_admin: not ready after {within:.0f} s ({last_error})", file=sys.stderr)
    return 1


async def _topics(bootstrap: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        wanted = []
        for name, partitions in TOPICS:
            # The table host checks its two topics' settings before it serves
            # (croupier.table.adapters.kafka_topics): snapshots make a week's retention
            # of the command log safe.
            configs = {
                "croupier.table.commands": LOG_TOPIC_CONFIGS,
                SNAPSHOTS_TOPIC: SNAPSHOT_TOPIC_CONFIGS,
            }.get(name, {})
            wanted.append(NewTopic(name, partitions, 1, topic_configs=configs))
            wanted.append(NewTopic(f"{name}.dlq", 1, 1))
        response = await admin.create_topics(wanted, timeout_ms=30000)
        failed = [
            (topic, code)
            for topic, code, *_ in response.topic_errors
            if code not in (0, TOPIC_ALREADY_EXISTS)
        ]
        if failed:
            print(f"kafka_admin: could not create topics: {failed}", file=sys.stderr)
            return 1
        return 0
    finally:
        await admin.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["ready", "topics"])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--pid", type=int, default=None)
    arguments = parser.parse_args()
    # While the broker boots every refused connection is logged as an error: that is expected.
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    if arguments.command == "ready":
        return asyncio.run(_ready(arguments.bootstrap, arguments.timeout, arguments.pid))
    return asyncio.run(_topics(arguments.bootstrap))


if __name__ == "__main__":
    sys.exit(main())
