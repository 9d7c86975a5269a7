"""The event loop every Croupier service process runs on: uvloop (libuv's loop, in C).

A table action is a few gRPC calls and a Kafka append, and each of those is a handful of
callbacks, futures and hand-overs from other threads on the loop. asyncio's default loop
does that book-keeping in Python; uvloop does it in C. On the table benchmark
(`benchmarks/table.py`, 200 tables) the table service spent about 8% less CPU per action on
uvloop, and that CPU is what queues up into the latency tail on a busy replica.

Tests that host services inside pytest run them on pytest's (default) loop, and the
process tests (`croupier serve`) on this one: the services work on both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a process's main coroutine to completion on a new uvloop loop."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
