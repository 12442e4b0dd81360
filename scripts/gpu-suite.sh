#!/usr/bin/env bash
# The GPU run, on a machine with an NVIDIA GPU and the packages of scripts/bootstrap: native build
# with ninja (preset gpu: sm_90 and every kernel variant), the gpu label, the sanitizer label when
# asked, and the benchmark. Logs and a results draft go to $OUT (default out/gpu); the draft is what
# docs/results/gpu-YYYY-MM-DD.md is made from.
#   scripts/gpu-suite.sh [--labels "gpu sanitizer"] [--no-bench] [--jobs N] [--mutants "1 2"]
#                        [--dump-mutants "1 14"] [--fetch-order-ab] [--live-run] [--ist-marlin DIR] [--kit-ctest]
#                        [--perturb] [--upstream-mutants] [--vllm-marlin DIR]
#   --dump-mutants   also build these mutants' dump variants (tilecheck tiles --bisect on a broken build)
#   --fetch-order-ab time the upstream, swapped and hoisted libraries A/B/A/B (scripts/fetch-order-ab.py)
#   --live-run       `make run PRESET=gpu`: the main job, live, after the labels
#   --ist-marlin DIR build our adapter for upstream Marlin from DIR and run `tilecheck run` on it
#   --kit-ctest      register the misbehaving kit as external kernels: kit_gpu_tests (label gpu) then
#                    also checks ctest's verdict on each kit library's matrix processes
#   --perturb        the perturbation tier (docs/perturb.md): builds mutants 2 5 6 (and, as every run does, the
#                    delay variants) and, with --ist-marlin, upstream with both races fixed (f03); runs
#                    tilecheck perturb on each: clean ones 20 rounds a cell (expect 0 failures), the race
#                    mutants 64 rounds within 120 s (expect failures by their numbers), upstream's H1/H3 reported;
#                    logs and JSON in $OUT/perturb/. `--labels perturb` runs the ctest form as well
#   --upstream-mutants with --ist-marlin: build upstream's mutants (docs/mutation-upstream.md) and run the
#                    kill matrix on them (scripts/mutation-matrix.py --upstream --sanitizers needed);
#                    the table in $OUT/mutation-ist-marlin.md
#   --vllm-marlin DIR build our adapter for vLLM's Marlin from DIR (vLLM's files at their repository paths:
#                    docs/vllm-marlin.md), register both variants as external kernels and run, for each,
#                    its ctest processes (label gpu, and sanitizer when --labels has it) and `tilecheck run`
# The labels exclude external kernels' tests (*.tc_kit_*, *.tc_ist_marlin*, *.tc_vllm_marlin*): they run in their
# own steps.
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
ist_marlin=""
kit=0
perturb=0
upstream_mutants=""
vllm_marlin=""
while [ $# -gt 0 ]; do
  case $1 in
    --labels) labels=$2; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --mutants) mutants=$2; shift 2 ;;
    --dump-mutants) dump_mutants=$2; shift 2 ;;
    --fetch-order-ab) ab=1; shift ;;
    --live-run) live=1; shift ;;
    --ist-marlin) ist_marlin=$2; shift 2 ;;
    --kit-ctest) kit=1; shift ;;
    --perturb) perturb=1; shift ;;
    --upstream-mutants) upstream_mutants=all; shift ;;
    --vllm-marlin) vllm_marlin=$2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "gpu-suite: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$upstream_mutants" ] && [ -z "$ist_marlin" ]; then
  echo "gpu-suite: --upstream-mutants needs --ist-marlin DIR (upstream's checkout)" >&2; exit 2
fi
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
externals=""
if [ "$kit" = 1 ]; then
  for k in trap hang unsupported wrong_tile crash dirty_lock scratch_reader row_past_m; do externals="$externals;$PWD/build/gpu/kernel/libtc_kit_$k.so"; done
fi
vllm_variants=""
if [ -n "$vllm_marlin" ]; then  # both variants (plugins/vllm-marlin) join the suite as external kernels
  vllm_variants="tc_vllm_marlin tc_vllm_marlin_fp16_reduce"
  for v in $vllm_variants; do externals="$externals;$PWD/build/gpu/kernel/lib$v.so"; done
fi
fixes=""
if [ "$perturb" = 1 ]; then  # the race mutants; upstream with both races fixed
  for m in 2 5 6; do case " $mutants " in *" $m "*) ;; *) mutants="$mutants $m" ;; esac; done
  mutants=${mutants# }
  [ -n "$ist_marlin" ] && fixes="f03"
fi
cmake --preset gpu "-DTC_MUTANT_LIST=${mutants// /;}" "-DTC_DUMP_MUTANT_LIST=${dump_mutants// /;}" \
  "-DTC_IST_MARLIN_SRC=$ist_marlin" "-DTC_IST_MARLIN_FIXES=$fixes" "-DTC_IST_MARLIN_MUTANTS=$upstream_mutants" "-DTC_DELAY_VARIANTS=ON" \
  "-DTC_EXTERNAL_KERNELS=${externals#;}" "-DTC_VLLM_MARLIN_SRC=$vllm_marlin" \
  "-DTC_SANITIZER_SOURCE_DIRS=${vllm_marlin:+$vllm_marlin/csrc/quantization/marlin}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
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
  ctest --preset gpu -L "$label" -E '[.]tc_(kit_[a-z_]+|ist_marlin|vllm_marlin(_fp16_reduce)?)([.]|$)' -j "$jobs" --output-on-failure > "$out/ctest-$label.log" 2>&1 || status=1
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

if [ -n "$ist_marlin" ]; then  # upstream Marlin through tilecheck run (issue: foreign kernels)
  t=$(date +%s)
  build/gpu/cli/tilecheck run --kernel build/gpu/kernel/libtc_ist_marlin.so --json "$out/ist-marlin.json" \
    --errmaps "$out/ist-marlin-errmaps" > "$out/ist-marlin-run.txt" 2> "$out/ist-marlin-progress.txt"
  { echo; echo "## tilecheck run --kernel libtc_ist_marlin.so ($(seconds "$t") s)"; echo
    grep -E "^tilecheck run|cells:|^  (FAIL|FAULT|HANG|ERROR|n/a)" "$out/ist-marlin-run.txt" | head -30 | sed 's/^/    /'; } >> "$summary"
fi

for v in $vllm_variants; do  # vLLM's Marlin, each variant: its ctest processes, then tilecheck run (issue 28)
  vllm_labels=gpu
  case " $labels " in *" sanitizer "*) vllm_labels="gpu sanitizer" ;; esac
  for label in $vllm_labels; do
    t=$(date +%s)
    ctest --preset gpu -L "$label" -R "[.]$v([.]|\$)" -j "$jobs" --output-on-failure > "$out/ctest-$label-$v.log" 2>&1 || status=1
    { echo; echo "## ctest -L $label -R $v ($(seconds "$t") s wall)"; echo
      grep -E "tests passed|tests failed" "$out/ctest-$label-$v.log" | sed 's/^/    /'
      grep -cE "\(Skipped\)| Skipped " "$out/ctest-$label-$v.log" | sed 's/^/    skipped: /'
      grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)" "$out/ctest-$label-$v.log" | head -50 | sed 's/^/    /'
    } >> "$summary"
  done
  t=$(date +%s)
  build/gpu/cli/tilecheck run --kernel "build/gpu/kernel/lib$v.so" --json "$out/$v.json" --errmaps "$out/$v-errmaps" \
    > "$out/$v-run.txt" 2> "$out/$v-progress.txt" || status=1
  { echo; echo "## tilecheck run --kernel lib$v.so ($(seconds "$t") s)"; echo
    grep -E "^tilecheck run|cells:|^  (FAIL|FAULT|HANG|ERROR|n/a)" "$out/$v-run.txt" | head -30 | sed 's/^/    /'; } >> "$summary"
done

if [ "$perturb" = 1 ]; then  # the perturbation tier, library by library (docs/perturb.md)
  mkdir -p "$out/perturb"
  { echo; echo "## tilecheck perturb (reduced matrix; expected: clean 0 failing rounds, caught >= 1 cell FAIL)"; echo; } >> "$summary"
  upstream_filter='^(?!.*_m1n8k8g8_)'  # the configuration the compiler breaks (docs/case-study-ist-marlin-fault.md)
  # fail_cells <json> <regex>: how many cells whose name matches had a round fail by its numbers (FAIL)
  fail_cells() {
    python3 -c "import json,re,sys; d=json.load(open(sys.argv[1])); print(sum(1 for c in d['cells'] if 'FAIL' in c['failed_by'] and re.search(sys.argv[2], c['cell'])))" "$1" "$2" 2>/dev/null || echo 0
  }
  # perturb_step <name> <library> <clean|caught|report> [options...]
  perturb_step() {
    local name=$1 lib=$2 expect=$3; shift 3
    local t; t=$(date +%s)
    [ -f "$lib" ] || { echo "    $name: $lib was not built" >> "$summary"; status=1; return; }
    build/gpu/cli/tilecheck perturb --kernel "$lib" --json "$out/perturb/$name.json" --errmaps "$out/perturb/$name-errmaps" \
      "$@" > "$out/perturb/$name.txt" 2> "$out/perturb/$name-progress.txt"
    local code=$?
    local verdict="as expected" caught_cells
    [ "$expect" = report ] && verdict="reported (no expectation)"
    caught_cells=$(fail_cells "$out/perturb/$name.json" .)
    if { [ "$expect" = clean ] && [ $code != 0 ]; } || { [ "$expect" = caught ] && { [ $code != 1 ] || [ "${caught_cells:-0}" -lt 1 ]; }; }; then
      verdict="NOT AS EXPECTED (exit $code, $caught_cells cell(s) failed by FAIL)"; status=1
    fi
    { echo "    $name ($expect expected, $(seconds "$t") s wall): $verdict"
      grep -E "^perturb:" "$out/perturb/$name.txt" | sed 's/^/      /'
      grep -E "rounds failed \(" "$out/perturb/$name.txt" | head -8 | sed 's/^/      /'; } >> "$summary"
  }
  k=build/gpu/kernel
  perturb_step upstream $k/libtc_kernel_upstream.so clean --rounds 20 --time-budget 0
  perturb_step delay $k/libtc_kernel_delay.so clean --rounds 20 --time-budget 0
  # Each race mutant in the variant that opens it (docs/results/perturb-2026-12-01.md): 6 needs a lagging
  # warp (its delay variant), 2 a slow copy (64 rounds of noise).
  for m in mut02 mut05 mut06_delay; do
    perturb_step "$m" "$k/libtc_kernel_$m.so" caught --rounds 64 --time-budget 120
  done
  if [ -n "$vllm_marlin" ]; then  # vLLM's kernel with lagging warps (the delay kit): expected clean
    perturb_step vllm_marlin_delay $k/libtc_vllm_marlin_delay.so clean --rounds 20 --time-budget 120
  fi
  if [ -n "$ist_marlin" ]; then
    perturb_step ist_marlin_f03 $k/libtc_ist_marlin_f03.so clean --rounds 20 --time-budget 0 --filter "$upstream_filter"
    perturb_step ist_marlin_f03_delay $k/libtc_ist_marlin_f03_delay.so clean --rounds 20 --time-budget 0 --filter "$upstream_filter"
    # Unmodified upstream: H1 acts on m1n16k4g8 (a group over two k-tiles while the pipeline wraps), H3
    # on per-column cells. Under noise alone: reported; through the delay kit: expected caught.
    perturb_step ist_marlin $k/libtc_ist_marlin.so report --rounds 64 --time-budget 120 --filter "$upstream_filter"
    perturb_step ist_marlin_delay $k/libtc_ist_marlin_delay.so caught --rounds 64 --time-budget 120 --filter "$upstream_filter"
    for lib in ist_marlin ist_marlin_delay; do
      for race in "H1 _m1n16k4g8_" "H3 gcol_"; do
        set -- $race
        cells=$(fail_cells "$out/perturb/$lib.json" "$2")
        echo "    $lib: upstream's $1 in numbers: $cells cell(s) matching '$2' failed by FAIL" >> "$summary"
      done
    done
  fi
fi

if [ -n "$upstream_mutants" ] && [ -n "$ist_marlin" ]; then  # the kill matrix on upstream (issue 27, item 1)
  t=$(date +%s)
  python3 scripts/mutation-matrix.py --upstream --build build/gpu --jobs "$jobs" --sanitizers needed \
    --out "$out/mutation-ist-marlin.md" > "$out/mutation-ist-marlin.log" 2>&1 || status=1
  { echo; echo "## upstream kill matrix ($(seconds "$t") s): $out/mutation-ist-marlin.md"; echo
    grep -E "^mutation-matrix:|^\| (clean|u[0-9]+)" "$out/mutation-ist-marlin.log" | head -20 | sed 's/^/    /'; } >> "$summary"
fi

if [ "$ab" = 1 ]; then  # slice_count 1 (one block per tile column) and > 1 (blocks share columns)
  t=$(date +%s)
  python3 scripts/fetch-order-ab.py --build build/gpu > "$out/fetch-order-ab.txt" 2> "$out/fetch-order-ab.log" || status=1
  { echo; echo "## fetch-order A/B ($(seconds "$t") s)"; echo; sed 's/^/    /' "$out/fetch-order-ab.txt"; } >> "$summary"
fi

if [ "$live" = 1 ]; then
  t=$(date +%s)
  make run PRESET=gpu > "$out/run.txt" 2> "$out/run-progress.txt" || status=1
  { echo; echo "## make run PRESET=gpu ($(seconds "$t") s)"; echo; grep -E "^tilecheck run|cells:|^  (FAIL|FAULT|HANG|ERROR)" "$out/run.txt" | head -20 | sed 's/^/    /'; } >> "$summary"
fi

if [ "$bench" = 1 ]; then
  t=$(date +%s)
  build/gpu/cli/tilecheck bench > "$out/bench.txt" 2>&1 || status=1
  { echo; echo "## tilecheck bench ($(seconds "$t") s)"; echo; sed 's/^/    /' "$out/bench.txt"; } >> "$summary"
fi
cat "$summary"
exit $status
