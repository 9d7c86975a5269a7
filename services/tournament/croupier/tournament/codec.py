"""The only protobuf of the director: settings, seats and events to and from
`croupier.tournament.v1` messages, and the envelope of an event on
`croupier.tournament.events`. The gRPC entrypoint and the PostgreSQL adapter (which
stores settings and events in these encodings) share it."""

from __future__ import annotations

import uuid
from datetime import UTC

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.envelope import make_envelope
from croupier.tournament.core.coupon_prizes import CouponPrize
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.poker_codec import poker_terms_from_proto, poker_terms_to_proto
from croupier.tournament.service.events import (
    BreakStarted,
    Cancelled,
    Created,
    Disqualified,
    Event,
    Finished,
    HandForHand,
    LevelRaised,
    PlayerEliminated,
    PlayerRebought,
    Recorded,
    Registered,
    RoundEnded,
    RoundHosted,
    RoundStarted,
    SpinDrawn,
    Started,
    Unregistered,
    Voided,
)
from croupier.tournament.service.model import RebuyTerms, SeatAt, Settings, Status
from croupier.tournament.v1 import tournament_pb2 as pb

__all__ = [
    "EVENTS_TOPIC",
    "GAME_ENUMS",
    "STATUSES",
    "envelope",
    "event_from_proto",
    "event_to_proto",
    "money",
    "seat_to_proto",
    "settings_from_proto",
    "settings_to_proto",
]

EVENTS_TOPIC = "croupier.tournament.events"
_SOURCE = "tournament"
_ENVELOPES = uuid.UUID("0c6d1f0e-4b7a-4f57-8f2e-7e1a2b3c4d5e")

STATUSES: dict[Status, pb.TournamentStatus.ValueType] = {
    Status.REGISTERING: pb.TOURNAMENT_STATUS_REGISTERING,
    Status.RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    Status.FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
    Status.CANCELLED: pb.TOURNAMENT_STATUS_CANCELLED,
    Status.VOIDED: pb.TOURNAMENT_STATUS_VOIDED,
}
GAME_ENUMS: dict[str, common_pb2.Game.ValueType] = {
    "rummy": common_pb2.GAME_RUMMY,
    "poker": common_pb2.GAME_POKER,
}
_GAME_NAMES = {value: name for name, value in GAME_ENUMS.items()}


def money(amount: int, currency: str) -> common_pb2.Money:
    return common_pb2.Money(amount_minor=amount, currency=currency)


def _same_currency(value: common_pb2.Money, currency: str, what: str) -> int:
    if value.currency not in ("", currency):
        raise InvalidInput(
            "invalid_settings", f"{what} must be in the buy-in's currency {currency!r}"
        )
    return value.amount_minor


def settings_from_proto(message: pb.TournamentSettings) -> Settings:
    """The domain settings (their own `check` refuses bad values; this only reads)."""
    if message.game not in _GAME_NAMES:
        raise InvalidInput("invalid_settings", "game must be GAME_RUMMY or GAME_POKER")
    if not message.HasField("start_time"):
        raise InvalidInput("invalid_settings", "start_time must be set")
    currency = message.buy_in.currency
    rebuys = None
    if message.HasField("rebuys"):
        r = message.rebuys
        rebuys = RebuyTerms(
            max_per_player=r.max_per_player,
            max_level=r.max_level,
            price=_same_currency(r.price, currency, "the rebuy price"),
            fee=_same_currency(r.fee, currency, "the rebuy fee"),
            window_seconds=r.window_seconds,
        )
    return Settings(
        game=_GAME_NAMES[message.game],
        variant=message.variant,
        name=message.name,
        start_time=message.start_time.ToDatetime(tzinfo=UTC),
        min_players=message.min_players,
        max_players=message.max_players,
        currency=currency,
        buy_in=message.buy_in.amount_minor,
        fee=_same_currency(message.fee, currency, "the fee"),
        starting_chips=message.starting_chips,
        table_size=message.table_size,
        level_seconds=message.levels.level_seconds,
        levels=tuple(Level(level.round_fee, level.chip_ratio) for level in message.levels.levels),
        rebuys=rebuys,
        payouts=tuple(
            PayoutBracket(b.min_entrants, b.max_entrants, tuple(b.shares_bp))
            for b in message.payouts
        ),
        coupons_accepted=message.coupons_accepted,
        turn_seconds=message.turn_seconds,
        winner_risk_limit=message.winner_risk_limit
        if message.HasField("winner_risk_limit")
        else True,
        poker=poker_terms_from_proto(message.poker) if message.HasField("poker") else None,
        coupon_prizes=tuple(
            CouponPrize(prize.place, prize.value_minor, prize.valid_days)
            for prize in message.coupon_prizes
        ),
    )


def settings_to_proto(settings: Settings) -> pb.TournamentSettings:
    currency = settings.currency
    message = pb.TournamentSettings(
        game=GAME_ENUMS[settings.game],
        variant=settings.variant,
        name=settings.name,
        min_players=settings.min_players,
        max_players=settings.max_players,
        buy_in=money(settings.buy_in, currency),
        fee=money(settings.fee, currency),
        starting_chips=settings.starting_chips,
        table_size=settings.table_size,
        levels=pb.LevelSchedule(
            level_seconds=settings.level_seconds,
            levels=[
                pb.Level(round_fee=level.round_fee, chip_ratio=level.chip_ratio)
                for level in settings.levels
            ],
        ),
        payouts=[
            pb.PayoutBracket(
                min_entrants=b.min_entrants, max_entrants=b.max_entrants, shares_bp=b.shares_bp
            )
            for b in settings.payouts
        ],
        coupons_accepted=settings.coupons_accepted,
        turn_seconds=settings.turn_seconds,
        winner_risk_limit=settings.winner_risk_limit,
        coupon_prizes=[
            pb.CouponPrize(place=c.place, value_minor=c.value, valid_days=c.valid_days)
            for c in settings.coupon_prizes
        ],
    )
    message.start_time.FromDatetime(settings.start_time)
    if settings.poker is not None:
        message.poker.CopyFrom(poker_terms_to_proto(settings.poker))
    if settings.rebuys is not None:
        r = settings.rebuys
        message.rebuys.CopyFrom(
            pb.RebuyPolicy(
                max_per_player=r.max_per_player,
                max_level=r.max_level,
                price=money(r.price, currency),
                fee=money(r.fee, currency),
                window_seconds=r.window_seconds,
            )
        )
    return message


def seat_to_proto(seat: SeatAt) -> pb.Seat:
    return pb.Seat(table=seat.table, seat=seat.seat, player_id=seat.player)


def event_to_proto(recorded: Recorded) -> pb.TournamentEvent:
    message = pb.TournamentEvent(tournament_id=recorded.tournament_id, sequence=recorded.sequence)
    message.time.FromDatetime(recorded.at)
    match recorded.event:
        case Created(settings, seed_commitment):
            message.created.settings.CopyFrom(settings_to_proto(settings))
            message.created.seed_commitment = seed_commitment
        case SpinDrawn(multiplier, prizes, seed_commitment, seed):
            message.spin_drawn.CopyFrom(
                pb.SpinDrawn(
                    multiplier=multiplier,
                    prizes=prizes,
                    seed_commitment=seed_commitment,
                    revealed_seed=seed.hex(),
                )
            )
        case Registered(player, entry_id, bot):
            message.registered.CopyFrom(
                pb.PlayerRegistered(player_id=player, entry_id=entry_id, bot=bot)
            )
        case Unregistered(player):
            message.unregistered.CopyFrom(pb.PlayerUnregistered(player_id=player))
        case Started(seats, seed, chips):
            message.started.CopyFrom(
                pb.TournamentStarted(
                    seats=[seat_to_proto(seat) for seat in seats],
                    seating_seed=seed.hex(),
                    starting_chips=chips,
                )
            )
        case Cancelled(reason, refunded):
            message.cancelled.CopyFrom(
                pb.TournamentCancelled(reason=reason, refunded_player_ids=refunded)
            )
        case Voided(reason):
            message.voided.CopyFrom(pb.TournamentVoided(reason=reason))
        case Disqualified(player, reason):
            message.disqualified.CopyFrom(pb.PlayerDisqualified(player_id=player, reason=reason))
        case _:
            _round_event_to_proto(recorded.event, message)
    return message


def _round_event_to_proto(event: Event, message: pb.TournamentEvent) -> None:
    match event:
        case RoundStarted(round_id, players, fees, fee, ratio, final):
            message.round_started.CopyFrom(
                pb.RoundStarted(
                    round_id=round_id,
                    player_ids=players,
                    fees=fees,
                    round_fee=fee,
                    chip_ratio=ratio,
                    final_table=final,
                )
            )
        case RoundHosted(round_id, table_id):
            message.round_hosted.CopyFrom(pb.RoundHosted(round_id=round_id, table_id=table_id))
        case RoundEnded(round_id, winner, pot, payments, points):
            message.round_ended.CopyFrom(
                pb.RoundEnded(
                    round_id=round_id,
                    winner_player_id=winner,
                    pot=pot,
                    payments=dict(payments),
                    tournament_points=dict(points),
                )
            )
        case LevelRaised(level, bonus_to):
            message.level_raised.CopyFrom(pb.LevelRaised(level=level, bonus_player_ids=bonus_to))
        case PlayerEliminated(player, until):
            message.eliminated.player_id = player
            if until is not None:
                message.eliminated.rebuy_offer_until.FromDatetime(until)
        case PlayerRebought(player, rebuys):
            message.rebought.CopyFrom(pb.PlayerRebought(player_id=player, rebuys=rebuys))
        case HandForHand(on):
            message.hand_for_hand.on = on
        case BreakStarted(seconds):
            message.break_started.seconds = seconds
        case Finished(winner, prizes):
            message.finished.CopyFrom(
                pb.TournamentFinished(winner_player_id=winner, prizes=dict(prizes))
            )


def event_from_proto(message: pb.TournamentEvent) -> Recorded:
    kind = message.WhichOneof("kind")
    event: Event
    if kind == "created":
        event = Created(
            settings_from_proto(message.created.settings), message.created.seed_commitment
        )
    elif kind == "spin_drawn":
        drawn = message.spin_drawn
        event = SpinDrawn(
            drawn.multiplier,
            tuple(drawn.prizes),
            drawn.seed_commitment,
            bytes.fromhex(drawn.revealed_seed),
        )
    elif kind == "registered":
        registered = message.registered
        event = Registered(registered.player_id, registered.entry_id, registered.bot)
    elif kind == "unregistered":
        event = Unregistered(message.unregistered.player_id)
    elif kind == "started":
        s = message.started
        seats = tuple(SeatAt(seat.table, seat.seat, seat.player_id) for seat in s.seats)
        event = Started(seats, bytes.fromhex(s.seating_seed), s.starting_chips)
    elif kind == "cancelled":
        event = Cancelled(message.cancelled.reason, tuple(message.cancelled.refunded_player_ids))
    elif kind == "voided":
        event = Voided(message.voided.reason)
    elif kind == "disqualified":
        event = Disqualified(message.disqualified.player_id, message.disqualified.reason)
    else:
        event = _round_event_from_proto(message, kind)
    return Recorded(
        message.tournament_id, message.sequence, message.time.ToDatetime(tzinfo=UTC), event
    )


def _round_event_from_proto(message: pb.TournamentEvent, kind: str | None) -> Event:
    if kind == "round_started":
        r = message.round_started
        return RoundStarted(
            r.round_id,
            tuple(r.player_ids),
            tuple(r.fees),
            r.round_fee,
            r.chip_ratio,
            r.final_table,
        )
    if kind == "round_hosted":
        return RoundHosted(message.round_hosted.round_id, message.round_hosted.table_id)
    if kind == "round_ended":
        e = message.round_ended
        return RoundEnded(
            e.round_id,
            e.winner_player_id,
            e.pot,
            tuple(sorted(e.payments.items())),
            tuple(sorted(e.tournament_points.items())),
        )
    if kind == "level_raised":
        raised = message.level_raised
        return LevelRaised(raised.level, tuple(raised.bonus_player_ids))
    if kind == "eliminated":
        out = message.eliminated
        until = (
            out.rebuy_offer_until.ToDatetime(tzinfo=UTC)
            if out.HasField("rebuy_offer_until")
            else None
        )
        return PlayerEliminated(out.player_id, until)
    if kind == "rebought":
        return PlayerRebought(message.rebought.player_id, message.rebought.rebuys)
    if kind == "hand_for_hand":
        return HandForHand(message.hand_for_hand.on)
    if kind == "break_started":
        return BreakStarted(message.break_started.seconds)
    if kind == "finished":
        finished = message.finished
        return Finished(finished.winner_player_id, tuple(sorted(finished.prizes.items())))
    raise ValueError(f"a stored tournament event of no known kind: {kind!r}")


def envelope(recorded: Recorded) -> Envelope:
    """The event on `croupier.tournament.events`: subject the tournament, its sequence the
    event's; the id derives from both, so a re-sent event deduplicates."""
    message = event_to_proto(recorded)
    return make_envelope(
        type=f"tournament.{message.WhichOneof('kind')}",
        source=_SOURCE,
        subject=recorded.tournament_id,
        sequence=recorded.sequence,
        payload=message,
        envelope_id=str(uuid.uuid5(_ENVELOPES, f"{recorded.tournament_id}:{recorded.sequence}")),
        now=recorded.at,
    )
