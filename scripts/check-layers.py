#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/check-layers.py [SRC_ROOT]: check that every #include in src/ goes down the stages.

The stages, their ranks and what each never includes are read from the table between
<!-- layers:begin --> and <!-- layers:end --> in docs/ARCHITECTURE.md, the one place the map is
written. A file in stage S may include "T/x.h" when T is S or rank(T) < rank(S), and T is not in
S's "never includes" column. Prints one line per violation as file:line: what, and exits 1 if
there is any (2 when the table cannot be read)."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
arch = os.path.join(root, "docs", "ARCHITECTURE.md")
try:
    text = open(arch, encoding="utf-8").read()
    table = text.split("<!-- layers:begin -->", 1)[1].split("<!-- layers:end -->", 1)[0]
except (OSError, IndexError):
    print(f"{arch}: no layers table between <!-- layers:begin --> and <!-- layers:end -->")
    sys.exit(2)

rank, never = {}, {}
for line in table.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 3 or not cells[1].isdigit():
        continue
    rank[cells[0]] = int(cells[1])
    never[cells[0]] = set(cells[2].split())
if "main" not in rank or len(rank) < 3:
    print(f"{arch}: the layers table names no stages")
    sys.exit(2)

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
src = os.path.join(root, "src")
problems = []
for dirpath, _, files in os.walk(src):
    for name in sorted(files):
        if not name.endswith((".c", ".h", ".h.in")):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        parts = os.path.relpath(path, src).split(os.sep)
        stage = "main" if len(parts) == 1 and name == "main.c" else parts[0]
        if len(parts) == 1 and stage != "main" or stage not in rank:
            problems.append(f"{rel}:1: not inside a stage folder of docs/ARCHITECTURE.md")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = include.match(line)
                if not m:
                    continue
                target = m.group(1)
                tstage = target.split("/", 1)[0] if "/" in target else None
                if tstage is None or tstage not in rank or tstage == "main":
                    problems.append(f'{rel}:{n}: "{target}" names no stage folder')
                elif tstage in never[stage]:
                    problems.append(f'{rel}:{n}: {stage} never includes {tstage} ("{target}")')
                elif tstage != stage and rank[tstage] >= rank[stage]:
                    way = "sideways" if rank[tstage] == rank[stage] else "up"
                    problems.append(
                        f'{rel}:{n}: {stage} (rank {rank[stage]}) includes "{target}" '
                        f"({tstage}, rank {rank[tstage]}): {way}")
                elif not os.path.exists(os.path.join(src, target)) and \
                        not os.path.exists(os.path.join(src, target + ".in")):
                    problems.append(f'{rel}:{n}: "{target}" does not exist')
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
