"""Cross-check against PokerKit on 500 random hands (the full 10,000-hand run is
scripts/poker_vs_pokerkit.py). Known differences are converted, not copied: odd chips
(rule 24: one at a time per pot; PokerKit: whole remainder to the first winner of merged pots),
the lone matched player's extra check (rule 21) and the short big blind (OQ 2). Some hands
have a dead small blind (a tournament's dead button rule): PokerKit's big blind posts the only
blind."""

from __future__ import annotations

from tests.support.poker import pokerkit_script


def test_rules_6_to_24_final_stacks_match_pokerkit_on_500_hands() -> None:
    script = pokerkit_script()
    counts, failures = script.run(500, seed=11)
    assert failures == [], [f"{f.category}: {f.detail}" for f in failures[:3]]
    assert sum(counts.values()) == 500
    assert counts["equal"] > 350
    dead_small_blind = sum(c for kind, c in counts.items() if kind.startswith("dead_sb_"))
    assert dead_small_blind > 40
