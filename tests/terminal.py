"""Run a command with a real terminal as its controlling terminal, and answer what it asks there.

`pasture policy trust` asks a person on /dev/tty (never stdin). Tests drive that the only way a
person can: a pseudo-terminal made the child's controlling terminal (setsid + TIOCSCTTY), its
standard streams left as pipes so what goes to the terminal is seen apart from stdout/stderr.
"""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import termios
import time


def run_at_terminal(
    argv: list[str],
    *,
    env: dict,
    cwd=None,
    answer: bytes | None = b"y\n",
    stdin: bytes | None = None,
    prompt: bytes = b"[y/N] ",
    timeout: float = 60,
    typeahead: bytes | None = None,
) -> tuple:
    """(exit code, what the terminal showed, stdout, stderr). `answer` is typed at the terminal once
    `prompt` shows; `stdin` is what the command's standard input holds (else /dev/null); `typeahead`
    is typed at once, before the command can have asked anything."""
    master, slave = os.openpty()

    def controlling_terminal() -> None:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=controlling_terminal,
        pass_fds=(slave,),
    )
    os.close(slave)
    if typeahead is not None:
        os.write(master, typeahead)
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    shown = b""
    typed = answer is None
    end = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed its side
                    break
                shown += chunk
            if not typed and prompt in shown:
                os.write(master, answer)
                typed = True
        out, err = (
            proc.communicate(timeout=max(1.0, end - time.monotonic()))
            if stdin is None
            else (proc.stdout.read(), proc.stderr.read())
        )
        while select.select([master], [], [], 0.05)[0]:  # what it showed just before it exited
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return (
        proc.returncode,
        shown.decode("utf-8", "replace"),
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
    )
