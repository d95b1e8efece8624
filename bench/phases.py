#!/usr/bin/env python3
"""Where a kladder run spends its time (not a test): runs a command on a
pseudo-terminal, so that kladder draws its progress line, and prints each
distinct update with the seconds since the start.

    python3 bench/phases.py build/kladder peak --brief
    python3 bench/phases.py build/kladder          # the main job
"""
import os, pty, sys, time

if len(sys.argv) < 2:
    sys.exit("usage: bench/phases.py COMMAND [ARGS...]")
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
t0, last = time.time(), None
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    for part in d.replace(b"\r", b"\n").split(b"\n"):
        line = part.decode(errors="replace").replace("\x1b[2K", "").replace("\x1b[K", "").strip()
        if line and line != last:
            print("%6.2f %s" % (time.time() - t0, line[:140]), flush=True)
            last = line
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
