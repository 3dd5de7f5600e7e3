#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: the Ansible fleet recipe (examples/fleet/ansible/fleet.yml, docs/FLEET.md) with
# Debian's ansible-core against this machine over a local connection: the inventory names two
# hosts, fleet-a and fleet-b, both this machine (-c local; -f 1 keeps their measurements apart).
# The Debian package is built from a copy of the tree as tests/e2e/deb.sh does (or taken from
# $RL_DEB, a .deb built already); the playbook installs it, runs `run` with the installed
# /usr/bin/llama-roofline on two tiny synth models (the real llama-bench of $LLAMA_BIN_DIR when
# set, else tests/lib/fake-llama-bench) into a directory per host, fetches each bundle and
# report to fleet/runs/HOST/, removes the package (rl_remove) and builds fleet/fleet.html with
# the built binary's compare: the page holds exactly the two runs, labelled fleet-a and fleet-b,
# their llama-bench rows in both, the package's version in each bundle (measured by
# /usr/bin/llama-roofline, the package's binary). A second playbook run
# into the same directories overwrites nothing it should not (the runs are measured again).
# --syntax-check passes on the playbook. The package is removed at the end whatever happens;
# the test refuses to run where llama-roofline is installed already. Needs root (or sudo
# without a password) and ansible-core plus deb.sh's build tools (scripts/deps.sh; installed
# here when missing): skipped (77) only when they cannot be. Runs alone (RUN_SERIAL).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
. "$RL_SRC/tests/lib/cli.sh"
. "$RL_SRC/tests/lib/pkgs.sh"
[ "$root_ok" = 1 ] || { echo "skip: installing a package needs root or sudo without a password"; exit 77; }
build_pkgs=(debhelper dpkg-dev fakeroot lintian help2man)
[ -n "${RL_DEB:-}" ] && build_pkgs=()
need_pkgs ansible-core "${build_pkgs[@]}" || { echo "skip: $pkgs_why"; exit 77; }
if pkg_installed llama-roofline; then
  fail "a llama-roofline package is installed on this machine already: this test would replace and remove it"
  finish
fi
[ ! -e /usr/bin/llama-roofline ] || { fail "/usr/bin/llama-roofline exists (not from a package): installing would replace it"; finish; }
d="$RL_TMP/e2e-fleet-ansible.$$"
work="$d" # finish's sweep: every bundle and report written passes validate
rm -rf "$d"
mkdir -p "$d/models" "$d/remote"
cleanup() {
  pkg_installed llama-roofline && lock_retry dpkg -r llama-roofline >/dev/null
  rm -rf "$d"
}
trap cleanup EXIT

# ---- the package
if [ -n "${RL_DEB:-}" ]; then
  deb=$RL_DEB; [ -f "$deb" ] && echo "ok   the package: $deb (RL_DEB)" || { fail "RL_DEB=$deb is no file"; finish; }
else
  start=$SECONDS
  deb_copy "$RL_SRC" "$d/deb/src"; check "the tree copied into $d/deb/src" 0 $? || finish
  deb=$(deb_build "$d/deb/src"); check "dpkg-buildpackage -b -us -uc ($((SECONDS - start)) s)" 0 $? || { tail -n 40 "$d/deb/build.log"; finish; }
  rm -rf "$d/deb/src"
fi
version=$("$RL_BIN" --version | sed 's/^llama-roofline //')

# ---- the measurement, the playbook's variables
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$d/models/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$d/models/b.gguf" || fail "synth b"
if [ -n "${LLAMA_BIN_DIR:-}" ]; then
  bench="\"--llama-bench\", \"$LLAMA_BIN_DIR/llama-bench\", \"-p\", \"16\", \"-n\", \"16\", \"-r\", \"2\""
  echo "the hosts run the real llama-bench"
else
  bench="\"--llama-bench\", \"$RL_SRC/tests/lib/fake-llama-bench\""
  echo "LLAMA_BIN_DIR not set: the hosts run tests/lib/fake-llama-bench"
fi
become=true; [ "$(id -u)" = 0 ] && become=false # root already (and maybe no sudo to become with)
cat >"$d/vars.json" <<EOF
{"rl_deb": "$deb", "rl_remote_dir": "$d/remote", "rl_fleet_dir": "$d/fleet",
 "rl_measure": ["run", $bench, "-m", "$d/models/a.gguf", "-m", "$d/models/b.gguf", "-t", "1", "--peak-bw", "40"],
 "rl_bin": "/usr/bin/llama-roofline", "rl_compare_bin": "$RL_BIN", "rl_poll": 1, "rl_become": $become, "rl_remove": true, "rl_timeout": 300,
 "ansible_python_interpreter": "/usr/bin/python3"}
EOF
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOME="$d/ansible" \
  ANSIBLE_LOCAL_TEMP="$d/ansible/tmp" ANSIBLE_REMOTE_TEMP="$d/ansible/remote-tmp" ANSIBLE_ASYNC_DIR="$d/ansible/async"
playbook="$RL_SRC/examples/fleet/ansible/fleet.yml"
(cd "$d" && ansible-playbook -i "$RL_SRC/examples/fleet/ansible/inventory.example" --syntax-check "$playbook") >"$d/syntax.log" 2>&1
check "ansible-playbook --syntax-check" 0 $? || cat "$d/syntax.log"

play() { # log-file: the playbook on fleet-a and fleet-b, here, within 600 s
  (cd "$d" && timeout 600 ansible-playbook -i "fleet-a,fleet-b," -c local -f 1 -e "@$d/vars.json" "$playbook") >"$1" 2>&1
}
start=$SECONDS
play "$d/play.log"; check "ansible-playbook -i fleet-a,fleet-b, -c local ($((SECONDS - start)) s)" 0 $? || tail -n 40 "$d/play.log"
for h in fleet-a fleet-b; do
  expect "the recap: $h, nothing failed" "$(grep -E "^$h " "$d/play.log" | tr -s ' ')" "^$h : ok=[0-9]+ changed=[0-9]+ unreachable=0 failed=0 "
done
expect "the install task ran on both" "$(grep -A3 'TASK \[Install it' "$d/play.log")" 'changed: \[fleet-a\]'
expect "the page task said where" "$(cat "$d/play.log")" "\"msg\": \"wrote $d/fleet/fleet.html \(2 hosts\)\""
pkg_installed llama-roofline && fail "the package is still installed after rl_remove" || echo "ok   the playbook removed the package"
[ -f "$d/remote/fleet-a/bundle.json" ] && [ -f "$d/remote/fleet-b/report.html" ] && echo "ok   each host's run in its own directory" ||
  fail "the hosts' runs: $(ls -R "$d/remote")"
page_check() { # what: the page has the two runs, fleet-a and fleet-b, measured by the package
  python3 - "$d/fleet/fleet.html" "$version" >"$d/py" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
j = json.loads(re.search(r'<script type="application/json" id="compare">(.*?)</script>', page, re.S).group(1))
print("inputs", [i["label"] for i in j["inputs"]], [i["path"].split("/")[-2:] for i in j["inputs"]])
bench = [r for r in j["rows"] if r["group"] == "llama-bench"]
print("rows", len(bench), all(len(r["cells"]) == 2 and all(c.get("present", True) and c["n"] >= 1 for c in r["cells"]) for r in bench))
print("tool", sorted({i["bundle"]["tool"]["version"] == sys.argv[2] for i in j["inputs"]}))
print("fits", len(re.findall(r"<td>fit line</td>", page)))
PY
  local py; py=$(cat "$d/py")
  expect "$1: the two runs, labelled by host" "$py" "^inputs \['fleet-a', 'fleet-b'\] \[\['fleet-a', 'bundle.json'\], \['fleet-b', 'bundle.json'\]\]$"
  expect "$1: 4 llama-bench rows (2 models x decode, prefill), present in both" "$py" "^rows 4 True$"
  expect "$1: measured by the package's llama-roofline $version" "$py" "^tool \[True\]$"
  expect "$1: a fitted line per host" "$py" "^fits 2$"
}
page_check "the page"

# ---- again, into the same directories: measured anew, the page rebuilt
before=$(stat -c %Y "$d/fleet/runs/fleet-a/bundle.json" 2>&1)
sleep 1
play "$d/play2.log"; check "the playbook a second time" 0 $? || tail -n 40 "$d/play2.log"
[ "$(stat -c %Y "$d/fleet/runs/fleet-a/bundle.json" 2>&1)" != "$before" ] && echo "ok   fleet-a measured anew" || fail "fleet-a's bundle was not fetched again"
page_check "the page again"
finish
