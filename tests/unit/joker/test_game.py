"""A whole game: the schedule (rule 2), settlement timing (rule 1), colours (rules 3, 17, 18,
vector 15), the sheet (rules 15, 16, 19), the once-only ledger (rule 20, vector 16), the
table description (rules 21, 22), dealer rotation (BG 1), views, timeouts and refusals."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from croupier.joker.core import game
from croupier.joker.core.errors import IllegalAction, NotYourTurn
from croupier.joker.core.game import GameState
from croupier.joker.core.options import GameType, MultiPremia, Options
from croupier.joker.core.schedule import schedule
from croupier.joker.core.scoring import HandOutcome, hand_score
from croupier.joker.core.sheet import HandRecord, LedgerConflict, PremiaEntry

PLAYERS = ["giorgi", "nika", "ana", "levan"]


def seed(label: str, n: int) -> bytes:
    return hashlib.sha256(f"{label}-{n}".encode()).digest()


def random_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    kind = legal["actions"][0]
    if kind == "trump":
        return {"action": "trump", "suit": rng.choice(legal["suits"])}
    if kind == "bid":
        return {"action": "bid", "tricks": rng.choice(legal["tricks"])}
    code = rng.choice(legal["cards"])
    action: dict[str, Any] = {"action": "play", "card": code}
    if code.startswith("X"):
        action["joker"] = rng.choice(legal["joker"])
        if "suits" in legal:
            action["suit"] = rng.choice(legal["suits"])
    return action


def play_game(label: str, options: Options | None = None, timeouts: bool = False) -> GameState:
    rng = random.Random(label)
    state = game.new_game(game_id=label, players=PLAYERS, options=options)
    hands = 0
    while not state.over:
        state, _ = game.start_hand(state, seed(label, hands))
        hands += 1
        while state.hand_running:
            (player,) = game.to_act(state)
            if timeouts:
                state, _ = game.timeout(state, player)
            else:
                action = random_action(game.legal_actions(state, player), rng)
                state, _ = game.act(state, player, action)
    return state


def test_rule_2_standard_game_schedule() -> None:
    cards = [s.cards for s in schedule(GameType.STANDARD)]
    assert cards == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9, 9]
    assert [s.pulka for s in schedule(GameType.STANDARD)].count(0) == 8


def test_rule_2_nines_schedule() -> None:
    slots = schedule(GameType.NINES)
    assert [s.cards for s in slots] == [9] * 16
    assert [s.pulka for s in slots] == [p for p in range(4) for _ in range(4)]


@pytest.mark.parametrize("game_type", list(GameType))
def test_rule_2_full_game_plays_every_hand_with_the_right_card_counts(
    game_type: GameType,
) -> None:
    state = play_game(f"full-{game_type}", Options(game_type=game_type))
    assert [r.cards for r in state.records] == [s.cards for s in schedule(game_type)]
    for r in state.records:
        assert sum(o.took for o in r.outcomes) == r.cards
    outcome = game.result(state)
    assert outcome is not None
    assert sum(map(len, outcome.placing)) == 4


def test_bg1_dealer_rotates_clockwise_and_first_dealer_from_seed() -> None:
    state = play_game("rotation")
    dealers = [r.dealer for r in state.records]
    first = dealers[0]
    assert dealers == [(first + i) % 4 for i in range(24)]
    fixed = game.new_game(game_id="x", players=PLAYERS, first_dealer="ana")
    fixed, events = game.start_hand(fixed, seed("x", 0))
    assert fixed.hand is not None and fixed.hand.dealer == 2
    assert events[0].data["dealer"] == "ana"


def test_game_is_a_pure_function_of_seeds_and_actions() -> None:
    assert play_game("same") == play_game("same")


def test_rule_1_premia_settled_when_last_hand_of_each_pulka_is_scored() -> None:
    rng = random.Random(1)
    state = game.new_game(game_id="g1", players=PLAYERS)
    settled_after: list[int] = []
    for hand in range(24):
        state, _ = game.start_hand(state, seed("g1", hand))
        while state.hand_running:
            (player,) = game.to_act(state)
            state, events = game.act(
                state, player, random_action(game.legal_actions(state, player), rng)
            )
        if any(e.type == "pulka_settled" for e in events):
            settled_after.append(hand)
    assert settled_after == [7, 11, 19, 23]
    assert len(state.ledger.entries) == 16


def test_rule_20_vector_16_recomputing_never_adds_a_second_entry() -> None:
    state = play_game("ledger")
    again = game.resettle(game.resettle(state))
    assert again.ledger == state.ledger
    keys = [e.key for e in state.ledger.entries]
    assert len(keys) == len(set(keys)) == 16
    entry = state.ledger.entries[0]
    assert state.ledger.record(entry) is state.ledger
    changed = PremiaEntry(
        game_id=entry.game_id,
        pulka=entry.pulka,
        player=entry.player,
        premia=entry.premia + 10,
        moshla=entry.moshla,
        crossed_out=entry.crossed_out,
    )
    with pytest.raises(LedgerConflict):
        state.ledger.record(changed)


def test_vector_16_views_and_replays_do_not_change_the_sheet() -> None:
    state = play_game("views")
    before = game.sheet(state)
    for player in PLAYERS:
        game.view(state, player)
    assert game.sheet(game.resettle(state)) == before


def record(index: int, pulka: int, bids_took: list[tuple[int, int]], n: int = 9) -> HandRecord:
    outcomes = tuple(HandOutcome(bid=b, took=t, cards=n) for b, t in bids_took)
    return HandRecord(index, pulka, n, index % 4, outcomes, tuple(map(hand_score, outcomes)))


# §4.1 as bid/took in a "nines" pulka: Giorgi [150,200,100,250], Nika [100,20,300,50],
# Ana [20,150,50,20], Levan [250,150,30,200].
PULKA_41 = [
    [(2, 2), (1, 1), (1, 2), (4, 4)],
    [(3, 3), (3, 2), (2, 2), (2, 2)],
    [(1, 1), (5, 5), (0, 0), (2, 3)],
    [(4, 4), (0, 0), (0, 2), (3, 3)],
]


def nines_state(hands: list[list[tuple[int, int]]], options: Options | None = None) -> GameState:
    state = game.new_game(
        game_id="t", players=PLAYERS, options=options or Options(game_type=GameType.NINES)
    )
    records = tuple(record(i, i // 4, h) for i, h in enumerate(hands))
    return game.resettle(
        GameState(game_id="t", players=tuple(PLAYERS), options=state.options, records=records)
    )


def test_rules_15_16_19_sheet_sigma_line_with_adjustments_and_crossed_out_hand() -> None:
    sheet = game.sheet(nines_state(PULKA_41))
    rows = sheet["pulkas"][0]["players"]
    assert rows["giorgi"]["sigma"]["text"] == "9.5"
    assert rows["giorgi"]["sigma"]["adjustment"] == "+2.5"
    assert rows["nika"]["sigma"]["text"] == "1.7"
    assert rows["nika"]["sigma"]["adjustment"] == "-3"
    assert [c["crossed_out"] for c in rows["nika"]["hands"]] == [False, False, True, False]
    assert rows["nika"]["hands"][2]["points"] == 300 and rows["nika"]["sum"] == 470
    assert [c["text"] for c in rows["giorgi"]["hands"]] == ["1.5", "2", "1", "2.5"]
    assert sheet["bottom"]["giorgi"]["text"] == "9.5"
    assert sheet["bottom"]["nika"]["total"] == 170


def test_rule_3_vector_15_rule_17_colour_sequence_and_reset() -> None:
    nika = [(1, 1), (3, 2), (1, 1), (2, 2)]  # fulfilled, failed, fulfilled, fulfilled
    colours = []
    for played in range(1, 5):
        hands = [[(0, 0), nika[i], (1, 2), (1, 2)] for i in range(played)]
        colours.append(game.sheet(nines_state(hands))["bottom"]["nika"]["colour"])
    assert colours[:3] == ["green", "red", "red"]
    assert colours[3] == "green"  # the pulka ended: the next one starts green, unplayed
    assert game.sheet(nines_state(PULKA_41))["bottom"]["ana"]["colour"] == "green"
    five = [[(0, 0), nika[i % 4], (1, 2), (1, 2)] for i in range(5)]
    assert game.sheet(nines_state(five))["bottom"]["nika"]["colour"] == "green"


def test_rule_18_name_turns_red_with_the_colour_for_the_current_pulka_only() -> None:
    sheet = game.sheet(nines_state(PULKA_41[:2]))
    bottom = sheet["bottom"]
    assert bottom["giorgi"]["colour"] == "green" and not bottom["giorgi"]["name_red"]
    assert bottom["nika"]["colour"] == "red" and bottom["nika"]["name_red"]
    assert not game.sheet(nines_state(PULKA_41))["bottom"]["nika"]["name_red"]


def test_oq6_premia_off_shows_no_colours() -> None:
    sheet = game.sheet(nines_state(PULKA_41[:2], Options(game_type=GameType.NINES, premia=False)))
    assert {b["colour"] for b in sheet["bottom"].values()} == {None}


def test_rules_21_22_options_and_table_description() -> None:
    assert "deducted from the rest" in Options().describe()
    described = Options(multi_premia=MultiPremia.OTHERS_NOT_DEDUCTED).describe()
    assert "not deducted from the rest" in described
    assert "premia off" in Options(premia=False).describe()
    assert "moshla off" in Options(moshla=False).describe()
    state = game.new_game(game_id="d", players=PLAYERS)
    assert game.public_view(state)["options"] == Options().describe()


def test_view_shows_own_cards_only() -> None:
    state = game.new_game(game_id="v", players=PLAYERS, first_dealer="levan")
    state, events = game.start_hand(state, seed("v", 0))
    assert all("hands" not in e.data for e in events)
    assert state.hand is not None
    for seat, player in enumerate(PLAYERS):
        seen = game.view(state, player)
        assert seen["hand"]["own_cards"] == [c.code for c in state.hand.hands[seat]]
        others = {c.code for s in range(4) if s != seat for c in state.hand.hands[s]}
        text = repr(seen)
        assert not any(f"'{code}'" in text for code in others)
    public = repr(game.public_view(state))
    assert not any(f"'{c.code}'" in public for h in state.hand.hands for c in h)


def test_view_during_nine_card_trump_choice_shows_only_the_first_packet() -> None:
    state = game.new_game(
        game_id="n",
        players=PLAYERS,
        first_dealer="levan",
        options=Options(game_type=GameType.NINES),
    )
    state, _ = game.start_hand(state, seed("n", 0))
    assert len(game.view(state, "giorgi")["hand"]["own_cards"]) == 3
    assert game.view(state, "nika")["hand"]["own_cards"] == []
    assert game.legal_actions(state, "giorgi")["actions"] == ["trump"]


def test_oq14_a_game_of_timeouts_completes() -> None:
    state = play_game("timeouts", timeouts=True)
    assert state.over and game.result(state) is not None


def test_bad_action_through_the_game_leaves_state_unchanged() -> None:
    state = game.new_game(game_id="b", players=PLAYERS, first_dealer="levan")
    state, _ = game.start_hand(state, seed("b", 0))
    with pytest.raises(NotYourTurn):
        game.act(state, "nika", {"action": "bid", "tricks": 0})
    refused = game.check(state, "nika", {"action": "bid", "tricks": 0})
    assert isinstance(refused, IllegalAction) and refused.reason == "not_your_turn"
    assert game.check(state, "giorgi", {"action": "bid", "tricks": 0}) is None
    with pytest.raises(IllegalAction):
        game.act(state, "nobody", {"action": "bid", "tricks": 0})


def test_bg10_total_is_sum_of_pulka_results_and_highest_total_wins() -> None:
    state = play_game("totals")
    outcome = game.result(state)
    assert outcome is not None
    for player in PLAYERS:
        results = [p["players"][player]["sigma"]["result"] for p in outcome.sheet["pulkas"]]
        assert len(results) == 4
        assert outcome.totals[player] == sum(results)
        assert outcome.sheet["pulkas"][-1]["players"][player]["running_total"] == sum(results)
    assert outcome.totals[outcome.placing[0][0]] == max(outcome.totals.values())
    hand_points = sum(r.scores[0] for r in state.records)
    premia = sum(e.premia + e.moshla for e in state.ledger.entries if e.player == PLAYERS[0])
    assert outcome.totals[PLAYERS[0]] == hand_points + premia
