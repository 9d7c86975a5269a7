"""`TableRules.apply`: each command goes to the method named after it, once for every game."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.game import (
    Act,
    Event,
    Malformed,
    SeatPlayer,
    StartHand,
    TableRules,
    UnseatPlayer,
)

Step = tuple[tuple[str, ...], list[Event]]


class Recording(TableRules[tuple[str, ...]]):
    """Rules whose state is the list of the methods that were called."""

    def seat(self, state: tuple[str, ...], command: SeatPlayer) -> Step:
        return (*state, f"seat {command.player}"), []

    def unseat(self, state: tuple[str, ...], command: UnseatPlayer) -> Step:
        return (*state, f"unseat {command.player}"), []

    def start_hand(self, state: tuple[str, ...], command: StartHand) -> Step:
        return (*state, f"start_hand {command.seed.hex()}"), []

    def act(self, state: tuple[str, ...], command: Act) -> Step:
        return (*state, f"act {command.player} {command.action['action']}"), []


def test_apply_sends_each_command_to_its_method() -> None:
    rules = Recording()
    state: tuple[str, ...] = ()
    for command in (
        SeatPlayer("ann", 0),
        StartHand(b"\x01"),
        Act("ann", {"action": "fold"}),
        UnseatPlayer("ann"),
    ):
        state, _ = rules.apply(state, command)
    assert state == ("seat ann", "start_hand 01", "act ann fold", "unseat ann")


def test_a_command_the_contract_does_not_know_is_malformed() -> None:
    unknown: Any = object()
    with pytest.raises(Malformed, match="unsupported command"):
        Recording().apply((), unknown)
