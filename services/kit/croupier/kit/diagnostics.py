"""The Diagnostics service every kit server carries (see diagnostics.proto)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import structlog

from croupier.diagnostics.v1 import diagnostics_pb2, diagnostics_pb2_grpc
from croupier.game import Malformed

if TYPE_CHECKING:
    from croupier.kit.context import Context

MAX_MESSAGE = 1024
MAX_DELAY_MS = 30_000


class DiagnosticsService(diagnostics_pb2_grpc.DiagnosticsServicer):
    async def Echo(
        self, request: diagnostics_pb2.EchoRequest, context: Context
    ) -> diagnostics_pb2.EchoResponse:
        if len(request.message) > MAX_MESSAGE:
            raise Malformed(f"message is limited to {MAX_MESSAGE} characters")
        if request.delay_ms > MAX_DELAY_MS:
            raise Malformed(f"delay_ms must be between 0 and {MAX_DELAY_MS}")
        if request.delay_ms:
            await asyncio.sleep(request.delay_ms / 1000)
        request_id = structlog.contextvars.get_contextvars().get("request_id", "")
        return diagnostics_pb2.EchoResponse(message=request.message, request_id=request_id)
