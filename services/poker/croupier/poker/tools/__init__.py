"""Poker's tools: the conformance replayer and the bots."""
