"""When a command is answered at the latest, and waiting for a table's lock until then."""

from __future__ import annotations

import asyncio

from croupier.table.service.tables import LogUnavailable

# A command is answered within this long, or by its caller's deadline if sooner (less a
# tenth for the answer's way back), also when the command log does not answer: then
# with UNAVAILABLE, the table fenced until the append is confirmed, which is retried in
# the background (`CommandPath.append`). Without it a caller waited out the producer's
# delivery timeout (40 s) while the broker was down, and every later caller queued
# behind it.
ANSWER_WITHIN_SECONDS = 5.0


def deadline_after(within: float | None = None) -> float:
    """The loop time by which a command is answered (`ANSWER_WITHIN_SECONDS`)."""
    limit = ANSWER_WITHIN_SECONDS if within is None else min(ANSWER_WITHIN_SECONDS, within)
    return asyncio.get_running_loop().time() + limit


async def acquire_by(lock: asyncio.Lock, deadline: float) -> None:
    """Take `lock` by `deadline`: it is held for as long as the command before waits
    for the log, which may not answer (the caller hears UNAVAILABLE, not nothing)."""
    try:
        async with asyncio.timeout_at(deadline):
            await lock.acquire()
    except TimeoutError as exc:
        raise LogUnavailable(
            "the table is waiting for its command log to confirm an earlier command; "
            "retry with the same command id"
        ) from exc
