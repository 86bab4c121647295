"""The program that runs inside a bot's sandbox: it loads the bot and answers the ladder.

What it does, in order, and its replies: ``docs/sandbox.md`` (The bot host). It uses only the standard library,
:mod:`bots.base`, :mod:`ladder.guest.protocol`, :mod:`ladder.guest.rlimits` and :mod:`ladder.guest.seccomp` (and orjson, when the ladder hands
over its copy): this file runs where nothing else is installed.
"""

from __future__ import annotations

import os
import sys

# --- 1. the channel first, before anything can print -----------------------------------
_IN = os.dup(0)
_OUT = os.dup(1)
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)

import ctypes  # noqa: E402
import faulthandler  # noqa: E402
import importlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import traceback  # noqa: E402
from typing import Any  # noqa: E402

PR_SET_PDEATHSIG = 1
MAX_REQUEST_BYTES = 1 << 30
MAX_TEXT = 4000
TRACEBACK_FRAMES = 12


def _write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(_OUT, view)
        view = view[written:]


_pending = bytearray()


def _read_frame(limit: int, frame_length: Any, size: int) -> bytes | None:
    """The next request's body (reading as much as the pipe holds, usually one call); None at EOF.

    ``frame_length`` and ``size`` are :func:`ladder.guest.protocol.frame_length` and
    the header's size (passed in: this module is loaded before the path to
    :mod:`ladder` is known).
    """
    while True:
        if len(_pending) >= size:
            length = frame_length(bytes(_pending[:size]), limit)
            end = size + length
            if len(_pending) >= end:
                body = bytes(_pending[size:end])
                del _pending[:end]
                return body
        chunk = os.read(_IN, 1 << 16)
        if not chunk:
            return None
        if not _pending and len(chunk) >= size and len(chunk) == size + frame_length(chunk[:size], limit):
            return chunk[size:]  # the usual case: one read brought exactly one frame
        _pending.extend(chunk)


def _load_orjson(path: str | None) -> None:
    """Make the ladder's orjson (one extension file, read-only) importable, if it loads here.

    It is the ladder's own copy, loaded before the bot's code and used to read
    the ladder's (trusted) requests. A bot could import it too: that gives it
    nothing it could not do with the standard library. Without it, requests
    are read with the standard library's :mod:`json`.
    """
    if not path:
        return
    try:
        spec = importlib.util.spec_from_file_location("orjson", path)
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.loads(b'{"seq":1}')
    except Exception:  # noqa: BLE001 - unreadable or incompatible: the standard library will do
        return
    sys.modules["orjson"] = module


def _die_with_parent(parent_pid: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent_pid and os.getppid() != parent_pid:
        os._exit(0)  # the parent died before the request was made


def _drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError(f"could not become uid {uid}")


def _error(error: BaseException, skip_frames: int = 1) -> dict[str, str]:
    """The report of an exception of the bot's: its type, message and the end of its traceback."""
    tb = error.__traceback__
    for _ in range(skip_frames):
        if tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
    error.__traceback__ = None  # let the frames go (after a MemoryError there is little room left)
    try:
        text = "".join(traceback.format_exception(type(error), error, tb, limit=-TRACEBACK_FRAMES))
    except MemoryError:
        text = ""
    del tb
    try:
        message = str(error)[:MAX_TEXT]
    except Exception:  # noqa: BLE001 - a bot's exception whose __str__ raises
        message = "<unprintable message>"
    return {"type": type(error).__name__, "message": message, "traceback": text[-MAX_TEXT:]}


def _load_module(config: dict[str, Any]) -> Any:
    """Import the bot's entry module (a file in the bot's folder, or an installed module)."""
    if config.get("module"):
        return importlib.import_module(config["module"])
    path = os.path.join(config["bot_dir"], config["entry"])
    name = os.path.splitext(config["entry"])[0].replace("/", ".")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {config['entry']}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _find_bot_class(module: Any, attribute: str | None, base: type) -> type:
    """The bot class: ``attribute`` when given, else ``BOT``, else the one Bot subclass defined in the module."""
    if attribute:
        value = module
        for part in attribute.split("."):
            value = getattr(value, part)
        candidates = [value]
    elif hasattr(module, "BOT"):
        candidates = [module.BOT]
    else:
        candidates = [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, base)
            and value is not base
            and value.__module__ == module.__name__
        ]
        if not candidates:
            raise TypeError(f"{module.__name__} defines no subclass of ladder.bot.Bot")
        if len(candidates) > 1:
            names = ", ".join(sorted(c.__name__ for c in candidates))
            raise TypeError(f"{module.__name__} defines several Bot subclasses ({names}); set BOT = TheOneToPlay")
    cls = candidates[0]
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{cls!r} is not a subclass of ladder.bot.Bot")
    return cls


def _host_frames(error: BaseException, config: dict[str, Any]) -> int:
    """How many frames at the top of a loading error's traceback are the host's and the import system's.

    The bot's author wants to see their own code: the traceback starts at the
    first frame in the bot's files (all of it is shown if there is none).
    """
    roots = (config["bot_dir"],) if config.get("bot_dir") else ()
    skipped, tb = 0, error.__traceback__
    while tb is not None:
        if roots and tb.tb_frame.f_code.co_filename.startswith(roots):
            return skipped
        skipped += 1
        tb = tb.tb_next
    return 0


def _text(value: Any, what: str) -> str:
    """A description field as text; ValueError (a load error the author sees) if it is not valid Unicode."""
    text = str(value)[:200]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(
            f"the bot's {what} is not valid Unicode text (it holds a lone surrogate such as '\\ud800'); use plain text"
        ) from None
    return text


def _describe(cls: Any) -> dict[str, Any]:
    """The bot class's declared facts as plain text (each checked: the class is the bot author's)."""
    games = cls.games
    if isinstance(games, str):
        games = (games,)
    return {
        "name": _text(cls.name, "name"),
        "author": _text(cls.author, "author"),
        "version": _text(cls.version, "version"),
        "games": [_text(g, "games") for g in list(games)[:100]],
        "class": _text(cls.__qualname__, "class name"),
        "every_decision": getattr(cls, "every_decision", False) is True,  # asked even with one legal action
    }


def main() -> None:
    config = json.loads(sys.argv[1])
    _die_with_parent(int(config.get("parent_pid", 0)))
    faulthandler.enable(file=sys.stderr, all_threads=True)
    # a bot that stops answering is sent SIGUSR1 before the kill: its stack shows the author the loop it was in
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    sys.path[:0] = [config["api_dir"]] + ([config["bot_dir"]] if config.get("bot_dir") else [])
    sys.path.extend(config.get("package_dirs") or [])  # the packages the operator allows, after the bot's own files
    _load_orjson(config.get("orjson"))

    from bots.base import Bot, Clock, MatchStart
    from ladder.guest import protocol
    from ladder.guest.rlimits import ProcessLimits, set_limits

    if config.get("cpu") is not None:
        try:
            os.sched_setaffinity(0, {int(config["cpu"])})
        except OSError:
            pass
    set_limits(ProcessLimits.from_json(config["limits"]))
    if config.get("drop_to") is not None and os.getuid() == 0:
        uid, gid = config["drop_to"]
        _drop_privileges(uid, gid)
        # A change of user clears the parent-death signal: ask again (a stopped bot never sees its channel close).
        _die_with_parent(int(config.get("parent_pid", 0)))
    if config.get("seccomp"):
        from ladder.guest import seccomp

        seccomp.install(allow_exec=bool(config.get("exec")))
    if config.get("exec"):
        _become_program(config)

    load_error: dict[str, str] | None = None
    cls: type | None = None
    try:
        module = _load_module(config)
        cls = _find_bot_class(module, config.get("attribute"), Bot)
        cls()  # the constructor must work before any match
        _describe(cls)  # and the description must make sense
    except BaseException as error:  # noqa: BLE001 - a bot's import may raise anything, SystemExit included
        load_error = _error(error, _host_frames(error, config))

    host = _Host(cls, load_error, MatchStart, Clock)
    _serve(host, protocol)


def _become_program(config: dict[str, Any]) -> None:
    """An executable bot (``bot.toml``): replace this host with the bot's program, the channel on its stdin/stdout.

    The limits, the user and the filter set above stay with the process. The program speaks JSON lines
    (see docs/writing-a-bot.md), not this host's frames; the ladder's side of it is :mod:`ladder.sandbox.exec_bot`.
    """
    command = list(config["exec"])
    bot_dir = config["bot_dir"]
    if command[0].startswith("./"):
        command[0] = os.path.join(bot_dir, command[0][2:])
    os.dup2(_IN, 0)
    os.dup2(_OUT, 1)
    os.close(_IN)
    os.close(_OUT)
    os.chdir(bot_dir)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"ladder: cannot run {command[0]!r}: {error.strerror or error}", file=sys.stderr, flush=True)
        os._exit(127)


def _next_frame(chunk: bytes, frame_length: Any, header: int) -> bytes:
    """The next request's body when ``chunk`` (what was just read, or nothing while requests wait in
    :data:`_pending`) is not exactly one frame; leaves the host when the ladder has closed the channel."""
    _pending.extend(chunk)
    if not chunk and not _pending:
        os._exit(0)
    body = _read_frame(MAX_REQUEST_BYTES, frame_length, header)
    if body is None:
        os._exit(0)
    return body


def _answer(host: _Host, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to any request but a decision the bot answered with an index (``bye`` leaves the host)."""
    if request["op"] == "bye":
        os._exit(0)
    try:
        return host.handle(request)
    except Exception as error:  # noqa: BLE001 - the bot broke something the host relies on: report it
        return {"error": _error(error, 0)}


def _serve(host: _Host, protocol: Any) -> None:
    """Answer requests until the ladder says ``bye`` or closes the channel."""
    frame_length, decode_request = protocol.frame_length, protocol.decode_request
    pack, header, encode, write, out = protocol.HEADER.pack, protocol.HEADER.size, protocol.encode, _write, _OUT
    unpack_from, read, source, pending = protocol.HEADER.unpack_from, os.read, _IN, _pending
    loads = protocol._loads if protocol.orjson is not None else json.loads
    mark = protocol.STANDARD_MARK
    while True:
        # the usual case inline (a few calls fewer per decision): one read brought exactly one whole frame
        chunk = b"" if pending else read(source, 1 << 16)
        size = len(chunk) - header
        if 0 <= size <= MAX_REQUEST_BYTES and unpack_from(chunk)[0] == size:
            body = chunk[header:]
        else:
            body = _next_frame(chunk, frame_length, header)
        request = loads(body) if body[:1] != mark else decode_request(body)
        op = request["op"]
        if op == "act" and host.bot is not None:  # the hot path: one decision
            clock = request.get("clock")
            if clock != host.clock_seen:  # the first decision of a match, or the bank changed
                host.set_clock(clock)
            try:
                reply = host.act(request["observation"], request["legal"])
            except Exception as error:  # noqa: BLE001 - the bot broke something the host relies on: report it
                reply = {"error": _error(error, 0)}
            if isinstance(reply, int):
                answer = b'{"index":%d,"seq":%d}' % (reply, request["seq"])
                frame = pack(len(answer)) + answer
                written = os.write(out, frame)
                if written < len(frame):  # a pipe takes a frame this small whole; never reached, but exact
                    write(frame[written:])
                continue
        else:
            reply = _answer(host, request)
        reply["seq"] = request["seq"]
        write(encode(reply))


class _Host:
    """Answers the ladder's requests with the bot class ``cls`` (a fresh bot object for every match)."""

    def __init__(
        self, cls: type | None, load_error: dict[str, str] | None, match_start: type, clock_type: type
    ) -> None:
        self.cls = cls
        self.load_error = load_error
        self.match_start = match_start
        self.clock_type = clock_type
        self.clock_seen: Any = None  # the last ``clock`` of a request, as it came
        self.bot: Any = None

    def set_clock(self, clock: Any) -> None:
        """Tell the bot its clock (``Bot.clock``): the CPU seconds per move and what is left of its bank."""
        self.clock_seen = clock
        if self.bot is None or not isinstance(clock, dict):
            return
        try:
            self.bot.clock = self.clock_type(float(clock["move_seconds"]), float(clock["bank_seconds"]))
        except Exception:  # noqa: BLE001 - a bot whose attribute cannot be set goes without
            pass

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "hello":
            return {"error": self.load_error} if self.load_error else {"bot": _describe(self.cls)}
        if self.load_error is not None:
            return {"error": self.load_error}
        if op == "ping":
            return {"ok": True}
        if op == "start":
            try:
                self.bot = self.cls()  # type: ignore[misc]
                self.set_clock(request.get("clock"))
                match = request["match"]
                self.bot.start(
                    self.match_start(
                        match["game"], match["seat"], match["num_players"], match["options"], match["seed"]
                    )
                )
            except Exception as error:  # noqa: BLE001 - every exception of the bot's is reported
                return {"error": _error(error)}
            return {"ok": True}
        if "clock" in request and request["clock"] != self.clock_seen:
            self.set_clock(request["clock"])
        if op == "act":
            reply = self.act(request["observation"], request["legal"])
            return {"index": reply} if isinstance(reply, int) else reply
        if op == "end":
            try:
                self.bot.end(request["result"])
            except Exception as error:  # noqa: BLE001
                return {"error": _error(error)}
            return {"ok": True}
        return {"error": {"type": "ProtocolError", "message": f"unknown request {op!r}", "traceback": ""}}

    def act(self, observation: dict[str, Any], legal: list[dict[str, Any]]) -> int | dict[str, Any]:
        """The position of the bot's answer in ``legal``, or the reply saying what went wrong."""
        try:
            action = self.bot.act(observation, legal)
        except Exception as error:  # noqa: BLE001
            return {"error": _error(error)}
        for index, candidate in enumerate(legal):
            if candidate is action:
                return index
        try:
            # compared as canonical JSON, types included: 2.0 is not 2 and true is not 1
            wanted = json.dumps(action, sort_keys=True, allow_nan=False)
            for index, candidate in enumerate(legal):
                if candidate == action and json.dumps(candidate, sort_keys=True) == wanted:
                    return index
        except Exception:  # noqa: BLE001 - not JSON, or an object whose == raises
            pass
        try:
            shown = repr(action)
        except Exception:  # noqa: BLE001
            shown = f"<unprintable {type(action).__name__}>"
        return {"illegal": shown[:300]}


if __name__ == "__main__":
    main()
