"""Every test under tests/integration/ talks to the real Kafka broker and/or PostgreSQL: the
folder marks it `integration`, so `make test-unit` (`-m "not integration"`) leaves it out and
a new test here cannot forget the marker."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)
