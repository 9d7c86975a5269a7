"""structlog JSON logs with the request id bound per call.

The kit's interceptor binds `request_id` (taken from the `x-request-id` metadata, or a
new one) into structlog's context variables, so every log line written while serving a
call carries it, also from deep inside the service layer.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

REQUEST_ID_HEADER = "x-request-id"


def configure(level: str = "INFO", service: str = "croupier") -> None:
    """Write one JSON object per line to stderr, also for libraries' stdlib logging."""
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(sort_keys=True),
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    structlog.contextvars.bind_contextvars(service=service)


def get_logger(**initial: Any) -> Any:
    return structlog.get_logger(**initial)
