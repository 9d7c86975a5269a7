"""Rummy: the seed's "Rummy" row is scored with Rummy 51 (seed 000 §10 [10.d] groups
"Rummy / Rummy 51": ace 11, joker 25). As the Israeli game the seed describes, it is
played by the Rummy 51 rules (`croupier.rummy.core.rummy51`, which documents every choice
and its source); only the variant name differs.
"""

from __future__ import annotations

from dataclasses import replace

from croupier.rummy.core.rummy51 import RULES as RUMMY51_RULES

__all__ = ["RULES"]

RULES = replace(RUMMY51_RULES, name="rummy")
