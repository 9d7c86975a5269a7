"""A Joker table's options read from JSON: the conformance notation and the table API's.

Two readers, one result (`croupier.joker.core.options.Options`):

- `parse_options`: a conformance document's `options` object (docs/conformance.md, Joker
  section): `premia`, `moshla` (booleans), `multi_premia` (`"others_deducted"` |
  `"others_not_deducted"`), `khishti` (an integer, or `{"short_hands": -200,
  "nine_card_hands": -500}` for the split scheme; the table API's `khishti_nine_card_hands`
  gives the same), and `took_all` (`"hundred_per_card"` | `"as_bid"`, or the proto's
  `TOOK_ALL_…` names). Absent keys take the defaults.
- `table_options`: a table's options, either in that notation or as the
  `croupier.joker.v1.Options` message turned into JSON by the host
  (`json_format.MessageToDict(..., preserving_proto_field_name=True)`: enums by name,
  int64 as text, fields at their default left out); it refuses anything else by name.

Both raise `croupier.game.Malformed` with the key named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from croupier.game import JSON, Malformed
from croupier.joker.core.options import GameType, Khishti, MultiPremia, Options, TookAll

__all__ = ["parse_options", "table_options"]

GAME_TYPES = {
    "standard": GameType.STANDARD,
    "nines": GameType.NINES,
    "GAME_TYPE_STANDARD": GameType.STANDARD,
    "GAME_TYPE_NINES": GameType.NINES,
}
# The clock is the host's (OpenTableRequest.clock); `currency` is read by the host.
HOST_OPTIONS = ("turn_seconds", "reconnect_seconds", "currency")
ENGINE_OPTIONS = (
    "game_type",
    "khishti",
    "khishti_nine_card_hands",
    "premia",
    "moshla",
    "multi_premia",
    "took_all",
)
TOOK_ALL_NAMES = ("hundred_per_card", "as_bid", "TOOK_ALL_HUNDRED_PER_CARD", "TOOK_ALL_AS_BID")
MULTI_PREMIA_NAMES = ("others_deducted", "others_not_deducted")
# A khishti is a penalty: from KHISHTI_LIMIT (−100 on the sheet) to 0 points.
KHISHTI_LIMIT = -10_000


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed(f"{what} must be an integer")
    return value


def _khishti(value: object) -> Khishti:
    if isinstance(value, Mapping):
        return Khishti.split(
            _int(value.get("short_hands", -200), "khishti.short_hands"),
            _int(value.get("nine_card_hands", -200), "khishti.nine_card_hands"),
        )
    return Khishti.flat(_int(value, "options.khishti"))


def parse_options(raw: object) -> Options:
    """Table options from a document's `options` object (absent keys take the defaults)."""
    if raw is None:
        return Options()
    if not isinstance(raw, Mapping):
        raise Malformed("options must be an object")
    values: dict[str, Any] = {}
    for key in ("premia", "moshla"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise Malformed(f"options.{key} must be true or false")
            values[key] = raw[key]
    try:
        if "multi_premia" in raw:
            values["multi_premia"] = MultiPremia(raw["multi_premia"])
        if "took_all" in raw:
            name = str(raw["took_all"]).lower().removeprefix("took_all_")
            values["took_all"] = TookAll(name)
    except ValueError as exc:
        raise Malformed(f"options: {exc}") from None
    if "khishti" in raw:
        values["khishti"] = _khishti(raw["khishti"])
    nine = raw.get("khishti_nine_card_hands")
    if nine not in (None, 0, "0"):
        # The proto's split form (protobuf JSON writes int64 as text): 0 = same as khishti.
        if isinstance(nine, str) and nine.lstrip("-").isdigit():
            nine = int(nine)
        short = values.get("khishti", Khishti()).short_hands
        values["khishti"] = Khishti.split(short, _int(nine, "khishti_nine_card_hands"))
    return Options(**values)


def _points(value: object, name: str) -> int:
    """An integer number of points; protobuf JSON writes int64 as text ("-500")."""
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("-").isdigit():
            raise Malformed(f"options.{name} must be an integer, got {value!r}")
        value = int(text)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed(f"options.{name} must be an integer, got {value!r}")
    if not KHISHTI_LIMIT <= value <= 0:
        raise Malformed(f"options.{name} is a penalty: from {KHISHTI_LIMIT} to 0 points")
    return value


def table_options(raw: JSON) -> Options:
    """A Joker table's options from the JSON notation or the protobuf `Options` as JSON.

    Absent keys take the site's defaults; an unknown key, a wrong type or an unknown enum
    name is refused (`invalid_argument`) with the key named.
    """
    unknown = sorted(set(raw) - set(ENGINE_OPTIONS) - set(HOST_OPTIONS))
    if unknown:
        known = ", ".join(ENGINE_OPTIONS)
        raise Malformed(f"unknown Joker option(s) {', '.join(unknown)}; known: {known}")
    values = {k: v for k, v in raw.items() if k in ENGINE_OPTIONS and k != "game_type"}
    if "khishti" in values and not isinstance(values["khishti"], dict):
        values["khishti"] = _points(values["khishti"], "khishti")
    elif isinstance(values.get("khishti"), dict):
        split = values["khishti"]
        extra = sorted(set(split) - {"short_hands", "nine_card_hands"})
        if extra:
            raise Malformed(f"options.khishti has short_hands and nine_card_hands, not {extra}")
        values["khishti"] = {k: _points(v, f"khishti.{k}") for k, v in split.items()}
    nine = values.get("khishti_nine_card_hands")
    if nine is not None:
        values["khishti_nine_card_hands"] = _points(nine, "khishti_nine_card_hands")
    for name, allowed in (("took_all", TOOK_ALL_NAMES), ("multi_premia", MULTI_PREMIA_NAMES)):
        if name in values and values[name] not in allowed:
            raise Malformed(f"options.{name} is {' or '.join(allowed)}, got {values[name]!r}")
    options = parse_options(values)
    kind = raw.get("game_type", "standard")
    if not isinstance(kind, str) or kind not in GAME_TYPES:
        raise Malformed(
            f"options.game_type is standard or nines (GAME_TYPE_STANDARD, GAME_TYPE_NINES), "
            f"got {kind!r}"
        )
    return replace(options, game_type=GAME_TYPES[kind])
