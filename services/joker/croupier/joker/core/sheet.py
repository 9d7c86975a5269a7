"""The score sheet and the premia ledger (seed 003 §5, rules 15–20).

- `PremiaLedger` keeps one entry per (game, pulka, player): the premia and moshla the
  server computed when the pulka ended. Recording the same settlement again — after a
  reconnection, a replay of the command log, a repeated request — returns the ledger
  unchanged, so there is never a second entry (rule 20). A *different* amount for a key
  already written is a bug and raises `LedgerConflict`.
- `score_sheet` builds the sheet from the completed hands and the ledger: per-hand cells
  (the moshla's hand crossed out, its points kept — rule 15), a Σ line per finished pulka
  with the pulka result including premia/moshla and the adjustment beside it ("+2.5",
  "-3"; rule 19, OQ 4), the running total after each pulka (BG 10) and on the bottom
  line, every number also as text ÷100 (rule 16, OQ 3),
  and the premia colours: green while a player has fulfilled every scored hand of the
  current pulka, red from his first failed hand until the pulka ends, everyone green again
  when the next pulka starts; the bottom-line name is red exactly when the colour is
  (rules 17–18, OQ 7–8). With premia off there are no colours (OQ 6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from croupier.joker.core.premia import PulkaSettlement
from croupier.joker.core.scoring import HandOutcome, format_adjustment, format_points

__all__ = [
    "HandRecord",
    "LedgerConflict",
    "PremiaEntry",
    "PremiaLedger",
    "score_sheet",
]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A completed hand: its place in the game and each seat's outcome and score."""

    index: int
    pulka: int
    cards: int
    dealer: int
    outcomes: tuple[HandOutcome, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PremiaEntry:
    """What one player's pulka settled: premia ≥ 0, moshla ≤ 0, the crossed-out hand."""

    game_id: str
    pulka: int
    player: str
    premia: int
    moshla: int
    crossed_out: int | None
    """0-based index of the crossed-out hand within the pulka, or None."""

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.game_id, self.pulka, self.player)


class LedgerConflict(Exception):
    """A settlement differs from the one already written for the same key."""


@dataclass(frozen=True, slots=True)
class PremiaLedger:
    entries: tuple[PremiaEntry, ...] = ()

    def get(self, game_id: str, pulka: int, player: str) -> PremiaEntry | None:
        for entry in self.entries:
            if entry.key == (game_id, pulka, player):
                return entry
        return None

    def record(self, entry: PremiaEntry) -> PremiaLedger:
        """This ledger with `entry`; unchanged if that key is already written (rule 20)."""
        existing = self.get(*entry.key)
        if existing is None:
            return PremiaLedger((*self.entries, entry))
        if existing != entry:
            raise LedgerConflict(f"pulka {entry.pulka} of {entry.player} is already settled")
        return self

    def record_settlement(
        self, game_id: str, pulka: int, settlement: PulkaSettlement
    ) -> PremiaLedger:
        ledger = self
        for settled in settlement.players:
            ledger = ledger.record(
                PremiaEntry(
                    game_id=game_id,
                    pulka=pulka,
                    player=settled.player,
                    premia=settled.premia,
                    moshla=settled.moshla,
                    crossed_out=settled.crossed_out,
                )
            )
        return ledger


def _cell(record: HandRecord, seat: int, crossed: bool) -> dict[str, Any]:
    outcome = record.outcomes[seat]
    points = record.scores[seat]
    return {
        "hand": record.index,
        "cards": record.cards,
        "bid": outcome.bid,
        "took": outcome.took,
        "points": points,
        "text": format_points(points),
        "fulfilled": outcome.fulfilled,
        "khishti": outcome.khishti,
        "crossed_out": crossed,
    }


def score_sheet(
    *,
    game_id: str,
    players: Sequence[str],
    records: Sequence[HandRecord],
    ledger: PremiaLedger,
    current_pulka: int,
    pulka_count: int,
    premia_on: bool,
) -> dict[str, Any]:
    """The whole sheet as JSON (all amounts in points, with their ÷100 text)."""
    pulkas: list[dict[str, Any]] = []
    totals = [0] * len(players)
    colours: list[str | None] = [("green" if premia_on else None)] * len(players)
    for pulka in range(pulka_count):
        in_pulka = [r for r in records if r.pulka == pulka]
        if not in_pulka:
            continue
        entries = [ledger.get(game_id, pulka, p) for p in players]
        rows: dict[str, Any] = {}
        for seat, player in enumerate(players):
            entry = entries[seat]
            crossed_at = entry.crossed_out if entry else None
            cells = [_cell(r, seat, i == crossed_at) for i, r in enumerate(in_pulka)]
            hands_sum = sum(r.scores[seat] for r in in_pulka)
            row: dict[str, Any] = {"hands": cells, "sum": hands_sum}
            if entry is not None:
                adjustment = entry.premia + entry.moshla
                result = hands_sum + adjustment
                row["sigma"] = {
                    "result": result,
                    "text": format_points(result),
                    "premia": entry.premia,
                    "moshla": entry.moshla,
                    "adjustment": format_adjustment(adjustment) if adjustment else None,
                }
                totals[seat] += result
            else:
                row["sigma"] = None
                totals[seat] += hands_sum
            row["running_total"] = totals[seat]
            row["running_text"] = format_points(totals[seat])
            if pulka == current_pulka and premia_on:
                failed = any(not r.outcomes[seat].fulfilled for r in in_pulka)
                colours[seat] = "red" if failed else "green"
            rows[player] = row
        pulkas.append({"pulka": pulka, "players": rows})
    bottom = {
        player: {
            "total": totals[seat],
            "text": format_points(totals[seat]),
            "colour": colours[seat],
            "name_red": colours[seat] == "red",
        }
        for seat, player in enumerate(players)
    }
    return {"pulkas": pulkas, "bottom": bottom}
