"""The examples in the engine's docstrings run."""

from __future__ import annotations

import doctest

import pytest

from croupier.joker.core import schedule, scoring


@pytest.mark.parametrize("module", [scoring, schedule], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    failures, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried > 0 and failures == 0
