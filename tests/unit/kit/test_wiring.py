"""The bus a service's settings choose."""

from __future__ import annotations

from croupier.kit.bus import InMemoryBus, KafkaBus
from croupier.kit.wiring import bus_from_settings


def test_memory_chooses_the_in_memory_bus() -> None:
    bus = bus_from_settings("memory", bootstrap_servers="unused:9092", client_id="croupier-x")
    assert isinstance(bus, InMemoryBus)


def test_kafka_chooses_a_kafka_bus_with_the_given_options() -> None:
    bus = bus_from_settings(
        "kafka",
        bootstrap_servers="broker:9092",
        client_id="croupier-x",
        connect_timeout_seconds=3.0,
    )
    assert isinstance(bus, KafkaBus)
    assert bus._bootstrap_servers == "broker:9092"
    assert bus._client_id == "croupier-x"
    assert bus._connect_timeout_seconds == 3.0
