"""Shared by the hostile-input property tests (table host, wallet): values for a protobuf
field of each scalar type, and a message filled from the plain values generated."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

# Every value each integer type can carry on the wire.
_RANGES = {
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
}


def scalar(
    field: FieldDescriptor, ints: list[int], text: st.SearchStrategy[str]
) -> st.SearchStrategy[Any]:
    """Values for a scalar field: `text` for strings; for integers the `ints` its type can
    carry (and an enum's own values) or any value of its range."""
    if field.type == FieldDescriptor.TYPE_STRING:
        return text
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=16)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=True)
    low, high = _RANGES[field.type]
    plausible = [v for v in ints if low <= v <= high]
    if field.type == FieldDescriptor.TYPE_ENUM:
        plausible += [v.number for v in field.enum_type.values]
    return st.one_of(st.sampled_from(plausible), st.integers(low, high))


def fill(message: Message, values: dict[str, Any]) -> Message:
    """`message` with `values` set: nested dicts for message fields, lists for repeated
    ones, dicts for maps."""
    for name, value in values.items():
        field = message.DESCRIPTOR.fields_by_name[name]
        target = getattr(message, name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            target.update(value)
        elif field.is_repeated:
            for item in value:
                if field.message_type is not None:
                    fill(target.add(), item)
                else:
                    target.append(item)
        elif field.message_type is not None:
            target.SetInParent()
            fill(target, value)
        else:
            setattr(message, name, value)
    return message
