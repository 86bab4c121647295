"""The frames between the ladder and a bot process: strict JSON, capped, numbered."""

from __future__ import annotations

import json

import pytest

from ladder.guest import protocol


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


def test_the_usual_reply_is_read_as_the_full_parser_reads_it() -> None:
    """The host writes a decision's reply as {"index":i,"seq":s}; that exact form is read without the general parser."""
    for raw, expected in [
        (b'{"index":0,"seq":1}', {"index": 0, "seq": 1}),
        (b'{"index":17,"seq":123456789}', {"index": 17, "seq": 123456789}),
        (b'{"index":-1,"seq":2}', {"index": -1, "seq": 2}),  # not the usual form: the general parser reads it
        (b'{"index":1,"seq":2,"index":3}', {"index": 3, "seq": 2}),
        (b'{"index": 1, "seq": 2}', {"index": 1, "seq": 2}),
        (b'{"index":123456789012345678901234567890,"seq":2}', {"index": 123456789012345678901234567890, "seq": 2}),
    ]:
        assert protocol.decode(raw) == expected == json.loads(raw)
    for raw, words in [
        (b'{"index":01,"seq":1}', "not JSON"),  # a leading zero is not JSON
        (b'{"index":1,"seq":01}', "not JSON"),
        (b'{"index":1,"seq":2}x', "trailing"),
        (b'{"index":1,"seq":2.0}', "integer 'seq'"),
        (b'{"index":NaN,"seq":2}', "NaN is not JSON"),
    ]:
        with pytest.raises(protocol.ProtocolError, match=words):
            protocol.decode(raw)


ENCODERS = ["orjson", "standard"] if protocol.orjson is not None else ["standard"]


@pytest.mark.parametrize("reader", ENCODERS)
@pytest.mark.parametrize("writer", ENCODERS)
def test_a_request_reads_back_as_sent_whoever_writes_and_reads_it(
    writer: str, reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ladder and the bot's host may differ (orjson on one side only): a request still arrives exactly."""
    fast = protocol.orjson
    messages = [
        {
            "seq": 4,
            "op": "act",
            "observation": {
                "hand": [("red", 3), ("green", 20)],
                "note": "thé ☕",
                "none": None,
                "ratio": 0.1,
                "big": 2**64 - 1,
                "small": -(2**63),
                "flag": False,
            },
            "legal": [{"type": "play", "card": ["red", 3]}, {"type": "pass"}],
        },
        {"seq": 5, "op": "start", "match": {"game": "g", "seed": 2**70, "options": {"deck": 52}}},  # beyond 64 bits
        {
            "seq": 6,
            "op": "end",
            "result": {"scores": [1.5, -2.0, 1e300], "keys": {1: "one"}},
        },  # a key that is not a string
    ]
    for message in messages:
        monkeypatch.setattr(protocol, "orjson", fast if writer == "orjson" else None)
        frame = protocol.encode_request(message)
        monkeypatch.setattr(protocol, "orjson", fast if reader == "orjson" else None)
        expected = repr(json.loads(json.dumps(message)))  # repr: an int read as a float is not the same
        assert repr(protocol.decode_request(body(frame))) == expected
        assert repr(json.loads(body(frame))) == expected  # plain JSON for any reader


@pytest.mark.skipif(protocol.orjson is None, reason="orjson is not installed")
def test_a_request_that_orjson_cannot_write_exactly_is_written_by_the_standard_library() -> None:
    assert body(protocol.encode_request({"seq": 1, "seed": 2**64 - 1}))[:1] == b"{"
    for message in (
        {"seq": 1, "seed": 2**64},
        {"seq": 1, "keys": {1: 2}},
        {"seq": 1, "flag": type("Sub", (int,), {})(3)},
    ):
        text = body(protocol.encode_request(message))
        assert text[:1] == protocol.STANDARD_MARK
        assert json.loads(text) == json.loads(json.dumps(message))
    with pytest.raises(TypeError):
        protocol.encode_request({"seq": 1, "x": object()})


def test_a_request_never_carries_nan_or_infinity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests are strict JSON: the standard library refuses a non-finite float; orjson writes it as null."""
    message = {
        "seq": 1,
        "op": "act",
        "observation": {"x": float("nan"), "y": [float("inf"), -float("inf")]},
        "legal": [],
    }
    if protocol.orjson is not None:
        text = body(protocol.encode_request(message))
        assert json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} on the wire")) == {
            "seq": 1,
            "op": "act",
            "observation": {"x": None, "y": [None, None]},
            "legal": [],
        }
    monkeypatch.setattr(protocol, "orjson", None)
    with pytest.raises(ValueError):
        protocol.encode_request(message)


@pytest.mark.parametrize(
    "raw, where",
    [
        (rb'{"seq":1,"bot":{"author":"mallory \ud800"}}', "bot.author"),
        (rb'{"seq":1,"error":{"message":"a \udfff b"}}', "error.message"),
        (rb'{"seq":1,"illegal":["x","\uDBFF"]}', "illegal[1]"),
        (rb'{"seq":1,"\ud800":0}', "a key"),
        (rb'{"seq":1,"x":"\ude00\ud83d"}', "x"),  # a pair in the wrong order is two lone halves
    ],
)
def test_a_lone_surrogate_anywhere_in_a_reply_is_garbage(raw: bytes, where: str) -> None:
    """JSON's parser accepts "\\ud800"; no database, log or terminal can take it: refused, saying where."""
    with pytest.raises(protocol.ProtocolError, match="not valid Unicode") as refused:
        protocol.decode(raw)
    assert where in str(refused.value)


def test_valid_text_and_escaped_backslashes_are_accepted() -> None:
    assert protocol.decode(rb'{"seq":1,"x":"tea \ud83c\udf75 and \u00e9"}')["x"] == "tea \U0001f375 and \u00e9"
    assert protocol.decode(rb'{"seq":1,"x":"\\ud800"}')["x"] == "\\ud800"  # a backslash, then text: no surrogate
