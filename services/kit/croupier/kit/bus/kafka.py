"""The Kafka event bus: the production adapter, also used by the integration tests.

Producer: the kit's `AckedProducer` (librdkafka; see `croupier.kit.kafka_producer`), idempotent
with `acks=all`, key = the envelope's subject, so retries never duplicate a message and one
subject's messages stay in order on one partition (murmur2 of the key, as Kafka's Java client
and aiokafka partition). Every publish returns once the broker acknowledged each of its
messages, and raises (`confluent_kafka.KafkaException`) if one could not be delivered within
the delivery timeout.

Consumers (aiokafka): one `AIOKafkaConsumer` per subscription, auto-commit off. A message's
offset is committed only after `Delivery.deliver` returned (handled, skipped as a duplicate, or
sent to the dead-letter topic). After a crash or a rebalance the uncommitted messages come
again; the deduplicator makes that harmless. An undecodable message is copied to `<topic>.dlq`
and then committed like any other, so it never blocks its partition. The admin client
(`create_topics`) is aiokafka's too.

Metrics (`croupier.kit.metrics`): each subscription counts the assignments it receives
(`croupier_kafka_consumer_rebalances_total`) and, every `LAG_EVERY_SECONDS` in a task of its
own (a handler stuck on one message must show as a growing lag), sets the lag of each
partition it holds (`croupier_kafka_consumer_lag`: the high watermark of the last fetch minus
the offset of the next message to handle), dropping the partitions it loses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

import confluent_kafka
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.dedup import Deduplicator
from croupier.kit.bus.delivery import TYPE_HEADER, Delivery, RawMessage, delivery_for
from croupier.kit.bus.interface import Handler, dead_letter_topic
from croupier.kit.kafka_producer import METADATA_SECONDS, AckedProducer
from croupier.kit.kafka_security import KafkaSecurity
from croupier.kit.metrics import KAFKA_CONSUMER_LAG, KAFKA_REBALANCES
from croupier.kit.tasks import cancel

__all__ = ["KafkaBus", "KafkaUnreachable"]

_log = logging.getLogger(__name__)

_TOPIC_ALREADY_EXISTS = 36
_POLL_TIMEOUT_MS = 200
_MAX_RECORDS_PER_POLL = 200
_ERROR_BACKOFF_SECONDS = 1.0
#: How often a subscription updates its partitions' lag.
LAG_EVERY_SECONDS = 1.0


class KafkaUnreachable(ConnectionError):
    """The bus could not reach the cluster at start; the message names the bootstrap servers."""


class _LagGauges(ConsumerRebalanceListener):  # type: ignore[misc]
    """One subscription's lag per partition, and its rebalances."""

    def __init__(self, consumer: Any, *, topic: str, group: str) -> None:
        self._consumer = consumer
        self._topic = topic
        self._group = group
        self._rebalances = KAFKA_REBALANCES.labels(group, topic)
        # Partition → the next offset to handle, once known (handled or fetched from).
        self._next: dict[int, int] = {}

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.forget({tp.partition for tp in revoked})

    def forget(self, partitions: set[int]) -> None:
        """Stop reporting `partitions`: their new holder does, and a stale value here would
        be summed with theirs."""
        for partition in partitions:
            self._next.pop(partition, None)
            with contextlib.suppress(KeyError):
                KAFKA_CONSUMER_LAG.remove(self._group, self._topic, str(partition))

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self._rebalances.inc()

    def reported(self) -> set[int]:
        return set(self._next)

    def next_to_handle(self, partition: int, offset: int) -> None:
        self._next[partition] = offset

    async def run(self) -> None:
        """Update the gauges every LAG_EVERY_SECONDS until cancelled."""
        while True:
            await asyncio.sleep(LAG_EVERY_SECONDS)
            try:
                await self.update()
            except Exception:  # noqa: BLE001 - a metric must never stop the consumer
                _log.debug("lag of %s/%s not measured", self._topic, self._group, exc_info=True)

    async def update(self) -> None:
        """Set the lag of every partition held."""
        for tp in self._consumer.assignment():
            high = self._consumer.highwater(tp)
            if high is None:  # nothing fetched from it yet
                continue
            position = self._next.get(tp.partition)
            if position is None:
                try:
                    position = await self._consumer.position(tp)
                except KafkaError:  # lost meanwhile: revoked, its gauge with it
                    continue
                self._next[tp.partition] = position  # until a delivery moves it
            KAFKA_CONSUMER_LAG.labels(self._group, self._topic, str(tp.partition)).set(
                max(0, high - position)
            )


class _KafkaSubscription:
    def __init__(
        self,
        *,
        topic: str,
        group: str,
        consumer: Any,
        lag: _LagGauges,
        delivery: Delivery,
        stop_grace_seconds: float,
    ) -> None:
        self._topic = topic
        self._group = group
        self._consumer = consumer
        self._lag = lag
        self._delivery = delivery
        self._stop_grace_seconds = stop_grace_seconds
        self._stopping = False
        self._stopped = False
        self._task = asyncio.create_task(self._run(), name=f"bus:{topic}:{group}")
        self._task.add_done_callback(self._on_done)
        self._lag_task = asyncio.create_task(lag.run(), name=f"bus-lag:{topic}:{group}")

    @property
    def topic(self) -> str:
        return self._topic

    @property
    def group(self) -> str:
        return self._group

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._stopping = True
        await cancel(self._lag_task)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), self._stop_grace_seconds)
        except TimeoutError:
            _log.error(
                "consumer %s/%s did not finish in time; cancelling", self._topic, self._group
            )
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        except Exception:  # noqa: BLE001 - already logged by _on_done; stopping must go on
            pass
        await self._consumer.stop()
        self._lag.forget(self._lag.reported())

    def _on_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            _log.error("consumer %s/%s died", self._topic, self._group, exc_info=task.exception())

    async def _run(self) -> None:
        while not self._stopping:
            try:
                batches = await self._consumer.getmany(
                    timeout_ms=_POLL_TIMEOUT_MS, max_records=_MAX_RECORDS_PER_POLL
                )
            except KafkaError as error:
                _log.warning("fetch from %s failed, retrying: %s", self._topic, error)
                await asyncio.sleep(_ERROR_BACKOFF_SECONDS)
                continue
            for partition, records in batches.items():
                if self._stopping:
                    break
                await self._deliver_batch(partition, records)

    async def _deliver_batch(self, partition: Any, records: Iterable[Any]) -> None:
        next_offset: int | None = None
        try:
            for record in records:
                if self._stopping:
                    break
                self._lag.next_to_handle(record.partition, record.offset)
                try:
                    await self._delivery.deliver(
                        RawMessage(
                            topic=record.topic,
                            key=record.key,
                            value=record.value,
                            position=f"partition {record.partition} offset {record.offset}",
                            headers=record.headers,
                        )
                    )
                except Exception:  # noqa: BLE001 - e.g. the deduplicator's database is down
                    # Not dealt with: fetch it again after a pause; never skip it, never die.
                    _log.exception(
                        "delivery from %s at offset %d failed; retrying", partition, record.offset
                    )
                    # If revoked meanwhile, its new owner starts from the committed offset anyway.
                    with contextlib.suppress(KafkaError):
                        self._consumer.seek(partition, record.offset)
                    await asyncio.sleep(_ERROR_BACKOFF_SECONDS)
                    return
                next_offset = record.offset + 1
                self._lag.next_to_handle(record.partition, next_offset)
        finally:
            if next_offset is not None:
                await self._commit(partition, next_offset)

    async def _commit(self, partition: Any, next_offset: int) -> None:
        try:
            await self._consumer.commit({partition: next_offset})
        except KafkaError as error:
            # Lost the partition in a rebalance: its new owner redelivers, the deduplicator skips.
            _log.warning("commit of %s at %d failed: %s", partition, next_offset, error)


class KafkaBus:
    """An `EventBus` on Apache Kafka. Use `async with KafkaBus(...) as bus:` or start/stop."""

    def __init__(
        self,
        *,
        bootstrap_servers: str,
        client_id: str = "croupier",
        stop_grace_seconds: float = 30.0,
        consumer_options: Mapping[str, Any] | None = None,
        connect_timeout_seconds: float = METADATA_SECONDS,
        security: KafkaSecurity | None = None,
    ) -> None:
        """`consumer_options` go to every `AIOKafkaConsumer` (e.g. `session_timeout_ms`); the
        delivery settings (group, auto-commit off, earliest, read_committed) cannot be overridden.
        `start` fails (`KafkaUnreachable`) if the cluster has not answered within
        `connect_timeout_seconds`, or as soon as every bootstrap broker refused the connection.
        `security`: TLS and SASL for every client of the bus; by default the process's
        `CROUPIER_KAFKA_*` settings (`KafkaSecurity.from_environment`).
        """
        self._security = security or KafkaSecurity.from_environment()
        self._connect_timeout_seconds = connect_timeout_seconds
        self._bootstrap_servers = bootstrap_servers
        self._consumer_options = dict(consumer_options or {})
        self._client_id = client_id
        self._stop_grace_seconds = stop_grace_seconds
        self._producer: AckedProducer | None = None
        self._subscriptions: list[_KafkaSubscription] = []
        self._stopped = False

    async def start(self) -> None:
        if self._producer is not None:
            return
        producer = AckedProducer(
            self._bootstrap_servers, {"client.id": self._client_id, **self._security.librdkafka()}
        )
        try:
            await producer.connect(self._connect_timeout_seconds)
        except confluent_kafka.KafkaException as error:
            await producer.close(flush_seconds=0)
            reason = error.args[0].str() if error.args else str(error)
            raise KafkaUnreachable(
                f"cannot reach Kafka at {self._bootstrap_servers}: {reason}"
            ) from None
        except BaseException:
            await producer.close(flush_seconds=0)
            raise
        self._producer = producer

    @property
    def producer(self) -> AckedProducer:
        """The started bus's producer, for another part of the process that sends to Kafka
        too (the table host's command log): one librdkafka instance per process. The bus
        closes it at `stop`."""
        return self._require_started()

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            await subscription.stop()
        if self._producer is not None:
            await self._producer.close()  # delivers what is queued first

    async def __aenter__(self) -> KafkaBus:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    async def create_topics(self, topics: Iterable[str], *, partitions: int = 3) -> None:
        """Create `topics` and their dead-letter topics if missing (ops and tests; the local
        broker already has the well-known ones, see deploy/local/kafka.sh)."""
        admin = AIOKafkaAdminClient(
            bootstrap_servers=self._bootstrap_servers,
            client_id=self._client_id,
            **self._security.aiokafka(),
        )
        await admin.start()
        try:
            wanted = []
            for topic in topics:
                wanted.append(NewTopic(topic, partitions, 1))
                wanted.append(NewTopic(dead_letter_topic(topic), 1, 1))
            response = await admin.create_topics(wanted, timeout_ms=30_000)
            failed = [
                (name, code)
                for name, code, *_ in response.topic_errors
                if code not in (0, _TOPIC_ALREADY_EXISTS)
            ]
            if failed:
                raise KafkaError(f"could not create topics: {failed}")
        finally:
            await admin.close()

    async def publish(self, topic: str, envelope: Envelope) -> None:
        await self.publish_raw(
            topic,
            key=envelope.subject.encode(),
            value=envelope.SerializeToString(),
            headers=((TYPE_HEADER, envelope.type.encode()),),
        )

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None:
        producer = self._require_started()
        # Queue them all, then wait: the producer sends them together, in order per key.
        acknowledged = [
            producer.send(
                topic,
                envelope.subject.encode(),
                envelope.SerializeToString(),
                headers=((TYPE_HEADER, envelope.type.encode()),),
            )
            for topic, envelope in messages
        ]
        await asyncio.gather(*acknowledged)

    async def publish_raw(
        self,
        topic: str,
        *,
        key: bytes | None,
        value: bytes | None,
        headers: Sequence[tuple[str, bytes]] = (),
    ) -> None:
        """Send arbitrary bytes and wait for the broker's acknowledgement (DLQ copies, tests)."""
        await self._require_started().send(topic, key, value, headers=headers)

    async def subscribe(
        self,
        topic: str,
        *,
        group: str,
        handler: Handler,
        deduplicator: Deduplicator | None = None,
        max_attempts: int | None = None,
        types: Iterable[str] | None = None,
    ) -> _KafkaSubscription:
        self._require_started()

        delivery = delivery_for(
            self,
            group=group,
            handler=handler,
            deduplicator=deduplicator,
            max_attempts=max_attempts,
            types=types,
        )
        consumer = AIOKafkaConsumer(
            **self._consumer_options,
            bootstrap_servers=self._bootstrap_servers,
            client_id=self._client_id,
            **self._security.aiokafka(),
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
        )
        lag = _LagGauges(consumer, topic=topic, group=group)
        consumer.subscribe([topic], listener=lag)
        await consumer.start()
        subscription = _KafkaSubscription(
            topic=topic,
            group=group,
            consumer=consumer,
            lag=lag,
            delivery=delivery,
            stop_grace_seconds=self._stop_grace_seconds,
        )
        self._subscriptions.append(subscription)
        return subscription

    @property
    def security(self) -> KafkaSecurity:
        """How the bus's clients connect: for the other Kafka clients of the process."""
        return self._security

    def _require_started(self) -> AckedProducer:
        if self._producer is None or self._stopped:
            raise RuntimeError("the bus is not running (call start() or use `async with`)")
        return self._producer
