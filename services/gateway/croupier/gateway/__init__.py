"""The gateway: the one API frontends call (docs/gateway.md)."""
