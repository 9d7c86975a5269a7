"""Service credentials in the tests (croupier.kit.service_auth): one key set for the whole
run, put in the environment so every `croupier serve` a test starts guards its internal
services with it, and channels whose calls carry a credential signed with it, for tests
that call a guarded service as the gateway or another service would."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from croupier.kit.auth import KeySet
from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.service_auth import KEYS_VARIABLE, ServiceCredential

SERVICE_KEYS = KeySet(keys={"test-services-1": "s" * 64}, signing_kid="test-services-1")


def pytest_configure(config: pytest.Config) -> None:
    # Inherited by every process a test starts from os.environ (`croupier serve ...`).
    os.environ.setdefault(KEYS_VARIABLE, SERVICE_KEYS.format())


def credential(service: str = "tests") -> ServiceCredential:
    """A credential the services of this test run accept."""
    return ServiceCredential(SERVICE_KEYS, service)


@asynccontextmanager
async def service_stub(
    target: Target,
    stub_class: Callable[[grpc.aio.Channel], Any],
    service: str = "tests",
    options: Sequence[tuple[str, Any]] = (),
) -> AsyncIterator[Any]:
    """`stub_class` on a channel to a guarded service, its calls carrying `service`'s
    credential; the channel is closed on exit."""
    channel = ServiceChannel(target, credential(service), options)
    try:
        yield channel.stub(stub_class)
    finally:
        await channel.close()
