#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/fleet/slurm/submit.sh: queue a llama-roofline fleet measurement on Slurm
# (docs/FLEET.md): an array of N tasks of measure.sbatch, one exclusive node each, then
# gather.sbatch with --dependency=afterok on the whole array, which builds the fleet page.
#   submit.sh FLEET_DIR N [SBATCH_OPTION...]
# FLEET_DIR: a directory on a file system every node mounts at the same path (made if
# missing): runs/NODE/ gets each node's bundle, fleet.html and fleet.md the page, logs/ the
# jobs' output. N: how many nodes to measure (e.g. `sinfo -h -p PART -o %D` for a whole
# partition). The SBATCH_OPTIONs go to both jobs (e.g. -p PART, --time=02:00:00, -A ACCOUNT).
# The environment is exported to the jobs: RL_FLEET_BIN, RL_FLEET_MEASURE, RL_FLEET_NAME,
# RL_FLEET_COMPARE (see measure.sbatch and gather.sbatch). Prints the two job ids, array
# first. Exit: 0 queued, 2 bad usage, else sbatch's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: submit.sh FLEET_DIR N [SBATCH_OPTION...] (N: how many nodes, 1 or more)" >&2
  exit 2
fi
dir=$1 n=$2; shift 2
mkdir -p "$dir/runs" "$dir/logs"
dir=$(cd "$dir" && pwd)
export RL_FLEET_DIR="$dir"
array=$(sbatch --parsable --export=ALL --chdir="$dir" --array="0-$((n - 1))" \
  --output="$dir/logs/%x-%A_%a.out" "$@" "$here/measure.sbatch")
array=${array%%;*} # --parsable prints "id" or "id;cluster"
page=$(sbatch --parsable --export=ALL --chdir="$dir" --dependency="afterok:$array" \
  --kill-on-invalid-dep=yes --output="$dir/logs/%x-%j.out" "$@" "$here/gather.sbatch")
page=${page%%;*}
echo "$array"
echo "$page"
echo "submit.sh: array job $array ($n nodes), then the page job $page: $dir/fleet.html" >&2
