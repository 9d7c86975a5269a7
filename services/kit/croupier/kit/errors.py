"""Errors a service handler raises; the kit answers each with its gRPC status code.

Handlers never call `context.abort` themselves: they raise one of these with a message
written for the frontend developer who will read it. Messages must not contain hidden
information (another player's cards).
"""

from __future__ import annotations

import grpc


class ServiceError(Exception):
    """Base class: an expected failure with a status code and a readable message."""

    status: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(ServiceError):
    """The request itself is wrong (missing field, bad format, negative amount)."""

    status = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(ServiceError):
    """The request is well formed but not allowed in the current state (not your turn)."""

    status = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(ServiceError):
    """The named table, account or player does not exist."""

    status = grpc.StatusCode.NOT_FOUND


class AlreadyExists(ServiceError):
    """An id is taken (for idempotency keys: by a request with different content)."""

    status = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(ServiceError):
    """The caller may not do this (acting for another player)."""

    status = grpc.StatusCode.PERMISSION_DENIED


class Unavailable(ServiceError):
    """A dependency is down; the client may retry."""

    status = grpc.StatusCode.UNAVAILABLE
