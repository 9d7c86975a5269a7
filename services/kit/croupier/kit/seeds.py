"""Fresh seeds from the operating system, for the services that start hands and draws.

Only services call this (the table host per hand, the tournament director per Spin draw);
rules never do: everything random in a hand derives from its seed (`croupier.game.fairness`).
"""

from __future__ import annotations

import secrets

from croupier.game.fairness import SEED_BYTES


def new_seed() -> bytes:
    """A fresh 32-byte server seed from the OS CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)
