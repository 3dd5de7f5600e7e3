#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/mutants.sh: mutation testing of llama-roofline. Applies the deliberate single changes
# listed in tests/mutants.txt one at a time to a COPY of the tree, rebuilds there and runs the
# tests each mutant names; a mutant the tests do not notice is a hole in the suite.
#
#   scripts/mutants.sh [--sample N] [--seed S] [--only ID...] [--list]
#     --sample N   run N mutants picked at random (seeded; CI runs --sample 4)
#     --seed S     seed of --sample (default: today's date, YYYYMMDD, so one day reproduces)
#     --only ID..  run only these mutants (while writing a test for one)
#     --list       print the catalogue's ids and exit
# Environment: RL_MUTANTS_DIR (default build/mutants) holds the copy (tree/) and its one
# persistent build directory (tree/build, configured once: Release, -Werror, tests on);
# RL_MUTANT_TIMEOUT (default 300) is ctest's per-test timeout in seconds.
#
# tests/mutants.known lists the mutants known to survive the suite today (id <TAB> why), the
# holes not yet closed: --sample draws from the others (so CI checks that what was killed stays
# killed), a full run still runs them and counts them in the kill rate.
#
# One line per mutant: `killed|survived|stale ID file description`, then
# `N killed, N survived, N stale of N` and the kill rate. stale: the original text is not found
# exactly once in its file, the mutant does not build, or its test regex names no test; the
# catalogue entry must be refreshed. Exit 1 if a mutant not in tests/mutants.known survived, if
# any is stale, or if the kill rate (killed / all run) is under 90%.
#
# Catalogue (tests/mutants.txt): one mutant per line, six TAB-separated fields
#   ID <TAB> file <TAB> original <TAB> replacement <TAB> ctest regex <TAB> description
# In original and replacement `\n` is a newline, `\t` a tab and `\\` a backslash; '#' starts a
# comment line. The original is a short snippet found exactly once in the file, so the entry
# survives refactors around it. The copy is synced by content: a file
# that changed gets a new mtime, so make rebuilds it; the real tree is never written.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, random, re, shutil, subprocess, sys, time

top = os.getcwd()
work = os.path.abspath(os.environ.get("RL_MUTANTS_DIR", "build/mutants"))
tree = os.path.join(work, "tree")
bdir = os.path.join(tree, "build")
timeout = os.environ.get("RL_MUTANT_TIMEOUT", "300")
catalogue = os.path.join(top, "tests", "mutants.txt")
known_file = os.path.join(top, "tests", "mutants.known")
jobs = str(os.cpu_count() or 2)

def usage(msg):
    sys.stderr.write("mutants.sh: %s\nusage: scripts/mutants.sh [--sample N] [--seed S] [--only ID...] [--list]\n" % msg)
    sys.exit(2)

args = sys.argv[1:]
sample, seed, only, listing = None, time.strftime("%Y%m%d"), [], False
i = 0
while i < len(args):
    a = args[i]
    if a == "--sample" and i + 1 < len(args):
        sample = int(args[i + 1]); i += 2
    elif a == "--seed" and i + 1 < len(args):
        seed = args[i + 1]; i += 2
    elif a == "--only":
        i += 1
        while i < len(args) and not args[i].startswith("--"):
            only.append(args[i]); i += 1
        if not only:
            usage("--only needs at least one id")
    elif a == "--list":
        listing = True; i += 1
    else:
        usage("unknown argument " + a)

def unescape(s):
    out, k = [], 0
    while k < len(s):
        c = s[k]
        if c == "\\" and k + 1 < len(s):
            n = s[k + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(n, "\\" + n)); k += 2
        else:
            out.append(c); k += 1
    return "".join(out)

mutants, seen = [], set()
with open(catalogue, encoding="utf-8") as f:
    for no, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        p = line.split("\t")
        if len(p) != 6:
            usage("%s:%d: want 6 tab-separated fields, got %d" % (catalogue, no, len(p)))
        if p[0] in seen:
            usage("%s:%d: duplicate id %s" % (catalogue, no, p[0]))
        seen.add(p[0])
        mutants.append(dict(id=p[0], file=p[1], orig=unescape(p[2]), repl=unescape(p[3]),
                            regex=p[4], desc=p[5]))

known = {}
if os.path.exists(known_file):
    with open(known_file, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                k, _, why = line.rstrip("\n").partition("\t")
                if k not in seen:
                    usage("%s: no mutant %s in the catalogue" % (known_file, k))
                known[k] = why

if listing:
    for m in mutants:
        print(m["id"], m["file"], m["desc"], sep="\t")
    sys.exit(0)
if only:
    unknown = [x for x in only if x not in seen]
    if unknown:
        usage("no mutant " + " ".join(unknown))
    mutants = [m for m in mutants if m["id"] in only]
if sample is not None:
    pool = [m for m in mutants if m["id"] not in known]
    mutants = random.Random(seed).sample(pool, min(sample, len(pool)))
    print("sample of %d, seed %s (of %d; %d known survivors left out)" %
          (len(mutants), seed, len(pool), len(known)))

def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)

os.makedirs(tree, exist_ok=True)
def sync():
    """copy the tree by content: a file that differs is rewritten (new mtime, so make rebuilds
    it), one that is the same keeps its mtime; files gone from the tree are removed"""
    keep = set()
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in ("build", ".git")]
        os.makedirs(os.path.join(tree, rel), exist_ok=True)
        for name in files:
            src, dst = os.path.join(d, name), os.path.normpath(os.path.join(tree, rel, name))
            keep.add(dst)
            with open(src, "rb") as f:
                data = f.read()
            try:
                with open(dst, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                with open(dst, "wb") as f:
                    f.write(data)
                shutil.copymode(src, dst)
    for d, dirs, files in os.walk(tree):
        if os.path.relpath(d, tree) == ".":
            dirs[:] = [x for x in dirs if x != "build"]
        for name in files:
            if os.path.join(d, name) not in keep:
                os.remove(os.path.join(d, name))

sync()
if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
    print("configuring %s (once)" % bdir, flush=True)
r = run(["cmake", "-S", tree, "-B", bdir, "-DRL_WERROR=ON", "-DRL_TESTS=ON",
         "-DCMAKE_BUILD_TYPE=Release"])
if r.returncode != 0:
    sys.exit("mutants.sh: configure failed:\n" + r.stdout)
r = run(["cmake", "--build", bdir, "-j", jobs])
if r.returncode != 0:
    sys.exit("mutants.sh: the unmutated copy does not build:\n" + r.stdout[-4000:])

def tests_of(regex):
    r = run(["ctest", "--test-dir", bdir, "-N", "-R", regex])
    return re.findall(r"Test +#\d+: (\S+)", r.stdout)

# The build's targets (the Makefile generator's "help" target lists them as "... NAME"):
# the files made by running the binary (completions, man pages) are rebuilt for the CLI tests.
all_targets = set(re.findall(r"^\.\.\. (\S+)", run(["cmake", "--build", bdir, "--target", "help"]).stdout, re.M))

def targets_of(tests):
    t = {"llama-roofline"}
    for name in tests:
        if name.startswith("unit."):
            t.add(name[5:])
        else:
            t.add("fake-stream")
            t.update({"completions", "man"} & all_targets)
    return sorted(t)

counts = {"killed": 0, "survived": 0, "stale": 0}
for m in mutants:
    path = os.path.join(tree, m["file"])
    verdict, why = None, ""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text, verdict, why = "", "stale", " (no such file)"
    if verdict is None and text.count(m["orig"]) != 1:
        verdict, why = "stale", " (original found %d times)" % text.count(m["orig"])
    tests = tests_of(m["regex"]) if verdict is None else []
    if verdict is None and not tests:
        verdict, why = "stale", " (regex names no test)"
    if verdict is None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(m["orig"], m["repl"], 1))
        try:
            cmd = ["cmake", "--build", bdir, "-j", jobs, "--target"] + targets_of(tests)
            if run(cmd).returncode != 0:
                verdict, why = "stale", " (does not build)"
            else:
                r = run(["ctest", "--test-dir", bdir, "-R", m["regex"], "-j", jobs,
                         "--timeout", timeout, "--no-tests=error"])
                verdict = "killed" if r.returncode != 0 else "survived"
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    counts[verdict] += 1
    if verdict == "survived" and m["id"] in known:
        why = " (known: %s)" % known[m["id"]]
    elif verdict == "survived":
        counts["new_survivors"] = counts.get("new_survivors", 0) + 1
    print("%s %s %s %s%s" % (verdict, m["id"], m["file"], m["desc"], why), flush=True)

new_survivors = counts.pop("new_survivors", 0)
n = sum(counts.values())
rate = 100.0 * counts["killed"] / n if n else 100.0
print("%d killed, %d survived, %d stale of %d" % (counts["killed"], counts["survived"], counts["stale"], n))
print("kill rate %.1f%%" % rate)
sys.exit(1 if new_survivors or counts["stale"] or rate < 90.0 else 0)
PY
