"""The Joker engine's view encodings (`view_json`, `view_message`) reuse the score sheet's
encoding across views: they must give exactly what encoding each view afresh gives, for
every player at every step (a player's view never carries another player's cards)."""

from __future__ import annotations

import hashlib
import json
import random

from croupier.game import JSON, Act, SeatPlayer, StartHand
from croupier.joker import codec
from croupier.joker.core.table import JokerTable
from croupier.joker.engine import ENGINE
from tests.support.table import random_joker_action

PLAYERS = ("p1", "p2", "p3", "p4")


def fresh_encodings(view: JSON) -> tuple[str, bytes]:
    """The view encoded without the cache (which is left as it was: warm across steps)."""
    cache = codec._SHEET_ENCODINGS
    kept = cache.copy()
    cache.clear()
    try:
        text = json.dumps(view, separators=(",", ":"))
        message = codec.view_message(view).SerializeToString(deterministic=True)
    finally:
        cache.clear()
        cache.update(kept)
    return text, message


def views(state: JokerTable) -> list[JSON]:
    return [ENGINE.view(state, None), *(ENGINE.view(state, p) for p in PLAYERS)]


def test_hidden_information_cached_sheet_encodings_equal_fresh_ones() -> None:
    rng = random.Random(7)
    state = ENGINE.open({})
    for seat, player in enumerate(PLAYERS):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat))
    hand = 0
    checked = 0
    for step in range(400):
        if ENGINE.can_start_hand(state):
            hand += 1
            seed = hashlib.sha256(f"view-encoding/{hand}".encode()).digest()
            state, _ = ENGINE.apply(state, StartHand(seed))
        if state.game is not None and state.game.over:
            break
        if step % 3 == 0 or not [t.player for t in ENGINE.turns(state)]:
            expected = [fresh_encodings(view) for view in views(state)]
            for _ in range(2):  # encoded with the cache cold, then warm
                for view, (text, message) in zip(views(state), expected, strict=True):
                    assert ENGINE.view_json(view) == text
                    encoded = codec.view_message(view).SerializeToString(deterministic=True)
                    assert encoded == message
                    checked += 1
        (player,) = [t.player for t in ENGINE.turns(state)]
        action = random_joker_action(ENGINE.legal_actions(state, player), rng)
        state, _ = ENGINE.apply(state, Act(player, action))
    assert hand >= 5
    assert checked > 500


def test_view_without_a_sheet_is_plain_json() -> None:
    view: JSON = {"players": ["a"], "options": "x", "hand": None}
    assert ENGINE.view_json(view) == json.dumps(view, separators=(",", ":"))
