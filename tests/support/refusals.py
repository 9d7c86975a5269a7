"""How tests name a refusal's kind: the status the kit's one error table answers for it."""

from __future__ import annotations

from croupier.kit.errors import status_of


def status_name(error: BaseException) -> str:
    """`error`'s gRPC status in lower case ("invalid_argument"), or "internal" for a bug."""
    code = status_of(error)
    return code.name.lower() if code is not None else "internal"
