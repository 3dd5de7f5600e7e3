#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/check-tty.py [ROOT]: check that nothing in src/ prints around the one terminal path.

Everything the tool prints to standard output or standard error goes through base/rl_text.h
(rl_tty_printf, rl_tty_puts, rl_tty_write, rl_tty_status; rl_write_output for a document to
"-"), which escapes control characters (docs/CLI.md). This check fails for any other use of
stdio's output functions (printf, fprintf, vfprintf, fputs, puts, putchar, fputc, putc, fwrite,
perror and their relatives: whatever the stream, since a FILE * parameter is stdout or stderr
at run time) and for a write of a descriptor 1 or 2 (write, writev, rl_write_all on 1, 2,
STDOUT_FILENO, STDERR_FILENO or fileno(stdout/stderr)) in any file of src/ but
src/base/rl_text.c. Comments and string literals are not code: "printf(3)" in a help text is
not a call. Prints one line per violation as file:line: what, and exits 1 if there is any (2
when ROOT has no src/)."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
src = os.path.join(root, "src")
if not os.path.isdir(src):
    print(f"{src}: no such directory")
    sys.exit(2)

# The one file that writes to the streams itself.
HOME = "src/base/rl_text.c"
# The allowlist: (file, regex over the code of one line), each with the reason it is safe.
ALLOW = [
    # rl_write_output("-") writes the document to fd 1 after rl_tty_safe made it terminal-safe
    # (the line before): unbuffered, so a write error is its own status, as for a file.
    ("src/base/rl_file.c", r"rl_write_all\(STDOUT_FILENO, safe, n,"),
    # main's handler of a second Ctrl-C/SIGTERM: a constant ASCII line (no control byte), with
    # write(2) because stdio is not async-signal-safe.
    ("src/main.c", r"write\(STDERR_FILENO, said, sizeof said - 1\)"),
]

STDIO = (
    "printf vprintf fprintf vfprintf dprintf vdprintf fputs fputs_unlocked puts putchar "
    "putchar_unlocked fputc fputc_unlocked putc putc_unlocked putw fwrite fwrite_unlocked "
    "perror psignal psiginfo herror err errx verr verrx warn warnx vwarn vwarnx error "
    "error_at_line wprintf fwprintf vwprintf vfwprintf fputws fputwc putwc putwchar "
    "obstack_printf"
).split()
stdio_call = re.compile(r"(?<![\w.>])(" + "|".join(STDIO) + r")\s*\(")
fd_write = re.compile(
    r"(?<![\w.>])(write|writev|pwrite|send|rl_write_all)\s*\(\s*"
    r"(1|2|STDOUT_FILENO|STDERR_FILENO|fileno\s*\(\s*std(out|err)\s*\))\s*,"
)
# __attribute__((format(printf, 2, 3))) names printf as an archetype, not a call
archetype = re.compile(r"format\s*\(\s*(__)?printf(__)?\s*,")


def code_only(text):
    """text with comments and string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1 : j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


problems = []
for dirpath, dirs, files in os.walk(src):
    dirs.sort()
    for name in sorted(files):
        if not name.endswith((".c", ".h", ".h.in")):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel == HOME:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = code_only(f.read()).split("\n")
        for k, line in enumerate(lines, 1):
            line = archetype.sub("format(", line)
            hits = [f"{m.group(1)} prints directly" for m in stdio_call.finditer(line)]
            hits += [f"{m.group(1)} to descriptor {m.group(2)}" for m in fd_write.finditer(line)]
            if hits and any(f == rel and re.search(rx, line) for f, rx in ALLOW):
                continue
            for h in hits:
                problems.append(
                    f"{rel}:{k}: {h}: print through base/rl_text.h (rl_tty_printf, "
                    "rl_tty_puts, rl_tty_write), which escapes control characters"
                )
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
