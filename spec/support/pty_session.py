#!/usr/bin/env python3
"""pty_session.py: runs a command on a pseudo-terminal and types the lines
of standard input into it one at a time, each only once the command has
printed its prompt ("nd> ", or "..> " while a statement goes on), then
copies everything the terminal showed to standard output.

The transcripts used script(1) for this, which passes the whole input on at
once: under load the input could reach the terminal before or after
ndlua's first prompt, so the echo of the input and the results fell on
lines in a different order from run to run (issue 34 item 8). Here the
order is fixed: prompt, the echoed line, what it printed, the next prompt.

    python3 spec/support/pty_session.py COMMAND [ARG...] < input > session

Exits with the command's status (128 + N when signal N ended it), or 124
when no prompt or end came within TIMEOUT seconds (the environment's
PTY_SESSION_TIMEOUT, default 300) of the last line.
"""
import os
import pty
import select
import sys
import time

PROMPTS = (b"nd> ", b"..> ")
TIMEOUT = float(os.environ.get("PTY_SESSION_TIMEOUT", "300"))


def read_some(fd, deadline):
    """The next bytes the terminal shows; b"" at its end; None past the deadline."""
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    ready, _, _ = select.select([fd], [], [], left)
    if not ready:
        return None
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: every process holding the terminal is gone
        return b""


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: pty_session.py COMMAND [ARG...] < input\n")
        return 2
    lines = sys.stdin.buffer.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        finally:
            os._exit(127)
    out = sys.stdout.buffer
    shown = b""  # what the terminal showed since the last line was typed
    ended = False
    for line in lines + [None]:
        deadline = time.monotonic() + TIMEOUT
        while not shown.endswith(PROMPTS):
            chunk = read_some(fd, deadline)
            if chunk is None:
                out.write(shown)
                out.flush()
                sys.stderr.write("pty_session.py: no prompt within %g s\n" % TIMEOUT)
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return 124
            if chunk == b"":
                ended = True
                break
            shown += chunk
        out.write(shown)
        shown = b""
        if ended or line is None:
            break
        os.write(fd, line + b"\n")
    # the rest, to the end of the terminal
    deadline = time.monotonic() + TIMEOUT
    while not ended:
        chunk = read_some(fd, deadline)
        if chunk is None or chunk == b"":
            break
        out.write(chunk)
    out.flush()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
