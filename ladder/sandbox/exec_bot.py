"""The ladder's side of an executable bot: a program in any language described by a ``bot.toml``.

The process is started exactly like a Python bot's (:class:`~ladder.sandbox.process.BotProcess`: the same
sandbox layers, limits, user, deadlines and kill), except that once the sandbox is set up its host
becomes the bot's program (``exec``), which then speaks JSON lines on stdin/stdout instead of the
host's frames:

- the ladder writes one JSON object per line: ``{"type": "start", "game", "seat", "num_players",
  "options", "seed"}``, then ``{"type": "act", "observation", "legal"}`` for every decision, and
  ``{"type": "end", "result"}``; the next match starts again with ``start``; every line also carries
  ``"clock": {"move_seconds", "bank_seconds"}``: the CPU seconds one answer may use, and what is left of
  the match's bank (extra CPU time for answers that run over);
- the program answers each ``act`` (and only ``act``) with one line: the index of its choice in
  ``legal`` (``3``), ``{"index": 3}``, ``{"action": {...}}``, or the action itself; strict JSON (an
  object with a key twice is garbage), and nothing more: a second line, or a line written when the
  ladder asked for none, is garbage too;
- the program is stopped (``SIGSTOP``) whenever another seat runs, like a Python bot; left running
  after answering an ``act`` until then, the CPU it uses meanwhile is charged to its next decision:
  it works only on its own clock.

The failure rules are a Python bot's: no answer in time (timeout), a line that is not one of those
(garbage), an action that is not legal (illegal), an exit (crash). What the bot says about itself
(name, games...) comes from its manifest, read by the ladder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from engine import same_json
from ladder.guest import protocol
from ladder.matches.match import BotFailure
from ladder.matches.statuses import FailureReason
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.process import BotProcess
from ladder.sandbox.submission import Manifest, Submission

RUNTIME_FOLDERS = ("/usr/bin", "/bin", "/usr/local/bin", "/usr/share", "/etc/alternatives")
"""What an executable bot sees of the host beyond the C library: the programs (an interpreter such as node) and
their data; read-only."""


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different (``{"index": 9, "index": 0}`` is garbage, not index 0)."""
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise ValueError(f"the key {key!r} appears twice in one object")
        value[key] = item
    return value


class ExecutableBotProcess(BotProcess):
    """A sandboxed process running a ``bot.toml`` program (see the module docstring)."""

    @property
    def manifest(self) -> Manifest:
        assert self.submission.manifest is not None
        return self.submission.manifest

    def program(self) -> list[str] | None:
        return list(self.manifest.command)

    def system_folders(self) -> tuple[str, ...]:
        return RUNTIME_FOLDERS

    def request(
        self,
        message: dict[str, Any],
        timeout: float,
        what: str,
        cpu_seconds: float | None = None,
        stay_running: bool = False,
    ) -> dict[str, Any]:
        """The same contract as a Python bot's process: a reply the players understand, or :class:`BotFailure`."""
        if self.dead or self.popen is None:
            raise BotFailure(FailureReason.CRASH, "the bot process is not running", self.stderr_tail())
        op = message["op"]
        deadline = self._begin_move(timeout, cpu_seconds)
        clock = {"clock": message["clock"]} if "clock" in message else {}
        if op == "hello":
            manifest = self.manifest
            return {
                "bot": {
                    "name": manifest.name,
                    "author": manifest.author,
                    "version": manifest.version,
                    "games": list(manifest.games),
                    "class": manifest.command[0],
                    "every_decision": manifest.every_decision,
                }
            }
        if op == "ping":
            return {"ok": True}
        if op == "start":
            self._tell({"type": "start", **message["match"], **clock}, deadline, what)
            return {"ok": True}
        if op == "end":
            self._tell({"type": "end", "result": message["result"], **clock}, deadline, what)
            return {"ok": True}
        if op == "act":
            legal = message["legal"]
            self._tell(
                {"type": "act", "observation": message["observation"], "legal": legal, **clock},
                deadline,
                what,
                stop_after=False,
            )
            line = self._read_line(deadline, what)
            self._after_reply(stay_running)
            if self.buffer.strip():
                self._die(
                    FailureReason.GARBAGE,
                    f"a line the ladder did not ask for: more than one line since it asked "
                    f"for one decision (while {what}): {bytes(self.buffer[:200])!r}",
                )
            return self._choice(line, legal)
        raise RuntimeError(f"an executable bot has no request {op!r}")

    def _tell(self, message: dict[str, Any], deadline: float, what: str, stop_after: bool = True) -> None:
        """Let the stopped program go, write it one line, and (for a line it does not answer) stop it again.

        Like a Python bot, the program is stopped (``SIGSTOP``) while the ladder does not wait for it: it reads a
        ``start`` or ``end`` line when it is next let go, for a decision, whose clocks then count its work. A line it
        wrote that the ladder did not ask for is a protocol error, never read as the next answer.
        """
        self._refuse_unasked(what)
        self.resume()
        self._write_line(message, deadline, what)
        if stop_after:
            self.pause()

    def _refuse_unasked(self, what: str) -> None:
        """Fail the bot if it wrote anything since its last answer (the ladder asked for nothing)."""
        buffer = self.buffer
        while len(buffer) <= self.limits.reply_bytes and self._poll_in.poll(0):
            try:
                chunk = os.read(self._in, 65536)
            except OSError:
                break
            if not chunk:
                break  # it closed its output: the next read says how it ended
            buffer += chunk
        if buffer.strip():
            self._die(
                FailureReason.GARBAGE, f"a line the ladder did not ask for (before {what}): {bytes(buffer[:200])!r}"
            )
        buffer.clear()

    def _write_line(self, message: dict[str, Any], deadline: float, what: str) -> None:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"
        self._send(memoryview(data), deadline, what)

    def _read_line(self, deadline: float, what: str) -> bytes:
        limit = self.limits.reply_bytes
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if line.strip():
                    return line
                continue
            if len(buffer) > limit:
                self._die(FailureReason.GARBAGE, f"a reply line longer than {limit:,} bytes (while {what})")
            buffer += self._next_chunk(deadline, what)

    def _choice(self, line: bytes, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """The reply line as ``{"index": i}``, ``{"illegal": ...}``, or a garbage failure."""
        try:
            value = json.loads(line.decode("utf-8"), parse_constant=_not_json, object_pairs_hook=_unique_keys)
            protocol.check_depth(value)
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            self._die(FailureReason.GARBAGE, f"a reply line that is not JSON ({error}): {line[:200]!r}")
        if isinstance(value, dict) and set(value) == {"index"}:
            value = value["index"]
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < len(legal):
                return {"index": value}
            return {"illegal": f"index {value} (there are {len(legal)} legal actions)"}
        if isinstance(value, dict):
            action = value["action"] if set(value) == {"action"} else value
            index = legal_index(action, legal)
            if index is not None:
                return {"index": index}
            return {"illegal": json.dumps(action)[:300]}
        self._die(FailureReason.GARBAGE, f"a reply that is neither an index nor an action: {line[:200]!r}")

    def close(self) -> None:
        """The program is not told anything more: its stdin closes when it is killed."""
        self.kill()


def legal_index(action: Any, legal: list[dict[str, Any]]) -> int | None:
    """Where ``action`` is in ``legal``, compared as JSON with its types (:func:`engine.same_json`: ``10.0`` is not
    ``10``, ``true`` is not ``1``, at any depth), as a Python bot's answer is; ``None`` if it is not legal."""
    for index, candidate in enumerate(legal):
        if candidate == action and same_json(candidate, action):
            return index
    return None


def make_bot_process(
    submission: Submission,
    limits: SandboxLimits,
    layers: Iterable[str],
    allow_root: bool = False,
    cpu: int | None = None,
) -> BotProcess:
    """The process for ``submission``: an executable bot's when it has a manifest, else a Python bot's."""
    kind = ExecutableBotProcess if submission.manifest is not None else BotProcess
    return kind(submission, limits, layers, allow_root=allow_root, cpu=cpu)
