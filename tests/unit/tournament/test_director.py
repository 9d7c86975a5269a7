"""The director's use cases on in-memory adapters: registration (rules 3-6, OQ 1),
unregistering (rule 5), start or cancel at the start time (rules 1, 7, 8), create,
cancel, void, the rebuy answer, the lobby view and the event stream."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator

import pytest

from croupier.game import RuleBroken
from croupier.game.fairness import commitment
from croupier.tournament.adapters.memory import InMemoryRepository, InMemoryWallet
from croupier.tournament.core.seating import initial_seating
from croupier.tournament.service.director import BELOW_MIN_PLAYERS, Director
from croupier.tournament.service.events import (
    Cancelled,
    Created,
    Registered,
    Started,
    Unregistered,
    Voided,
)
from croupier.tournament.service.model import Status
from croupier.tournament.service.views import lobby_view, standings
from tests.support.refusals import status_name
from tests.support.table import Seeds
from tests.unit.tournament.director_sample import (
    BUY_IN,
    FEE,
    START,
    STARTING_CHIPS,
    ManualClock,
    fixed_seed,
    sample_settings,
)
from tests.unit.tournament.hosted import Hosted, hosted_tables

FUNDS = 10_000


class Setup:
    def __init__(self, hosted: Hosted) -> None:
        self.hosted = hosted
        self.clock = ManualClock(START.replace(hour=12))
        self.repository = InMemoryRepository()
        self.wallet = InMemoryWallet(balances={p: FUNDS for p in "abcdefgh"})
        self.seeds: Iterator[bytes] = itertools.chain(
            [fixed_seed(7), fixed_seed(8)], iter(Seeds("director"), None)
        )
        self.director = Director(
            repository=self.repository,
            wallet=self.wallet,
            tables=hosted.tables,
            clock=self.clock,
            seeds=lambda: next(self.seeds),
        )

    async def create(self, key: str = "friday", **changes: object) -> str:
        tournament_id, _ = await self.director.create(key, sample_settings(**changes))
        return tournament_id

    def events(self, tournament_id: str) -> list[object]:
        return [e.event for e in self.repository.events[tournament_id]]


@pytest.fixture
async def setup() -> AsyncIterator[Setup]:
    async with hosted_tables() as hosted:
        yield Setup(hosted)


async def refused(call: object) -> RuleBroken:
    with pytest.raises(RuleBroken) as info:
        await call  # type: ignore[misc]
    return info.value


async def test_rule_3_registering_pays_buy_in_and_fee_through_the_wallet(setup: Setup) -> None:
    tid = await setup.create()
    entry_id = await setup.director.register(tid, "a")
    assert entry_id == f"{tid}:a:entry-1"
    assert setup.wallet.balances["a"] == FUNDS - BUY_IN - FEE
    record = await setup.director.get(tid)
    assert record.players() == ("a",)
    assert setup.events(tid)[-1] == Registered("a", entry_id)


async def test_rule_4_registering_twice_is_refused_and_moves_nothing(setup: Setup) -> None:
    tid = await setup.create()
    await setup.director.register(tid, "a")
    error = await refused(setup.director.register(tid, "a"))
    assert (status_name(error), error.reason) == ("already_exists", "already_registered")
    assert setup.wallet.balances["a"] == FUNDS - BUY_IN - FEE
    assert len(setup.wallet.entries) == 1


async def test_rule_3_registering_at_or_after_the_start_time_is_refused(setup: Setup) -> None:
    tid = await setup.create()
    setup.clock.now = START
    error = await refused(setup.director.register(tid, "a"))
    assert (status_name(error), error.reason) == ("failed_precondition", "registration_closed")
    assert setup.wallet.balances["a"] == FUNDS and not setup.wallet.entries


async def test_rule_3_registering_after_the_tournament_started_is_refused(setup: Setup) -> None:
    tid = await setup.create()
    for player in "abc":
        await setup.director.register(tid, player)
    setup.clock.now = START
    assert await setup.director.start_due() == [tid]
    setup.clock.now = START.replace(hour=11)  # even a clock set back cannot reopen it
    error = await refused(setup.director.register(tid, "d"))
    assert (status_name(error), error.reason) == ("failed_precondition", "registration_closed")
    assert setup.wallet.balances["d"] == FUNDS


async def test_rule_6_registering_in_a_full_tournament_is_refused(setup: Setup) -> None:
    tid = await setup.create(max_players=3)
    for player in "abc":
        await setup.director.register(tid, player)
    error = await refused(setup.director.register(tid, "d"))
    assert (status_name(error), error.reason) == ("failed_precondition", "tournament_full")
    assert setup.wallet.balances["d"] == FUNDS
    assert (await setup.director.get(tid)).players() == ("a", "b", "c")


async def test_rule_48_a_coupon_pays_the_entry_and_unregistering_gives_it_back(
    setup: Setup,
) -> None:
    tid = await setup.create(coupons_accepted=True)
    setup.wallet.prize_funds[("rummy", "USD")] = BUY_IN
    setup.wallet.coupons["cp-1"] = ("a", BUY_IN + FEE)
    entry_id = await setup.director.register(tid, "a", coupon_id="cp-1")
    # The player pays nothing; the game's prize fund pays the buy-in into the pool.
    assert setup.wallet.balances["a"] == FUNDS
    assert setup.wallet.prize_funds[("rummy", "USD")] == 0
    assert setup.wallet.pool(tid) == BUY_IN
    assert "cp-1" not in setup.wallet.coupons
    assert setup.events(tid)[-1] == Registered("a", entry_id)
    # Rule 5: unregistering before the start gives the coupon back, not money.
    await setup.director.unregister(tid, "a")
    assert setup.wallet.coupons["cp-1"] == ("a", BUY_IN + FEE)
    assert setup.wallet.balances["a"] == FUNDS and setup.wallet.pool(tid) == 0
    assert setup.wallet.prize_funds[("rummy", "USD")] == BUY_IN


async def test_rule_48_a_coupon_is_refused_where_coupons_are_not_accepted(setup: Setup) -> None:
    tid = await setup.create()
    setup.wallet.coupons["cp-1"] = ("a", BUY_IN + FEE)
    error = await refused(setup.director.register(tid, "a", coupon_id="cp-1"))
    assert (status_name(error), error.reason) == ("failed_precondition", "coupons_not_accepted")
    assert setup.wallet.balances["a"] == FUNDS and "cp-1" in setup.wallet.coupons
    assert not setup.wallet.entries


async def test_rule_48_a_coupon_not_the_players_or_too_small_is_refused(setup: Setup) -> None:
    tid = await setup.create(coupons_accepted=True)
    setup.wallet.prize_funds[("rummy", "USD")] = BUY_IN
    setup.wallet.coupons["cp-b"] = ("b", BUY_IN + FEE)
    setup.wallet.coupons["cp-small"] = ("a", BUY_IN)
    for coupon, reason in (("cp-b", "coupon_not_found"), ("cp-small", "coupon_not_usable")):
        error = await refused(setup.director.register(tid, "a", coupon_id=coupon))
        assert error.reason == reason
    bad = await refused(setup.director.register(tid, "a", coupon_id="no spaces"))
    assert (status_name(bad), bad.reason) == ("invalid_argument", "invalid_coupon")
    assert setup.wallet.balances["a"] == FUNDS and not setup.wallet.entries
    assert (await setup.director.get(tid)).players() == ()


async def test_a_player_the_wallet_refuses_is_not_registered(setup: Setup) -> None:
    tid = await setup.create()
    setup.wallet.balances["a"] = BUY_IN  # short of the fee
    await refused(setup.director.register(tid, "a"))
    assert (await setup.director.get(tid)).players() == ()


async def test_unknown_tournament_is_not_found(setup: Setup) -> None:
    error = await refused(setup.director.register("t-nope", "a"))
    assert status_name(error) == "not_found"


async def test_rule_5_unregistering_before_the_start_refunds_in_full(setup: Setup) -> None:
    tid = await setup.create()
    await setup.director.register(tid, "a")
    await setup.director.unregister(tid, "a")
    assert setup.wallet.balances["a"] == FUNDS
    assert (await setup.director.get(tid)).players() == ()
    assert setup.events(tid)[-1] == Unregistered("a")
    # Registering again is a new entry, paid anew.
    assert await setup.director.register(tid, "a") == f"{tid}:a:entry-2"
    assert setup.wallet.balances["a"] == FUNDS - BUY_IN - FEE


async def test_rule_5_unregistering_after_the_start_is_refused(setup: Setup) -> None:
    tid = await setup.create()
    for player in "abc":
        await setup.director.register(tid, player)
    setup.clock.now = START
    await setup.director.start_due()
    error = await refused(setup.director.unregister(tid, "a"))
    assert (status_name(error), error.reason) == ("failed_precondition", "registration_closed")
    assert setup.wallet.balances["a"] == FUNDS - BUY_IN - FEE
    error = await refused(setup.director.unregister(tid, "z"))
    assert status_name(error) == "failed_precondition"


async def test_unregistering_a_player_not_registered_is_not_found(setup: Setup) -> None:
    tid = await setup.create()
    error = await refused(setup.director.unregister(tid, "a"))
    assert (status_name(error), error.reason) == ("not_found", "not_registered")


async def test_rule_1_below_the_minimum_at_the_start_time_cancels_with_refunds(
    setup: Setup,
) -> None:
    tid = await setup.create()
    for player in "ab":
        await setup.director.register(tid, player)
    setup.clock.now = START.replace(minute=0, second=0).replace(hour=17)
    assert await setup.director.start_due() == []  # not yet
    setup.clock.now = START
    assert await setup.director.start_due() == [tid]
    record = await setup.director.get(tid)
    assert record.status is Status.CANCELLED and record.players() == ()
    assert setup.wallet.balances["a"] == setup.wallet.balances["b"] == FUNDS
    assert setup.events(tid)[-1] == Cancelled(BELOW_MIN_PLAYERS, ("a", "b"))
    assert await setup.director.start_due() == []


async def test_rules_1_7_8_the_start_seats_everyone_from_the_recorded_seed(setup: Setup) -> None:
    tid = await setup.create()
    for player in "abcde":
        await setup.director.register(tid, player)
    setup.clock.now = START
    await setup.director.start_due()
    record = await setup.director.get(tid)
    assert record.status is Status.RUNNING
    assert record.seating_seed == fixed_seed(7)
    drawn = initial_seating(["a", "b", "c", "d", "e"], 4, fixed_seed(7))
    expected = {(t.number, seat, p) for t in drawn.tables for seat, p in t.seats}
    assert {(s.table, s.seat, s.player) for s in record.seats} == expected
    assert sorted(s.player for s in record.seats) == ["a", "b", "c", "d", "e"]
    started = next(e for e in setup.events(tid) if isinstance(e, Started))
    assert isinstance(started, Started) and started.seating_seed == fixed_seed(7)
    assert started.starting_chips == STARTING_CHIPS
    lines, final = standings(record)
    assert not final
    # Everyone has the starting stack, less the first round's fee of level 1 (rule 20).
    first_fee = sample_settings().levels[0].round_fee
    assert {line.player: line.chips for line in lines} == dict.fromkeys(
        "abcde", STARTING_CHIPS - first_fee
    )
    assert {line.rank for line in lines} == {1}  # equal chips share a place (OQ 20)


async def test_create_is_idempotent_by_request_key(setup: Setup) -> None:
    first, replayed = await setup.director.create("friday", sample_settings())
    assert not replayed
    again, replayed = await setup.director.create("friday", sample_settings())
    assert (again, replayed) == (first, True)
    assert len(setup.repository.records) == 1
    # The seed's commitment is published with the tournament, before any draw.
    assert setup.events(first) == [Created(sample_settings(), commitment(fixed_seed(7)))]
    error = await refused(setup.director.create("friday", sample_settings(max_players=5)))
    assert (status_name(error), error.reason) == ("already_exists", "request_key_reused")


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "canasta"},
        {"min_players": 1},
        {"max_players": 2},
        {"table_size": 9},
        {"levels": ()},
        {"buy_in": -1},
        {"payouts": ()},
        {"max_players": 7},  # no payout bracket for 7 entrants
    ],
)
async def test_bad_settings_are_invalid_arguments(setup: Setup, changes: dict[str, object]) -> None:
    error = await refused(setup.director.create("bad", sample_settings(**changes)))
    assert status_name(error) == "invalid_argument"
    assert not setup.repository.records


async def test_an_operator_cancels_before_the_start_with_refunds(setup: Setup) -> None:
    tid = await setup.create()
    for player in "ab":
        await setup.director.register(tid, player)
    assert await setup.director.cancel(tid, "venue closed") == 2
    assert setup.wallet.balances["a"] == setup.wallet.balances["b"] == FUNDS
    assert setup.events(tid)[-1] == Cancelled("venue closed", ("a", "b"))
    error = await refused(setup.director.cancel(tid, "again"))
    assert status_name(error) == "failed_precondition"


async def test_rule_44_voiding_a_running_tournament_refunds_through_the_wallet(
    setup: Setup,
) -> None:
    tid = await setup.create()
    for player in "abc":
        await setup.director.register(tid, player)
    setup.clock.now = START
    await setup.director.start_due()
    assert await setup.director.void(tid, "state unreadable") == 3
    assert setup.wallet.crashed == [tid]
    assert all(setup.wallet.balances[p] == FUNDS for p in "abc")
    assert (await setup.director.get(tid)).status is Status.VOIDED
    assert setup.events(tid)[-1] == Voided("state unreadable")
    error = await refused(setup.director.void(tid, "twice"))
    assert status_name(error) == "failed_precondition"


async def test_a_rebuy_answer_without_an_offer_is_refused(setup: Setup) -> None:
    tid = await setup.create()
    await setup.director.register(tid, "a")
    error = await refused(setup.director.answer_rebuy(tid, "a", accept=True))
    assert (status_name(error), error.reason) == ("failed_precondition", "no_rebuy_offer")
    assert setup.wallet.balances["a"] == FUNDS - BUY_IN - FEE


async def test_rule_47_the_lobby_shows_the_top_prizes_for_the_entrants_now(setup: Setup) -> None:
    tid = await setup.create()
    for player in "abc":
        await setup.director.register(tid, player)
    view = lobby_view(await setup.director.get(tid))
    assert (view.prize_pool, view.top_prizes, view.current_level) == (3 * BUY_IN, (3_000,), 1)
    await setup.director.register(tid, "d")
    view = lobby_view(await setup.director.get(tid))
    assert view.top_prizes == (2_400, 1_200, 400)


async def test_watching_replays_then_follows_the_events(setup: Setup) -> None:
    tid = await setup.create()
    stream = setup.director.watch(tid, 0)
    first = await anext(stream)
    created = Created(sample_settings(), commitment(fixed_seed(7)))
    assert (first.sequence, first.event) == (1, created)
    waiting = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)
    assert not waiting.done()
    await setup.director.register(tid, "a")
    second = await asyncio.wait_for(waiting, 1)
    assert second.sequence == 2 and second.event == Registered("a", f"{tid}:a:entry-1")
    await stream.aclose()


async def test_rule_7_a_given_seed_is_the_tournament_s_and_must_be_32_bytes(setup: Setup) -> None:
    error = await refused(setup.director.create("short", sample_settings(), b"\x01" * 31))
    assert (status_name(error), error.reason) == ("invalid_argument", "invalid_seed")
    assert not setup.repository.records
    tid, _ = await setup.director.create("given", sample_settings(), fixed_seed(9))
    assert (await setup.director.get(tid)).seating_seed == fixed_seed(9)


async def test_the_list_shows_registering_and_running_soonest_first_in_pages(
    setup: Setup,
) -> None:
    later = await setup.create("later", start_time=START.replace(hour=20))
    soon = await setup.create("soon")
    cancelled = await setup.create("cancelled", start_time=START.replace(hour=19))
    await setup.director.cancel(cancelled, "no room")
    for player in "abc":
        await setup.director.register(soon, player)
    page, token = await setup.director.listed(frozenset(), 1, "")
    assert [r.tournament_id for r in page] == [soon] and token
    page, token = await setup.director.listed(frozenset(), 1, token)
    assert [r.tournament_id for r in page] == [later] and token == ""
    setup.clock.now = START
    assert await setup.director.start_due() == [soon]
    running, _ = await setup.director.listed(frozenset({Status.RUNNING}), 0, "")
    assert [r.tournament_id for r in running] == [soon]
    ended, _ = await setup.director.listed(frozenset({Status.CANCELLED}), 0, "")
    assert [r.tournament_id for r in ended] == [cancelled]


@pytest.mark.parametrize(
    ("page_size", "token", "reason"),
    [
        (501, "", "invalid_page_size"),
        (1, "not-a-token", "invalid_page_token"),
        (1, "bm8gem9uZXxpZA==", "invalid_page_token"),
        (1, "x" * 600, "invalid_page_token"),
    ],
)
async def test_a_bad_page_request_is_invalid_argument(
    setup: Setup, page_size: int, token: str, reason: str
) -> None:
    error = await refused(setup.director.listed(frozenset(), page_size, token))
    assert (status_name(error), error.reason) == ("invalid_argument", reason)
