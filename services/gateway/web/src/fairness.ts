// A hand's deal checked in the browser, so a player need not trust the server: the port of
// croupier.game.fairness (HMAC-SHA256(seed, label || 0x00 || counter) blocks, rejection
// sampling below n, Fisher-Yates) and of `croupier verify`'s seed checks, with WebCrypto.
// Any change to the Python derivation must be made here too: the Chromium test checks this
// module against real histories.

export const SEED_BYTES = 32;
const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
// croupier.poker.core.cards: card i is RANKS[i >> 2] + SUITS[i & 3].
export const CARD_NAMES: string[] = [...RANKS].flatMap((rank) => [...SUITS].map((suit) => rank + suit));
// croupier.backgammon.core.table_rules.DEALT_DICE: how many dice a history lists.
const DEALT_DICE = 256;

type Bytes = Uint8Array<ArrayBuffer>;

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(text: string): Bytes {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Hex SHA-256 of the seed: the commitment published when the hand began. */
export async function commitment(seed: Bytes): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", seed)));
}

/** Deterministic random integers derived from a seed and a label (FairStream). */
export class FairStream {
  private buffer = new Uint8Array(0);
  private counter = 0n;

  private constructor(
    private readonly key: CryptoKey,
    private readonly label: Bytes,
  ) {}

  static async create(seed: Bytes, label: string): Promise<FairStream> {
    if (seed.length !== SEED_BYTES) throw new Error(`a seed has ${SEED_BYTES} bytes, got ${seed.length}`);
    const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new FairStream(key, new TextEncoder().encode(label));
  }

  private async take(count: number): Promise<Uint8Array> {
    while (this.buffer.length < count) {
      const message = new Uint8Array(this.label.length + 9);
      message.set(this.label);
      new DataView(message.buffer).setBigUint64(this.label.length + 1, this.counter, false);
      const block = new Uint8Array(await crypto.subtle.sign("HMAC", this.key, message));
      const joined = new Uint8Array(this.buffer.length + block.length);
      joined.set(this.buffer);
      joined.set(block, this.buffer.length);
      this.buffer = joined;
      this.counter += 1n;
    }
    const taken = this.buffer.slice(0, count);
    this.buffer = this.buffer.slice(count);
    return taken;
  }

  /** A uniform integer in [0, n), by rejection sampling over whole bytes (n < 2^31). */
  async below(n: number): Promise<number> {
    if (n <= 0) throw new Error("n must be positive");
    if (n === 1) return 0;
    const size = 32 - Math.clz32(n - 1);
    const nbytes = Math.ceil(size / 8);
    const mask = 2 ** size - 1;
    for (;;) {
      let value = 0;
      for (const byte of await this.take(nbytes)) value = value * 256 + byte;
      value = value % (mask + 1); // the low `size` bits (value < 2^32, so no float error)
      if (value < n) return value;
    }
  }

  /** Fisher-Yates (Durstenfeld) shuffle of a copy of `items`. */
  async shuffled<T>(items: readonly T[]): Promise<T[]> {
    const result = [...items];
    for (let i = result.length - 1; i > 0; i--) {
      const j = await this.below(i + 1);
      [result[i], result[j]] = [result[j], result[i]];
    }
    return result;
  }

  async die(): Promise<number> {
    return (await this.below(6)) + 1;
  }
}

/** What the seed gives, as the history's `dealt` lists it: poker's deck order, backgammon's dice. */
export async function derive(game: string, seed: Bytes): Promise<unknown[]> {
  if (game === "poker") {
    const deck = CARD_NAMES.map((_, card) => card);
    return (await (await FairStream.create(seed, "deck")).shuffled(deck)).map((card) => CARD_NAMES[card]);
  }
  if (game === "backgammon") {
    const stream = await FairStream.create(seed, "dice");
    const dice: number[] = [];
    for (let i = 0; i < DEALT_DICE; i++) dice.push(await stream.die());
    return dice;
  }
  throw new Error(`this page checks poker and backgammon hands, not ${game}`);
}

/** What the player saw during the hand, checked against the deal the seed gives. */
export interface Seen {
  /** Poker: his hole cards, and how many cards were dealt to the seats (players × hole cards). */
  hole?: string[];
  holeDealt?: number;
  /** Poker: the board cards shown. */
  board?: string[];
  /** Backgammon: every pair of dice rolled, in order. */
  rolls?: number[][];
  /** The hand's commitment as the live view showed it from the deal on, before any seed
   * was revealed: the history must reveal a seed that hashes to this one. */
  commitment?: string;
}

export interface Verdict {
  ok: boolean;
  problems: string[];
}

type History = Record<string, unknown>;

/** Whether every roll seen (either die first) comes from `dice`, in order. */
function isSubsequence(pairs: number[][], dice: number[]): boolean {
  let at = 0;
  const same = (a: number, b: number) =>
    (dice[at] === a && dice[at + 1] === b) || (dice[at] === b && dice[at + 1] === a);
  for (const [a, b] of pairs) {
    while (at + 1 < dice.length && !same(a, b)) at++;
    if (at + 1 >= dice.length) return false;
    at += 2;
  }
  return true;
}

/** Every reason `history` (GetHandHistory's JSON) is not an honest deal; none: verified. */
export async function verifyHistory(history: History, seen: Seen = {}): Promise<Verdict> {
  const problems: string[] = [];
  const seedHex = history.seed;
  if (typeof seedHex !== "string" || !/^[0-9a-f]{64}$/.test(seedHex)) {
    return { ok: false, problems: ["not a hand history: seed must be 64 hexadecimal digits"] };
  }
  if (typeof history.game !== "string" || !Array.isArray(history.dealt) || !Array.isArray(history.commands)) {
    return { ok: false, problems: ["not a hand history: game, dealt and commands are required"] };
  }
  const seed = fromHex(seedHex);
  if (seen.commitment !== undefined && seen.commitment !== history.seed_sha256) {
    problems.push("the history's commitment is not the one shown when the hand was dealt");
  }
  if ((await commitment(seed)) !== history.seed_sha256) {
    problems.push("the seed does not match the commitment published when the hand began");
  }
  const derived = await derive(history.game, seed);
  if (JSON.stringify(derived) !== JSON.stringify(history.dealt)) {
    problems.push("the dealt cards or dice are not the ones the seed gives");
  }
  const starts = (history.commands as History[]).filter((c) => c.kind === "start_hand");
  const handNumber = Number(history.hand_number);
  const started = starts[handNumber - 1]?.body as History | undefined;
  if (started?.seed !== seedHex) problems.push("the hand was not started with the revealed seed");
  const cards = derived as string[];
  if (seen.hole && seen.holeDealt) {
    const dealtToSeats = new Set(cards.slice(0, seen.holeDealt));
    if (!seen.hole.every((card) => dealtToSeats.has(card))) {
      problems.push(`your cards ${seen.hole.join(" ")} are not the ones the seed dealt to the seats`);
    }
  }
  if (seen.board && seen.holeDealt !== undefined) {
    const stub = new Set(cards.slice(seen.holeDealt));
    if (!seen.board.every((card) => stub.has(card))) {
      problems.push(`the board ${seen.board.join(" ")} was not dealt from the seed's deck`);
    }
  }
  if (seen.rolls && seen.rolls.length && !isSubsequence(seen.rolls, derived as number[])) {
    problems.push("the dice you saw are not the ones the seed gives");
  }
  return { ok: problems.length === 0, problems };
}
