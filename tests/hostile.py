"""Shared by the hostile-input property tests (table host, wallet): a protobuf message
filled from the plain values hypothesis generated for its fields."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message


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
