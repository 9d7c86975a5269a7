"""Poker's table rules: what lasts between hands (seats, stacks, the button, Naiko Destello
balances) and how the host's commands change it. A hand's own rules are `core.deal`,
`core.hand` and `core.showdown` (`core.naiko`: powers); the table's state is
`core.seating.PokerTable`, its options `core.table_options`. `core.table_rules.PokerRules`
hands each command here:

- `SeatPlayer` takes a free seat with a buy-in (stack) of at least 1 chip and
  `min_buy_in`; a player who goes broke keeps his seat and watches (§6, rule 50). A new
  player waits for the big blind (`PokerTable.deal_plan`, OQ 22), unless fewer than two
  players are playing. `is_bot=True` labels the seat BOT (rule 59;
  refused when `bots_allowed` is false). A private table (`invite_code`, `invited`) seats
  only invited players.
- `UnseatPlayer` between hands frees the seat; during a hand the player is marked as
  leaving and his remaining turns are played at once as the clock would (check when legal,
  else fold; an open Seal window: no Seal; OQ 20): the host stops timing an unseated
  player. He leaves when the hand ends.
- `StartHand(seed)` moves the button one seat clockwise (OQ 22) among the players playing
  and deals from the seed (`deal.deal_from_seed`; Naiko: the Carousel too). A tournament
  hand's table with `dead_small_blind` deals its first hand without a small blind (its
  `hand_started` event's `small_blind` is null).
- `Act` is `hand.apply`; an illegal action raises `IllegalAction`, a `RuleBroken`. Table
  actions (`TABLE_ACTIONS`) work between hands too: `sit_out` (from the next hand; blinds
  that pass meanwhile are missed), `sit_in` (at once, or waiting for the big blind after
  missed blinds; `"post": true` posts at once), `post_blind` and `top_up` (below).

Entering and missed blinds (OQ 22, the standard online rules; choices written down here):

- The button moves one seat clockwise per hand among the players who play on; blinds are
  never skipped backwards and there is no dead button. Heads-up (rule 9: the button posts
  the small blind) the big blind goes to the player after the last big blind, so that
  nobody has it twice running when a table goes from 3 players to 2.
- A new player waits for his big blind (dealt in on the hand whose big blind falls on his
  seat, posting just that blind), or sends `post_blind`: he is then dealt in on the next
  hand with one big blind posted live, wherever he sits, except between the button and
  the small blind (he would be the small blind): there he waits until the button has
  passed him. A live post is his bet: he acts in turn and may check if nobody raised.
- A player sitting out (or busted: no chips) misses a blind when it would have been his
  (his seat between the button and the big blind of a hand he is not dealt in). Coming
  back (`sit_in`, or a busted player's `top_up`) he waits for his big blind, which clears
  what he owes, or posts what he missed: the big blind live plus the small blind dead if
  he missed the big blind; the small blind dead if he missed only the small blind. Dead
  chips go to the main pot: not part of his bet, never returned as uncalled
  (`deal.start_hand`'s `posts`).
- When fewer than two players play on, nobody waits and nobody posts: everybody with chips
  is dealt in and what was owed is forgiven.

Top-up and busted players (§6, rule 50): `{"action": "top_up", "amount": N}` adds chips,
at most up to `max_buy_in` (0: no limit) counted on the stack at the start of the hand in
play plus top-ups pending; at once when the player is not in the running hand, else when
the hand ends (a hand's `HandResult.deltas` never include it), and then only up to
`max_buy_in` on the stack he ends the hand with: the rest is given back
(`top_up_returned`, which a cash table pays out like a leaving stack). A busted player keeps his
seat and watches; the table plays on without him; his top-up is a new buy-in of at least
`min_buy_in`. `player_left` events carry the `stack` the player leaves with (what a cash
table gives back).

What players and the host read (views, legal actions, clocks, the settlement) is
`core.table_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from croupier.game import JSON, Event, Malformed, NotYours, RuleBroken, SeatPlayer, Unknown
from croupier.game.limits import check_amount, echo
from croupier.poker.core import hand as hand_rules
from croupier.poker.core.deal import deal_from_seed
from croupier.poker.core.rules import MIN_PLAYERS
from croupier.poker.core.seating import TABLE_ACTIONS, PokerTable
from croupier.poker.core.state import HandRanks, HandState
from croupier.poker.core.table_options import bounded


def can_start_hand(state: PokerTable) -> bool:
    if len(state.seats) < state.options.hand_players:
        return False  # a tournament hand's table waits for all its players (table_options)
    return not state.running and len(state.dealt_in()) >= MIN_PLAYERS


def act(state: PokerTable, player: str, action: JSON) -> tuple[PokerTable, list[Event]]:
    """A player's action: a table action (`TABLE_ACTIONS`, between hands too) or an action
    in the running hand."""
    if action.get("action") in TABLE_ACTIONS:
        return _table_action(state, player, action)
    if state.hand is None or not state.running:
        raise RuleBroken("no hand is running")
    if player in state.leaving:
        raise RuleBroken(f"{player!r} has left the table")
    _check_target(state.hand, action)
    hand, raw = hand_rules.apply(state.hand, player, action)
    return _after_action(replace(state, hand=hand), _events(raw))


def _events(raw: Sequence[dict[str, Any]]) -> list[Event]:
    out = []
    for e in raw:
        data = {k: v for k, v in e.items() if k != "type"}
        out.append(Event(str(e["type"]), data))
    return out


def seat(state: PokerTable, command: SeatPlayer) -> tuple[PokerTable, list[Event]]:
    opts = state.options
    if not 0 <= command.seat < opts.seats:
        raise Malformed(f"this table has seats 0 to {opts.seats - 1}")
    if any(p == command.player for _, p, _ in state.seats):
        raise RuleBroken(f"{command.player!r} is already seated")
    if any(n == command.seat for n, _, _ in state.seats):
        raise RuleBroken(f"seat {command.seat} is taken")
    if command.is_bot and not opts.bots_allowed:
        raise NotYours("bots are not enabled at this table")
    holds_code = bool(opts.invite_code) and command.invite_code == opts.invite_code
    invited = command.is_bot or command.player in opts.invited or holds_code
    if opts.private and not invited:
        raise NotYours("this private table is for invited players only")
    stack = bounded(check_amount, command.stack, "stack")
    # A seat needs chips: one taken with none would never be dealt in (only a player
    # who went broke at the table stays seated to watch, rule 50).
    least = max(1, opts.min_buy_in)
    if stack < least:
        raise Malformed(f"the buy-in is at least {least}")
    if opts.max_buy_in and stack > opts.max_buy_in:
        raise Malformed(f"the buy-in is at most {opts.max_buy_in}")
    seats = tuple(sorted((*state.seats, (command.seat, command.player, stack))))
    destellos = (*state.destellos, (command.player, 0))  # OQ 4: 0 on taking a seat
    bots = state.bots | {command.player} if command.is_bot else state.bots
    waiting = state.waiting | {command.player}  # until his big blind (or nobody plays)
    event = Event(
        "player_seated",
        {
            "player": command.player,
            "seat": command.seat,
            "stack": stack,
            "is_bot": command.is_bot,
        },
    )
    new = replace(state, seats=seats, destellos=destellos, bots=bots, waiting=waiting)
    return new, [event]


def _table_action(state: PokerTable, player: str, action: JSON) -> tuple[PokerTable, list[Event]]:
    """Table actions, also between hands: `sit_out`, `sit_in` (`"post": true` to post
    at once), `post_blind`, `top_up`."""
    if not any(p == player for _, p, _ in state.seats):
        raise Unknown(f"{player!r} is not seated")
    if player in state.leaving:
        raise RuleBroken(f"{player!r} has left the table")
    kind = action["action"]
    if kind == "top_up":
        return _top_up(state, player, action.get("amount"))
    if kind == "post_blind":
        return _post_blind(state, player)
    post = action.get("post", False)
    if not isinstance(post, bool):
        raise Malformed(f"post is true or false, got {post!r}")
    state, events = _sit(state, player, str(kind))
    if post and player in state.waiting:
        state, more = _post_blind(state, player)
        events = [*events, *more]
    return state, events


def _sit(state: PokerTable, player: str, kind: str) -> tuple[PokerTable, list[Event]]:
    """`sit_out` (from the next hand; this one plays on) and `sit_in` (at once, or after
    waiting for the big blind (or posting) when he missed his blinds)."""
    if kind == "sit_out":
        if player in state.sitting_out:
            raise RuleBroken("you are already sitting out")
        # Sitting out withdraws a choice to post: he chooses again when he comes back.
        new = replace(
            state,
            sitting_out=state.sitting_out | {player},
            posting=state.posting - {player},
        )
        return new, [Event("player_sitting_out", {"player": player})]
    if player not in state.sitting_out:
        raise RuleBroken("you are not sitting out")
    waiting = state.waiting | {player} if any(state.owed(player)) else state.waiting
    new = replace(state, sitting_out=state.sitting_out - {player}, waiting=waiting)
    live, dead = new.owed(player)
    event = Event(
        "player_sitting_in",
        {
            "player": player,
            "waits_for_big_blind": player in waiting,
            "owes_big_blind": live,
            "owes_dead_small_blind": dead,
        },
    )
    return new, [event]


def _post_blind(state: PokerTable, player: str) -> tuple[PokerTable, list[Event]]:
    """A waiting player chooses to post (OQ 22): dealt in on the next hand the rules
    allow, with his post (`PokerTable.entry_post`) instead of waiting for his big blind."""
    if player in state.sitting_out:
        raise RuleBroken("you are sitting out: sit in first")
    if player not in state.waiting:
        raise RuleBroken("you are not waiting for the big blind")
    if player in state.posting:
        raise RuleBroken("you already chose to post")
    live, dead = state.entry_post(player)
    new = replace(state, posting=state.posting | {player})
    return new, [Event("player_posting", {"player": player, "live": live, "dead": dead})]


def _top_up(state: PokerTable, player: str, raw: object) -> tuple[PokerTable, list[Event]]:
    """Chips added to a seat (§6, rule 50): at once when the player is not in the hand
    being played (a busted player too), else when it ends. The stack may reach at most
    `max_buy_in` (its stack at the start of the hand in play, plus what is pending); a
    busted player's top-up is a rebuy of at least `min_buy_in`."""
    if not isinstance(raw, int) or isinstance(raw, bool) or raw <= 0:
        raise Malformed(f"a top-up needs a positive integer amount, got {echo(raw)}")
    opts = state.options
    pending = dict(state.top_ups)
    stack = state.chips(player) + pending.get(player, 0)
    bounded(check_amount, stack + raw, "the stack after the top-up")
    least, most = state.top_up_range(player)
    if raw > most:  # past max_buy_in (MAX_AMOUNT was refused above)
        raise RuleBroken(
            f"a top-up may bring the stack to at most {opts.max_buy_in}: "
            + (f"at most {most} more" if most else "it is there already"),
        )
    if raw < least:
        raise RuleBroken(
            f"a busted player buys in again with at least {opts.min_buy_in}",
        )
    in_hand = state.running and state.hand is not None and player in state.hand.ids
    data: JSON = {"player": player, "amount": raw}
    if in_hand:
        pending[player] = pending.get(player, 0) + raw
        new = replace(state, top_ups=tuple(sorted(pending.items())))
        data["pending"] = pending[player]
    else:
        seats = tuple((n, p, st + raw if p == player else st) for n, p, st in state.seats)
        # A busted player whose blinds passed him waits for his big blind (or posts).
        waiting = state.waiting | {player} if any(state.owed(player)) else state.waiting
        new = replace(state, seats=seats, waiting=waiting)
        data["stack"] = new.chips(player)
    return new, [Event("player_topped_up", data)]


def unseat(state: PokerTable, player: str) -> tuple[PokerTable, list[Event]]:
    if not any(p == player for _, p, _ in state.seats):
        raise Unknown(f"{player!r} is not seated")
    if state.running and state.hand is not None and player in state.hand.ids:
        event = Event("player_leaving", {"player": player})
        return _after_action(replace(state, leaving=state.leaving | {player}), [event])
    stack = state.chips(player) + dict(state.top_ups).get(player, 0)
    return _remove(state, player), [Event("player_left", {"player": player, "stack": stack})]


def start_hand(state: PokerTable, seed: bytes, ranks: HandRanks) -> tuple[PokerTable, list[Event]]:
    """Move the button and deal the next hand from `seed`; `ranks` values its showdown."""
    if not can_start_hand(state):
        raise RuleBroken("a hand needs 2 seated players with chips")
    plan = state.deal_plan()
    dealt = plan.dealt
    numbers = [n for n, _, _ in dealt]
    button_seat = plan.button  # OQ 22: one seat clockwise
    dealt_ids = {p for _, p, _ in dealt}
    state = replace(
        state,
        waiting=state.waiting - dealt_ids,
        posting=state.posting - dealt_ids,
        missed=(state.missed - dealt_ids) | plan.missed,
        missed_big=(state.missed_big - dealt_ids) | plan.missed_big,
    )
    players = [(p, st) for _, p, st in dealt]
    ids = [p for p, _ in players]
    balances = dict(state.destellos)
    hand = deal_from_seed(
        state.options.config,
        players,
        numbers.index(button_seat),
        seed,
        [balances.get(p, 0) for p, _ in players]
        if state.options.config.variant == "naiko"
        else None,
        {ids.index(p): post for p, post in plan.posts.items()} or None,
        ranks=ranks,
        # the director's dead button rule, for the one hand a tournament hand's table deals
        # (were only two dealt in, say one sat out, rule 9 gives the button the small blind)
        dead_small_blind=(
            state.options.dead_small_blind and state.hand_number == 0 and len(dealt) > MIN_PLAYERS
        ),
    )
    number = state.hand_number + 1
    new = replace(
        state,
        hand=hand,
        button=button_seat,
        big_blind=numbers[hand.bb_seat],
        hand_number=number,
    )
    events = [
        Event(
            "hand_started",
            {
                "hand_number": number,
                "button": hand.ids[hand.button],
                "players": [{"player": p, "stack": st} for p, st in players],
                "small_blind": None if hand.dead_small_blind else hand.ids[hand.sb_seat],
                "big_blind": hand.ids[hand.bb_seat],
            },
        )
    ]
    if hand.posts:  # OQ 22: entry and missed-blind posts, public like the blinds
        events[0].data["posts"] = {
            p: {"live": live, "dead": dead}
            for p, (live, dead) in zip(hand.ids, hand.posts, strict=True)
            if live or dead
        }
    if hand.naiko is not None:
        events.append(Event("carousel", {"powers": sorted(hand.naiko.carousel)}))
    if hand.is_complete:  # everyone all-in from the blinds
        new, more = _settle(new)
        events += more
    return new, events


def _after_action(state: PokerTable, events: list[Event]) -> tuple[PokerTable, list[Event]]:
    """Play the turns of players who left during the hand (OQ 20: check when legal,
    else fold; no Seal), then settle the hand if it is over.

    The host stops timing a player once he is unseated, so his remaining turns in the
    hand are played here, at once and deterministically (a replay does the same).
    """
    while state.running and state.hand is not None:
        actor = state.hand.player_to_act
        if actor is None or actor not in state.leaving:
            break
        action = hand_rules.timeout_action(state.hand, actor)
        hand, raw = hand_rules.apply(state.hand, actor, action)
        state = replace(state, hand=hand)
        events = [*events, Event("played_for_leaving_player", {"player": actor, **action})]
        events += _events(raw)
    if state.hand is not None and state.hand.is_complete:
        more: list[Event]
        state, more = _settle(state)
        events = [*events, *more]
    return state, events


def _settle(state: PokerTable) -> tuple[PokerTable, list[Event]]:
    hand = state.hand
    assert hand is not None and hand.result is not None
    final = hand.result["stacks"]
    cap = state.options.max_buy_in
    pending = dict(state.top_ups)  # top-ups made during the hand land now, up to the cap
    returned_top_ups: list[Event] = []
    seats_after = []
    for n, p, st in state.seats:
        stack = final.get(p, st)
        added = pending.get(p, 0)
        if cap and added:
            kept = min(added, max(0, cap - stack))
            if kept < added:
                returned_top_ups.append(
                    Event("top_up_returned", {"player": p, "amount": added - kept})
                )
            added = kept
        seats_after.append((n, p, stack + added))
    seats = tuple(seats_after)
    destellos = state.destellos
    if hand.naiko is not None:
        after = dict(zip(hand.ids, hand.naiko.destellos, strict=True))
        destellos = tuple((p, after.get(p, d)) for p, d in state.destellos)
    new = replace(state, seats=seats, destellos=destellos, top_ups=())
    events = returned_top_ups
    for player in sorted(state.leaving):
        events.append(Event("player_left", {"player": player, "stack": new.chips(player)}))
        new = _remove(new, player)
    return replace(new, leaving=frozenset()), events


def _check_target(hand: HandState, action: JSON) -> None:
    """An Anchor aimed at nobody in this hand is `Unknown` (the hand's rules check the rest)."""
    if action.get("action") == "power" and action.get("power") == "anchor":
        target = action.get("target")
        if isinstance(target, str) and target and target not in hand.ids:
            raise Unknown(f"no player {echo(target)} in this hand to anchor")


def _remove(state: PokerTable, player: str) -> PokerTable:
    return replace(
        state,
        bots=state.bots - {player},
        waiting=state.waiting - {player},
        sitting_out=state.sitting_out - {player},
        missed=state.missed - {player},
        missed_big=state.missed_big - {player},
        posting=state.posting - {player},
        top_ups=tuple(t for t in state.top_ups if t[0] != player),
        seats=tuple(s for s in state.seats if s[1] != player),
        destellos=tuple(d for d in state.destellos if d[0] != player),  # OQ 5: reset on leaving
    )
