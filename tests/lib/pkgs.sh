# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # (SUDO, root_ok, pkgs_why: read by the tests)
# tests/lib/pkgs.sh: helpers of the end-to-end tests that install Debian packages or build the
# project's own (sourced, not run by ctest; tests/e2e/deb.sh, fleet_ansible.sh, fleet_slurm.sh).
#   need_pkgs PKG...         the packages installed, installing the missing ones with apt-get
#                            (root or sudo -n; scripts/deps.sh lists them); returns 1 with the
#                            reason in $pkgs_why when they cannot be installed (the test skips)
#   lock_retry CMD...        a dpkg/apt command as root ($SUDO), retried while another dpkg
#                            or apt holds the lock (at most 5 minutes)
#   deb_copy SRC DEST        the files git knows in SRC and the new ones it does not ignore,
#                            uncommitted changes included, copied to DEST (the tree is not
#                            written); SRC not a git checkout: all of it but build/
#   deb_build DIR            dpkg-buildpackage -b -us -uc in DIR (log: DIR/../build.log);
#                            prints the .deb built beside DIR
#   pkg_installed PKG        true when dpkg says PKG is installed
# SUDO is set to "" (root), "sudo -n" (passwordless sudo) or left unset with root_ok=0.
root_ok=1 SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else root_ok=0; fi
fi
pkgs_why=
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
lock_retry() {
  local out rc
  for _ in $(seq 60); do
    out=$($SUDO "$@" 2>&1); rc=$?
    grep -q 'lock' <<<"$out" && [ $rc != 0 ] || { printf '%s\n' "$out"; return $rc; }
    sleep 5
  done
  printf '%s\n' "$out"; return $rc
}
need_pkgs() {
  local p missing=()
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} = 0 ] && return 0
  if [ "$root_ok" = 0 ]; then
    pkgs_why="${missing[*]} not installed, and installing needs root or sudo without a password (scripts/deps.sh)"
    return 1
  fi
  echo "installing ${missing[*]} (scripts/deps.sh lists them)"
  if ! lock_retry env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null; then
    pkgs_why="apt-get install ${missing[*]} failed (no network or no such package here)"
    return 1
  fi
}
deb_copy() {
  mkdir -p "$2" || return 1
  if ! git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then # not a checkout
    # (scripts/mutants.sh's copy, an unpacked tarball): everything but the build trees
    tar -C "$1" --exclude=./build --exclude=./.git --exclude='./obj-*' -cf - . | tar -xf - -C "$2"
    return
  fi
  (cd "$1" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"; done | tar -cf - --null -T -) | tar -xf - -C "$2"
}
deb_build() {
  (cd "$1" && dpkg-buildpackage -b -us -uc -j2) >"$1/../build.log" 2>&1 || return 1
  ls "$1"/../llama-roofline_*_*.deb 2>/dev/null | head -n 1
}
