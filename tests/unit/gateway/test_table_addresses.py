"""CROUPIER_TABLE_ADDRESS as the gateway reads it: every address a table may be served at,
from the services' per-game setting or a list of replicas."""

from __future__ import annotations

import pytest

from croupier.gateway.bootstrap import GatewaySettings, table_addresses
from croupier.kit.settings import SettingsError, load

AUTH_KEYS = "k1=" + "k" * 40


def test_the_per_game_setting_names_every_games_service() -> None:
    text = "poker=table-poker:50051, joker=table-joker:50051"
    assert table_addresses(text) == ("table-poker:50051", "table-joker:50051")


def test_a_list_names_the_replicas_and_one_address_serves_every_game() -> None:
    assert table_addresses("10.0.0.1:50051,10.0.0.2:50051") == ("10.0.0.1:50051", "10.0.0.2:50051")
    environ = {"CROUPIER_AUTH_KEYS": AUTH_KEYS}
    assert load(GatewaySettings, environ).table_addresses == ("127.0.0.1:50051",)


@pytest.mark.parametrize("text", ["a:1,,b:2", "poker=,joker=j:1"])
def test_an_empty_address_stops_the_gateway(text: str) -> None:
    environ = {"CROUPIER_AUTH_KEYS": AUTH_KEYS, "CROUPIER_TABLE_ADDRESS": text}
    with pytest.raises(SettingsError, match="CROUPIER_TABLE_ADDRESS"):
        load(GatewaySettings, environ)
