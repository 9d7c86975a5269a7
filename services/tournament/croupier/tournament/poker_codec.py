"""A poker tournament's terms to and from `croupier.tournament.v1.PokerSettings` (the part
of `codec` that reads and writes blind structures). An explicit structure is checked as
it is read (`core.blinds.BlindStructure`: `invalid_structure`); a preset's name is checked
with the rest of the settings (`unknown_structure`)."""

from __future__ import annotations

from croupier.tournament.core.blinds import AnteKind, BlindStructure, Break, Level
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.service.poker_model import Kind, PokerTerms
from croupier.tournament.v1 import tournament_pb2 as pb

__all__ = ["poker_terms_from_proto", "poker_terms_to_proto"]

_KINDS: dict[Kind, pb.TournamentKind.ValueType] = {
    "sit_and_go": pb.TOURNAMENT_KIND_SIT_AND_GO,
    "spin": pb.TOURNAMENT_KIND_SPIN,
    "scheduled": pb.TOURNAMENT_KIND_SCHEDULED,
}
_KIND_NAMES = {value: name for name, value in _KINDS.items()}
_ANTES: dict[AnteKind, pb.AnteKind.ValueType] = {
    "none": pb.ANTE_KIND_NONE,
    "per_player": pb.ANTE_KIND_PER_PLAYER,
    "big_blind": pb.ANTE_KIND_BIG_BLIND,
}
_ANTE_NAMES: dict[pb.AnteKind.ValueType, AnteKind] = {
    pb.ANTE_KIND_UNSPECIFIED: "none",
    **{value: name for name, value in _ANTES.items()},
}


def poker_terms_from_proto(message: pb.PokerSettings) -> PokerTerms:
    if message.kind not in _KIND_NAMES:
        raise InvalidInput(
            "invalid_settings",
            "poker.kind must be TOURNAMENT_KIND_SIT_AND_GO, TOURNAMENT_KIND_SPIN or "
            "TOURNAMENT_KIND_SCHEDULED",
        )
    structure = message.WhichOneof("blind_structure")
    if structure is None:
        raise InvalidInput(
            "invalid_settings", "poker needs a blind structure: a preset's name or levels"
        )
    levels = None
    if structure == "levels":
        levels = _structure_from_proto(message.levels)
    return PokerTerms(
        kind=_KIND_NAMES[message.kind],
        preset=message.preset,
        levels=levels,
        late_registration_level=message.late_registration_level,
        max_reentries=message.max_reentries,
        bots_allowed=message.bots_allowed,
    )


def _structure_from_proto(message: pb.BlindLevels) -> BlindStructure:
    for level in message.levels:
        if level.ante_kind not in _ANTE_NAMES:
            raise InvalidInput("invalid_structure", "an ante_kind is none, per_player or big_blind")
    return BlindStructure(
        tuple(
            Level(
                level.small_blind,
                level.big_blind,
                level.ante,
                _ANTE_NAMES[level.ante_kind],
                level.minutes,
            )
            for level in message.levels
        ),
        tuple(Break(pause.after_level, pause.minutes) for pause in message.breaks),
    )


def poker_terms_to_proto(terms: PokerTerms) -> pb.PokerSettings:
    message = pb.PokerSettings(
        kind=_KINDS[terms.kind],
        late_registration_level=terms.late_registration_level,
        max_reentries=terms.max_reentries,
        bots_allowed=terms.bots_allowed,
    )
    if terms.levels is None:
        message.preset = terms.preset
    else:
        message.levels.CopyFrom(
            pb.BlindLevels(
                levels=[
                    pb.BlindLevel(
                        small_blind=level.small_blind,
                        big_blind=level.big_blind,
                        ante=level.ante,
                        ante_kind=_ANTES[level.ante_kind],
                        minutes=level.minutes,
                    )
                    for level in terms.levels.levels
                ],
                breaks=[
                    pb.BlindBreak(after_level=pause.after_level, minutes=pause.minutes)
                    for pause in terms.levels.breaks
                ],
            )
        )
    return message
