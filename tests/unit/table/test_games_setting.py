"""CROUPIER_TABLE_GAMES: a table process restricted to some games (one service per game)."""

from __future__ import annotations

import pytest

from croupier.game import Malformed
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.settings import SettingsError, load
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import TableSettings, build_host
from croupier.table.games import ENGINE_MODULES, game_names


def test_all_games_by_default() -> None:
    assert load(TableSettings, {}).games == tuple(ENGINE_MODULES)
    assert load(TableSettings, {"CROUPIER_TABLE_GAMES": "all"}).games == tuple(ENGINE_MODULES)


def test_a_list_names_the_games_once_each() -> None:
    assert game_names("poker") == ("poker",)
    assert game_names(" rummy, joker ,rummy") == ("rummy", "joker")


@pytest.mark.parametrize("text", ["chess", "poker,chess", ",", "Poker"])
def test_an_unknown_game_stops_the_process_at_start_naming_the_choices(text: str) -> None:
    with pytest.raises(SettingsError, match="CROUPIER_TABLE_GAMES") as raised:
        load(TableSettings, {"CROUPIER_TABLE_GAMES": text})
    assert "backgammon, joker, poker, rummy" in str(raised.value)


async def test_a_poker_process_opens_poker_and_refuses_other_games(bus: InMemoryBus) -> None:
    host = build_host(InMemoryCommandLog(), bus, games=game_names("poker"))
    await host.start()
    try:
        assert await host.open_table("poker", {}, None)
        with pytest.raises(Malformed, match="unknown game 'backgammon'; this host runs: poker"):
            await host.open_table("backgammon", {}, None)
    finally:
        await host.stop()
