"""The gateway's settings of its table calls, checked when it starts: CROUPIER_TABLE_ADDRESS
as the services' table client reads it (croupier.table.client.table_services), and how
long a view stream waits for its table's host."""

from __future__ import annotations

import pytest

from croupier.gateway.bootstrap import GatewaySettings
from croupier.kit.settings import SettingsError, load
from croupier.table.client import table_services

AUTH_KEYS = "k1=" + "k" * 40


def settings(text: str | None = None) -> GatewaySettings:
    environ = {"CROUPIER_AUTH_KEYS": AUTH_KEYS}
    if text is not None:
        environ["CROUPIER_TABLE_ADDRESS"] = text
    return load(GatewaySettings, environ)


def test_the_per_game_setting_names_every_games_service() -> None:
    text = settings("poker=table-poker:50051, joker=table-joker:50051").table_address
    assert table_services(text) == {"poker": ["table-poker:50051"], "joker": ["table-joker:50051"]}


def test_a_games_service_may_list_its_replicas() -> None:
    text = settings("poker=10.0.0.1:1|10.0.0.2:2,joker=10.0.0.3:3").table_address
    assert table_services(text) == {"poker": ["10.0.0.1:1", "10.0.0.2:2"], "joker": ["10.0.0.3:3"]}


def test_a_list_names_the_replicas_and_one_address_serves_every_game() -> None:
    text = settings("10.0.0.1:50051,10.0.0.2:50051").table_address
    assert table_services(text) == {"": ["10.0.0.1:50051", "10.0.0.2:50051"]}
    assert table_services(settings().table_address) == {"": ["127.0.0.1:50051"]}
    # gRPC's own multi-address target stays one target (its channel balances the calls).
    assert table_services("ipv4:10.0.0.1:1,10.0.0.2:2") == {"": ["ipv4:10.0.0.1:1,10.0.0.2:2"]}


@pytest.mark.parametrize("text", ["a:1,,b:2", "poker=,joker=j:1", "poker=a:1|,joker=j:1"])
def test_an_empty_address_stops_the_gateway(text: str) -> None:
    with pytest.raises(SettingsError, match="CROUPIER_TABLE_ADDRESS"):
        settings(text)


def test_a_view_stream_waits_for_its_host_as_long_as_set_within_bounds() -> None:
    environ = {"CROUPIER_AUTH_KEYS": AUTH_KEYS}
    assert load(GatewaySettings, environ).stream_retry_seconds == 60
    set_to = {**environ, "CROUPIER_GATEWAY_STREAM_RETRY_SECONDS": "120"}
    assert load(GatewaySettings, set_to).stream_retry_seconds == 120
    for bad in ("0", "7200", "soon"):
        with pytest.raises(SettingsError, match="CROUPIER_GATEWAY_STREAM_RETRY_SECONDS"):
            load(GatewaySettings, {**environ, "CROUPIER_GATEWAY_STREAM_RETRY_SECONDS": bad})
