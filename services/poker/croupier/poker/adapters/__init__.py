"""Bridges from poker's rules to code outside them: the phevaluator hand evaluator."""
