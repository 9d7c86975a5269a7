"""The bus and the command log connect the way KafkaSecurity says: a setting that does not
match the broker's listener (here a PLAINTEXT one) is refused at start, not ignored."""

from __future__ import annotations

import pytest

from croupier.kit.bus.kafka import KafkaBus, KafkaUnreachable
from croupier.kit.kafka_security import KafkaSecurity

SASL = KafkaSecurity(
    protocol="SASL_PLAINTEXT",
    sasl_mechanism="SCRAM-SHA-512",
    sasl_username="croupier",
    sasl_password="wrong-listener",
)


async def test_plaintext_security_reaches_the_plaintext_broker(kafka_bootstrap: str) -> None:
    bus = KafkaBus(
        bootstrap_servers=kafka_bootstrap,
        security=KafkaSecurity(protocol="PLAINTEXT"),
        connect_timeout_seconds=10,
    )
    await bus.start()
    await bus.stop()


async def test_sasl_against_a_plaintext_listener_is_refused_at_start(kafka_bootstrap: str) -> None:
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap, security=SASL, connect_timeout_seconds=3)
    with pytest.raises(KafkaUnreachable, match=kafka_bootstrap):
        await bus.start()
    await bus.stop()
