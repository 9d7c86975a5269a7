"""Backgammon's tools: the conformance replayer and random reachable positions."""
