"""A batch's checks that need no ledger state: its shape, and whether a batch sent again is
the replay of the one stored (see `ledger.py` for the idempotency rules)."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.wallet.core.errors import IdempotencyConflict, InvalidRequest, TransferNotPending
from croupier.wallet.core.model import Transfer, check_amount, check_id, check_metadata
from croupier.wallet.service.operations import Apply, Operation, PostHold, Reverse, VoidHold
from croupier.wallet.service.ports import UnitOfWork

__all__ = ["MAX_BATCH", "check_batch", "refuse_posting_non_holds", "replayed_transfers"]

MAX_BATCH = 1000


def check_batch(operations: Sequence[Operation], batch_id: str) -> None:
    """A batch's shape, before any transaction: size, ids, each operation's fields."""
    if not operations:
        raise InvalidRequest("a batch needs at least one operation")
    if len(operations) > MAX_BATCH:
        raise InvalidRequest(f"a batch holds at most {MAX_BATCH} operations")
    if batch_id:
        check_id(batch_id, "batch_id")
    seen: set[str] = set()
    for op in operations:
        new_id = ""
        if isinstance(op, Apply):
            op.spec.validate()
            new_id = op.spec.transfer_id
        elif isinstance(op, Reverse):
            check_id(op.transfer_id, "transfer_id")
            check_id(op.original_id, "original transfer_id")
            check_metadata(op.metadata)
            new_id = op.transfer_id
        elif isinstance(op, PostHold | VoidHold):
            check_id(op.transfer_id, "transfer_id")
            if isinstance(op, PostHold) and op.amount is not None:
                check_amount(op.amount, "amount to post")
        if new_id:
            if new_id in seen:
                raise InvalidRequest(f"transfer id {new_id!r} appears twice in the batch")
            seen.add(new_id)


async def replayed_transfers(
    uow: UnitOfWork, operations: Sequence[Operation], existing: dict[str, Transfer]
) -> tuple[Transfer, ...]:
    """The stored transfers of a batch sent again (`existing`: those of its new ids found),
    in operation order; `IdempotencyConflict` if it is not exactly the stored batch."""
    clashes: list[str] = []
    missing: list[str] = []
    for op in operations:
        if isinstance(op, Apply):
            found = existing.get(op.spec.transfer_id)
            if found is None:
                missing.append(op.spec.transfer_id)
            elif not found.same_request_as(op.spec):
                fields = ", ".join(found.differences_from(op.spec))
                clashes.append(f"{op.spec.transfer_id!r} (differs in {fields})")
        elif isinstance(op, Reverse):
            found = existing.get(op.transfer_id)
            if found is None:
                missing.append(op.transfer_id)
            elif (
                found.reversal_of != op.original_id
                or found.kind != op.kind
                or dict(found.metadata) != dict(op.metadata)
            ):
                clashes.append(f"{op.transfer_id!r} (not this reversal of {op.original_id!r})")
    if clashes:
        raise IdempotencyConflict(
            "transfer id already used for a different transfer: "
            + "; ".join(clashes)
            + ". Choose a new id, or resend exactly the original request to get its result"
        )
    if missing:
        raise IdempotencyConflict(
            f"this batch overlaps an earlier, different batch: ids {sorted(existing)} exist "
            f"but {missing} do not. Nothing was applied"
        )
    resolved_ids = [op.transfer_id for op in operations if isinstance(op, PostHold | VoidHold)]
    resolved = await uow.ledger.get_transfers(resolved_ids) if resolved_ids else {}
    transfers: list[Transfer] = []
    for op in operations:
        if isinstance(op, Apply):
            transfers.append(existing[op.spec.transfer_id])
        elif isinstance(op, Reverse):
            transfers.append(existing[op.transfer_id])
        elif isinstance(op, PostHold | VoidHold):
            transfers.append(resolved[op.transfer_id])
    return tuple(transfers)


def refuse_posting_non_holds(
    operations: Sequence[Operation], transfers: Sequence[Transfer]
) -> None:
    """A posted transfer that was never a hold looks like a hold already posted in full,
    so posting it passed for a replay. Only a replay needs the check: a batch that applies
    anything is refused by `ledger_execute` for a target that is not pending, and a replay
    wrote nothing, so refusing it now leaves the ledger as it was."""
    targets = {op.transfer_id for op in operations if isinstance(op, PostHold)}
    for transfer in transfers:
        if transfer.transfer_id in targets and not transfer.is_hold:
            raise TransferNotPending(
                f"transfer {transfer.transfer_id!r} is not a hold: only holds (Hold, "
                "HoldStake) can be posted; reverse a posted transfer to undo it"
            )
