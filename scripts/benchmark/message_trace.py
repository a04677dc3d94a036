"""The lines RPMA_TRACE_MESSAGES makes each program write (lib/session/
session.c: "rpma-trace: PID VERB type T seq S at NS", NS on the host's
CLOCK_MONOTONIC), read back by scripts/benchmark/lone-line and
lone-line-trace (on their PYTHONPATH)."""


def messages(path):
    """{(verb, type, seq): ns} of the program whose stderr is path: the
    first time each message was sent ("send") or taken ("take")."""
    seen = {}
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) == 9 and p[0] == "rpma-trace:":
            seen.setdefault((p[2], int(p[4]), int(p[6])), int(p[8]))
    return seen
