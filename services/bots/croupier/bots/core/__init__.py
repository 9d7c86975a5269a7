"""The bots' pure part: policies and the fill rule (no I/O, no clock, no randomness of
their own: a policy's `random.Random` is the caller's)."""
