"""The cyclic garbage collector around a bulk load: paused while a process builds many
long-lived objects at once, and those objects frozen afterwards.

CPython's collector runs a full pass each time the long-lived objects have grown by a
quarter since the last one, and a full pass visits every tracked object. A table host
restoring 10,000 tables from snapshots creates about three million such objects, so the
collector ran pass after pass over an ever larger heap: two thirds of the start-up, and
more the longer the tables' history (benchmarks/snapshots.py). Paused, the load builds its
objects once; frozen (`gc.freeze`), they are left out of every later pass too, so serving
does not stall for a second when the next full pass comes.

Freezing keeps whatever is garbage at that moment for good, so the load starts with a full
collection: a pass over the heap as it was before the load (small at a process's start).
Only the few cycles the load itself leaves behind (a consumer it closed) stay frozen: a
bulk load is for work that builds long-lived objects and little garbage in cycles.

Process-wide: for a process's owner to choose (`croupier serve table` does), not for a
library inside someone else's process (tests, `croupier run`), which use `no_bulk_load`.
Loads may overlap: the collector resumes when the last one ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

__all__ = ["BulkLoad", "no_bulk_load", "paused_then_frozen"]

BulkLoad = Callable[[], AbstractContextManager[None]]

_loads = 0  # bulk loads under way
_resume = False  # whether the collector was running when the first of them began


@contextlib.contextmanager
def paused_then_frozen() -> Iterator[None]:
    """The collector paused for the block; what it built frozen at the end."""
    global _loads, _resume
    if _loads == 0:
        _resume = gc.isenabled()
        gc.collect()
        gc.disable()
    _loads += 1
    try:
        yield
    finally:
        _loads -= 1
        if _loads == 0:
            gc.freeze()
            if _resume:
                gc.enable()


def no_bulk_load() -> AbstractContextManager[None]:
    """The collector left as it is."""
    return contextlib.nullcontext()
