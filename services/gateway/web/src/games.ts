// What a seat shows of a poker or backgammon table, from the view the table host sends to
// this player (TableView.view_json): the board, the seats, the actions offered now, and
// what the player saw of the deal (checked against the seed once the hand is over).
import { el } from "./dom";
import type { Seen } from "./fairness";

type JSON = Record<string, any>;

export interface Offer {
  label: string;
  action: JSON;
}

export interface Rendered {
  board: HTMLElement;
  seats: HTMLElement;
  offers: Offer[];
  status: string;
  /** The player's chips at the table (poker), for the chip counter. */
  chips: number | null;
}

const SUIT_SYMBOLS: Record<string, string> = { c: "♣", d: "♦", h: "♥", s: "♠" };

function card(name: string | null): HTMLElement {
  if (name === null) return el("span", { class: "card back", "data-card": "" }, "🂠");
  const suit = name[1];
  const red = suit === "h" || suit === "d" ? " red" : "";
  return el("span", { class: `card${red}`, "data-card": name }, name[0] + SUIT_SYMBOLS[suit]);
}

// ---- poker ------------------------------------------------------------------------------

export function renderPoker(view: JSON, me: string): Rendered {
  const hand: JSON | undefined = view.hand ?? undefined;
  const tableSeats: JSON[] = view.table ?? [];
  const handSeats = new Map<string, JSON>((hand?.seats ?? []).map((s: JSON) => [s.player, s]));
  const board = el("div", { class: "cards board" }, ...(hand?.board ?? []).map(card));
  const seats = el("div", { class: "seats" });
  for (const seat of tableSeats) {
    const inHand = handSeats.get(seat.player);
    const cards: (string | null)[] = inHand?.hole_cards ?? Array(inHand?.hole_card_count ?? 0).fill(null);
    const mine = seat.player === me ? " mine" : "";
    const acting = hand?.to_act === seat.player ? " acting" : "";
    seats.append(
      el(
        "div",
        { class: `seat${mine}${acting}`, "data-player": seat.player },
        el("span", { class: "name" }, seat.player),
        el("span", { class: "stack" }, String(inHand?.stack ?? seat.stack)),
        el("span", { class: "bet" }, inHand?.bet ? `bet ${inHand.bet}` : inHand?.folded ? "folded" : ""),
        el("span", { class: "cards" }, ...cards.map(card)),
      ),
    );
  }
  const offers: Offer[] = [];
  const legal: JSON | undefined = hand?.legal;
  if (hand && hand.status !== "complete" && hand.to_act === me && legal) {
    for (const kind of legal.actions as string[]) {
      if (kind === "call") offers.push({ label: `call ${legal.call}`, action: { action: "call" } });
      else if (kind === "bet" || kind === "raise") {
        const to = legal.min_raise_to ?? legal.min_bet;
        offers.push({ label: `${kind} to ${to}`, action: { action: kind, to } });
      } else if (["fold", "check", "allin"].includes(kind)) offers.push({ label: kind, action: { action: kind } });
    }
  }
  const me_at_table = tableSeats.find((s) => s.player === me);
  const status = !hand
    ? "waiting for players"
    : hand.status === "complete"
      ? "hand over"
      : hand.to_act === me
        ? "your turn"
        : `${hand.street}: ${hand.to_act ?? "dealing"} to act`;
  return { board, seats, offers, status, chips: me_at_table ? Number(me_at_table.stack) : null };
}

export function pokerSeen(view: JSON, me: string): [number, Seen] | null {
  const hand: JSON | undefined = view.hand;
  if (!hand) return null;
  const own = (hand.seats as JSON[]).find((s) => s.player === me);
  if (!own?.hole_cards) return null;
  const holeDealt = (hand.seats as JSON[]).length * Number(own.hole_card_count);
  return [Number(view.hand_number), { hole: own.hole_cards, holeDealt, board: hand.board ?? [] }];
}

// ---- backgammon -------------------------------------------------------------------------

/** GNU Backgammon's Position ID: two sides of 25 counts (points 1-24 from that side, then
 * its bar), the player on roll second (croupier.backgammon.core.board). */
export function decodePosition(id: string): number[][] {
  const bytes = Uint8Array.from(atob(id + "=="), (c) => c.charCodeAt(0));
  const sides: number[][] = [[], []];
  let side = 0;
  let count = 0;
  for (let bit = 0; bit < 80 && side < 2; bit++) {
    if ((bytes[bit >> 3] >> (bit & 7)) & 1) count++;
    else {
      sides[side].push(count);
      count = 0;
      if (sides[side].length === 25) side++;
    }
  }
  return sides;
}

export function renderBackgammon(view: JSON, me: string): Rendered {
  if (typeof view.position_id !== "string") {
    // No game yet: the table waits for its second player (a bot asked for, or a person).
    const seats = el("div", { class: "seats" });
    for (const player of (view.players ?? []) as string[]) {
      seats.append(el("div", { class: `seat${player === me ? " mine" : ""}`, "data-player": player }, el("span", { class: "name" }, player)));
    }
    return { board: el("div", { class: "backgammon" }), seats, offers: [], status: "waiting for the other player", chips: null };
  }
  const [waiting, mover] = decodePosition(view.position_id);
  const mine = view.on_roll === me ? mover : waiting;
  const theirs = view.on_roll === me ? waiting : mover;
  const board = el("div", { class: "backgammon" });
  for (let point = 24; point >= 1; point--) {
    const own = mine[point - 1];
    const other = theirs[24 - point];
    const checkers = own ? `● ${own}` : other ? `○ ${other}` : "";
    board.append(el("div", { class: "point", "data-point": String(point) }, el("small", {}, String(point)), checkers));
  }
  const sum = (side: number[]) => side.reduce((a, b) => a + b, 0);
  const seats = el("div", { class: "seats" });
  for (const player of view.players as string[]) {
    const side = player === me ? mine : theirs;
    const acting = view.to_act === player ? " acting" : "";
    seats.append(
      el(
        "div",
        { class: `seat${player === me ? " mine" : ""}${acting}`, "data-player": player },
        el("span", { class: "name" }, player),
        el("span", { class: "bar" }, `bar ${side[24]}`),
        el("span", { class: "off" }, `off ${15 - sum(side)}`),
        el("span", { class: "score" }, `score ${view.score?.[player] ?? 0}`),
      ),
    );
  }
  const offers: Offer[] = [];
  const legal: JSON = view.legal ?? { actions: [] };
  for (const kind of legal.actions as string[]) {
    if (kind === "move") {
      for (const play of legal.plays as string[]) {
        offers.push({ label: play ? `move ${play}` : "no move: pass", action: { action: "move", play } });
      }
    } else if (kind !== "resign") offers.push({ label: kind, action: { action: kind } });
  }
  const dice = view.dice ? ` · dice ${view.dice.join("-")}` : "";
  const status = view.phase === "over" ? "game over" : view.to_act === me ? `your turn${dice}` : `${view.to_act} to act${dice}`;
  return { board, seats, offers, status, chips: null };
}

/** Backgammon's rolls as the player saw them, one per turn (the game is the "hand"). */
export class RollsSeen {
  private last = "";
  readonly rolls: number[][] = [];

  note(view: JSON): [number, Seen] {
    const key = view.dice ? `${view.on_roll}:${view.dice.join(",")}` : "";
    if (key && key !== this.last) this.rolls.push([...view.dice]);
    this.last = key;
    return [Number(view.game), { rolls: [...this.rolls] }];
  }
}
