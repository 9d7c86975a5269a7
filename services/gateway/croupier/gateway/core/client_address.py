"""The caller's real address behind the ingress: the TCP peer, or what trusted proxies say.

A proxy adds the address it received a request from to `X-Forwarded-For` (or to the
standard `Forwarded` header's `for=`). Anybody can send those headers, so they are read
only when the peer is a proxy the operator trusts (`trusted`, CIDRs), and from the right:
each hop is believed while the address before it is also a trusted proxy, and the first
address a trusted proxy received from that is not one itself is the client. What a client
wrote into the header itself lies left of that and is never reached. `Forwarded` wins when
both are present (it is the standard one).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import TypeAlias

__all__ = ["Network", "client_address", "forwarded_chain", "parse_networks"]

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
Address: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_networks(text: str) -> tuple[Network, ...]:
    """`10.0.0.0/8,fd00::/8,192.168.1.7`: the trusted proxies (a bare address is a /32 or
    /128); ValueError naming a bad item."""
    networks = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an address or CIDR network") from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    """An address as the headers write one: bare, `[v6]`, `[v6]:port`, `v4:port`, quoted."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None  # "unknown", an obfuscated name (RFC 7239 §6), garbage


def forwarded_chain(forwarded: Sequence[str], forwarded_for: Sequence[str]) -> list[str]:
    """The hops the headers name, the client first (every `Forwarded` element's `for=`, or
    else `X-Forwarded-For`'s items; several header lines read in order)."""
    hops: list[str] = []
    for line in forwarded:
        for element in line.split(","):
            for pair in element.split(";"):
                key, _, value = pair.strip().partition("=")
                if key.lower() == "for":
                    hops.append(value)
    if hops:
        return hops
    return [item for line in forwarded_for for item in line.split(",") if item.strip()]


def client_address(peer_host: str, chain: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address: `peer_host` (the TCP peer) unless it is a trusted proxy, then
    the nearest hop of `chain` (see `forwarded_chain`) not itself trusted; a hop that is no
    address ends the walk at the trusted proxy that wrote it."""

    if not trusted:
        return peer_host  # no proxy trusted (the default): nothing to parse on each call

    def is_trusted(address: Address) -> bool:
        return any(address in network for network in trusted)

    current = _address(peer_host)
    if current is None or not is_trusted(current):
        return peer_host
    for hop in reversed(chain):
        address = _address(hop)
        if address is None:
            break
        current = address
        if not is_trusted(address):
            break
    return str(current)
