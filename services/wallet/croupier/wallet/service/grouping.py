"""Group commit for single transfers.

Each single transfer in its own transaction spends most of the database's time on the call
itself (function entry, statement start-up, constraint set-up, commit), not on the rows it
writes. So, while the wallet is busy, the single transfers waiting at the same moment go to
the database together, as one all-or-nothing batch. No request waits for a group to fill:
a transfer that arrives while fewer than `concurrency` groups are running starts one at once,
alone if it is alone.

Each caller still gets exactly the answer its own request would have had. A group is only an
optimisation of the common case, every transfer new and valid: if the database refuses the
group for any reason (one transfer short of funds, an id already used, a conflict), nothing
of it was applied, and each of its transfers runs again alone, with its own checks, replay
and error. Two requests with the same transfer id never share a group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from croupier.wallet.core.model import Transfer, TransferSpec

__all__ = ["TransferGroups"]

#: One transfer on its own: the transfer, and whether it was a replay.
RunAlone = Callable[[TransferSpec], Awaitable[tuple[Transfer, bool]]]
#: Several new transfers in one transaction, all or none; raises if any is refused.
RunTogether = Callable[[Sequence[TransferSpec]], Awaitable[Sequence[Transfer]]]

_Waiting = tuple[TransferSpec, "asyncio.Future[tuple[Transfer, bool]]"]


class TransferGroups:
    def __init__(
        self,
        *,
        run_alone: RunAlone,
        run_together: RunTogether,
        concurrency: int,
        max_group: int = 100,
    ) -> None:
        if concurrency < 1 or max_group < 1:
            raise ValueError("concurrency and max_group must be at least 1")
        self._alone = run_alone
        self._together = run_together
        self._concurrency = concurrency
        self._max_group = max_group
        self._waiting: list[_Waiting] = []
        self._running = 0
        self._drains: set[asyncio.Task[None]] = set()

    async def submit(self, spec: TransferSpec) -> tuple[Transfer, bool]:
        future: asyncio.Future[tuple[Transfer, bool]] = asyncio.get_running_loop().create_future()
        self._waiting.append((spec, future))
        if self._running < self._concurrency:
            self._running += 1
            drain = asyncio.create_task(self._drain())
            self._drains.add(drain)
            drain.add_done_callback(self._drains.discard)
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                group = self._waiting[: self._max_group]
                del self._waiting[: self._max_group]
                await self._run(group)
        except asyncio.CancelledError:
            # Shutting down: nobody would answer the transfers still waiting.
            for _, future in self._waiting:
                future.cancel()
            self._waiting.clear()
            raise
        finally:
            self._running -= 1

    async def _run(self, group: list[_Waiting]) -> None:
        live = [(spec, future) for spec, future in group if not future.done()]
        try:
            if len(live) > 1 and len({spec.transfer_id for spec, _ in live}) == len(live):
                try:
                    transfers = await self._together([spec for spec, _ in live])
                except Exception:  # noqa: BLE001 - refused as a group: each runs alone below
                    pass
                else:
                    for (_, future), transfer in zip(live, transfers, strict=True):
                        if not future.done():
                            future.set_result((transfer, False))
                    return
            await asyncio.gather(*(self._run_alone(spec, future) for spec, future in live))
        except asyncio.CancelledError:
            for _, future in live:
                future.cancel()
            raise

    async def _run_alone(
        self, spec: TransferSpec, future: asyncio.Future[tuple[Transfer, bool]]
    ) -> None:
        try:
            result = await self._alone(spec)
        except Exception as error:  # noqa: BLE001 - the caller's own error, handed to it
            if not future.done():
                future.set_exception(error)
        else:
            if not future.done():
                future.set_result(result)
