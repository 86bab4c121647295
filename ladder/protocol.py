"""The wire between the ladder and a sandboxed bot process: length-prefixed JSON frames.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8
JSON (one object). Both directions use the same framing; nothing else ever
crosses the channel (never pickle: the parent must be able to read whatever a
hostile bot sends without running any of it).

The parent reads a bot's replies defensively (:func:`decode_reply`): the
length is checked against a cap *before* the body is read, and a body that is
not strict JSON (NaN, Infinity, invalid UTF-8, trailing data), is nested too
deeply, or is not an object with an integer ``seq`` is garbage.

This module is imported inside the sandbox too, so it depends only on the
standard library.
"""

from __future__ import annotations

import json
import struct
from typing import Any

HEADER = struct.Struct(">I")
"""The frame header: the length of the body in bytes."""

MAX_DEPTH = 64
"""The deepest nesting of lists/objects accepted in a reply."""


class ProtocolError(ValueError):
    """A frame that breaks the protocol: too big, not JSON, badly shaped."""


def _reject_constant(name: str) -> Any:
    raise ProtocolError(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_constant=_reject_constant)
_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False)


def encode(message: dict[str, Any]) -> bytes:
    """One frame holding ``message`` (strict JSON: NaN and infinities are refused)."""
    body = _encoder.encode(message).encode("utf-8")
    return HEADER.pack(len(body)) + body


def frame_length(header: bytes, limit: int) -> int:
    """The body length announced by ``header``; :class:`ProtocolError` if it exceeds ``limit``."""
    (length,) = HEADER.unpack(header)
    if length > limit:
        raise ProtocolError(f"a frame of {length:,} bytes is over the limit of {limit:,} bytes")
    return length


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`ProtocolError` if ``value`` nests lists/objects deeper than ``limit``."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise ProtocolError(f"JSON nested more than {limit} levels deep")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def decode(body: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse one frame body strictly; :class:`ProtocolError` on anything but a JSON object with an int ``seq``."""
    try:
        text = body.decode("utf-8")
        value, end = _decoder.raw_decode(text)
    except ProtocolError:
        raise
    except RecursionError:
        raise ProtocolError("JSON nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError(f"not JSON ({error})") from None
    if text[end:].strip():
        raise ProtocolError("trailing data after the JSON value")
    if not isinstance(value, dict):
        raise ProtocolError(f"a frame must hold a JSON object, not {type(value).__name__}")
    seq = value.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise ProtocolError("a frame must carry an integer 'seq'")
    if len(body) > 2 * max_depth:  # a shorter text cannot nest that deep
        check_depth(value, max_depth)
    return value
