"""What each viewer is shown of a table, now and after every change (view streams)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from croupier.table.service.tables import HostedTable, Tables, ViewSnapshot


class ViewHub:
    def __init__(self, tables: Tables, now_ms: Callable[[], int]) -> None:
        self._tables = tables
        self._now_ms = now_ms

    def snapshot(self, table: HostedTable, player: str) -> ViewSnapshot:
        state = table.state
        viewer = player if player and player in state.seated else None
        view = table.engine.view(state.engine_state, viewer)
        deadline = state.clocks.deadline_ms(player) if player else None
        left = max(0.0, (deadline - self._now_ms()) / 1000) if deadline is not None else 0.0
        return ViewSnapshot(
            state.table_id,
            state.index,
            state.seated,
            view,
            left,
            state.closed,
            state.settled_hand,
            tuple(sorted(table.disconnected_at_ms)),
            tuple(sorted(state.clocks.auto_players)),
            state.hand_number,
            state.hand_seed_sha256,
        )

    async def watch(self, table_id: str, player: str) -> AsyncIterator[ViewSnapshot]:
        """The viewer's view now, then after every change, until the table closes."""
        table = self._tables.get(table_id)
        queue: asyncio.Queue[ViewSnapshot | None] = asyncio.Queue()
        table.watchers.setdefault(player, set()).add(queue)
        try:
            first = self.snapshot(table, player)
            yield first
            if first.closed:
                return
            while (snapshot := await queue.get()) is not None:
                yield snapshot
                if snapshot.closed:
                    return
        finally:
            # Opening or closing a stream says nothing of presence: anybody may watch as
            # any player (a spectator, a second tab); presence is `disconnect`/`reconnect`.
            table.watchers[player].discard(queue)

    def notify(self, table: HostedTable) -> None:
        for player, queues in table.watchers.items():
            if queues:
                snapshot = self.snapshot(table, player)
                for queue in queues:
                    queue.put_nowait(snapshot)

    @staticmethod
    def end_streams(table: HostedTable) -> None:
        for queues in table.watchers.values():
            for queue in queues:
                queue.put_nowait(None)
