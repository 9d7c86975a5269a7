"""Hand histories: the replayable record of a finished hand, and its verification.

A history holds the table's commands from its opening to the end of the hand (so the
hand can be replayed from nothing), the hand's seed and its SHA-256 commitment, the
cards or dice the seed dealt, and the settlement. `verify` re-derives the deal from the
seed, checks the commitment, replays the commands and compares the settlement; any
altered card, seed or amount makes it fail. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from croupier.game import JSON, ClockSettings, GameRules, RuleBroken, Unknown
from croupier.game.fairness import commitment
from croupier.table.core.clocks import Clocks
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import Settlement, TableState, step


def initial_state(engine: GameRules[Any], opening: LogEntry) -> TableState:
    """A table as its opening entry creates it."""
    clock = opening.body.get("clock", {})
    settings = ClockSettings(
        turn_ms=int(clock.get("turn_ms", 30_000)),
        reserve_ms=int(clock.get("reserve_ms", 0)),
        reconnect_ms=int(clock.get("reconnect_ms", 60_000)),
    )
    options = dict(opening.body.get("options", {}))
    return TableState(
        table_id=opening.table_id,
        game=str(opening.body["game"]),
        options=options,
        engine_state=engine.open(options),
        clocks=Clocks(settings),
        index=opening.index,
    )


def _replay_to_hand(
    engine: GameRules[Any], entries: Sequence[LogEntry], hand_number: int
) -> tuple[list[LogEntry], Settlement | None]:
    state = initial_state(engine, entries[0])
    used = [entries[0]]
    for entry in entries[1:]:
        outcome = step(engine, state, entry)
        state = outcome.state
        used.append(entry)
        if outcome.settlement is not None and outcome.settlement.hand_number == hand_number:
            return used, outcome.settlement
    return used, None


def build(engine: GameRules[Any], entries: Sequence[LogEntry], hand_number: int) -> JSON:
    """The history of hand `hand_number` of the table whose log is `entries`."""
    used, settlement = _replay_to_hand(engine, entries, hand_number)
    if settlement is None:
        raise Unknown(f"hand {hand_number} of this table has not finished")
    seed = bytes.fromhex(settlement.seed_hex)
    return {
        "table_id": entries[0].table_id,
        "game": str(entries[0].body["game"]),
        "engine": engine.name,
        "engine_version": engine.version,
        "hand_number": hand_number,
        "seed_sha256": commitment(seed),
        "seed": settlement.seed_hex,
        "dealt": engine.randomness(seed),
        "commands": [_entry_json(e) for e in used],
        "result": _result_json(settlement),
    }


def verify(engines: Mapping[str, GameRules[Any]], history: JSON) -> list[str]:
    """Every reason the history is not honest; empty when it checks out."""
    try:
        engine = engines[str(history["game"])]
        seed = bytes.fromhex(str(history["seed"]))
        hand_number = int(history["hand_number"])
        entries = [_entry_from_json(str(history["table_id"]), e) for e in history["commands"]]
    except (KeyError, ValueError, TypeError) as exc:
        return [f"not a hand history: {exc!r}"]
    problems = []
    if history.get("engine_version") != engine.version:
        problems.append(
            f"written by engine version {history.get('engine_version')}, "
            f"this is version {engine.version}"
        )
    if commitment(seed) != history.get("seed_sha256"):
        problems.append("the seed does not match the commitment published when the hand began")
    if engine.randomness(seed) != history.get("dealt"):
        problems.append("the dealt cards or dice are not the ones the seed gives")
    seeds = [e.body.get("seed") for e in entries if e.kind == "start_hand"]
    if len(seeds) < hand_number or seeds[hand_number - 1] != history["seed"]:
        problems.append("the hand was not started with the revealed seed")
    try:
        _, settlement = _replay_to_hand(engine, entries, hand_number)
    except (RuleBroken, KeyError, ValueError, TypeError) as exc:
        problems.append(f"the commands do not replay: {exc}")
        return problems
    if settlement is None:
        problems.append("replaying the commands does not finish the hand")
    elif _result_json(settlement) != history.get("result"):
        problems.append("replaying the commands gives another result than the one recorded")
    return problems


def _result_json(settlement: Settlement) -> JSON:
    return {
        "deltas": dict(settlement.result.deltas),
        "commission": dict(settlement.result.commission),
        "details": settlement.result.details,
    }


def _entry_json(entry: LogEntry) -> JSON:
    return {
        "index": entry.index,
        "command_id": entry.command_id,
        "kind": entry.kind,
        "player": entry.player,
        "body": entry.body,
        "at_ms": entry.at_ms,
        "engine": entry.engine,
        "engine_version": entry.engine_version,
    }


def _entry_from_json(table_id: str, data: JSON) -> LogEntry:
    return LogEntry(
        table_id=table_id,
        index=int(data["index"]),
        command_id=str(data["command_id"]),
        kind=str(data["kind"]),
        player=str(data["player"]),
        body=dict(data["body"]),
        at_ms=int(data["at_ms"]),
        engine=str(data["engine"]),
        engine_version=str(data["engine_version"]),
    )
