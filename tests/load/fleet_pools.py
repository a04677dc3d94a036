#!/usr/bin/env python3
"""The fleet's pools (tests/load/fleet.sh), before and after a run.

  fleet_pools.py fill WORK SESSIONS LINE DURATION
      Creates each log's 2 MiB pool (libpmemlog) and fills it with lines of
      its own, so that shipping a LINE-byte line a second fills pool i
      about DURATION * (0.1 + 0.8 i / SESSIONS) seconds in: the logs of a
      fleet rotate one after another during the run, as logs found at any
      fill level do, not all at once. A pool that the run fills anyway is
      left empty.
  fleet_pools.py check WORK REPORT LINE ARCHIVE FILLED RECV DURATION SESSIONS
      Prints, for each row of rpma-load's report, "NAME SENT COMMITTED
      same|differs FILES": whether the log holds its filling (FILLED
      non-empty; DURATION and SESSIONS say what it was), then
      exactly the lines its session committed; FILES is how many archive
      files it has. With ARCHIVE non-empty the log is read whole (its
      archive's files, then its pool) by RECV --export, one log at a time
      (a thousand copies would not fit in the guest), else from the pool:
      its committed bytes lie from start_offset to write_offset (u64 at
      4096 and 4112, DESIGN.md).
"""
import ctypes
import glob
import os
import struct
import subprocess
import sys

POOL = 2 << 20
DATA = POOL - 8192  # a fresh pool's data range
LONE = 110  # the lines session 0 ships alone first (fleet.sh's --lone)


def line(tag, session, n, size):
    head = f"{tag} s={session} n={n} "
    return head + "." * (size - 1 - len(head)) + "\n"


def filling(session, sessions, size, duration):
    """What pool `session` holds before the run: its lines, then a short
    one, so that the room left is whole lines (rpma-load asks a pool to be
    started over when it has no room at all; a line never straddles)."""
    due = duration * (0.1 + 0.8 * session / sessions)
    due += LONE if session == 0 else 0  # not in the lone sender's figures
    count, rest = divmod(max(0, DATA - int(due) * size), size)
    text = "".join(line("fill", session, n, size) for n in range(count))
    return text + ("." * (rest - 1) + "\n" if rest else "")


def fill(work, sessions, size, duration):
    lib = ctypes.CDLL("libpmemlog.so.1", use_errno=True)
    lib.pmemlog_create.restype = ctypes.c_void_p
    lib.pmemlog_create.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint]
    lib.pmemlog_append.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.pmemlog_close.argtypes = [ctypes.c_void_p]
    filled = 0
    for i in range(sessions):
        path = f"{work}/f{i}.pool".encode()
        plp = lib.pmemlog_create(path, POOL, 0o600)
        if not plp:
            sys.exit(f"fleet_pools: cannot create {path.decode()}: "
                     f"{os.strerror(ctypes.get_errno()) or 'pmemlog_create failed'}")
        data = filling(i, sessions, size, duration).encode()
        if data and lib.pmemlog_append(plp, data, len(data)):
            sys.exit(f"fleet_pools: cannot fill {path.decode()}")
        lib.pmemlog_close(plp)
        filled += len(data)
    print(f"filled {sessions} pools with {filled} bytes")


def read_log(work, name, archive, recv):
    """(bytes, archive files) or (None, why)."""
    if not archive:
        pool = open(f"{work}/{name}.pool", "rb").read()
        start, _, write = struct.unpack_from("<QQQ", pool, 4096)
        return pool[start:write], 0
    out = f"{work}/export.{name}"
    p = subprocess.run([recv, "--export", out, "--log",
                        f"{name}={work}/{name}.pool,archive={work}/archive"],
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None, f"export-failed {p.returncode} {p.stderr.strip().splitlines()[-1:]}"
    data = open(out, "rb").read()
    os.unlink(out)
    return data, len(glob.glob(f"{work}/archive/{name}-*.log"))


def check(work, report, size, archive, filled, recv, duration, sessions):
    for row in open(report):
        name, sent, committed = row.split()
        data, files = read_log(work, name, archive, recv)
        if data is None:
            print(name, files)
            continue
        session = int(name[1:])
        want = filling(session, sessions, size, duration) if filled else ""
        want += "".join(line("load", session, n, size)
                        for n in range(int(committed)))
        verdict = "same" if data == want.encode() else "differs"
        print(name, sent, committed, verdict, files)


def main(argv):
    if len(argv) == 6 and argv[1] == "fill":
        fill(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif len(argv) == 10 and argv[1] == "check":
        check(argv[2], argv[3], int(argv[4]), argv[5], argv[6], argv[7],
              int(argv[8]), int(argv[9]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
