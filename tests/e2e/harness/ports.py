"""Free TCP ports, chosen once per run so a restarted process comes back where the others
look for it."""

from __future__ import annotations

import socket


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free on 127.0.0.1 right now (held together while chosen, so
    no two are the same)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for held in sockets:
            held.bind(("127.0.0.1", 0))
        return [held.getsockname()[1] for held in sockets]
    finally:
        for held in sockets:
            held.close()
