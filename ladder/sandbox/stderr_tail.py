"""The end of a bot's stderr, drained in a thread so the bot can never block on it."""

from __future__ import annotations

import os
import select
import threading
import time


class StderrTail:
    """Drains a bot's stderr in a thread so it can never block, keeping only the end."""

    KEEP = 16384

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.total = 0  # bytes drained over the process's life: a mark for :meth:`since`
        self.lock = threading.Lock()
        self.closed = False  # the drain has ended and closed the fd (set under the lock)
        self.thread = threading.Thread(target=self._drain, name=f"bot-stderr-{fd}", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        """Wait for the pipe without the lock; read and keep under it, so that a chunk is never out of the pipe
        and not yet in :attr:`buffer` while :meth:`settle` looks (it did: a bot's last line before its failure
        went missing from the failure's stderr when this thread was descheduled between the two)."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        try:
            while True:
                poller.poll()
                with self.lock:
                    chunk = os.read(self.fd, 65536)  # readable (or closed): does not block
                    if not chunk:
                        break
                    self.buffer += chunk
                    self.total += len(chunk)
                    if len(self.buffer) > 2 * self.KEEP:
                        del self.buffer[: len(self.buffer) - self.KEEP]
        except OSError:
            pass
        finally:
            with self.lock:
                self.closed = True
                os.close(self.fd)

    def settle(self, timeout: float = 0.2) -> None:
        """Wait (briefly) until what is already in the pipe is drained.

        A bot's stderr arrives on its own pipe: what it wrote just before its
        reply may still be unread when the reply is, and it belongs with it.
        The pipe is looked at under the lock the drain reads under, so an empty
        pipe means everything written before is in the buffer.
        """
        deadline = time.monotonic() + timeout
        poller = select.poll()
        with self.lock:
            if self.closed:
                return
            poller.register(self.fd, select.POLLIN)
        while time.monotonic() < deadline:
            with self.lock:
                if self.closed:
                    return  # the bot closed its stderr: everything was drained (and the fd is not ours to poll)
                events = poller.poll(0)
            if not events or not events[0][1] & select.POLLIN:
                return
            time.sleep(0.002)

    def text(self, lines: int) -> str:
        """The last ``lines`` lines the bot wrote to stderr (what was drained so far)."""
        self.settle()
        with self.lock:
            data = bytes(self.buffer[-self.KEEP :])
        shown = data.decode("utf-8", errors="replace").splitlines()
        return "\n".join(shown[-lines:])

    def since(self, mark: int, lines: int | None = None) -> str:
        """What the bot wrote after :attr:`total` was ``mark`` (as much of it as is kept; its last ``lines`` lines
        if given)."""
        self.settle()
        with self.lock:
            data = (
                bytes(self.buffer[-min(self.total - mark, self.KEEP, len(self.buffer)) :]) if self.total > mark else b""
            )
        text = data.decode("utf-8", errors="replace")
        return text if lines is None else "\n".join(text.splitlines()[-lines:])

    def wait(self, timeout: float) -> None:
        self.thread.join(timeout)
