#!/usr/bin/env bash
# The GPU run, on a machine with an NVIDIA GPU and the packages of scripts/bootstrap: native build
# with ninja (preset gpu: sm_90 and every kernel variant), the gpu label, the sanitizer label when
# asked, and the benchmark. Logs and a results draft go to $OUT (default out/gpu); the draft is what
# docs/results/gpu-YYYY-MM-DD.md is made from.
#   scripts/gpu-suite.sh [--labels "gpu sanitizer"] [--no-bench] [--jobs N] [--mutants "1 2"]
#                        [--dump-mutants "1 14"] [--fetch-order-ab] [--live-run]
#   --dump-mutants   also build these mutants' dump variants (tilecheck tiles --bisect on a broken build)
#   --fetch-order-ab time the upstream, swapped and hoisted libraries A/B/A/B (scripts/fetch-order-ab.py)
#   --live-run       `make run PRESET=gpu`: the main job, live, after the labels
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu}
labels="gpu"
bench=1
jobs=4
mutants=""
dump_mutants=""
ab=0
live=0
while [ $# -gt 0 ]; do
  case $1 in
    --labels) labels=$2; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --mutants) mutants=$2; shift 2 ;;
    --dump-mutants) dump_mutants=$2; shift 2 ;;
    --fetch-order-ab) ab=1; shift ;;
    --live-run) live=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "gpu-suite: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
summary="$out/summary.md"
commit=${TC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
{
  echo "# GPU run $(date -u +%Y-%m-%d)"
  echo
  echo "- device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1)"
  echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "- CUDA: $(nvcc --version | grep -o 'release [0-9.]*' | head -1)"
  echo "- commit: $commit"
  echo "- host: $(nproc) cores, $(cmake --version | head -1)"
} > "$summary"

seconds() { echo $(( $(date +%s) - $1 )); }
t0=$(date +%s)
cmake --preset gpu "-DTC_MUTANT_LIST=${mutants// /;}" "-DTC_DUMP_MUTANT_LIST=${dump_mutants// /;}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
status=0
if ! cmake --build --preset gpu -- -k 0 > "$out/build.log" 2>&1; then  # keep going: test what built
  status=1
  { echo "- BUILD FAILED:"; grep -E "error|FAILED" "$out/build.log" | head -20 | sed 's/^/    /'; } >> "$summary"
fi
echo "- build (configure + ninja): $(seconds "$t0") s" >> "$summary"
t=$(date +%s)  # the large on-demand fixtures, made once before the tests that load them
build/gpu/cli/tilecheck golden regenerate --all > "$out/golden.log" 2>&1 || status=1
echo "- golden regenerate --all (large fixtures): $(seconds "$t") s" >> "$summary"

for label in $labels; do
  t=$(date +%s)
  ctest --preset gpu -L "$label" -j "$jobs" --output-on-failure > "$out/ctest-$label.log" 2>&1 || status=1
  {
    echo
    echo "## ctest -L $label ($(seconds "$t") s wall)"
    echo
    grep -E "tests passed|tests failed" "$out/ctest-$label.log" | sed 's/^/    /'
    grep -cE "\(Skipped\)| Skipped " "$out/ctest-$label.log" | sed 's/^/    skipped: /'
    grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)" "$out/ctest-$label.log" | head -50 | sed 's/^/    /'
  } >> "$summary"
  if [ "$label" = mutation ] && [ -f build/gpu/mutation.md ]; then  # the kill matrix, for docs/results/
    cp build/gpu/mutation.md "$out/mutation.md"
    echo "    kill matrix: $out/mutation.md" >> "$summary"
  fi
done

if [ "$ab" = 1 ]; then  # slice_count 1 (one block per tile column) and > 1 (blocks share columns)
  t=$(date +%s)
  python3 scripts/fetch-order-ab.py --build build/gpu > "$out/fetch-order-ab.txt" 2> "$out/fetch-order-ab.log" || status=1
  { echo; echo "## fetch-order A/B ($(seconds "$t") s)"; echo; sed 's/^/    /' "$out/fetch-order-ab.txt"; } >> "$summary"
fi

if [ "$live" = 1 ]; then
  t=$(date +%s)
  make run PRESET=gpu > "$out/run.txt" 2> "$out/run-progress.txt" || status=1
  { echo; echo "## make run PRESET=gpu ($(seconds "$t") s)"; echo; grep -E "^tilecheck run|cells:|^  (FAIL|FAULT|ERROR)" "$out/run.txt" | head -20 | sed 's/^/    /'; } >> "$summary"
fi

if [ "$bench" = 1 ]; then
  t=$(date +%s)
  build/gpu/cli/tilecheck bench > "$out/bench.txt" 2>&1 || status=1
  { echo; echo "## tilecheck bench ($(seconds "$t") s)"; echo; sed 's/^/    /' "$out/bench.txt"; } >> "$summary"
fi
cat "$summary"
exit $status
