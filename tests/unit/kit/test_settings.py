"""Settings fail fast with every problem named."""

from __future__ import annotations

import pytest

from croupier.kit.settings import ServerSettings, SettingsError, load, sql_identifier


def test_defaults_apply_when_variables_are_absent() -> None:
    settings = load(ServerSettings, {})
    assert settings.grpc_port == 50051
    assert settings.log_level == "INFO"


def test_values_are_parsed() -> None:
    settings = load(
        ServerSettings,
        {"CROUPIER_GRPC_PORT": "7000", "CROUPIER_LOG_LEVEL": "debug"},
    )
    assert (settings.grpc_port, settings.log_level) == (7000, "DEBUG")


def test_every_bad_variable_is_named_in_one_error() -> None:
    with pytest.raises(SettingsError) as caught:
        load(
            ServerSettings,
            {"CROUPIER_GRPC_PORT": "70000", "CROUPIER_SHUTDOWN_GRACE_SECONDS": "-1"},
        )
    message = str(caught.value)
    assert "CROUPIER_GRPC_PORT='70000'" in message
    assert "CROUPIER_SHUTDOWN_GRACE_SECONDS='-1'" in message


def test_a_schema_name_must_be_a_lower_case_sql_identifier() -> None:
    assert sql_identifier("lobby_2") == "lobby_2"
    for bad in ["Lobby", "2lobby", "lobby; DROP", "lob-by"]:
        with pytest.raises(ValueError, match="lower-case SQL identifier"):
            sql_identifier(bad)
