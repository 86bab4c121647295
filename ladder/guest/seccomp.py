"""A seccomp filter for bot processes, written as classic BPF with ctypes.

Installed by the bot host inside the sandbox after its own set-up and before
the bot's code is loaded. It needs no library: the filter is a short list of
BPF instructions loaded with ``prctl(PR_SET_SECCOMP)``. What it refuses (the
call fails with ``EPERM``, so the bot sees a plain ``PermissionError``):

- new processes and programs: ``fork``, ``vfork``, ``clone`` without
  ``CLONE_THREAD`` (threads stay allowed), ``execve``, ``execveat``
  (``clone3`` answers ``ENOSYS`` so the C library falls back to ``clone``,
  whose flags a filter can see);
- sockets of any kind: ``socket``, ``socketpair`` and the calls that use one
  (the channel to the ladder is a pair of pipes opened before the filter);
- signals to any process but itself, ``ptrace`` and other processes' memory;
- stop signals (``SIGSTOP``, ``SIGTSTP``, ``SIGTTIN``, ``SIGTTOU``) even to
  itself: a bot seen stopped was then stopped by someone else, which the
  ladder may trust as a host fault (``docs/clocks.md``); so also the ways to
  have the kernel send a signal of its choosing: POSIX timers
  (``timer_create``), and a file's signal owner or signal (``fcntl``
  ``F_SETOWN``, ``F_SETOWN_EX``, ``F_SETSIG``; ``ioctl`` ``FIOSETOWN``,
  ``SIOCSPGRP``);
- moving itself to other CPUs (``sched_setaffinity``): the ladder pins a
  match's bots to its worker's CPU, and a bot running on another worker's CPU
  would take its time from a match it is not part of;
- leaving its session or process group (``setsid``, ``setpgid``), so that
  killing the group reaches it;
- namespaces, mounts, kernel keyrings, BPF, perf, io_uring, modules, reboot
  and the like;
- memory the address-space limit cannot count: ``memfd_create`` and
  ``memfd_secret`` (written with ``write``, a memfd's pages are in no
  process's address space), System V shared memory and POSIX message queues.

Only x86-64 is covered (system-call numbers differ per architecture); on
other machines :func:`supported` says why and the layer is reported missing.

This module is imported inside the sandbox, so it depends only on the
standard library.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
CLONE_THREAD = 0x00010000

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# classic BPF opcodes
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K

# offsets in struct seccomp_data
NR = 0
ARCH = 4
ARG0_LOW = 16  # args[0], low 32 bits (little-endian)

# x86-64 system calls refused outright.
DENIED_X86_64: dict[str, int] = {
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "execveat": 322,
    "socket": 41,
    "connect": 42,
    "accept": 43,
    "bind": 49,
    "listen": 50,
    "socketpair": 53,
    "accept4": 288,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "tkill": 200,
    "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "setsid": 112,
    "setpgid": 109,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "acct": 163,
    "quotactl": 179,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "mknod": 133,
    "mknodat": 259,
    "syslog": 103,
    "iopl": 172,
    "ioperm": 173,
    "personality": 135,
    "fanotify_init": 300,
    "sched_setaffinity": 203,
    "timer_create": 222,
    "memfd_create": 319,
    "memfd_secret": 447,
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "mq_open": 240,
    "mq_timedsend": 242,
}
CLONE_X86_64 = 56
CLONE3_X86_64 = 435
KILL_X86_64 = 62
TGKILL_X86_64 = 234
ARG_LOW = (16, 24, 32)  # offsets of args[0..2], low 32 bits (little-endian)
DENIED_ARGUMENTS: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    # (system call, argument, values refused): a file's signal owner and signal
    (72, 1, (8, 10, 15)),  # fcntl: F_SETOWN, F_SETSIG, F_SETOWN_EX
    (16, 1, (0x8901, 0x8902)),  # ioctl: FIOSETOWN, SIOCSPGRP
)
STOP_SIGNALS = (19, 20, 21, 22)  # SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU on x86-64 Linux


def supported() -> tuple[bool, str]:
    """Whether this machine can take the filter, and why not when it cannot."""
    if platform.system() != "Linux":
        return False, f"seccomp is a Linux feature; this is {platform.system()}"
    if platform.machine() not in ("x86_64", "AMD64", "amd64"):
        return False, f"the filter is written for x86-64 system calls; this machine is {platform.machine()}"
    try:
        with open("/proc/self/status") as status:
            if not any(line.startswith("Seccomp:") for line in status):
                return False, "the kernel was built without seccomp (no Seccomp: line in /proc/self/status)"
    except OSError as error:
        return False, f"cannot read /proc/self/status: {error}"
    if _libc() is None:
        return False, "the C library cannot be loaded with ctypes"
    return True, "x86-64 filter via prctl(PR_SET_SECCOMP)"


def _libc() -> ctypes.CDLL | None:
    try:
        # The running interpreter's own symbols include the C library's prctl (no ldconfig needed).
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def build_filter(own_pid: int, allow_exec: bool = False) -> bytes:
    """The BPF program (as bytes of ``struct sock_filter``) for a process whose pid is ``own_pid``.

    ``allow_exec`` leaves ``execve`` allowed: the host of an executable bot (``bot.toml``) installs the filter and
    then becomes the bot's program; every other refusal stays (without fork, the program can only replace itself).
    """
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    prog = [
        _insn(LD_W_ABS, 0, 0, ARCH),
        _insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _insn(RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),  # another ABI (e.g. 32-bit int 0x80): no
        _insn(LD_W_ABS, 0, 0, NR),
        _insn(JGE_K, 0, 1, X32_SYSCALL_BIT),
        _insn(RET_K, 0, 0, deny),  # the x32 ABI
    ]
    denied = {
        name: number for name, number in DENIED_X86_64.items() if not (allow_exec and name in ("execve", "execveat"))
    }
    for number in sorted(set(denied.values())):
        prog += [_insn(JEQ_K, 0, 1, number), _insn(RET_K, 0, 0, deny)]
    prog += [
        # clone3 hides its flags in memory: answer ENOSYS so the C library falls back to clone.
        _insn(JEQ_K, 0, 1, CLONE3_X86_64),
        _insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS),
        # clone: only threads.
        _insn(JEQ_K, 0, 4, CLONE_X86_64),
        _insn(LD_W_ABS, 0, 0, ARG0_LOW),
        _insn(JSET_K, 0, 1, CLONE_THREAD),
        _insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
        _insn(RET_K, 0, 0, deny),
    ]
    for number, argument, values in DENIED_ARGUMENTS:
        prog += [_insn(JEQ_K, 0, 3 + len(values), number), _insn(LD_W_ABS, 0, 0, ARG_LOW[argument])]
        prog += [_insn(JEQ_K, len(values) - index, 0, value) for index, value in enumerate(values)]
        prog += [_insn(RET_K, 0, 0, SECCOMP_RET_ALLOW), _insn(RET_K, 0, 0, deny)]
    stops = len(STOP_SIGNALS)
    for number, signal_arg in ((KILL_X86_64, ARG_LOW[1]), (TGKILL_X86_64, ARG_LOW[2])):
        # kill(pid, sig) and tgkill(tgid, tid, sig): only to itself, and never a stop signal.
        prog += [
            _insn(JEQ_K, 0, 5 + stops, number),
            _insn(LD_W_ABS, 0, 0, ARG0_LOW),
            _insn(JEQ_K, 0, 2 + stops, own_pid & 0xFFFFFFFF),
            _insn(LD_W_ABS, 0, 0, signal_arg),
        ]
        prog += [_insn(JEQ_K, stops - index, 0, stop) for index, stop in enumerate(STOP_SIGNALS)]
        prog += [_insn(RET_K, 0, 0, SECCOMP_RET_ALLOW), _insn(RET_K, 0, 0, deny)]
    prog.append(_insn(RET_K, 0, 0, SECCOMP_RET_ALLOW))
    return b"".join(prog)


class SeccompError(OSError):
    """The filter could not be installed."""


def install(allow_exec: bool = False) -> None:
    """Install the filter on this process (and its future threads); irreversible.

    Sets ``no_new_privs`` first, as the kernel requires of an unprivileged process.
    """
    ok, why = supported()
    if not ok:
        raise SeccompError(why)
    libc = _libc()
    assert libc is not None
    program = build_filter(os.getpid(), allow_exec)
    count = len(program) // 8
    buffer = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(count, ctypes.cast(buffer, ctypes.c_void_p))
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise SeccompError(code, f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(code)}")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        code = ctypes.get_errno()
        raise SeccompError(code, f"prctl(PR_SET_SECCOMP) failed: {os.strerror(code)}")
