"""Helpers the table tests share: a deterministic clock and seeds, and a random joker bot."""

from __future__ import annotations

import hashlib
import random
from typing import Any


class FakeClock:
    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms

    def __call__(self) -> int:
        return self.now


class Seeds:
    """Deterministic 32-byte seeds, so a test's deals repeat."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.count = 0

    def __call__(self) -> bytes:
        self.count += 1
        return hashlib.sha256(f"{self.label}/{self.count}".encode()).digest()


def random_joker_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from a joker player's `legal` view."""
    (kind,) = legal["actions"]
    if kind == "trump":
        return {"action": "trump", "suit": rng.choice(legal["suits"])}
    if kind == "bid":
        return {"action": "bid", "tricks": rng.choice(legal["tricks"])}
    card = rng.choice(legal["cards"])
    action: dict[str, Any] = {"action": "play", "card": card}
    if card.startswith("X"):
        action["joker"] = rng.choice(legal["joker"])
        if "suits" in legal:
            action["suit"] = rng.choice(legal["suits"])
    return action
