"""The one table that turns errors into gRPC status codes.

Handlers and cores never pick a status: they raise a `croupier.game.errors` refusal
(`RuleBroken` or one of its kinds) or, for a dependency that is down, `Unavailable`. The
kit's interceptor looks the exception's class up here by ancestry (the first class of
its MRO that the table names) and answers that status with the exception's message,
sending its `reason` in the trailing metadata (`x-error-reason`) for programs. Anything
the table does not name is a bug and answers INTERNAL.

Messages are written for the frontend developer who reads them and never contain hidden
information (another player's cards).

A refusal also goes out as a `google.rpc.Status` (`status_details`: the gRPC trailer
`grpc-status-details-bin`, Connect's error details) a frontend can act on without parsing
the message: an `ErrorInfo` with the reason, a `BadRequest` field violation when the
refusal names the field it is about (`field`), a `RetryInfo` when it says when to retry
(`retry_after_seconds`).
"""

from __future__ import annotations

import math

import grpc
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from croupier.game.errors import Duplicate, Malformed, NotYours, RuleBroken, Unknown

REASON_HEADER = "x-error-reason"
DETAILS_HEADER = "grpc-status-details-bin"
ERROR_DOMAIN = "croupier"


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


class RateLimited(Exception):
    """Too many calls: the caller may try again after `retry_after_seconds`."""

    def __init__(self, message: str, retry_after_seconds: float, reason: str) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_seconds = retry_after_seconds
        self.reason = reason


STATUS_BY_ROOT: dict[type[Exception], grpc.StatusCode] = {
    Malformed: grpc.StatusCode.INVALID_ARGUMENT,
    Unknown: grpc.StatusCode.NOT_FOUND,
    NotYours: grpc.StatusCode.PERMISSION_DENIED,
    Duplicate: grpc.StatusCode.ALREADY_EXISTS,
    RuleBroken: grpc.StatusCode.FAILED_PRECONDITION,
    Unavailable: grpc.StatusCode.UNAVAILABLE,
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    RateLimited: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def status_of(error: BaseException) -> grpc.StatusCode | None:
    """The status `error` answers, or None when it is not an expected refusal (a bug)."""
    for cls in type(error).__mro__:
        status = STATUS_BY_ROOT.get(cls)
        if status is not None:
            return status
    return None


def error_details(error: BaseException) -> list[Message]:
    """What a refusal says beyond its message, as `google.rpc` detail messages."""
    details: list[Message] = [
        error_details_pb2.ErrorInfo(reason=str(getattr(error, "reason", "")), domain=ERROR_DOMAIN)
    ]
    field = getattr(error, "field", "")
    if isinstance(field, str) and field:
        violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=str(error))
        details.append(error_details_pb2.BadRequest(field_violations=[violation]))
    retry_after = getattr(error, "retry_after_seconds", None)
    if isinstance(retry_after, (int, float)) and retry_after > 0:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(math.ceil(retry_after * 1e9))
        details.append(retry)
    return details


def status_details(error: BaseException, status: grpc.StatusCode) -> bytes:
    """The `grpc-status-details-bin` trailer of refusal `error` answered with `status`."""
    answer = status_pb2.Status(code=getattr(code_pb2, status.name), message=str(error))
    for detail in error_details(error):
        answer.details.add().Pack(detail)
    encoded: bytes = answer.SerializeToString()
    return encoded
