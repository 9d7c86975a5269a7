// The page: log in with a token, list the lobby's tables live, sit at one or open one with
// a bot, play from the table's live view, and after each hand check its deal in this
// browser (fairness.ts).
import { ConnectError } from "@connectrpc/connect";
import { gatewayClient, playerOf, type GatewayClient } from "./api";
import { $, el, show } from "./dom";
import { verifyHistory, type Seen, type Verdict } from "./fairness";
import { RollsSeen, pokerSeen, renderBackgammon, renderPoker, type Rendered } from "./games";
import { Game } from "./gen/croupier/common/v1/common_pb";
import type { TableListing } from "./gen/croupier/lobby/v1/lobby_pb";
import { Mode } from "./gen/croupier/backgammon/v1/backgammon_pb";
import { Variant } from "./gen/croupier/poker/v1/poker_pb";
import { ViewFormat } from "./gen/croupier/table/v1/table_pb";

type JSON = Record<string, any>;

const STACK = 100n; // the chips brought to a poker table
const TURN_SECONDS = 120; // a table opened here: a person's time to think

// What "open" opens: heads-up NLHE 1/2 or a single backgammon game, for play chips (no
// currency: bots sit only at play-chip tables, and nothing moves in the wallet).
function openedOptions(game: "poker" | "backgammon") {
  return game === "poker"
    ? { game: { case: "poker" as const, value: { variant: Variant.NLHE, smallBlind: 1n, bigBlind: 2n, seats: 2 } } }
    : { game: { case: "backgammon" as const, value: { mode: Mode.SINGLE } } };
}

let client: GatewayClient | null = null;
let me = "";
const listings = new Map<string, TableListing>();
let leaving: AbortController | null = null;

function say(message: string): void {
  $("message").textContent = message;
}

function explain(error: unknown): string {
  return error instanceof ConnectError ? error.rawMessage : String(error);
}

function gameName(game: Game): string {
  return Game[game].toLowerCase();
}

// ---- login ------------------------------------------------------------------------------

async function logIn(event: Event): Promise<void> {
  event.preventDefault();
  const token = ($("token") as HTMLInputElement).value.trim();
  const player = playerOf(token);
  if (!player) {
    say("that is not a token: paste the output of `croupier token --player NAME`");
    return;
  }
  client = gatewayClient(token);
  try {
    await refreshTables();
  } catch (error) {
    client = null;
    say(`the gateway refused the token: ${explain(error)}`);
    return;
  }
  me = player;
  $("me").textContent = player;
  show("login", false);
  show("lobby", true);
  say("");
  void watchTables();
}

// ---- lobby ------------------------------------------------------------------------------

async function refreshTables(): Promise<void> {
  const answer = await client!.listTables({});
  listings.clear();
  for (const table of answer.tables) listings.set(table.tableId, table);
  renderTables();
}

async function watchTables(): Promise<void> {
  try {
    for await (const change of client!.watchTables({})) {
      if (change.table) listings.set(change.table.tableId, change.table);
      renderTables();
    }
  } catch (error) {
    say(`the lobby's live list stopped: ${explain(error)} (refresh to see it again)`);
  }
}

function renderTables(): void {
  const rows = [...listings.values()].filter((t) => t.status !== 3 /* closed */);
  $("tables").replaceChildren(
    ...rows.map((table) => {
      const game = gameName(table.game);
      const stake = table.stake ? `${table.stake.amountMinor} ${table.stake.currency}` : "";
      const sitting = table.seated.includes(me);
      const button = el("button", { class: "join", "data-table": table.tableId, "data-game": game }, sitting ? "back to table" : "sit");
      button.addEventListener("click", () => void sit(table, sitting));
      return el(
        "li",
        { class: "table-row", "data-table": table.tableId, "data-game": game },
        el("span", { class: "game" }, `${game} ${table.variant}`),
        el("span", { class: "stake" }, stake),
        el("span", { class: "seated" }, `${table.seatsTaken}/${table.seats}: ${table.seated.join(", ")}`),
        button,
      );
    }),
  );
}

async function sit(table: TableListing, alreadySeated: boolean): Promise<void> {
  if (!alreadySeated) {
    try {
      const stack = table.game === Game.POKER ? STACK : 0n;
      await client!.joinTable({ tableId: table.tableId, stack });
    } catch (error) {
      say(`no seat: ${explain(error)}`);
      return;
    }
  }
  void playAt(table.tableId, table.game);
}

async function openWithBot(game: "poker" | "backgammon"): Promise<void> {
  let table: TableListing | undefined;
  try {
    const opened = await client!.openTable({
      requestKey: crypto.randomUUID(),
      options: openedOptions(game),
      clock: { turnSeconds: TURN_SECONDS },
      stack: game === "poker" ? STACK : 0n,
    });
    table = opened.table;
  } catch (error) {
    say(`not opened: ${explain(error)}`);
    return;
  }
  if (!table) return;
  listings.set(table.tableId, table);
  renderTables();
  try {
    await client!.addBots({ tableId: table.tableId, count: 1 });
    say("a bot will take the other seat in a moment");
  } catch (error) {
    say(`the table is open, but no bot was asked for: ${explain(error)}`);
  }
  void playAt(table.tableId, table.game);
}

// ---- the table --------------------------------------------------------------------------

async function playAt(tableId: string, game: Game): Promise<void> {
  leaving?.abort();
  const stop = new AbortController();
  leaving = stop;
  $("table").dataset.table = tableId;
  $("table").dataset.game = gameName(game);
  $("table-title").textContent = `${gameName(game)} table ${tableId}`;
  $("history").replaceChildren();
  show("table", true);
  const seen = new Map<number, Seen>();
  const rolls = new RollsSeen();
  let checked = 0n;
  try {
    const views = client!.watchTable({ tableId, viewFormat: ViewFormat.JSON }, { signal: stop.signal });
    for await (const { view } of views) {
      if (!view) continue;
      const body = JSON.parse(view.viewJson) as JSON;
      const noted = game === Game.POKER ? pokerSeen(body, me) : rolls.note(body);
      if (noted) seen.set(noted[0], { ...seen.get(noted[0]), ...noted[1] });
      if (view.handNumber > 0n) {
        // The first commitment shown for a hand is the one its history must honour.
        const hand = Number(view.handNumber);
        seen.set(hand, { commitment: view.handSeedSha256, ...seen.get(hand) });
      }
      render(tableId, game === Game.POKER ? renderPoker(body, me) : renderBackgammon(body, me));
      if (view.lastFinishedHand > checked) {
        checked = view.lastFinishedHand;
        void showHistory(tableId, checked, seen.get(Number(checked)) ?? {});
      }
      if (view.closed) say("the table closed");
    }
  } catch (error) {
    if (!stop.signal.aborted) say(`the table's live view stopped: ${explain(error)}`);
  }
}

function render(tableId: string, rendered: Rendered): void {
  $("board").replaceChildren(rendered.board);
  $("seats").replaceChildren(rendered.seats);
  $("status").textContent = rendered.status;
  if (rendered.chips !== null) $("chips").textContent = String(rendered.chips);
  $("actions").replaceChildren(
    ...rendered.offers.map((offer) => {
      const button = el("button", { class: "act", "data-action": String(offer.action.action) }, offer.label);
      button.addEventListener("click", () => void act(tableId, offer.action));
      return button;
    }),
  );
}

async function act(tableId: string, action: JSON): Promise<void> {
  $("actions").replaceChildren(); // one click, one action: the next view offers the next
  try {
    await client!.act({ tableId, commandId: crypto.randomUUID(), actionJson: JSON.stringify(action) });
  } catch (error) {
    say(`refused: ${explain(error)}`);
  }
}

async function showHistory(tableId: string, hand: bigint, seen: Seen): Promise<void> {
  let answer;
  try {
    answer = await client!.getHandHistory({ tableId, handNumber: hand });
  } catch (error) {
    say(`no history of hand ${hand}: ${explain(error)}`); // a hand he did not play
    return;
  }
  const history = JSON.parse(answer.historyJson) as JSON;
  const verdict = await verifyHistory(history, seen);
  const deltas = Object.entries((history.result?.deltas ?? {}) as Record<string, number>)
    .map(([player, delta]) => `${player} ${delta > 0 ? "+" : ""}${delta}`)
    .join(", ");
  const entry = el(
    "div",
    { class: `hand ${verdict.ok ? "verified" : "rejected"}`, "data-hand": String(hand) },
    el("h3", {}, `hand ${hand}: ${deltas}`),
    el("p", { class: "verdict" }, verdictText(verdict, seen)),
    el("p", { class: "seed" }, `seed ${history.seed} · sha256 ${history.seed_sha256}`),
    el(
      "p",
      { class: "commitment", "data-commitment": seen.commitment ?? "" },
      seen.commitment ? `committed at the deal: sha256 ${seen.commitment}` : "the deal's commitment was not seen here",
    ),
    el("p", { class: "commands" }, `${(history.commands as unknown[]).length} commands`),
  );
  $("history").prepend(entry);
}

function verdictText(verdict: Verdict, seen: Seen): string {
  if (!verdict.ok) return `deal REJECTED: ${verdict.problems.join("; ")}`;
  const against = seen.commitment ? "the commitment shown at the deal" : "its commitment";
  return `deal verified in this browser: the seed matches ${against} and gives these cards`;
}

// For a history fetched elsewhere (and the page's test): check one in this browser.
declare global {
  interface Window {
    croupierVerify: typeof verifyHistory;
  }
}
window.croupierVerify = verifyHistory;

$("login-form").addEventListener("submit", (event) => void logIn(event));
$("refresh").addEventListener("click", () => void refreshTables().catch((error) => say(explain(error))));
$("open-poker").addEventListener("click", () => void openWithBot("poker"));
$("open-backgammon").addEventListener("click", () => void openWithBot("backgammon"));
