"""The one table that turns errors into gRPC status codes.

Handlers and cores never pick a status: they raise a `croupier.game.errors` refusal
(`RuleBroken` or one of its kinds) or, for a dependency that is down, `Unavailable`. The
kit's interceptor looks the exception's class up here by ancestry (the first class of
its MRO that the table names) and answers that status with the exception's message,
sending its `reason` in the trailing metadata (`x-error-reason`) for programs. Anything
the table does not name is a bug and answers INTERNAL.

Messages are written for the frontend developer who reads them and never contain hidden
information (another player's cards).
"""

from __future__ import annotations

import grpc

from croupier.game.errors import Duplicate, Malformed, NotYours, RuleBroken, Unknown

REASON_HEADER = "x-error-reason"


class Unavailable(Exception):
    """A dependency (the command log, the wallet, the replica owning a table) cannot answer
    now; the same request may be retried."""

    reason = "unavailable"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unauthenticated(Exception):
    """The caller did not prove who he is: no token, or one that is expired, forged, signed
    with another algorithm or by an unknown key (`croupier.kit.auth`). `reason` names which."""

    def __init__(self, message: str, reason: str = "unauthenticated") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


STATUS_BY_ROOT: dict[type[Exception], grpc.StatusCode] = {
    Malformed: grpc.StatusCode.INVALID_ARGUMENT,
    Unknown: grpc.StatusCode.NOT_FOUND,
    NotYours: grpc.StatusCode.PERMISSION_DENIED,
    Duplicate: grpc.StatusCode.ALREADY_EXISTS,
    RuleBroken: grpc.StatusCode.FAILED_PRECONDITION,
    Unavailable: grpc.StatusCode.UNAVAILABLE,
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
}


def status_of(error: BaseException) -> grpc.StatusCode | None:
    """The status `error` answers, or None when it is not an expected refusal (a bug)."""
    for cls in type(error).__mro__:
        status = STATUS_BY_ROOT.get(cls)
        if status is not None:
            return status
    return None
