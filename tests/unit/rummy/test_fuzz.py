"""Random (mostly illegal) actions thrown at seeded rounds: the engine either applies an
action or refuses it with a RummyError — never another exception — and a refused action
changes nothing."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from croupier.rummy.core import gin, oklahoma_gin, rummy40, rummy51, rummy500, table
from croupier.rummy.core.cards import card_name, standard_deck
from croupier.rummy.core.errors import RummyError
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.tools.bots import gin_bot_action, laydown_bot_action
from tests.support.paths import DATA

KINDS = ["pass", "draw", "discard", "meld", "layoff", "knock", "gin", "out", "take_joker", "x"]


def _random_action(rng: random.Random, state: table.RoundState) -> dict[str, Any]:
    deck = standard_deck(1, 4)
    seat = state.turn
    hand = list(state.hands[seat])
    pool = hand if hand and rng.random() < 0.8 else deck

    def card() -> str:
        return card_name(rng.choice(pool))

    def meld() -> list[Any]:
        size = rng.randint(1, min(6, max(1, len(pool))))
        cards: list[Any] = [card() for _ in range(size)]
        if rng.random() < 0.2:
            cards[0] = {"card": "X1", "as": card_name(rng.choice(deck[:52]))}
        return cards

    kind = rng.choice(KINDS)
    action: dict[str, Any] = {"action": kind}
    if kind == "draw":
        action["from"] = rng.choice(["stock", "discard", "nowhere"])
        if rng.random() < 0.3:
            action["count"] = rng.choice([0, 1, 2, 5, -1, "2"])
    if kind in ("discard", "layoff", "take_joker"):
        action["card"] = card()
    if kind in ("layoff", "take_joker"):
        action["meld"] = rng.choice([0, 1, 2, 7, -1, "0", None])
    if kind in ("knock", "gin", "out") and rng.random() < 0.7:
        action["discard"] = card()
    if kind in ("knock", "gin", "out", "meld") and rng.random() < 0.7:
        action["melds"] = [meld() for _ in range(rng.randint(0, 3))]
    if kind == "meld" and rng.random() < 0.5:
        action["cards"] = meld()
    return action


@pytest.mark.parametrize(
    "rules",
    [gin.RULES, oklahoma_gin.RULES, rummy51.RULES, rummy40.RULES, rummy500.RULES],
    ids=lambda r: r.name,
)
def test_random_actions_are_applied_or_refused_cleanly(rules: VariantRules) -> None:
    rng = random.Random(rules.name)
    players = ["a", "b"] if rules.max_players == 2 else ["a", "b", "c"]
    applied = refused = 0
    for round_no in range(20):
        seed = hashlib.sha256(f"fuzz{rules.name}{round_no}".encode()).digest()
        state = table.start(rules, players, players[-1], seed)
        for _ in range(600):
            if state.result is not None:
                break
            player = state.to_act
            assert player is not None
            if rng.random() < 0.3:  # keep the round moving with a sensible action
                is_gin = isinstance(state, GinState)
                action = gin_bot_action(state) if is_gin else laydown_bot_action(state)  # type: ignore[arg-type]
            else:
                action = _random_action(rng, state)
            if rng.random() < 0.05:
                player = rng.choice(players)
            before = state
            try:
                state, _ = table.apply(state, player, action)
                applied += 1
            except RummyError as error:
                assert state is before
                assert error.reason and error.message
                refused += 1
    assert applied > 50 and refused > 200


def test_mutated_conformance_documents_never_crash() -> None:
    """A mangled document is either replayed (maybe with an `error`) or MalformedScenario."""
    import json

    from croupier.kit.scenario import MalformedScenario
    from croupier.rummy.tools.conformance import run_scenario

    rng = random.Random(99)
    paths = sorted((DATA / "rummy" / "scenarios").glob("*.json"))
    documents = [json.loads(p.read_text()) for p in paths if not p.name.endswith(".expected.json")]
    junk: list[Any] = [None, 0, -3, 1.5, True, "", "Zz", "X9", [], {}, ["Ah"], {"card": "X1"}]
    for _ in range(1500):
        document = json.loads(json.dumps(rng.choice(documents)))
        for _ in range(rng.randint(1, 3)):
            target: Any = document
            key: Any = rng.choice(list(target))
            while isinstance(target[key], dict | list) and target[key] and rng.random() < 0.7:
                target = target[key]
                key = (
                    rng.choice(list(target))
                    if isinstance(target, dict)
                    else rng.randrange(len(target))
                )
            target[key] = rng.choice(junk)
        try:
            out = run_scenario(document)
        except MalformedScenario:
            continue
        assert set(out) >= {"status", "error", "ending", "winner", "deadwood", "penalty"}
        json.dumps(out)
