"""The type of a grpc.aio servicer context, as every handler annotates it.

The stubs make these classes generic; at run time they are not subscriptable, so the
aliases exist for the type checker only (modules use `from __future__ import annotations`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import grpc

    Context = grpc.aio.ServicerContext[Any, Any]
    Handler = grpc.RpcMethodHandler[Any, Any]
