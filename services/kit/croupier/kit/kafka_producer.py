"""`AckedProducer`: an idempotent Kafka producer (acks=all) whose acknowledgements resolve
asyncio futures. The event bus (`croupier.kit.bus.kafka`) and the table host's command log
(`croupier.table.adapters.kafka_log`) both send through it.

Why librdkafka (`confluent-kafka`) rather than aiokafka: librdkafka's own threads encode and
send the records, so the event loop only queues them (`produce`, a C call) and is handed the
acknowledgements in one loop callback per batch of delivery reports. Up to five requests are in
flight per connection (the idempotent producer keeps their order), where aiokafka sent one at a
time and its Python protocol code ran on the loop for every batch. Consumers, group membership
and the admin client stay on aiokafka: they are not on a command's path.

How: `send` queues a record and returns a future; librdkafka calls the delivery callbacks from
`poll`, which a thread of the producer's own runs (it releases the GIL while it waits). The
callbacks only collect the reports; after each `poll` the thread hands the whole batch to the
loop with one `call_soon_threadsafe`, and there the futures are resolved: (partition, offset)
once the broker acknowledged the record, `confluent_kafka.KafkaException` once librdkafka gave
up on it (after `message.timeout.ms`, the delivery timeout).

The default settings (`DEFAULT_SETTINGS`): idempotence (retries never duplicate a record and
keep one partition's order), `acks=all`, no lingering and no Nagle delay (a record leaves at
once: latency over batching), a 40 s delivery timeout, and the partitioner of the Java client
and aiokafka (murmur2 of the key), so a key lands in the partition it always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from functools import partial
from types import MappingProxyType

import confluent_kafka

from croupier.kit.metrics import KAFKA_DELIVERY_FAILURES

__all__ = [
    "CLOSE_FLUSH_SECONDS",
    "DEFAULT_SETTINGS",
    "DELIVERY_TIMEOUT_MS",
    "METADATA_SECONDS",
    "AckedProducer",
    "Setting",
]

Setting = str | int | float | bool
"""A librdkafka configuration value."""

# How long librdkafka keeps retrying a record before its future fails (the record may be
# stored all the same: the outcome of the last attempt is unknown).
DELIVERY_TIMEOUT_MS = 40_000
# How long `close` waits for the queued records by default; those still undelivered then fail.
CLOSE_FLUSH_SECONDS = 10.0
# How long `partition_count` waits for the topic's metadata.
METADATA_SECONDS = 30.0
# How long the delivery thread waits in one `poll` (it sees `close` within this).
_POLL_SECONDS = 0.5
# How long one metadata request of `connect` waits before it looks for "all brokers down".
_CONNECT_STEP_SECONDS = 1.0

DEFAULT_SETTINGS: Mapping[str, Setting] = MappingProxyType(
    {
        "enable.idempotence": True,  # order kept, retries never duplicate
        "acks": "all",
        "linger.ms": 0,
        "socket.nagle.disable": True,
        "message.timeout.ms": DELIVERY_TIMEOUT_MS,
        "partitioner": "murmur2_random",  # Java's and aiokafka's: murmur2 of the key
    }
)

_librdkafka_log = logging.getLogger(f"{__name__}.librdkafka")


class _LibrdkafkaLog:
    """librdkafka's `logger`: every line at DEBUG, whatever level librdkafka gave it."""

    def log(self, level: int, message: str, *args: object) -> None:
        _librdkafka_log.debug(message, *args)


_Report = tuple[asyncio.Future[tuple[int, int]], confluent_kafka.KafkaError | None, str, int, int]


class AckedProducer:
    """An idempotent librdkafka producer (acks=all) whose acknowledgements resolve asyncio
    futures, handed to the loop in one callback per batch of delivery reports.

    Create it on the event loop that awaits its futures; `close` it when done (it delivers
    what is queued first). Use::

        producer = AckedProducer("127.0.0.1:9092", {"client.id": "croupier-wallet"})
        partition, offset = await producer.send("topic", b"key", b"value")
        await producer.close()
    """

    def __init__(
        self, bootstrap_servers: str, settings: Mapping[str, Setting] | None = None
    ) -> None:
        """`settings`: librdkafka configuration properties that replace or add to
        `DEFAULT_SETTINGS`, e.g. `{"message.timeout.ms": 5000, "client.id": "croupier"}`."""
        self._loop = asyncio.get_running_loop()
        config: dict[str, object] = {
            "logger": _LibrdkafkaLog(),
            **DEFAULT_SETTINGS,
            **(settings or {}),
            "bootstrap.servers": bootstrap_servers,
            "error_cb": self._on_error,
        }
        # Set (by `poll`, on the thread) once librdkafka found every broker down.
        self._brokers_down: confluent_kafka.KafkaError | None = None
        self._producer = confluent_kafka.Producer(config)
        # Filled by the delivery callbacks, which run inside `poll` on the thread.
        self._reports: list[_Report] = []
        self._closing = False
        self._flush_seconds = CLOSE_FLUSH_SECONDS  # set by `close`
        self._thread = threading.Thread(
            target=self._serve_reports,
            name=f"{config.get('client.id', 'kafka')}-deliveries",
            daemon=True,
        )
        self._thread.start()

    def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        *,
        headers: Sequence[tuple[str, bytes]] = (),
        partition: int | None = None,
    ) -> asyncio.Future[tuple[int, int]]:
        """Queue one record; the future gives (partition, offset) once the broker acknowledged
        it, or fails with `confluent_kafka.KafkaException` after the delivery timeout.

        Without `partition`, the partitioner picks one from the key (murmur2 by default). The
        records of one partition are stored in the order they were sent. Raises at once
        (`BufferError`, `KafkaException`) if librdkafka refuses the record, e.g. a full queue.
        """
        if self._closing:
            raise RuntimeError("AckedProducer.send after close()")
        future: asyncio.Future[tuple[int, int]] = self._loop.create_future()
        self._producer.produce(
            topic,
            value,
            key,
            partition=-1 if partition is None else partition,  # -1: the partitioner's choice
            on_delivery=partial(self._delivered, future),
            headers=list(headers) if headers else None,
        )
        return future

    async def connect(self, timeout_seconds: float = METADATA_SECONDS) -> None:
        """Wait until the cluster answers a metadata request: a producer pointed at a broker
        it cannot reach fails here (`KafkaException`), at start, not at its first send. It
        fails within a second when every bootstrap broker refuses the connection or has no
        address (librdkafka's "all brokers down"), else after `timeout_seconds`."""
        await asyncio.to_thread(self._connect, timeout_seconds)

    async def partition_count(self, topic: str) -> int:
        """The topic's partition count (asking for it creates the topic if the broker creates
        topics on demand). Waits up to METADATA_SECONDS for the topic to have partitions."""
        return await asyncio.to_thread(self._partition_count, topic)

    async def close(self, flush_seconds: float = CLOSE_FLUSH_SECONDS) -> None:
        """Deliver what is queued (waiting up to `flush_seconds`), fail the futures of the
        records still undelivered then, and stop the thread. Safe to call twice."""
        if not self._closing:
            self._flush_seconds = flush_seconds
            self._closing = True
        await asyncio.to_thread(self._thread.join)

    def _connect(self, timeout_seconds: float) -> None:  # blocking
        deadline = time.monotonic() + timeout_seconds
        while True:
            # Short metadata requests, so that "all brokers down" is seen between them.
            left = deadline - time.monotonic()
            try:
                self._producer.list_topics(timeout=max(0.0, min(left, _CONNECT_STEP_SECONDS)))
                return
            except confluent_kafka.KafkaException:
                if self._brokers_down is not None:
                    raise confluent_kafka.KafkaException(self._brokers_down) from None
                if left <= _CONNECT_STEP_SECONDS:
                    raise

    def _on_error(self, error: confluent_kafka.KafkaError) -> None:  # on the delivery thread
        if error.code() == confluent_kafka.KafkaError._ALL_BROKERS_DOWN:
            self._brokers_down = error
        _librdkafka_log.debug("error: %s", error.str())

    def _partition_count(self, topic: str) -> int:  # blocking
        deadline = time.monotonic() + METADATA_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            described = self._producer.list_topics(topic, timeout=left)
            found = described.topics.get(topic)
            if found is not None and found.error is None and found.partitions:
                return len(found.partitions)
            time.sleep(0.1)  # the topic is being created
        raise RuntimeError(f"no partitions for topic {topic!r} within {METADATA_SECONDS:.0f} s")

    def _delivered(
        self,
        future: asyncio.Future[tuple[int, int]],
        error: confluent_kafka.KafkaError | None,
        message: confluent_kafka.Message,
    ) -> None:  # on the delivery thread
        self._reports.append(
            (future, error, message.topic() or "", message.partition() or 0, message.offset() or 0)
        )

    def _serve_reports(self) -> None:
        while not self._closing:
            self._producer.poll(_POLL_SECONDS)  # releases the GIL while it waits
            self._hand_over()
        if self._producer.flush(self._flush_seconds):
            # Still undelivered: report those records as failed rather than never.
            self._producer.purge()
            self._producer.poll(0)
        self._hand_over()

    def _hand_over(self) -> None:
        if self._reports:
            reports, self._reports = self._reports, []
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                self._loop.call_soon_threadsafe(self._resolve, reports)

    @staticmethod
    def _resolve(reports: list[_Report]) -> None:  # on the loop
        for future, error, topic, partition, offset in reports:
            if error is not None:
                KAFKA_DELIVERY_FAILURES.labels(topic).inc()  # even if the caller went away
            if future.done():  # the caller went away
                continue
            if error is None:
                future.set_result((partition, offset))
            else:
                future.set_exception(confluent_kafka.KafkaException(error))
