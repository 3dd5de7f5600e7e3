#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: one terminal path (issue 18, "trust"): hostile text reaches no terminal raw. ESC, BEL,
# CSI as 0x9b and as U+009B, NEL (U+0085), DEL and bytes that are not UTF-8 are planted in
#   - a model file name and an output directory name (inspect, predict, synth, run, diagnose,
#     report, advise --plan, membw -o);
#   - GGUF metadata: general.name, general.architecture, a tensor name (inspect, predict);
#   - a bundle's strings: model names, the cpu, the kernel, the verdict, warnings, llama.cpp's
#     version (report --markdown, report -o -, compare text/Markdown/page, validate, predict
#     --bundle) and a published llama-bench JSONL (import's summary);
#   - children: a llama-bench whose stderr, version and records hold them (run's per-run
#     failure line and errors), a /proc/cpuinfo model name (advise --cpuinfo: text, Markdown,
#     JSON), client --cmd output and its failing stderr with --csv - and the summary line, a
#     token counter's output;
#   - an HTTP error: status line, headers and body of a local server (client --url, inspect
#     URL, predict URL), a host name in a URL; and the words given on the command line (an
#     unknown command, option, option value, preset).
# Every command's stdout and stderr are checked byte by byte (clean_out below: strict UTF-8
# decoding; no code point U+0000-U+0008, U+000B-U+001F, U+007F-U+009F, no byte that is not
# UTF-8), each command's exit status is the documented one, and the hostile text did reach the
# output (its marker EVIL is there, escaped as the docs say: \e, \x07, \u009b, \xNN in text;
# \u001b, \u009b, \ufffd in JSON, which still parses). The progress line rewritten in place on a
# terminal (script(1) gives one) holds no control character but its own "\r" and ESC [ K.
# Last, every `llama-roofline help CMD` and `CMD --help` line is at most 80 columns.
# Checked to fail before the fix (the binary of 3a9efc2 against this script): inspect --json
# and predict --json printed C1 controls raw, report -o - and compare -o - the page's chart
# labels with C1 and DEL raw, membw -o's "wrote" line the path's ESC and BEL raw, and help
# lines ran to 95 columns.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-tty.$$"
mkdir -p "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
export HOME="$work/home" LLAMA_ROOFLINE_CACHE="$work/cache" LLAMA_ROOFLINE_PROGRESS=lines
unset LLAMA_MODELS LLAMA_BENCH LLAMA_ROOFLINE_SYNTH_PRESET
mkdir -p "$HOME"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
STREAM="$(dirname "$RL_BIN")/fake-stream"

# The hostile text: ESC [31m, BEL, a raw 0x9b, U+009B, U+0085, DEL, a raw 0xff. As a file name
# (no '/', no NUL); EVIL marks it in the output.
H=$'EVIL\e[31m\a\x9b\xc2\x9b\xc2\x85\x7f\xffx'
# ... as rl_tty_escape shows it (RL_TTY_TEXT), a fixed string
HT='EVIL\e[31m\x07\x9b\u009b\u0085\x7f\xffx'

cat >"$work/clean.py" <<'EOF'
# clean.py FILE...: exit 1 naming the first control character or non-UTF-8 byte of each file
import sys
bad = 0
for f in sys.argv[1:]:
    text = open(f, "rb").read().decode("utf-8", errors="surrogateescape")
    for i, ch in enumerate(text):
        o = ord(ch)
        what = None
        if 0xDC80 <= o <= 0xDCFF:
            what = "byte 0x%02x that is not UTF-8" % (o - 0xDC00)
        elif (o < 0x20 and ch not in "\n\t") or 0x7F <= o <= 0x9F:
            what = "U+%04X" % o
        if what:
            print("%s: %s at character %d: %r" % (f, what, i, text[max(0, i - 30):i + 10]))
            bad = 1
            break
sys.exit(bad)
EOF
# clean_out DESCRIPTION FILE...: no raw control byte in any of them
clean_out() {
  local what=$1 msg
  shift
  if msg=$(python3 "$work/clean.py" "$@" 2>&1); then echo "ok   $what: no raw control byte"; else fail "$what: $msg"; fi
}
has() { # description, file, fixed string the file must hold
  if grep -qF -- "$3" "$2"; then echo "ok   $1"; else fail "$1: no '$3' in: $(head -c 600 "$2")"; fi
}
# t DESCRIPTION RC [ENV=V...] -- ARGS...: llama-roofline ARGS with stdout in $o, stderr in $e;
# the exit status must be RC and neither stream may hold a raw control byte
n=0
t() {
  local what=$1 rc=$2
  shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  n=$((n+1)); o="$work/$n.out"; e="$work/$n.err"
  env "${envs[@]}" "$RL_BIN" "$@" >"$o" 2>"$e"
  check "$what: exit $rc" "$rc" $?
  clean_out "$what: stdout and stderr" "$o" "$e"
}
marked() { # description, file: the hostile marker reached it
  grep -q EVIL "$2" && echo "ok   $1: the hostile text is shown" || fail "$1: no EVIL in: $(head -c 400 "$2")"
}
json_ok() { # description, file: parses as JSON (python's strict parser)
  python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$2" 2>"$work/json.err" &&
    echo "ok   $1: valid JSON" || fail "$1: not JSON: $(head -c 300 "$work/json.err")"
}

# ---- hostile GGUF files, made with scripts/make-bad-gguf.py's writer ----------------------
python3 - "$RL_SRC/scripts/make-bad-gguf.py" "$work" <<'EOF' || fail "writing the hostile GGUF files"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("mk", sys.argv[1])
mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)
H = b"EVIL\x1b[31m\x07\x9b\xc2\x9b\xc2\x85\x7f\xffx"   # not UTF-8: only where GGUF allows it
HU = "EVIL\x1b]0;pwned\x07\x1b[2J\u009b\u0085\x7fname"  # UTF-8: keys and tensor names
def write(name, arch, extra_kv):
    kvs = [mk.kv_str("general.architecture", arch), mk.kv_str("general.name", H),
           mk.kv_u32("general.file_type", 7), mk.kv_u32(arch.decode(errors="replace") + ".block_count", 1)]
    tensors = [("token_embd.weight", [32, 4], mk.Q8_0), ("blk.0.attn_q." + HU + ".weight", [32, 1], mk.Q8_0),
               ("output.weight", [32, 4], mk.Q8_0)]
    open(sys.argv[2] + "/" + name, "wb").write(mk.model(kvs + extra_kv, tensors))
write("meta.gguf", b"llama", [mk.kv_str("general.quantized_by", H)])
write("arch.gguf", b"llama" + H, [])
EOF
cp "$RL_SRC/tests/fixtures/gguf/tiny-valid.gguf" "$work/$H.gguf"
mkdir -p "$work/dir-$H"
cp "$RL_SRC/tests/fixtures/gguf/tiny-valid.gguf" "$work/dir-$H/m-$H.gguf"
cp "$RL_SRC/tests/fixtures/gguf-bad/bad-magic.gguf" "$work/broken-$H.gguf"

# ---- the command line ------------------------------------------------------------------
t "an unknown command" 2 -- "$H"
has "an unknown command: escaped" "$e" "no command '$HT'"
t "help of an unknown command" 2 -- help "$H"
marked "help of an unknown command" "$e"
t "an unknown long option" 2 -- inspect "--$H"
has "an unknown long option: escaped" "$e" "unknown option '--$HT'"
t "an unknown short option" 2 -- inspect $'-\x9b'
has "an unknown short option: escaped" "$e" "unknown option '-\x9b'"
t "a bad option value" 2 -- run -m x.gguf --threads "$H"
marked "a bad option value" "$e"

# ---- inspect: file names, directory entries, metadata, errors --------------------------
t "inspect a hostile file name" 0 -- inspect --tensors "$work/$H.gguf"
has "inspect a hostile file name: escaped" "$o" "$HT.gguf"
t "inspect a hostile directory" 0 -- inspect "$work/dir-$H"
has "inspect a hostile directory: the entry escaped" "$o" "m-$HT.gguf"
t "inspect hostile metadata" 0 -- inspect --tensors "$work/meta.gguf"
marked "inspect hostile metadata" "$o"
has "inspect hostile metadata: the tensor name escaped" "$o" 'blk.0.attn_q.EVIL\e]0;pwned\x07\e[2J\u009b\u0085\x7fname.weight'
t "inspect --json, hostile name and metadata" 0 -- inspect --json --tensors "$work/$H.gguf" "$work/meta.gguf"
json_ok "inspect --json" "$o"
has "inspect --json: C0 and C1 as JSON escapes" "$o" 'EVIL\u001b]0;pwned\u0007\u001b[2J\u009b\u0085\u007fname'
has "inspect --json: the path's bytes that are not UTF-8 as U+FFFD" "$o" \
  $'EVIL\\u001b[31m\\u0007\uFFFD\\u009b\\u0085\\u007f\uFFFDx.gguf'
t "inspect a hostile architecture" 0 -- inspect "$work/arch.gguf"
marked "inspect a hostile architecture" "$o"
t "inspect a corrupt and a missing hostile file" 2 -- inspect "$work/broken-$H.gguf" "$work/none-$H.gguf"
has "inspect errors: the corrupt one escaped" "$e" "broken-$HT.gguf: not a GGUF file"
has "inspect errors: the missing one escaped" "$e" "none-$HT.gguf: no such file"

# ---- synth: an output path --------------------------------------------------------------
t "synth to a hostile path" 0 -- synth --preset tiny --type F16 -o "$work/f16-$H.gguf"
has "synth: the path escaped (planned size, stderr)" "$e" "f16-$HT.gguf"
t "synth an unknown preset" 2 -- synth --preset "$H" -o "$work/x.gguf"
marked "synth an unknown preset" "$e"

# ---- run and diagnose: file names, an output directory, llama-bench's words --------------
cat >"$work/evil-bench" <<EOF
#!/usr/bin/env bash
# llama-bench whose version, stderr and records hold the hostile text (EVIL_MODE=fail: exit 1)
if [ "\${1:-}" = --version ]; then printf 'version: 0.5.0-EVIL\e[31m\a\x9b (build 1, commit de3ff81)\n' >&2; exit 0; fi
printf 'EVIL\e]0;pwned\a\e[2J\x9b\xc2\x9b\xff on stderr\n' >&2
if [ "\${EVIL_MODE:-ok}" = fail ]; then printf 'llama_bench: error: EVIL\e[31m\a\x9b\xff\x7f failed\n' >&2; exit 1; fi
"$FAKE" "\$@" | sed -e 's/"cpu_info": "[^"]*"/"cpu_info": "EVIL\\\\u001b[31m\\\\u009b cpu"/' \
  -e 's/"gpu_info": "[^"]*"/"gpu_info": "EVIL\\\\u0007gpu"/'
EOF
chmod +x "$work/evil-bench"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/q4-$H.gguf" || fail "synth q4"
t "run: hostile models, directory, llama-bench" 0 -- run --llama-bench "$work/evil-bench" --peak-bw 40 \
  -m "$work/$H.gguf" -m "$work/q4-$H.gguf" -t 1,2 -o "$work/run-$H"
has "run: the model's name escaped in the summary (cut to its column)" "$o" 'EVIL\e[31m\x07'
has "run: the bundle's path escaped" "$o" "wrote $work/run-$HT/bundle.json"
B="$work/run-$H/bundle.json"
t "run: llama-bench fails with hostile stderr" 1 EVIL_MODE=fail -- run --llama-bench "$work/evil-bench" \
  --peak-bw 40 -m "$work/$H.gguf" -t 1 -o "$work/fail-$H"
has "run: the failure line escapes llama-bench's stderr" "$e" 'EVIL\e[31m\x07\x9b\xff\x7f failed'
t "diagnose: a hostile directory" 0 -- diagnose --llama-bench "$work/evil-bench" --peak-bw 40 --quick \
  -o "$work/diag-$H" "$work/dir-$H" "$work/meta.gguf"
marked "diagnose: found models line" "$e"
has "diagnose: the summary names the hostile model escaped" "$o" 'm-EVIL\e[31m\x07'

# ---- a bundle whose strings are hostile -------------------------------------------------
python3 - "$B" "$work/evil.json" "$work/evil2.json" <<'EOF' || fail "making the hostile bundles"
import json, sys
H = "EVIL\x1b[31m\x07\u009b\u0085\x7f@FF@x"  # @FF@: a raw 0xff byte, which JSON text cannot escape
j = json.load(open(sys.argv[1]))
j["environment"]["cpu"] = "cpu " + H
j["environment"]["kernel"] = "kernel " + H
j["llama_cpp"]["version"] = "0.5.0-" + H
for m in j["models"]:
    m["name"] = m["name"] + H
for m in j["analysis"]["models"]:
    m["name"] = m["name"] + H
j["analysis"]["verdict"]["text"] = "verdict " + H
for w in j["warnings"] + j["analysis"].get("warnings", []):
    w["text"] = w["text"] + " " + H
for out, delta in ((sys.argv[2], ""), (sys.argv[3], " other")):
    j["environment"]["kernel"] = "kernel " + H + delta
    text = json.dumps(j, indent="\t").replace("@FF@", "\udcff")
    open(out, "wb").write(text.encode("utf-8", errors="surrogateescape"))
EOF
grep -q $'\xff' "$work/evil.json" && echo "ok   the hostile bundle holds a raw 0xff" || fail "no raw 0xff in the bundle"
crafted "$work/evil.json" "$work/evil2.json"
t "validate a hostile bundle" 0 -- validate "$work/evil.json"
has "validate: the file name line" "$o" "evil.json: valid"
python3 - "$B" "$work/bad-$H.json" <<'PY' || fail "making the broken bundle"
import json, sys
j = json.load(open(sys.argv[1]))
j["models"][1]["id"] = "EVIL\x1b]0;x\x07\u009b"
json.dump(j, open(sys.argv[2].encode("utf-8", errors="surrogateescape"), "w"))
PY
crafted "$work/bad-$H.json"
t "validate a broken bundle with a hostile name" 1 -- validate "$work/bad-$H.json"
has "validate: the problem lines name the file escaped" "$o" "bad-$HT.json: analysis.models[1].id: does not name a model"
t "report --markdown of a hostile bundle" 0 -- report --markdown "$work/evil.json"
marked "report --markdown" "$o"
t "report -o - of a hostile bundle" 0 -- report -o - "$work/evil.json"
marked "report -o -" "$o"
crafted "$work/evil.html"
t "report to a hostile page name" 0 -- report -o "$work/page-$H.html" "$work/evil.json"
has "report: wrote, escaped" "$o" "wrote $work/page-$HT.html"
crafted "$work/page-$H.html"
# the page written to a file holds no raw control character either (chart labels, table
# cells, the embedded bundle: a browser or an XML reader would choke on them), the marker shown
clean_out "report: the page file" "$work/page-$H.html"
marked "report: the page file" "$work/page-$H.html"
t "compare hostile bundles" 0 -- compare "$work/evil.json" "$work/evil2.json"
marked "compare" "$o"
t "compare --markdown" 0 -- compare --markdown "$work/evil.json" "$work/evil2.json"
marked "compare --markdown" "$o"
t "compare -o -" 0 -- compare -o - "$work/evil.json" "$work/evil2.json"
marked "compare -o -" "$o"
t "compare -o FILE" 0 -- compare -o "$work/cmp-page.html" "$work/evil.json" "$work/evil2.json"
clean_out "compare: the page file" "$work/cmp-page.html"
marked "compare: the page file" "$work/cmp-page.html"
mkdir -p "$work/cmpdir-$H/sub-$H"
echo '{"not": "a bundle"}' >"$work/cmpdir-$H/sub-$H/bundle.json"
t "compare a directory with a foreign bundle" 2 -- compare "$work/cmpdir-$H" "$work/evil.json"
marked "compare: the skipped entry" "$e"
t "predict from a hostile bundle" 0 -- predict --bundle "$work/evil.json" "$work/$H.gguf" "$work/meta.gguf"
marked "predict" "$o"
t "predict --markdown" 0 -- predict --markdown --bundle "$work/evil.json" "$work/meta.gguf"
marked "predict --markdown" "$o"
t "predict --json" 0 -- predict --json --bundle "$work/evil.json" "$work/meta.gguf"
json_ok "predict --json" "$o"
marked "predict --json" "$o"
t "predict an unknown synth preset" 2 -- predict --bundle "$work/evil.json" "synth:$H:Q8_0"
marked "predict an unknown preset" "$e"

# ---- import: a published llama-bench JSONL with hostile names --------------------------
sed -e 's/"model_filename": "[^"]*"/"model_filename": "\/m\/EVIL\\u001b[31m\\u009b\\u0007.gguf"/' \
  -e 's/"cpu_info": "[^"]*"/"cpu_info": "EVIL\\u001b]0;t\\u0007"/' \
  "$RL_SRC/tests/fixtures/lbench/real-jsonl.txt" >"$work/lb.jsonl"
t "import hostile llama-bench output" 0 -- import "$work/lb.jsonl" -o "$work/imp-$H.json" --name "$H"
marked "import: the summary" "$o"
# the bundle file itself: U+009B (and DEL) kept as JSON escapes, never raw, the name intact
clean_out "import: the bundle file" "$work/imp-$H.json"
json_check "import: the hostile name survives the escapes" "$work/imp-$H.json" \
  '"\u009b" in j["models"][0]["name"] or any("\u009b" in (m.get("path") or "") + (m.get("name") or "") for m in j["models"])'

# ---- advise: a hostile cpuinfo, a hostile --plan source ---------------------------------
sed "s/^model name.*/model name\t: EVIL\x1b[31m\x07\xc2\x9b\x9b\xff Cortex/" \
  "$RL_SRC/tests/fixtures/cpuinfo/rpi5.txt" >"$work/cpuinfo.txt"
grep -q EVIL "$work/cpuinfo.txt" || cat >>"$work/cpuinfo.txt" <<<$'model name\t: EVIL\e[31m\a\xc2\x9b\x9b\xff'
t "advise --cpuinfo (hostile model name)" 0 -- advise --cpuinfo "$work/cpuinfo.txt"
t "advise --cpuinfo --markdown" 0 -- advise --cpuinfo "$work/cpuinfo.txt" --markdown
t "advise --cpuinfo --json" 0 -- advise --cpuinfo "$work/cpuinfo.txt" --json
json_ok "advise --json" "$o"
t "advise --plan a hostile file name" 0 -- advise --plan "$work/f16-$H.gguf"
has "advise --plan: the path escaped" "$o" "f16-$HT.gguf"

# ---- membw: a hostile output path -------------------------------------------------------
t "membw -o a hostile path" 0 -- membw --peak-bw 40 -o "$work/membw-$H.json"
has "membw: wrote, escaped" "$o" "wrote $work/membw-$HT.json"

# ---- client --cmd: hostile output, a failing command, a hostile counter -------------------
printf '%s\n' '#!/bin/sh' "cat >/dev/null; printf 'EVIL\\033[31m\\007\\233\\302\\233\\377 answer'" >"$work/say.sh"
printf '%s\n' '#!/bin/sh' "cat >/dev/null; printf 'EVIL\\033]0;t\\007\\233\\377\\177 broke\\n' >&2; exit 3" >"$work/die.sh"
printf '%s\n' '#!/bin/sh' "cat >/dev/null; printf 'EVIL\\033[2J\\233\\n'" >"$work/count.sh"
chmod +x "$work/say.sh" "$work/die.sh" "$work/count.sh"
t "client --cmd with hostile output, --csv -" 0 -- client --cmd "$work/say.sh" --warmup 0 --capture-output \
  --json "$work/c1-$H.json" --csv -
has "client: the CSV header on stdout" "$o" "concurrency,request_rate,prompt"
marked "client: the summary on stderr" "$e"
t "client --cmd failing with hostile stderr, --csv -" 1 -- client --cmd "$work/die.sh" --warmup 0 \
  --json "$work/c2.json" --csv -
has "client: the CSV's error cell escaped" "$o" $'exit 3: EVIL\\e]0;t\\x07\uFFFD\uFFFD\\x7f broke'
has "client: the first failure line escaped" "$e" $'first failure: exit 3: EVIL\\e]0;t\\x07\uFFFD\uFFFD\\x7f broke'
t "client with a hostile token counter" 0 -- client --cmd "$work/say.sh" --count-tokens-cmd "$work/count.sh" \
  --warmup 0 --json "$work/c3.json"
has "client: the counter's output escaped" "$o" "the counter printed 'EVIL\\e[2J\\x9b', not one whole number"

# ---- HTTP: a server whose status line, headers and body are hostile -----------------------
cat >"$work/evil-server.py" <<'EOF'
# Answers every request: /v1/... 500 with a hostile reason phrase, header and body; anything
# else 404 the same way. Writes its port to argv[1].
import socket, sys, threading
H = b"EVIL\x1b[31m\x07\x9b\xc2\x9b\xc2\x85\x7f\xffx"
def serve(c):
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            d = c.recv(65536)
            if not d:
                return
            data += d
        status = b"500 " if data.startswith(b"POST") else b"404 "
        body = b"{\"error\": \"" + H + b" body\"}\n"
        c.sendall(b"HTTP/1.1 " + status + H + b"\r\nX-Evil: " + H + b"\r\nContent-Type: text/plain\r\n"
                  b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    finally:
        c.close()
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
python3 "$work/evil-server.py" "$work/port" &
pids+=($!)
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
t "client --url: a hostile 500" 1 -- client --url "http://127.0.0.1:$port/v1" --warmup 0 --timeout 5 \
  --json "$work/h1.json" --csv -
marked "client --url: the error cell" "$o"
marked "client --url: the first failure line" "$e"
t "inspect a URL that answers a hostile 404" 2 -- inspect "http://127.0.0.1:$port/m-$H.gguf"
marked "inspect URL: the error line" "$e"
t "predict a URL that answers a hostile 404" 2 -- predict --bundle "$work/evil.json" "http://127.0.0.1:$port/m-$H.gguf"
marked "predict URL: the error line" "$e"

t "client --url with a hostile host name" 2 -- client --url "http://$H:1/v1" --warmup 0 --timeout 2 \
  --json "$work/h2.json"
has "client --url: the host escaped" "$e" "URL 'http://$HT:1/v1' is not a URL"
t "inspect a URL with a hostile host name" 2 -- inspect "http://$H/x.gguf"
has "inspect URL: the host escaped" "$e" "http://$HT/x.gguf: cannot fetch"

# ---- the progress line on a terminal (script(1) gives the command one) --------------------
# script(1) runs its command with $SHELL, and the %q quoting ($'...') is bash's: dash (CI's
# /bin/sh) would pass the path with a literal '$'
if command -v script >/dev/null; then
  env -u LLAMA_ROOFLINE_PROGRESS SHELL="$BASH" script -qec "$(printf '%q ' "$RL_BIN" run --llama-bench "$work/evil-bench" \
    --peak-bw 40 -m "$work/$H.gguf" -t 1 -o "$work/tty-run")" /dev/null >"$work/pty.raw" 2>&1
  check "run on a terminal: exit 0" 0 $?
  grep -qF $'\r\e[K' "$work/pty.raw" && echo "ok   run on a terminal: the progress line is rewritten in place" ||
    fail "run on a terminal: no progress line: $(head -c 300 "$work/pty.raw" | od -c | head -5)"
  # the terminal's own line ends (\r\n) and the progress line's \r, ESC [ K are the only controls
  python3 - "$work/pty.raw" "$work/pty.txt" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read().replace(b"\r\n", b"\n").replace(b"\x1b[K", b"").replace(b"\r", b"")
open(sys.argv[2], "wb").write(d)
EOF
  clean_out "run on a terminal" "$work/pty.txt"
  marked "run on a terminal: the progress line names the model" "$work/pty.txt"
else
  echo "ok   (no script(1): the terminal progress line is not checked)"
fi

# ---- help: every line of every command's help at most 80 columns --------------------------
cmds=$("$RL_BIN" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
[ "$(wc -w <<<"$cmds")" -ge 13 ] && echo "ok   --help lists the commands: $(tr '\n' ' ' <<<"$cmds")" ||
  fail "--help lists only: $cmds"
wide() { # description, file: no line over 80 columns (characters; help text is ASCII)
  local w
  w=$(awk 'length($0) > 80 {printf "%d: %s\n", length($0), $0}' "$2")
  [ -z "$w" ] && echo "ok   $1: every line at most 80 columns" || fail "$1: $w"
}
"$RL_BIN" --help >"$work/help.txt"; check "--help: exit 0" 0 $?
wide "--help" "$work/help.txt"
for c in $cmds; do
  "$RL_BIN" help "$c" >"$work/help.txt"; check "help $c: exit 0" 0 $?
  wide "help $c" "$work/help.txt"
  "$RL_BIN" "$c" --help >"$work/help2.txt"; check "$c --help: exit 0" 0 $?
  cmp -s "$work/help.txt" "$work/help2.txt" && echo "ok   $c --help is help $c" || fail "$c --help differs from help $c"
  clean_out "help $c" "$work/help.txt"
done
finish
