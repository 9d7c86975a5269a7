"""Spin (rule 53, OQ 21): the multiplier draw follows the published distribution, every draw
verifies from its revealed seed, the table is validated, and prizes split the pool exactly."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.game.limits import MAX_AMOUNT
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.spin import (
    PUBLISHED_TABLE,
    WEIGHT_TOTAL,
    Multiplier,
    SpinTable,
    commitment,
    draw_multiplier,
    prizes,
    row_for_ticket,
    verify_draw,
)
from tests.support.paths import ROOT

DRAWS = 100_000
# The chi-square statistic's 0.999 quantile with 6 degrees of freedom (7 rows - 1):
# 22.458 (tables; scipy.stats.chi2.ppf(0.999, 6)). A fair draw exceeds it with p = 0.001;
# the seeds are fixed, so the test is deterministic and never flakes.
CRITICAL_P001_DF6 = Fraction(22458, 1000)


def seed(counter: int) -> bytes:
    return hashlib.sha256(b"spin chi-square %d" % counter).digest()


def chi_square(counts: Counter[int], table: SpinTable, draws: int) -> Fraction:
    statistic = Fraction(0)
    for row in table.rows:
        expected = Fraction(draws * row.weight, WEIGHT_TOTAL)
        statistic += (counts[row.multiplier] - expected) ** 2 / expected
    return statistic


def test_rule_53_spin_draws_follow_the_published_distribution_and_verify_from_the_seed() -> None:
    assert len(PUBLISHED_TABLE.rows) - 1 == 6  # the degrees of freedom CRITICAL_P001_DF6 uses
    assert min(DRAWS * row.weight // WEIGHT_TOTAL for row in PUBLISHED_TABLE.rows) >= 5
    counts: Counter[int] = Counter()
    for counter in range(DRAWS):
        drawn = draw_multiplier(PUBLISHED_TABLE, seed(counter)).multiplier
        counts[drawn] += 1
        assert verify_draw(PUBLISHED_TABLE, seed(counter), commitment(seed(counter)), drawn)
    assert chi_square(counts, PUBLISHED_TABLE, DRAWS) < CRITICAL_P001_DF6
    # The same counts against a slightly different table (23,000 parts per million moved
    # from 3x to 5x) are far past the threshold: the test tells a wrong distribution.
    skewed = SpinTable(
        tuple(
            Multiplier(
                row.multiplier,
                row.weight + {3: -23_000, 5: 23_000}.get(row.multiplier, 0),
                row.shares,
            )
            for row in PUBLISHED_TABLE.rows
        )
    )
    assert chi_square(counts, skewed, DRAWS) > 10 * CRITICAL_P001_DF6


def test_a_draw_does_not_verify_with_another_seed_commitment_or_multiplier() -> None:
    others = [row.multiplier for row in PUBLISHED_TABLE.rows]
    for counter in range(0, 2000, 7):
        revealed = seed(counter)
        committed = commitment(revealed)
        drawn = draw_multiplier(PUBLISHED_TABLE, revealed).multiplier
        assert verify_draw(PUBLISHED_TABLE, revealed, committed, drawn)
        assert not verify_draw(PUBLISHED_TABLE, seed(counter + 1), committed, drawn)
        assert not verify_draw(PUBLISHED_TABLE, revealed, commitment(seed(counter + 1)), drawn)
        for other in others:
            if other != drawn:
                assert not verify_draw(PUBLISHED_TABLE, revealed, committed, other)
    assert not verify_draw(PUBLISHED_TABLE, b"short", commitment(b"short"), 2)


def test_an_independent_verifier_re_derives_every_draw_from_the_documented_recipe() -> None:
    """HMAC-SHA256(seed, "spin-multiplier" 0x00 counter(8 bytes, big-endian)) blocks, read 3
    bytes at a time, low 20 bits, redrawn while ≥ 1,000,000; the ticket picks the row whose
    cumulative weight range (published order) holds it."""
    for counter in range(300):
        revealed = seed(counter)
        data = b"".join(
            hmac.new(revealed, b"spin-multiplier\x00" + block.to_bytes(8, "big"), "sha256").digest()
            for block in range(4)
        )
        tickets = (int.from_bytes(data[i : i + 3], "big") & 0xFFFFF for i in range(0, 126, 3))
        ticket = next(t for t in tickets if t < WEIGHT_TOTAL)
        start = 0
        for row in PUBLISHED_TABLE.rows:
            if start <= ticket < start + row.weight:
                expected = row
            start += row.weight
        assert draw_multiplier(PUBLISHED_TABLE, revealed) == expected


@pytest.mark.parametrize(
    ("ticket", "multiplier"),
    [
        (0, 2),
        (649_999, 2),
        (650_000, 3),
        (879_999, 3),
        (880_000, 5),
        (998_999, 25),
        (999_000, 100),
        (999_899, 100),
        (999_900, 1000),
        (999_999, 1000),
    ],
)
def test_tickets_map_to_rows_by_cumulative_weight_at_each_boundary(
    ticket: int, multiplier: int
) -> None:
    assert row_for_ticket(PUBLISHED_TABLE, ticket).multiplier == multiplier


@pytest.mark.parametrize("ticket", [-1, WEIGHT_TOTAL, 1.0, True])
def test_a_ticket_outside_the_weights_is_refused(ticket: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        row_for_ticket(PUBLISHED_TABLE, ticket)
    assert refused.value.reason == "invalid_ticket"


@pytest.mark.parametrize("bad_seed", [b"", bytes(31), bytes(33), "0" * 32])
def test_a_seed_of_the_wrong_shape_is_refused_without_echoing_it(bad_seed: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        draw_multiplier(PUBLISHED_TABLE, bad_seed)
    assert refused.value.reason == "invalid_seed"
    assert refused.value.message == "a Spin seed is 32 bytes"


def rows(*specs: tuple[Any, Any, Any]) -> tuple[Multiplier, ...]:
    return tuple(Multiplier(*spec) for spec in specs)


@pytest.mark.parametrize(
    ("table_rows", "field"),
    [
        ((), "at least one multiplier"),
        (rows((2, 500_000, (1,)), (3, 400_000, (1,))), "sum to 1000000"),
        (rows((2, 500_000, (1,)), (2, 500_000, (1,))), "a multiplier must be between 3"),
        (rows((3, 500_000, (1,)), (2, 500_000, (1,))), "a multiplier must be between 4"),
        (rows((0, WEIGHT_TOTAL, (1,))), "a multiplier must be between 1"),
        (rows((2.5, WEIGHT_TOTAL, (1,))), "a multiplier must be a whole number"),
        (rows((2, 0, (1,)), (3, WEIGHT_TOTAL, (1,))), "multiplier 2 weight"),
        (rows((2, WEIGHT_TOTAL, ())), "multiplier 2 shares name 1 to 3 places"),
        (rows((2, WEIGHT_TOTAL, (1, 1, 1, 1))), "shares name 1 to 3 places"),
        (rows((2, WEIGHT_TOTAL, [1])), "shares name 1 to 3 places"),
        (rows((2, WEIGHT_TOTAL, (0, 0))), "multiplier 2 share of place 1"),
        (rows((2, WEIGHT_TOTAL, (5, -1))), "multiplier 2 share of place 2"),
        (rows((2, WEIGHT_TOTAL, (1, 2))), "must not rise"),
        (((2, WEIGHT_TOTAL, (1,)),), "must be a Multiplier"),
    ],
)
def test_rule_53_a_malformed_spin_table_is_refused_naming_what_is_wrong(
    table_rows: tuple[Any, ...], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        SpinTable(table_rows)
    assert refused.value.reason == "invalid_spin_table"
    assert field in refused.value.message and len(refused.value.message) < 200


@pytest.mark.parametrize(
    ("row", "buy_in", "expected"),
    [
        (Multiplier(2, 1, (1,)), 100, (200,)),
        (Multiplier(100, 1, (8, 1, 1)), 7, (560, 70, 70)),
        (Multiplier(3, 1, (3, 2, 2)), 3, (5, 2, 2)),  # 9 × 3/7 = 3, 9 × 2/7 = 2: 2 left to 1st
        (Multiplier(1000, 1, (8, 1, 1)), 0, (0, 0, 0)),
    ],
)
def test_rule_53_the_pool_is_the_buy_in_times_multiplier_and_odd_chips_go_to_first_place(
    row: Multiplier, buy_in: int, expected: tuple[int, ...]
) -> None:
    assert prizes(row, buy_in) == expected


@given(st.sampled_from(PUBLISHED_TABLE.rows), st.integers(0, MAX_AMOUNT // 1000))
def test_prizes_always_add_up_to_the_pool_and_never_rise_by_place(
    row: Multiplier, buy_in: int
) -> None:
    split = prizes(row, buy_in)
    assert sum(split) == buy_in * row.multiplier
    assert list(split) == sorted(split, reverse=True)


@pytest.mark.parametrize("buy_in", [-1, 1.5, MAX_AMOUNT // 1000 + 1])
def test_a_buy_in_out_of_bounds_or_a_pool_past_max_amount_is_refused(buy_in: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        prizes(Multiplier(1000, 1, (1,)), buy_in)
    assert refused.value.reason == "invalid_buy_in"


def test_the_rules_document_publishes_the_table_the_draw_uses() -> None:
    text = (ROOT / "docs/rules/poker-naiko.md").read_text()
    section = text.split("## Tournament structures", 1)[1]
    published = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            shares = tuple(int(share) for share in cells[2].split("/"))
            published.append(Multiplier(int(cells[0]), int(cells[1].replace(",", "")), shares))
    assert tuple(published) == PUBLISHED_TABLE.rows
