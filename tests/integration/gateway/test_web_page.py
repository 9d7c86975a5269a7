"""The gateway's web page in real headless Chromium (Debian's, driven by Playwright for
Python through `executable_path`), against the gateway, the lobby on the real PostgreSQL
and a table host logging to the real Kafka broker: a player logs in with a token, sees a
poker table a bot opened in the lobby, sits, plays the hand to its end against the bot
(the poker RuleBot acting through the host), and the page shows the hand's history with
the deal checked in the browser; the in-browser check accepts the real history and
rejects it with two dealt cards swapped; a backgammon game played to its end on the page
against a random bot, its dice checked in the browser; a player opens a table from the
page, seated in it with a bot asked for the other seat; no console errors."""

from __future__ import annotations

import asyncio
import os
import pathlib
import random
import shutil
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from playwright.async_api import Page, async_playwright

from croupier.backgammon.v1 import backgammon_pb2
from croupier.game.fairness import commitment
from croupier.gateway.entrypoints.web_page import BUILT_PAGE
from croupier.gateway.v1 import gateway_pb2
from croupier.lobby import codec
from croupier.lobby.service.ports import TableClock
from croupier.poker.tools.bots import RuleBot
from croupier.poker.v1 import poker_pb2
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.games import GAMES
from tests.support.gateway import bearer, token
from tests.support.lobby_gateway import LobbyPlatform, lobby_gateway

# deploy/local/chromium.sh's browser (`make test` installs it): Debian's, or your own.
CHROMIUM = os.environ.get("CROUPIER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
BOT, PLAYER, STACK = "bot-ana", "web-bob", 100


def _check_prerequisites() -> None:
    assert (BUILT_PAGE / "index.html").is_file(), "build the page first: make web"
    assert os.access(CHROMIUM, os.X_OK), "install Chromium: deploy/local/chromium.sh ensure"


@pytest.fixture
async def platform(
    kafka_bootstrap: str, postgres_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[LobbyPlatform]:
    _check_prerequisites()
    async with lobby_gateway(kafka_bootstrap, postgres_dsn, unique("lobby_web")) as platform:
        yield platform


POKER = table_pb2.GameOptions(
    poker=poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, seats=2)
)
BACKGAMMON = table_pb2.GameOptions(
    backgammon=backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE)
)


async def open_table(platform: LobbyPlatform, options: table_pb2.GameOptions) -> str:
    """A two-seat table opened in the lobby by the bot, seated in seat 0 (the lobby's use
    case in process: its gRPC API is for the gateway and services only)."""
    game, options_json = codec.options_from_proto(options)
    record = await platform.lobby.tables.open(
        player=BOT,
        request_key=f"web-{game}",
        game=game,
        options=options_json,
        clock=TableClock(3600, 0, 3600),
        invited=None,
        with_code=False,
        stack=STACK if game == "poker" else 0,
    )
    return record.table.table_id


async def play_bot(host: TableHost, table_id: str, stop: asyncio.Event) -> None:
    """The bot's seat, acting through the host from its own view: poker's RuleBot, or a
    random legal backgammon play."""
    rule_bot, rng = RuleBot(BOT, random.Random(7)), random.Random(7)
    turn = 0
    while not stop.is_set():
        view = dict(host.view(table_id, BOT).view)
        if "hand" in view or "table" in view:
            hand = view.get("hand") or {}
            action = rule_bot.decide(view) if hand.get("to_act") == BOT else None
        else:
            acting = view.get("to_act") == BOT and view.get("legal", {}).get("actions")
            action = GAMES["backgammon"].legal_action(view, rng) if acting else None
        if action is not None:
            turn += 1
            await host.act(table_id, BOT, f"bot-{turn}", action)
        await asyncio.sleep(0.05)


@asynccontextmanager
async def logged_in_page(platform: LobbyPlatform) -> AsyncIterator[Page]:
    """The page in Chromium, logged in as the player; on leaving, the browser stops and the
    page must have logged no console error."""
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--headless=new"]
        )
        try:
            page = await browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(platform.gateway.http + "/")
            await page.fill("#token", token(PLAYER, now=time.time()))
            await page.click("#login-button")
            yield page
        finally:
            await browser.close()
    assert errors == [], errors


@asynccontextmanager
async def page_with_bot(platform: LobbyPlatform, table_id: str) -> AsyncIterator[Page]:
    """The logged-in page showing `table_id` in the lobby, while the bot plays its seat."""
    stop = asyncio.Event()
    bot = asyncio.create_task(play_bot(platform.host, table_id, stop))
    try:
        async with logged_in_page(platform) as page:
            await page.wait_for_selector(f'.table-row[data-table="{table_id}"]')
            yield page
    finally:
        stop.set()
        await bot


async def play_until_hand_over(page: Page) -> None:
    """Click the page's own buttons (check, else call) until hand 1's history shows."""
    for _ in range(200):
        if await page.locator('.hand[data-hand="1"]').count():
            return
        buttons = page.locator("#actions button.act")
        if await buttons.count():
            for kind in ("check", "call", "fold"):
                choice = page.locator(f'#actions button.act[data-action="{kind}"]')
                if await choice.count():
                    await choice.first.click()
                    break
        await page.wait_for_timeout(100)
    raise AssertionError("the hand did not end on the page")


def another_seed(platform: LobbyPlatform, table_id: str, history: dict[str, Any]) -> dict[str, Any]:
    """`history` re-dealt from a new seed: its commitment, deal and first command agree."""
    seed = os.urandom(32)
    commands = [dict(command) for command in history["commands"]]
    start = next(c for c in commands if c["kind"] == "start_hand")
    start["body"] = dict(start["body"], seed=seed.hex())
    return dict(
        history,
        seed=seed.hex(),
        seed_sha256=commitment(seed),
        dealt=platform.host.engine_of(table_id).randomness(seed),
        commands=commands,
    )


async def test_a_player_logs_in_sits_plays_a_hand_and_checks_its_deal_in_the_browser(
    platform: LobbyPlatform, tmp_path: pathlib.Path
) -> None:
    table_id = await open_table(platform, POKER)
    async with page_with_bot(platform, table_id) as page:
        assert await page.text_content("#me") == PLAYER
        await page.click(f'.table-row[data-table="{table_id}"] button.join')
        await page.wait_for_selector("#seats .seat.mine")
        assert await page.locator("#seats .seat").count() == 2
        assert await page.locator("#seats .seat.mine .card[data-card]").count() == 2

        await play_until_hand_over(page)
        verdict = await page.text_content('.hand[data-hand="1"] .verdict')
        assert verdict is not None and verdict.startswith("deal verified"), verdict
        await page.screenshot(path=str(tmp_path / "hand.png"), full_page=True)
        assert (tmp_path / "hand.png").stat().st_size > 1000

        history = platform.host.hand_history(table_id, 1)
        delta = history["result"]["deltas"][PLAYER]
        chips = await page.text_content("#chips")
        assert chips is not None and int(chips) == STACK + delta
        assert delta != 0 or history["result"]["deltas"][BOT] == 0

        check = "async h => (await window.croupierVerify(h)).ok"
        assert await page.evaluate(check, history) is True
        swapped = dict(history, dealt=list(history["dealt"]))
        swapped["dealt"][0], swapped["dealt"][5] = swapped["dealt"][5], swapped["dealt"][0]
        assert await page.evaluate(check, swapped) is False

        # The page kept the commitment the live view showed at the deal, before the seed
        # was revealed; a history consistent in itself but from another seed (what a
        # server choosing the seed afterwards would send) is rejected against it.
        shown = await page.get_attribute('.hand[data-hand="1"] .commitment', "data-commitment")
        assert shown == history["seed_sha256"]
        forged = another_seed(platform, table_id, history)
        against = "async ([h, c]) => (await window.croupierVerify(h, {commitment: c})).ok"
        assert await page.evaluate(check, forged) is True  # alone, it checks out
        assert await page.evaluate(against, [forged, shown]) is False
        assert await page.evaluate(against, [history, shown]) is True


async def test_a_player_plays_a_backgammon_game_on_the_page_and_checks_its_dice(
    platform: LobbyPlatform,
) -> None:
    table_id = await open_table(platform, BACKGAMMON)
    async with page_with_bot(platform, table_id) as page:
        await page.click(f'.table-row[data-table="{table_id}"] button.join')
        await page.wait_for_selector("#board .backgammon")
        assert await page.locator("#board .point").count() == 24
        assert await page.locator("#seats .seat").count() == 2
        for _ in range(1500):
            if await page.locator('.hand[data-hand="1"]').count():
                break
            buttons = page.locator("#actions button.act")
            if await buttons.count():
                await buttons.first.click()
            await page.wait_for_timeout(50)
        verdict = await page.text_content('.hand[data-hand="1"] .verdict')
        assert verdict is not None and verdict.startswith("deal verified"), verdict


@pytest.mark.parametrize("game", ["poker", "backgammon"])
async def test_a_player_opens_a_table_from_the_page_with_a_bot_asked_for(
    platform: LobbyPlatform, game: str
) -> None:
    async with logged_in_page(platform) as page:
        await page.click(f"#open-{game}")
        row = page.locator(f'.table-row[data-game="{game}"]')
        await row.wait_for()
        table_id = await row.get_attribute("data-table")
        await page.wait_for_selector(f'#table[data-table="{table_id}"]:not([hidden])')
        await page.wait_for_selector("#seats .seat.mine")  # the live view, rendered
        title = await page.text_content("#table-title")
        message = await page.text_content("#message")
    assert title == f"{game} table {table_id}"
    assert message == "a bot will take the other seat in a moment"

    listed = await platform.gateway.stub.ListTables(
        gateway_pb2.ListTablesRequest(), metadata=bearer(PLAYER, now=time.time())
    )
    (table,) = [t for t in listed.tables if t.table_id == table_id]
    assert (list(table.seated), table.owner_id, table.bots_wanted) == ([PLAYER], PLAYER, 1)
    assert (table.seats, table.stake.currency) == (2, "CHIP")  # play chips: bots may sit
