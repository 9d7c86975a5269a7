"""Settings from environment variables, validated at start-up.

A service declares its settings as a frozen dataclass whose fields carry an `env(...)`
spec. `load(cls)` reads every variable, converts and checks it, and raises
`SettingsError` listing *every* problem at once, so a wrong deployment fails fast with
one clear message instead of misbehaving later.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

_SPEC = "croupier_env"


class SettingsError(ValueError):
    """One or more environment variables are missing or invalid."""


@dataclasses.dataclass(frozen=True)
class _EnvSpec:
    name: str
    parse: Callable[[str], Any]
    doc: str
    required: bool


def env(
    name: str,
    parse: Callable[[str], T],
    default: T | None = None,
    *,
    doc: str = "",
) -> Any:
    """Declare a dataclass field read from environment variable `name`.

    `parse` converts the text and raises ValueError with a readable reason when it is
    invalid. Without a default the variable is required.
    """
    spec = _EnvSpec(name=name, parse=parse, doc=doc, required=default is None)
    if default is None:
        return dataclasses.field(metadata={_SPEC: spec})
    return dataclasses.field(default=default, metadata={_SPEC: spec})


def load(cls: type[T], environ: Mapping[str, str] | None = None) -> T:
    """Build `cls` from the environment, or raise SettingsError naming every bad variable."""
    source = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        spec: _EnvSpec | None = field.metadata.get(_SPEC)
        if spec is None:
            continue
        raw = source.get(spec.name)
        if raw is None or raw == "":
            if spec.required:
                problems.append(f"{spec.name} is required ({spec.doc or field.name})")
            continue
        try:
            values[field.name] = spec.parse(raw)
        except ValueError as exc:
            problems.append(f"{spec.name}={raw!r} is invalid: {exc}")
    if problems:
        raise SettingsError("invalid settings: " + "; ".join(problems))
    return cls(**values)


# ---- parsers ---------------------------------------------------------------------


def port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError("a port is between 0 and 65535")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be a positive number")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError("must be a positive integer")
    return value


def sql_identifier(text: str) -> str:
    """A schema name that goes into SQL unquoted: lower-case letters, digits, underscores."""
    if not text.replace("_", "a").isalnum() or not text.islower() or text[0].isdigit():
        raise ValueError("a lower-case SQL identifier (letters, digits, underscore)")
    return text


def log_level(text: str) -> str:
    value = text.upper()
    if value not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
        raise ValueError("expected DEBUG, INFO, WARNING or ERROR")
    return value


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError("expected one of " + ", ".join(options))
        return text

    return parse


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    """What every gRPC service needs (each service adds its own settings class)."""

    grpc_host: str = env("CROUPIER_GRPC_HOST", str, "0.0.0.0", doc="address to listen on")
    grpc_port: int = env("CROUPIER_GRPC_PORT", port, 50051, doc="gRPC port (0 = any free)")
    metrics_port: int = env(
        "CROUPIER_METRICS_PORT", port, 9090, doc="Prometheus /metrics port (0 = any free)"
    )
    log_level: str = env("CROUPIER_LOG_LEVEL", log_level, "INFO")
    shutdown_grace_seconds: float = env(
        "CROUPIER_SHUTDOWN_GRACE_SECONDS",
        positive_float,
        15.0,
        doc="how long SIGTERM waits for in-flight calls",
    )
