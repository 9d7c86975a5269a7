"""The fixtures every test may use, unit or integration, kept in tests/support/."""

pytest_plugins = [
    "tests.support.infra",
    "tests.support.wallet",
    "tests.support.games",
    "tests.support.services",
]
