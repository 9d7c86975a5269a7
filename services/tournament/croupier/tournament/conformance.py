"""`croupier conformance` for points tournaments (`"game": "tournament"`, `"kind": "rummy_points"`).

Format: docs/conformance.md ("Points tournament"). The JSON notation is translated to the
pure core's options and actions (`croupier.tournament.core`), and the core's state back to
the output. A document of the wrong shape (a name or round that is not a string,
`negative_points` that is not an object, options out of their bounds) raises
`MalformedScenario`; an action the rules refuse — including an unknown action name and a
negative or non-integer number of negative points — stops the replay and is reported in
`error` with the state just before it. Extra output key: `running_rounds`, the ids of the
rounds still running.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.kit.scenario import MalformedScenario
from croupier.tournament.core.actions import (
    Action,
    CancelRound,
    Disqualify,
    EndRound,
    RaiseLevel,
    Rebuy,
    StartRound,
    end_round,
)
from croupier.tournament.core.errors import InvalidInput, Refused
from croupier.tournament.core.options import Level, Options, RebuyPolicy
from croupier.tournament.core.ranking import prizes, ranking
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament, new_tournament

__all__ = ["action_to_json", "read_action", "run_scenario"]


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedScenario(f"{where}: an object is expected")
    return value


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedScenario(f"{where}: an integer is expected")
    return value


def _name(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise MalformedScenario(f"{where}: a name (string) is expected")
    return value


def _options(raw: object) -> Options:
    options = _object(raw, "options")
    levels = options.get("levels")
    if not isinstance(levels, list):
        raise MalformedScenario("options.levels: a list of levels is expected")
    read = []
    for index, level in enumerate(levels):
        where = f"options.levels[{index}]"
        level = _object(level, where)
        read.append(
            Level(_int(level.get("round_fee"), where), _int(level.get("chip_ratio"), where))
        )
    rebuys = None
    if options.get("rebuys") is not None:
        policy = _object(options["rebuys"], "options.rebuys")
        rebuys = RebuyPolicy(
            _int(policy.get("max_per_player"), "options.rebuys.max_per_player"),
            _int(policy.get("max_level"), "options.rebuys.max_level"),
        )
    flag = options.get("winner_risk_limit")
    if flag is not None and not isinstance(flag, bool):
        raise MalformedScenario("options.winner_risk_limit: true or false is expected")
    prize_list = options.get("prizes")
    if prize_list is not None and not isinstance(prize_list, list):
        raise MalformedScenario("options.prizes: a list of amounts is expected")
    try:
        return Options(
            starting_chips=_int(options.get("starting_chips"), "options.starting_chips"),
            table_size=_int(options.get("table_size"), "options.table_size"),
            levels=tuple(read),
            rebuys=rebuys,
            winner_risk_limit=True if flag is None else flag,
            prizes=tuple(_int(p, "options.prizes") for p in prize_list or ()),
        )
    except InvalidInput as exc:
        raise MalformedScenario(f"options: {exc.message}") from None


def action_to_json(action: Action) -> dict[str, Any]:
    """One action in the notation `read_action` reads (the director stores its tournaments'
    actions so: a running tournament's record replays as a conformance scenario)."""
    if isinstance(action, StartRound):
        return {"action": "round_start", "round": action.round_id, "table": list(action.table)}
    if isinstance(action, EndRound):
        return {
            "action": "round_end",
            "round": action.round_id,
            "winner": action.winner,
            "negative_points": dict(action.negative_points),
        }
    if isinstance(action, CancelRound):
        return {"action": "round_cancel", "round": action.round_id}
    if isinstance(action, RaiseLevel):
        return {"action": "level"}
    if isinstance(action, Disqualify):
        return {"action": "disqualify", "player": action.player}
    return {"action": "rebuy", "player": action.player}


def read_action(raw: Mapping[str, Any], where: str) -> Action:
    """The core's action for one JSON action; `InvalidInput` for an unknown action name."""
    name = raw.get("action")
    if name == "round_start":
        table = raw.get("table")
        if not isinstance(table, list):
            raise MalformedScenario(f"{where}.table: a list of players is expected")
        return StartRound(
            _name(raw.get("round"), f"{where}.round"),
            tuple(_name(player, f"{where}.table") for player in table),
        )
    if name == "round_end":
        points = raw.get("negative_points")
        if not isinstance(points, Mapping):
            raise MalformedScenario(f"{where}.negative_points: an object is expected")
        return end_round(
            _name(raw.get("round"), f"{where}.round"),
            _name(raw.get("winner"), f"{where}.winner"),
            points,
        )
    if name == "round_cancel":
        return CancelRound(_name(raw.get("round"), f"{where}.round"))
    if name == "level":
        return RaiseLevel()
    if name == "rebuy":
        return Rebuy(_name(raw.get("player"), f"{where}.player"))
    if name == "disqualify":
        return Disqualify(_name(raw.get("player"), f"{where}.player"))
    raise InvalidInput(
        "unknown_action",
        "unknown action; expected round_start, round_end, round_cancel, level, rebuy or disqualify",
    )


def _output(state: Tournament, error: dict[str, Any] | None) -> dict[str, Any]:
    players = state.entrants.values()
    return {
        "status": "finished" if state.finished else "running",
        "error": error,
        "level": state.level,
        "chips": {p.name: p.chips for p in players},
        "points": {p.name: p.points for p in players},
        "rebuys": {p.name: p.rebuys for p in players},
        "eliminated": list(state.eliminated),
        "final_table": None if state.final_table is None else list(state.final_table),
        "ranking": [
            {"place": entry.place, "players": list(entry.players)} for entry in ranking(state)
        ],
        "prizes": None if (won := prizes(state)) is None else dict(won),
        "running_rounds": [r.round_id for r in state.running],
    }


def run_scenario(document: dict[str, Any]) -> dict[str, Any]:
    kind = document.get("kind")
    if kind != "rummy_points":
        raise MalformedScenario(f"unknown tournament kind {kind!r}; expected rummy_points")
    players = document.get("players")
    if not isinstance(players, list):
        raise MalformedScenario("players: a list of at least 2 distinct names is expected")
    names = [_name(player, "players") for player in players]
    try:
        state = new_tournament(_options(document.get("options")), names)
    except InvalidInput as exc:
        raise MalformedScenario(f"players: {exc.message}") from None
    actions = document.get("actions")
    if not isinstance(actions, list):
        raise MalformedScenario("actions: a list is expected")
    error: dict[str, Any] | None = None
    for index, raw in enumerate(actions):
        where = f"actions[{index}]"
        try:
            state, _ = apply(state, read_action(_object(raw, where), where))
        except Refused as exc:
            error = {"action_index": index, "code": exc.reason, "message": exc.message}
            break
    return _output(state, error)
