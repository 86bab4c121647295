"""The frames between the ladder and a bot process: strict JSON, capped, numbered."""

from __future__ import annotations

import json

import pytest

from ladder import protocol


def body(frame: bytes) -> bytes:
    length = protocol.frame_length(frame[:4], 1 << 20)
    assert length == len(frame) - 4
    return frame[4:]


def test_a_frame_is_a_big_endian_length_and_utf8_json() -> None:
    frame = protocol.encode({"seq": 3, "op": "act", "text": "thé"})
    assert frame[:4] == len(frame[4:]).to_bytes(4, "big")
    assert json.loads(frame[4:].decode("utf-8")) == {"seq": 3, "op": "act", "text": "thé"}
    assert protocol.decode(body(frame)) == {"seq": 3, "op": "act", "text": "thé"}


def test_the_length_is_checked_before_the_body_is_read() -> None:
    header = (50 * 1024 * 1024).to_bytes(4, "big")
    with pytest.raises(protocol.ProtocolError, match="over the limit"):
        protocol.frame_length(header, 1 << 20)


def test_nan_and_infinity_are_refused_both_ways() -> None:
    with pytest.raises(ValueError):
        protocol.encode({"seq": 1, "x": float("nan")})
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(protocol.ProtocolError, match="not JSON"):
            protocol.decode(b'{"seq": 1, "index": ' + constant + b"}")


@pytest.mark.parametrize("depth", [protocol.MAX_DEPTH + 1, 100_000])
def test_deep_nesting_is_refused(depth: int) -> None:
    text = b'{"seq": 1, "index": ' + b"[" * depth + b"]" * depth + b"}"
    with pytest.raises(protocol.ProtocolError, match="nested"):
        protocol.decode(text)


def test_nesting_within_the_limit_is_accepted() -> None:
    depth = protocol.MAX_DEPTH - 1
    text = b'{"seq": 1, "x": ' + b"[" * depth + b"]" * depth + b"}"
    assert protocol.decode(text)["seq"] == 1


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"\xff\xfe garbage", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"index": 1}', "integer 'seq'"),
        (b'{"seq": true}', "integer 'seq'"),
        (b'{"seq": "1"}', "integer 'seq'"),
        (b'{"seq": 1} {"seq": 2}', "trailing"),
        (b"", "not JSON"),
    ],
)
def test_anything_but_a_numbered_object_is_garbage(raw: bytes, words: str) -> None:
    with pytest.raises(protocol.ProtocolError, match=words):
        protocol.decode(raw)
