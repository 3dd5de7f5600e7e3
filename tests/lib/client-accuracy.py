#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/lib/client-accuracy.py: compare the chunk times `llama-roofline client --chunks FILE`
recorded with the true write times tests/lib/fake-stream logged (FAKE_STREAM_LOG), for the
command driver's accuracy test and bench/client-accuracy.

usage: client-accuracy.py CHUNKS LOG [--limit-ms X] [--label L]
       client-accuracy.py --probe     (the machine's own wake-up noise: p99 oversleep of 300
                                       1 ms sleeps, in ms, on stdout)

Both use CLOCK_MONOTONIC ns. A request is matched to the fake process (pid) whose key (the first
word of the prompt, unique per prompt in these runs) equals the request's prompt id and whose
first write is nearest to the request's first chunk (a warm-up of the same prompt is another
pid). Each chunk is paired with the consecutive writes its bytes cover (a fake that falls behind
its schedule on a loaded machine writes several chunks back to back, which one read returns);
the chunk's true time is the first of those writes (when its data became readable). Errors:
TTFT error = first chunk read - its true time (the true TTFT is that time - spawn, the measured
one the read - spawn); gap error = measured gap - true gap between consecutive chunks. Prints n,
p50, p99 and max of |error| in ms for each. Exit 1 when either p99 exceeds --limit-ms or the
bytes of chunks and writes do not pair up."""
import json, sys

def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    h = (len(xs) - 1) * p / 100.0
    lo = int(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])

def probe():
    import time
    over = []
    for _ in range(300):
        t = time.monotonic_ns()
        time.sleep(0.001)
        over.append((time.monotonic_ns() - t) / 1e6 - 1)
    print("%.3f" % pct(over, 99))

def main():
    args = sys.argv[1:]
    if args == ["--probe"]:
        return probe()
    limit = None
    label = ""
    if "--limit-ms" in args:
        i = args.index("--limit-ms"); limit = float(args[i + 1]); del args[i:i + 2]
    if "--label" in args:
        i = args.index("--label"); label = args[i + 1] + " "; del args[i:i + 2]
    chunks_path, log_path = args
    writes = {}  # pid -> (key, [(t_ns, bytes)])
    windows = []  # each write's own time, t_after - t_ns, in ms (logs that carry it)
    for line in open(log_path):
        f = line.split()
        key, pid, t, n = f[:4]
        writes.setdefault(pid, (key, []))[1].append((int(t), int(n)))
        if len(f) > 4:
            windows.append((int(f[4]) - int(t)) / 1e6)
    reqs = [json.loads(l) for l in open(chunks_path) if l.strip()]
    ttft_err, gap_err, unpaired, used = [], [], 0, set()
    for r in reqs:
        ch = r["chunks"]
        if not r["ok"] or not ch:
            unpaired += 1
            continue
        cands = [(abs(w[1][0][0] - ch[0][0]), pid) for pid, w in writes.items()
                 if w[0] == r["prompt"] and pid not in used]
        if not cands:
            unpaired += 1
            continue
        pid = min(cands)[1]
        used.add(pid)
        w = writes[pid][1]
        true_t, j = [], 0
        for t, nbytes in ch:
            if j >= len(w):
                break
            true_t.append(w[j][0])
            covered = 0
            while j < len(w) and covered < nbytes:
                covered += w[j][1]
                j += 1
            if covered != nbytes:
                break
        if len(true_t) != len(ch) or j != len(w):
            unpaired += 1
            continue
        ttft_err.append(abs(ch[0][0] - true_t[0]) / 1e6)
        for i in range(1, len(ch)):
            gap_err.append(abs((ch[i][0] - ch[i - 1][0]) - (true_t[i] - true_t[i - 1])) / 1e6)
    bad = unpaired > 0
    for name, e in (("ttft", ttft_err), ("gap", gap_err)):
        p99 = pct(e, 99)
        print("%s%-4s n=%d  |error| p50 %.3f ms  p99 %.3f ms  max %.3f ms" %
              (label, name, len(e), pct(e, 50), p99, max(e) if e else float("nan")))
        if not e or (limit is not None and not p99 <= limit):
            bad = True
    if windows:  # how exactly the fake itself knows when its data became readable
        print("%swrite window (the truth's own width) p50 %.3f ms  p99 %.3f ms  max %.3f ms" %
              (label, pct(windows, 50), pct(windows, 99), max(windows)))
    print("%srequests %d, unpaired %d%s" % (label, len(reqs), unpaired,
          "" if limit is None else ", limit p99 %.3f ms: %s" % (limit, "FAIL" if bad else "ok")))
    sys.exit(1 if bad else 0)

main()
