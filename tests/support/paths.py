"""Where the suite's files are: the repository root and the test data folder (tests/data)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
PUBLIC = DATA / "conformance" / "public"
"""The public conformance examples, one folder per game (tests/test_conformance_public.py)."""
