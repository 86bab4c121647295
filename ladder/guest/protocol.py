"""The wire between the ladder and a sandboxed bot process: length-prefixed JSON frames.

The frames, their limits and why: ``docs/sandbox.md`` (The protocol).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterable
from typing import Any

try:
    import orjson
except ImportError:  # optional: everything works without it, only slower
    orjson = None  # type: ignore[assignment]

HEADER = struct.Struct(">I")
"""The frame header: the length of the body in bytes."""

MAX_DEPTH = 64
"""The deepest nesting of lists/objects accepted in a reply."""

STANDARD_MARK = b" "
"""The first byte of a request body written by the standard library (JSON whitespace, so still plain JSON)."""


class ProtocolError(ValueError):
    """A frame that breaks the protocol: too big, not JSON, badly shaped."""


def _reject_constant(name: str) -> Any:
    raise ProtocolError(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_constant=_reject_constant)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate: the only way a lone surrogate gets into a parsed string (raw UTF-8 refuses them)."""
_ACT_REPLY = re.compile(rb'\{"index":(0|[1-9][0-9]{0,17}),"seq":([1-9][0-9]{0,17})\}')
"""The usual reply exactly as the host writes it; a text it matches is strict JSON with nothing more to check."""
_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False)
_pack = HEADER.pack

if orjson is not None:
    _dumps = orjson.dumps
    _loads = orjson.loads
    # Subclasses, dataclasses and datetimes go to the standard library (which writes or refuses them as before).
    _ORJSON_OPTIONS = (
        orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
    )


def encode(message: dict[str, Any]) -> bytes:
    """One frame holding ``message`` (strict JSON: NaN and infinities are refused)."""
    body = _encoder.encode(message).encode("utf-8")
    return _pack(len(body)) + body


def encode_request(message: dict[str, Any]) -> bytes:
    """One frame holding the ladder's request ``message``, as fast as possible.

    The frame reads back (with :func:`decode_request`) as ``message`` (tuples
    as lists), whichever encoder wrote it; with orjson a non-finite float reads
    back as ``None`` (see the module's docstring).
    """
    if orjson is not None:
        try:
            body = _dumps(message, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: a value orjson does not write as the standard library would
            pass
        else:
            return _pack(len(body)) + body
    body = STANDARD_MARK + _encoder.encode(message).encode("utf-8")
    return _pack(len(body)) + body


def decode_request(body: bytes) -> Any:
    """The ladder's request in ``body`` (a trusted frame: no checks beyond the JSON parser's)."""
    if orjson is not None and body[:1] != STANDARD_MARK:
        return _loads(body)
    return json.loads(body)


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
        children: Iterable[Any]
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
    usual = _ACT_REPLY.fullmatch(body)
    if usual is not None:  # a decision's reply as the host writes it: the parser below would read the same
        return {"index": int(usual[1]), "seq": int(usual[2])}
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
    if _SURROGATE_ESCAPE.search(body):  # rare: a pair is fine (an emoji), a lone half is not
        check_unicode(value)
    return value


def check_unicode(value: Any) -> None:
    """Raise :class:`ProtocolError` if any string (key or value) in ``value`` holds a lone surrogate."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, f"a key in {where or 'the reply'}")
                stack.append((child, f"{where}.{key}" if where else key))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))
        elif isinstance(item, str):
            _check_text(item, where or "the reply")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = text[error.start]
        raise ProtocolError(
            f"the text at {where[:80]} is not valid Unicode (a lone surrogate, \\u{ord(bad):04x})"
        ) from None
