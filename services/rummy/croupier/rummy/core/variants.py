"""The six variants by their conformance name."""

from __future__ import annotations

from croupier.rummy.core import gin, oklahoma_gin, rummy, rummy40, rummy51, rummy500
from croupier.rummy.core.variant import VariantRules

__all__ = ["VARIANTS"]

VARIANTS: dict[str, VariantRules] = {
    rules.name: rules
    for rules in (
        rummy.RULES,
        rummy51.RULES,
        rummy40.RULES,
        rummy500.RULES,
        gin.RULES,
        oklahoma_gin.RULES,
    )
}
