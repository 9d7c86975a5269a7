"""Errors shared by the conformance readers of every game (pure: no I/O)."""

from __future__ import annotations


class MalformedScenario(ValueError):
    """A conformance document that cannot be understood: unknown game, missing field, bad card.

    `croupier conformance` answers it with exit code 2 and this message on stderr. An
    *illegal action* inside a well-formed document is not malformed: it is reported in
    the output's `error` field instead.
    """
