"""Joker tools that are neither rules nor the engine: the conformance replayer."""
