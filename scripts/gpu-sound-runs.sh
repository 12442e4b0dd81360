#!/usr/bin/env bash
# Sound runs on a GPU machine (issue: judge any kernel soundly and finish every run), after
# `cmake --build --preset gpu` with the kit built (it always is) and, for the upstream steps, the
# ist-marlin adapter (-DTC_IST_MARLIN_SRC):
#   1. our kernel's live run of the whole matrix, timed (the 1.2 x bar against 19 s for 8,264 cells);
#   2. each kit library over the whole committed matrix, timed, with its counts;
#   3. a run of our kernel on 2 judging threads interrupted with SIGINT after --interrupt-after seconds
#      (default 60), then `--resume` on 16: the merged counts against run 1's;
#   4. with --ist-marlin: upstream through `tilecheck run` (no numerics declared for the workspace:
#      all locks) and the racecheck tier on it, one process per configuration, every record named.
# Logs and JSON files go to $OUT (default out/sound); summary.md holds the numbers.
#   scripts/gpu-sound-runs.sh [--build build/gpu] [--interrupt-after S] [--ist-marlin] [--no-kit]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/sound}
build=build/gpu
after=60
ist=0
kit=1
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --interrupt-after) after=$2; shift 2 ;;
    --ist-marlin) ist=1; shift ;;
    --no-kit) kit=0; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "gpu-sound-runs: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
tc=$build/cli/tilecheck
summary="$out/summary.md"
status=0
counts() {  # the counts line of a run's --json
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(f"{k}={d.get(k)}" for k in ("pass","fail","fault","hang","n/a","error","not run")), "complete=%s" % d.get("complete"), "cells=%d" % len(d["cells"]))' "$1"
}
timed() {  # timed <name> <command...>: runs it, prints "<name>: <seconds> s, exit <code>"
  local name=$1; shift
  local t=$(date +%s.%N)
  "$@"
  local code=$?
  printf '%s: %s s, exit %d\n' "$name" "$(python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t" "$(date +%s.%N)")" "$code"
}
{
  echo "# Sound runs $(date -u +%Y-%m-%d)"
  echo
  echo "- device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "- commit: ${TC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "- host: $(nproc) cores"
  echo
  echo "## 1. our kernel, whole matrix"
  timed "tilecheck run" "$tc" run --errmaps '' --json "$out/ours.json" > "$out/ours.txt" 2> "$out/ours.err"
  counts "$out/ours.json"
} >> "$summary" 2>&1

if [ "$kit" = 1 ]; then
  echo -e "\n## 2. kit libraries, whole committed matrix" >> "$summary"
  total=$(date +%s)
  for lib in "$build"/kernel/libtc_kit_*.so; do
    k=$(basename "$lib" .so)
    { timed "$k" "$tc" run --kernel "$lib" --committed --cell-timeout 10 --errmaps '' --json "$out/$k.json" \
        > "$out/$k.txt" 2> "$out/$k.err"; counts "$out/$k.json"; } >> "$summary" 2>&1
  done
  echo "all kit libraries: $(( $(date +%s) - total )) s" >> "$summary"
fi

{
  echo -e "\n## 3. interrupted after ${after} s (2 judging threads), then --resume (16)"
  timed "interrupted run" timeout --preserve-status -s INT "$after" "$tc" run --threads 2 --errmaps '' \
    --json "$out/interrupted.json" > "$out/interrupted.txt" 2> "$out/interrupted.err"
  grep -E "interrupted|cells:" "$out/interrupted.txt"
  tail -3 "$out/interrupted.err"
  counts "$out/interrupted.json"
  cp "$out/interrupted.json" "$out/interrupted-at-stop.json"
  timed "resumed run" "$tc" run --errmaps '' --resume "$out/interrupted.json" > "$out/resumed.txt" 2> "$out/resumed.err"
  grep -E "resuming|cells:" "$out/resumed.txt"
  echo "merged:        $(counts "$out/interrupted.json")"
  echo "uninterrupted: $(counts "$out/ours.json")"
} >> "$summary" 2>&1

if [ "$ist" = 1 ]; then
  {
    echo -e "\n## 4. upstream IST Marlin"
    timed "tilecheck run (ist-marlin)" "$tc" run --kernel "$build/kernel/libtc_ist_marlin.so" --errmaps '' \
      --json "$out/ist.json" > "$out/ist.txt" 2> "$out/ist.err"
    counts "$out/ist.json"
    grep -E "^bounds for|^  n/a" "$out/ist.txt" | head -8
    timed "racecheck tier (ist-marlin, per configuration)" python3 tests/sanitizer/run_sanitizer.py --tool racecheck \
      --per-config --allow-na --jobs 4 --suite "$build/tests/suite/suite_gpu_tests" \
      --kernel "$build/kernel/libtc_ist_marlin.so" --allowlist tests/sanitizer/allowlist.txt \
      --source-dir "$(sed -n 's/^TC_IST_MARLIN_SRC:PATH=//p' "$build/CMakeCache.txt")" \
      --log "$out/racecheck-ist.log" --timeout 580 > "$out/racecheck-ist.txt" 2>&1
    tail -80 "$out/racecheck-ist.txt"
  } >> "$summary" 2>&1
fi
{ echo; echo "kernel messages (last 5):"; dmesg 2>/dev/null | tail -5; } >> "$summary"
cat "$summary"
exit $status
