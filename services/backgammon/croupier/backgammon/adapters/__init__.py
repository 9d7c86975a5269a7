"""Bridges from backgammon's rules to code outside them: the GNU Backgammon process."""
