#!/usr/bin/env python3
"""Drives a busy fleet (tests/load/busy.sh): N rpma-send processes started
together, each into a log of its own (HOST/lI), each fed PIECES pieces of
PIECE bytes of its own random input, one piece every EVERY seconds, through
a pipe. One process feeds them all, so the pace is the same for each and
costs one loop, not N shells.

  busy_drive.py SEND HOST N WORK [--piece B] [--pieces K] [--every S]
                [--timeout S] [-- SENDER_OPTIONS...]

Writes WORK/in.I (the input), WORK/send.I.log (its stderr) and prints a
line per sender, "sender I rc=RC secs=S", then "drive: done N". A sender
still running after TIMEOUT seconds is killed (rc=-9)."""
import argparse
import os
import selectors
import subprocess
import sys
import time


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("send")
    p.add_argument("host")
    p.add_argument("n", type=int)
    p.add_argument("work")
    p.add_argument("--piece", type=int, default=64 << 10)
    p.add_argument("--pieces", type=int, default=16)
    p.add_argument("--every", type=float, default=0.5)
    p.add_argument("--timeout", type=float, default=900)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:cut])
    a.opts = argv[cut + 1:]
    return a


class Sender:
    def __init__(self, a, i):
        self.i = i
        self.data = os.urandom(a.piece * a.pieces)
        with open(f"{a.work}/in.{i}", "wb") as f:
            f.write(self.data)
        self.log = open(f"{a.work}/send.{i}.log", "wb")
        self.fed = 0  # bytes due so far
        self.written = 0
        self.proc = None
        self.started = 0.0
        self.ended = None

    def start(self, a):
        argv = [a.send] + a.opts + [f"{a.host}/l{self.i}", "-"]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stderr=self.log,
                                     stdout=subprocess.DEVNULL)
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.started = time.monotonic()

    def pending(self):
        return self.proc.stdin and self.written < self.fed

    def write(self):
        try:
            n = os.write(self.proc.stdin.fileno(),
                         self.data[self.written:self.fed])
            self.written += n
        except BlockingIOError:
            pass
        except BrokenPipeError:  # it ended: nothing more to feed
            self.written = self.fed = len(self.data)
        self.close_if_done()

    def close_if_done(self):
        if self.proc.stdin and self.written == len(self.data):
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            self.proc.stdin = None


def feed(a, senders):
    """Every EVERY seconds one more piece is due to each; what is due is
    written as each pipe takes it."""
    t0 = time.monotonic()
    deadline = t0 + a.timeout
    piece = 0
    while time.monotonic() < deadline:
        now = time.monotonic()
        while piece < a.pieces and now >= t0 + piece * a.every:
            piece += 1
            for s in senders:
                if s.proc.stdin:
                    s.fed = min(len(s.data), piece * a.piece)
        waiting = [s for s in senders if s.pending()]
        if piece >= a.pieces and not waiting:
            return
        next_piece = t0 + piece * a.every if piece < a.pieces else deadline
        sel = selectors.DefaultSelector()
        for s in waiting:
            sel.register(s.proc.stdin.fileno(), selectors.EVENT_WRITE, s)
        for key, _ in sel.select(max(0.0, min(0.5, next_piece - now))):
            key.data.write()
        sel.close()


def reap(a, senders):
    """Waits for every sender, noting when each ended."""
    deadline = time.monotonic() + a.timeout
    while any(s.ended is None for s in senders):
        for s in senders:
            if s.ended is None and s.proc.poll() is not None:
                s.ended = time.monotonic()
        if time.monotonic() > deadline:
            for s in senders:
                if s.ended is None:
                    s.proc.kill()
                    s.proc.wait()
                    s.ended = time.monotonic()
        time.sleep(0.1)


def main():
    a = parse()
    senders = [Sender(a, i) for i in range(a.n)]
    for s in senders:
        s.start(a)
    print(f"drive: started {a.n}", flush=True)
    feed(a, senders)
    reap(a, senders)
    for s in senders:
        print(f"sender {s.i} rc={s.proc.returncode} "
              f"secs={s.ended - s.started:.1f}")
    print(f"drive: done {a.n}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
