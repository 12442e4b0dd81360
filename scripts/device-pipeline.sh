#!/usr/bin/env bash
# A GPU session's pipeline on the lent H200, run across several device calls: the first call starts it
# detached (setsid: a call's end kills its own process group, and the pipeline must outlive it), every
# call waits for it up to SECONDS and sends back the log and a tarball of the results. Each call copies
# the working tree onto the device again: a step that reads the tree (the label's ctest) must not be
# running when the next call starts (s22: 5 tests lost fixtures/catalogue.txt mid-run).
#   scripts/device-pipeline.sh poll SECONDS [STEP ...]    default steps: build ours vllm kill bench label
#   (also: makerun, vctest, vkill, perturb, race)
#   scripts/device-pipeline.sh --help
# Steps (each logs its lines to summary.txt; the bench skips the points left at DEADLINE):
#   build    configure the gpu preset with the peers and every mutant (ours, vLLM's), build all, golden regenerate --all
#   vbuild   instead of build: the gpu preset with the peers, no mutants; tilecheck, vLLM's two libraries, the GPU suite
#   mbuild   instead of build: the gpu preset with our mutants only (no peers), build all, golden regenerate --all
#   ours     tilecheck run on our kernel (every format it lists)
#   makerun  `make run PRESET=gpu` in a copy of the tree without build/, .peers/ or .venv/ (a new user's path)
#   vllm     tilecheck run on both vLLM variants at once (8 judging threads each); VLLM_VARIANTS picks them
#   vctest   the vLLM variants' ctest processes (label gpu)
#   kill     our kill matrix (scripts/mutation-matrix.py), every mutant of kernel/src/variants.h
#   vkill    the kill matrix of vLLM's mutants (docs/mutation-vllm.md) against its clean adapter
#   perturb  tilecheck perturb on our kernel, 20 rounds a cell, 120 s (every format it lists)
#   race     racecheck on vLLM, one configuration per process, 2 configurations (source lines), beside vllm;
#            RACE_FILTER narrows its gtest filter (default: every cell of m1n8k8g8 and m1n8k8gcol)
#   bench    three kernels, marlin contract, each on its own choice (3 shapes x 5 M x 2 groups)
#   trace    the steady label on the default build, sampled (scripts/sample-processes.sh, read by
#            scripts/label-timeline.py): once per word of TRACE_VARIANTS ("all", or a ctest -E regex)
#   hangcost a matrix process and a smoke process alone, then beside a kit kernel that hangs
#   ctx      CUDA start-up when many processes start at once: cudaFree(0) (a context), then cudaGetDeviceCount
#            (the driver only), timed in 1, 4, 16 and 32 processes
#   label    a default GPU build (build/plain) and ctest -L gpu -j 16 on it, output on failure (the first
#            run makes the on-demand cases), again (steady state) if time is left, with each run's CPU;
#            then the LABEL_VARIANTS runs; then a matrix process (each cell's time), a smoke process
#            and KitInterruption, each alone and timed
# Environment: PEERS (default .peers: ist-marlin/marlin/ and vllm/ as docs/vllm-marlin.md lists),
# LABEL_VARIANTS (label step: more runs, e.g. "slots=8 OMP_NUM_THREADS=2"; see the step),
# TRACE_VARIANTS (trace step; default "all"),
# OUTDIR (default /tmp/tc-pipeline), DEADLINE (seconds from the start; default 1500), $OUT (the device
# tool's folder for files sent back). The peers' files are never written into the repository.
set -uo pipefail
cd "$(dirname "$0")/.."
R=$PWD
O=${OUTDIR:-/tmp/tc-pipeline}
PEERS=$(realpath -m "${PEERS:-.peers}")
mode=${1:-}
case $mode in
  -h|--help|"") sed -n '2,/^set -uo/p' "$0" | grep '^#' | cut -c3-; exit 0 ;;
  poll) ;;
  pipeline) ;;
  *) echo "device-pipeline: unknown mode '$mode' (expected poll or --help)" >&2; exit 2 ;;
esac

if [ "$mode" = poll ]; then
  wait_s=${2:?"device-pipeline: poll needs SECONDS"}
  shift 2
  mkdir -p "$O"
  if [ ! -f "$O/pid" ]; then
    setsid nohup bash "$R/scripts/device-pipeline.sh" pipeline "$@" > "$O/pipeline.out" 2>&1 < /dev/null &
    echo $! > "$O/pid"
  fi
  end=$(( $(date +%s) + wait_s ))
  while kill -0 "$(cat "$O/pid")" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 5; done
  kill -0 "$(cat "$O/pid")" 2>/dev/null && echo "STILL RUNNING" || echo "PIPELINE DONE"
  tail -40 "$O/summary.txt" 2>/dev/null
  if [ -n "${OUT:-}" ]; then  # the device tool sends back at most 8 files
    cp "$O/summary.txt" "$OUT/" 2>/dev/null
    tar -C "$(dirname "$O")" -czf "$OUT/pipeline.tgz" --exclude='*.raw.log' "$(basename "$O")"
  fi
  exit 0
fi

shift
steps=${*:-build ours vllm kill bench label}
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
DEADLINE=${DEADLINE:-1500}
B=build/gpu
K=$B/kernel
TC=$B/cli/tilecheck
log() { echo "[+$(( $(date +%s) - T0 ))s $(date +%T)] $*" >> "$O/summary.txt"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
has() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
since() { echo $(( $(date +%s) - $1 )); }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nvcc --version | grep -o 'release [0-9.]*'); $(nproc) cores; tree $(git rev-parse --short HEAD 2>/dev/null) + $(git status --short | wc -l) changed; steps: $steps"

if has build; then
  max=$(grep -oE '= [0-9]+,' kernel/src/variants.h | grep -oE '[0-9]+' | sort -n | tail -1)
  ext="$R/$K/libtc_vllm_marlin.so;$R/$K/libtc_vllm_marlin_fp16_reduce.so"
  cmake --preset gpu "-DTC_MUTANT_LIST=$(seq -s';' 1 "$max")" "-DTC_IST_MARLIN_SRC=$PEERS/ist-marlin/marlin" \
    "-DTC_VLLM_MARLIN_SRC=$PEERS/vllm" -DTC_VLLM_MARLIN_MUTANTS=all -DTC_DELAY_VARIANTS=OFF "-DTC_EXTERNAL_KERNELS=$ext" \
    "-DTC_SANITIZER_SOURCE_DIRS=$PEERS/vllm/csrc/quantization/marlin" > "$O/configure.log" 2>&1
  log "configure (mutants 1-$max) exit $?"
  t=$(date +%s); cmake --build $B --target tilecheck tc_kernel_upstream > "$O/build1.log" 2>&1
  log "build tilecheck + our kernel exit $? ($(since "$t") s)"
  ( $TC golden regenerate --all > "$O/golden.log" 2>&1; echo "golden regenerate --all exit $?" > "$O/golden.done" ) &
  gpid=$!
  t=$(date +%s); cmake --build $B -- -k 0 > "$O/build-all.log" 2>&1; log "build all exit $? ($(since "$t") s)"
  grep -E "warning|error" "$O/build-all.log" | grep -v "^\[" | sort | uniq -c | sort -rn | head -10 >> "$O/summary.txt"
  wait $gpid; log "$(cat "$O/golden.done")"
fi

if has mbuild; then  # what our kill matrix needs, without the peers
  max=$(grep -oE '= [0-9]+,' kernel/src/variants.h | grep -oE '[0-9]+' | sort -n | tail -1)
  cmake --preset gpu "-DTC_MUTANT_LIST=$(seq -s';' 1 "$max")" -DTC_DELAY_VARIANTS=OFF > "$O/configure.log" 2>&1
  log "configure (mutants 1-$max, no peers) exit $?"
  t=$(date +%s); cmake --build $B -- -k 0 > "$O/build-all.log" 2>&1; log "build all exit $? ($(since "$t") s)"
  grep -E "warning|error" "$O/build-all.log" | grep -v "^\[" | sort | uniq -c | sort -rn | head -10 >> "$O/summary.txt"
  t=$(date +%s); $TC golden regenerate --all > "$O/golden.log" 2>&1; log "golden regenerate --all exit $? ($(since "$t") s)"
fi

if has vbuild; then  # the least that judges vLLM's libraries and races them
  cmake --preset gpu "-DTC_IST_MARLIN_SRC=$PEERS/ist-marlin/marlin" "-DTC_VLLM_MARLIN_SRC=$PEERS/vllm" \
    -DTC_DELAY_VARIANTS=OFF "-DTC_EXTERNAL_KERNELS=$R/$K/libtc_vllm_marlin.so;$R/$K/libtc_vllm_marlin_fp16_reduce.so" \
    "-DTC_SANITIZER_SOURCE_DIRS=$PEERS/vllm/csrc/quantization/marlin" > "$O/configure.log" 2>&1
  log "configure (no mutants) exit $?"
  t=$(date +%s); cmake --build $B --target tilecheck tc_vllm_marlin tc_vllm_marlin_fp16_reduce suite_gpu_tests > "$O/build1.log" 2>&1
  log "build tilecheck, vLLM's libraries, suite_gpu_tests exit $? ($(since "$t") s)"
  t=$(date +%s); $TC golden regenerate --all > "$O/golden.log" 2>&1; log "golden regenerate --all exit $? ($(since "$t") s)"
fi

if has label || has trace || has hangcost; then  # the default build beside the rest; its label runs at the end, alone
  ( cmake --preset default -B build/plain -DCMAKE_CUDA_ARCHITECTURES=90 > "$O/plain-configure.log" 2>&1 &&
    nice cmake --build build/plain > "$O/plain-build.log" 2>&1; echo "default build exit $?" > "$O/plain.done" ) &
  ppid=$!
fi

if has makerun; then  # what README tells a user with a GPU, from a tree that was never built
  t=$(date +%s); rm -rf /tmp/tc-clean && mkdir -p /tmp/tc-clean
  tar --exclude=./build --exclude=./.peers --exclude=./.venv -cf - . | tar -C /tmp/tc-clean -xf -
  ( cd /tmp/tc-clean && make run PRESET=gpu ) > "$O/make-run-gpu.log" 2>&1
  log "make run PRESET=gpu (clean copy) exit $? ($(since "$t") s): $(grep -E '^[0-9]+ cells:' "$O/make-run-gpu.log")"
  grep -iE "bootstrap|error" "$O/make-run-gpu.log" | head -5 >> "$O/summary.txt"
fi

if has ours; then
  t=$(date +%s); $TC run --kernel $K/libtc_kernel_upstream.so --json "$O/run-ours.json" > "$O/run-ours.txt" 2> "$O/run-ours.progress"
  log "run ours exit $? ($(since "$t") s): $(grep -E '^[0-9]+ cells:' "$O/run-ours.txt")"
  grep -E "^  (FAIL|FAULT|HANG|ERROR)" "$O/run-ours.txt" | head -10 >> "$O/summary.txt"
fi

if has kill; then
  ( t=$(date +%s); python3 scripts/mutation-matrix.py --build $B --jobs 8 --sanitizers needed --out "$O/kill-matrix-ours.md" > "$O/kill-matrix-ours.log" 2>&1
    log "kill matrix ours exit $? ($(since "$t") s)"; grep -E "^\| (clean|[0-9]+ )" "$O/kill-matrix-ours.log" >> "$O/summary.txt" ) &
  kpid=$!
fi

if has race && [ "$(left)" -gt 400 ]; then  # two configurations, one process each, beside the vLLM runs (the
  # sanitizer is slow on the GPU, not on the cores); every distinct pair of lines
  ( t=$(date +%s)
  timeout 400 python3 tests/sanitizer/run_sanitizer.py --tool racecheck --suite $B/tests/suite/suite_gpu_tests \
    --kernel $K/libtc_vllm_marlin.so --per-config --jobs 2 --allow-na --timeout 380 \
    --filter "${RACE_FILTER:-Sanitize/*_m1n8k8g8_*:Sanitize/*_m1n8k8gcol_*}" --log "$O/racecheck-vllm.log" \
    --source-dir "$PEERS/vllm/csrc/quantization/marlin" --allowlist tests/sanitizer/allowlist.txt > "$O/racecheck-vllm.txt" 2>&1
  log "racecheck vLLM (m1n8k8g8, m1n8k8gcol) exit $? ($(since "$t") s)"
  tail -20 "$O/racecheck-vllm.txt" >> "$O/summary.txt" ) &
  rpid=$!
fi

if has vllm; then  # both variants at once: the GPU has room, the 16 cores judge for both
  vpids=()
  for v in ${VLLM_VARIANTS:-tc_vllm_marlin tc_vllm_marlin_fp16_reduce}; do
    ( t=$(date +%s); $TC run --kernel "$K/lib$v.so" --threads 8 --json "$O/run-$v.json" > "$O/run-$v.txt" 2> "$O/run-$v.progress"
      log "run $v exit $? ($(since "$t") s): $(grep -E '^[0-9]+ cells:' "$O/run-$v.txt")"
      python3 scripts/run-by-config.py "$O/run-$v.json" > "$O/run-$v-by-config.md" 2>&1 ) &
    vpids+=($!)
  done
  wait "${vpids[@]}"
fi

if has vctest; then
  t=$(date +%s)
  ctest --preset gpu -L gpu -R '[.]tc_vllm_marlin(_fp16_reduce)?([.]|$)' -j 12 --output-on-failure > "$O/ctest-vllm.log" 2>&1
  log "ctest -L gpu vLLM exit $? ($(since "$t") s): $(grep -E 'tests passed|tests failed' "$O/ctest-vllm.log")"
fi

if has perturb && [ "$(left)" -gt 300 ]; then  # every format our kernel lists, under noise: expected clean
  t=$(date +%s); $TC perturb --kernel $K/libtc_kernel_upstream.so --rounds 20 --time-budget 120 --json "$O/perturb-ours.json" \
    > "$O/perturb-ours.txt" 2> "$O/perturb-ours.progress"
  log "perturb ours exit $? ($(since "$t") s): $(grep -E '^perturb:' "$O/perturb-ours.txt")"
fi

if has vkill; then  # vLLM's mutants (plugins/vllm-marlin/mutants.txt) against the clean adapter
  t=$(date +%s); python3 scripts/mutation-matrix.py --vllm --build $B --jobs 4 --out "$O/kill-matrix-vllm.md" > "$O/kill-matrix-vllm.log" 2>&1
  log "kill matrix vLLM exit $? ($(since "$t") s)"; grep -E "^\| (clean|control|v[0-9]+ )" "$O/kill-matrix-vllm.log" >> "$O/summary.txt"
fi

[ -n "${kpid:-}" ] && wait "$kpid"
[ -n "${rpid:-}" ] && wait "$rpid"

if has label; then
  wait "$ppid"; log "$(cat "$O/plain.done")"
  export OMP_NUM_THREADS=1  # as the test presets do: ctest runs 16 processes side by side
  TIMEFORMAT='%R s wall, %U s user, %S s sys'  # bash's `time`: the CPU of every process it waited for
  t=$(date +%s); { time ctest --test-dir build/plain -L gpu -j 16 --output-on-failure > "$O/ctest-gpu-plain.log" 2>&1; } 2> "$O/ctest-gpu-plain.time"
  log "ctest -L gpu (default build, first run) ($(since "$t") s; $(cat "$O/ctest-gpu-plain.time")): $(grep -E 'tests passed|tests failed' "$O/ctest-gpu-plain.log")"
  if [ "$(left)" -gt 200 ]; then  # the on-demand cases are made now: what every later run takes
    t=$(date +%s); { time ctest --test-dir build/plain -L gpu -j 16 --output-on-failure > "$O/ctest-gpu-plain-2.log" 2>&1; } 2> "$O/ctest-gpu-plain-2.time"
    log "ctest -L gpu (default build, again) ($(since "$t") s; $(cat "$O/ctest-gpu-plain-2.time")): $(grep -E 'tests passed|tests failed' "$O/ctest-gpu-plain-2.log")"
  fi
  # Variants of the steady run (LABEL_VARIANTS, e.g. "MALLOC_MMAP_MAX_=0,MALLOC_TRIM_THRESHOLD_=1e12
  # OMP_NUM_THREADS=2"): one run per word, its comma-separated settings in the environment; or
  # slots=S, a resource spec that lets S GPU processes run at once.
  for variant in ${LABEL_VARIANTS:-}; do
    [ "$(left)" -gt 150 ] || { log "label variant $variant: skipped (deadline)"; continue; }
    tag=$(echo "$variant" | tr -c 'A-Za-z0-9\n' '_')
    spec=()  # slots=S: the GPU processes limited to S at once (scripts/gpu-resource-spec.sh)
    case $variant in slots=*) scripts/gpu-resource-spec.sh --slots "${variant#slots=}" "$O/spec.json" > /dev/null
                              spec=(--resource-spec-file "$O/spec.json"); variant=OMP_NUM_THREADS=1 ;; esac
    t=$(date +%s); { time env ${variant//,/ } ctest --test-dir build/plain -L gpu -j 16 "${spec[@]}" --output-on-failure > "$O/ctest-gpu-$tag.log" 2>&1; } 2> "$O/ctest-gpu-$tag.time"
    log "ctest -L gpu with $tag ($(since "$t") s; $(cat "$O/ctest-gpu-$tag.time")): $(grep -E 'tests passed|tests failed' "$O/ctest-gpu-$tag.log")"
  done
  # Where single processes spend their time, alone: the label's longest matrix process with each
  # cell's milliseconds (a case's first cell carries its load and upload), a smoke process, the kit.
  kernel_lib=$R/build/plain/kernel/libtc_kernel_upstream.so
  for probe in "suite-m4n16k4gcol|tests/suite|suite_gpu_tests --gtest_filter=Catalogue/*_m4n16k4gcol_*" \
               "smoke-m4n16k4gcol|tests/kernel|kernel_smoke_gpu_tests --gtest_filter=AllConfigs/KernelSmoke.*/m4n16k4gcol_*" \
               "kit-interruption|tests/plugins|kit_gpu_tests --gtest_filter=KitInterruption.*" \
               "kit-run-hang|tests/plugins|kit_gpu_tests --gtest_filter=Kit/KitRun.*/kit_hang"; do
    IFS='|' read -r name dir cmd <<< "$probe"
    cmd="$R/build/plain/$dir/$cmd"
    { time (cd "$R/build/plain/$dir" && TC_KERNEL=$kernel_lib $cmd > "$O/alone-$name.log" 2>&1); } 2> "$O/alone-$name.time"
    log "$name alone: $(cat "$O/alone-$name.time"); $(grep -E '^\[  (PASSED|FAILED)' "$O/alone-$name.log" | head -2 | tr '\n' ' ')"
  done
  dmesg 2>&1 | grep -iE "killed process|out of memory|oom" | tail -5 >> "$O/summary.txt"
fi

if has bench; then
  t=$(date +%s); mkdir -p "$O/bench"
  for s in "4096 4096" "8192 8192" "8192 28672"; do
    set -- $s
    for m in 1 16 32 64 128; do
      for g in 128 -1; do
        [ "$(left)" -lt 60 ] && { echo "K$1 N$2 M$m g$g: skipped (deadline)" >> "$O/bench/exits.txt"; continue; }
        timeout 100 $TC bench --kernel $K/libtc_kernel_upstream.so --kernel $K/libtc_ist_marlin.so \
          --kernel $K/libtc_vllm_marlin_fp16_reduce.so --config auto --group "$g" -M "$m" -K "$1" -N "$2" \
          --contract marlin --rounds 3 --config-timeout 30 > "$O/bench/k$1n$2m${m}g$g.txt" 2>&1
        echo "K$1 N$2 M$m g$g: exit $?" >> "$O/bench/exits.txt"
      done
    done
  done
  log "three-kernel bench ($(since "$t") s)"
fi
plain_cases() {  # the default build's on-demand cases, made once (what the label's first run would do)
  [ -f "$O/plain-golden.done" ] && return
  wait "$ppid"; log "$(cat "$O/plain.done")"
  t=$(date +%s); build/plain/cli/tilecheck golden regenerate --all --keep-manifest > "$O/plain-golden.log" 2>&1
  log "golden regenerate --all (default build) exit $? ($(since "$t") s)"; touch "$O/plain-golden.done"
}
if has hangcost; then  # what a kernel that hangs costs the GPU processes beside it
  plain_cases
  TIMEFORMAT='%R s wall, %U s user, %S s sys'
  P=$R/build/plain
  hang=("$P/cli/tilecheck" tiles --kernel "$P/kernel/libtc_kit_hang.so" --case constant_m16_n256_k128_g128_marlin
        --config m2n16k4g8 --sms 3 --cell-timeout 60)
  for beside in alone hang; do
    if [ $beside = hang ]; then "${hang[@]}" > "$O/hangcost-hang.log" 2>&1 & hpid=$!; sleep 4; fi
    for probe in "suite|tests/suite|suite_gpu_tests --gtest_filter=Catalogue/*_m4n16k4gcol_*" \
                 "smoke|tests/kernel|kernel_smoke_gpu_tests --gtest_filter=AllConfigs/KernelSmoke.*/m4n16k4gcol_*"; do
      IFS='|' read -r name dir cmd <<< "$probe"
      { time (cd "$P/$dir" && TC_KERNEL=$P/kernel/libtc_kernel_upstream.so $P/$dir/$cmd > "$O/hangcost-$name-$beside.log" 2>&1); } 2> "$O/hangcost-$name-$beside.time"
      log "hangcost: $name $beside: $(cat "$O/hangcost-$name-$beside.time"); $(grep -E '^\[  (PASSED|FAILED)' "$O/hangcost-$name-$beside.log" | head -1)"
    done
    [ $beside = hang ] && { kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null; }
  done
fi
if has trace; then  # the label's timeline: which processes ran when, and the CPU over time
  plain_cases
  export OMP_NUM_THREADS=1
  TIMEFORMAT='%R s wall, %U s user, %S s sys'
  i=0
  for variant in ${TRACE_VARIANTS:-all}; do
    [ "$(left)" -gt 120 ] || { log "trace $variant: skipped (deadline)"; continue; }
    i=$((i + 1)); tag=$i-$(echo "$variant" | tr -c 'A-Za-z0-9\n' '_'); args=()
    [ "$variant" = all ] || args=(-E "$variant")
    scripts/sample-processes.sh 'build/plain|tilecheck|python' "$O/trace-$tag.samples" & spid=$!
    t=$(date +%s); { time ctest --test-dir build/plain -L gpu -j 16 "${args[@]}" --output-on-failure > "$O/trace-$tag.log" 2>&1; } 2> "$O/trace-$tag.time"
    kill "$spid"; wait "$spid" 2>/dev/null
    log "trace $variant ($(since "$t") s; $(cat "$O/trace-$tag.time")): $(grep -E 'tests passed|tests failed' "$O/trace-$tag.log")"
  done
fi
if has ctx; then  # does CUDA start-up serialise across processes? (each GPU test process pays it)
  printf '%s\n' '#include <chrono>' '#include <cstdio>' '#include <cuda_runtime.h>' \
    'int main(int argc, char**) { const auto t0 = std::chrono::steady_clock::now(); int n = 0;' \
    '  if (argc > 1) cudaGetDeviceCount(&n); else cudaFree(0);' \
    '  std::printf("%.3f\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()); }' > "$O/ctx.cu"
  nvcc -O2 -o "$O/ctx" "$O/ctx.cu" > "$O/ctx-build.log" 2>&1 || log "ctx: nvcc failed"
  for probe in "cudaFree(0)|" "cudaGetDeviceCount|count"; do  # a context, or the driver's start only
    IFS='|' read -r what arg <<< "$probe"
    for n in 1 1 4 16 32; do
      t=$(date +%s.%N); rm -f "$O/ctx-$n.txt"
      for i in $(seq "$n"); do "$O/ctx" $arg >> "$O/ctx-$n.txt" & done; wait
      log "ctx: $n processes at once: $(awk "BEGIN { print $(date +%s.%N) - $t }") s in all; $what each: $(sort -n "$O/ctx-$n.txt" | tr '\n' ' ')"
    done
  done
fi
log "PIPELINE END"
