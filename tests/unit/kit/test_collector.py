"""The garbage collector around a bulk load (croupier.kit.collector): paused during the
load, what it built frozen after it, garbage from before collected rather than frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from croupier.kit.collector import paused_then_frozen


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """Each test leaves the collector running and nothing frozen, as it found them."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_pauses_for_the_load_and_what_it_built_is_frozen_after() -> None:
    gc.enable()
    frozen_before = gc.get_freeze_count()
    with paused_then_frozen():
        assert not gc.isenabled()
        built = [Node() for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(built)


def test_garbage_from_before_the_load_is_collected_not_frozen() -> None:
    gc.disable()  # so the cycle below is still there when the load begins
    first, second = Node(), Node()
    first.other, second.other = second, first
    gone = weakref.ref(first)
    del first, second
    gc.enable()
    with paused_then_frozen():
        assert gone() is None


def test_overlapping_loads_resume_the_collector_when_the_last_ends() -> None:
    gc.enable()
    outer, inner = paused_then_frozen(), paused_then_frozen()
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)
    assert not gc.isenabled()  # the inner load still runs
    inner.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_paused_before_the_load_stays_paused() -> None:
    gc.disable()
    with paused_then_frozen():
        pass
    assert not gc.isenabled()
