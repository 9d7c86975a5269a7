"""The table host's contract on the real Kafka broker, the same for every game (each test
runs once per game): a host rebuilt from the command log mid-hand has the lost host's table
(digest, every seat's view and version) and plays on."""

from __future__ import annotations

import random
from typing import Any

from croupier.game import ClockSettings
from croupier.kit.bus.kafka import KafkaBus
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.bootstrap import build_host
from croupier.table.service.host import TableHost
from tests.support.contract import waiting_for
from tests.support.games import GameAtTable
from tests.support.infra import unique_name


def legal_action(
    host: TableHost, game: GameAtTable, table_id: str, rng: random.Random
) -> tuple[str, dict[str, Any]]:
    to_act = waiting_for(host, game, table_id)
    return to_act, game.legal_action(host.view(table_id, to_act).view, rng)


async def test_rebuilt_host_has_the_lost_hosts_digest_and_views_and_plays_on(
    kafka_bootstrap: str, game: GameAtTable
) -> None:
    topic = unique_name("table_commands")
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    try:
        # Each host in a group of its own: the lost one stays a member of its group (it is
        # abandoned, not stopped), and the rebuilt one must own every partition.
        lost = build_host(KafkaCommandLog(kafka_bootstrap, topic, unique_name("lost")), bus)
        await lost.start()
        clock = ClockSettings(turn_ms=3_600_000)
        table_id = await lost.open_table(game.name, game.options, clock, "k")
        for seat, player in enumerate(game.players):
            await lost.seat(table_id, player, seat, game.stack)
        rng = random.Random(11)
        for n in range(rng.randrange(20, 80)):
            to_act, action = legal_action(lost, game, table_id, rng)
            await lost.act(table_id, to_act, f"a{n}", action)
        digest = lost.digest(table_id)
        views = {p: lost.view(table_id, p) for p in ["", *game.players]}
        # The lost host is simply abandoned: every accepted command was acknowledged by
        # the broker before its caller was answered, so nothing more needs flushing.

        rebuilt = build_host(KafkaCommandLog(kafka_bootstrap, topic, unique_name("new")), bus)
        await rebuilt.start()
        assert rebuilt.digest(table_id) == digest
        for player, view in views.items():  # every seat's view, at the same version
            again = rebuilt.view(table_id, player)
            assert (again.version, again.view) == (view.version, view.view)
        to_act, action = legal_action(rebuilt, game, table_id, rng)
        before = rebuilt.view(table_id, "").version
        await rebuilt.act(table_id, to_act, "after", action)
        assert rebuilt.view(table_id, "").version > before
        await rebuilt.stop()
    finally:
        await bus.stop()
