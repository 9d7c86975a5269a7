"""A client bot's door: the gateway over gRPC with the player's own dev token, every call
recorded in the history, a call that finds the platform down (a process killed by a fault,
the gateway restarting) retried with the same request (Act's command id and OpenTable's
request key make a retry apply once) until the platform answers or the patience runs out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.message import Message

from croupier.gateway.v1 import gateway_pb2_grpc
from tests.e2e.harness.history import Call, History

# Statuses that say "not now" rather than "no": the call is sent again (over the rate
# limit too: a well-behaved client waits and retries).
TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
PATIENCE_SECONDS = 120.0


class Refused(Exception):
    """The platform answered no (not a transient failure): the status and details."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


def _summary(request: Message) -> tuple[str, str, str]:
    table_id = str(getattr(request, "table_id", ""))
    command_id = str(getattr(request, "command_id", ""))
    action = str(getattr(request, "action_json", ""))
    return f"{table_id} {command_id} {action}".strip(), command_id, table_id


class GatewayClient:
    """One channel to the gateway shared by the run's bots; tokens per player."""

    def __init__(self, address: str, history: History, token: Any) -> None:
        self._channel = grpc.aio.insecure_channel(address)
        self._stub = gateway_pb2_grpc.GatewayStub(self._channel)
        self._history = history
        self._token = token  # player -> a fresh token

    async def close(self) -> None:
        await self._channel.close()

    async def call(self, player: str, method: str, request: Message) -> Any:
        """`method` for `player`; its answer, or `Refused`. Transient failures are retried."""
        summary, command_id, table_id = _summary(request)
        deadline = time.monotonic() + PATIENCE_SECONDS
        pause = 0.1
        while True:
            metadata = (("authorization", f"Bearer {self._token(player)}"),)
            sent, began = self._history.now(), time.monotonic()
            try:
                answer = await getattr(self._stub, method)(request, metadata=metadata, timeout=10)
            except grpc.aio.AioRpcError as error:
                code, details = error.code(), error.details() or ""
                self._record(
                    player, method, summary, code.name, details, sent, began, command_id, table_id
                )
                if code in TRANSIENT and time.monotonic() < deadline:
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 2.0)
                    continue
                raise Refused(code, details) from None
            version = getattr(getattr(answer, "view", None), "version", "")
            self._record(
                player,
                method,
                summary,
                "OK",
                f"version {version}".strip(),
                sent,
                began,
                command_id,
                table_id,
            )
            return answer

    async def stream(self, player: str, method: str, request: Message) -> AsyncIterator[Any]:
        """`method`'s messages for `player` until the stream ends (recorded as one call);
        a broken stream raises `Refused` (its caller opens it again where it was)."""
        summary, _, table_id = _summary(request)
        metadata = (("authorization", f"Bearer {self._token(player)}"),)
        sent, began = self._history.now(), time.monotonic()
        call = getattr(self._stub, method)(request, metadata=metadata)
        status, details = "OK", "ended"
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as error:
            status, details = error.code().name, error.details() or ""
            raise Refused(error.code(), details) from None
        finally:
            call.cancel()
            self._record(player, method, summary, status, details, sent, began, "", table_id)

    def _record(
        self,
        player: str,
        method: str,
        summary: str,
        status: str,
        answer: str,
        sent: float,
        began: float,
        command_id: str,
        table_id: str,
    ) -> None:
        latency = (time.monotonic() - began) * 1000
        self._history.calls.append(
            Call(sent, player, method, summary, status, answer, latency, command_id, table_id)
        )
