#!/usr/bin/env bash
# Kernel speed check (issue 17, item 1), on a GPU machine: our kernel library as built from this tree
# ("new") against the same library built from an older commit ("old"), in one `tilecheck bench` per
# point, A/B/A/B: shapes 4096x4096, 8192x8192, 8192x28672 x M in {1, 16, 32, 64, 128} x {g128,
# per-column}, the 256x64 tile with m_blocks = min(4, ceil(M / 16)) (as docs/results/bench-side-by-
# side-2026-11-30.md). First a bitwise check: `tilecheck run --committed --record` with each library,
# then every cell's C compared bit for bit. About 6-8 minutes on one H200 with 16 cores.
#   scripts/kernel-speed-check.sh [--old COMMIT | --old-lib PATH] [--rounds N] [--no-bitwise] [--no-bench]
#   --old COMMIT    the reference library's commit (default 8bb45c5: main before the kernel-speed work),
#                   built from a git worktree in $OUT/old-tree (needs the repository's history)
#   --old-lib PATH  an old libtc_kernel_upstream.so built elsewhere instead
# Writes to $OUT (default out/kernel-speed): build logs, bench-<K>x<N>-M<M>.txt, bitwise.txt and
# summary.md (one table: new and old us, new/old, %copy). Exit status 0 when it built, every bitwise
# comparison matched and every bench ran.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/kernel-speed}
old=8bb45c5
old_given=""
rounds=3
bitwise=1
bench=1
while [ $# -gt 0 ]; do
  case $1 in
    --old) old=$2; shift 2 ;;
    --old-lib) old_given=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-bitwise) bitwise=0; shift ;;
    --no-bench) bench=0; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "kernel-speed-check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
summary="$out/summary.md"
status=0
t0=$(date +%s)

# ---- build: this tree (preset gpu) and the old commit's kernel library in a worktree of its own ----
old_tree="$out/old-tree"
if ! { cmake --preset gpu > "$out/configure-new.log" 2>&1 &&
       cmake --build build/gpu --target tilecheck tc_kernel_upstream > "$out/build-new.log" 2>&1; }; then
  echo "kernel-speed-check: the build of this tree failed; see $out/build-new.log" >&2; exit 1
fi
new_lib=$PWD/build/gpu/kernel/libtc_kernel_upstream.so
old_lib=$out/libtc_kernel_old.so
if [ -n "$old_given" ]; then
  cp "$old_given" "$old_lib" || exit 2
  old="$old_given"
else
  rm -rf "$old_tree"; git worktree prune
  if ! { git worktree add --detach "$old_tree" "$old" > "$out/build-old.log" 2>&1 &&
         (cd "$old_tree" && cmake --preset gpu && cmake --build build/gpu --target tc_kernel_upstream) >> "$out/build-old.log" 2>&1; }; then
    echo "kernel-speed-check: the build of $old failed; see $out/build-old.log" >&2; exit 1
  fi
  cp "$old_tree/build/gpu/kernel/libtc_kernel_upstream.so" "$old_lib"
  git worktree remove --force "$old_tree"
fi
tool=build/gpu/cli/tilecheck
{
  echo "# Kernel speed check $(date -u +%Y-%m-%d)"
  echo
  echo "- device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1)"
  echo "- new: $(git rev-parse --short HEAD) ($new_lib); old: $old"
  echo "- builds: $(( $(date +%s) - t0 )) s"
} > "$summary"

# ---- bitwise: every committed cell (configurations x contracts x grid sizes) through both ----
if [ "$bitwise" = 1 ]; then
  "$tool" run --kernel "$new_lib" --committed --record "$out/new.h5" > "$out/run-new.log" 2>&1 || status=1
  "$tool" run --kernel "$old_lib" --committed --record "$out/old.h5" > "$out/run-old.log" 2>&1 || status=1
  python=python3; [ -x .venv/bin/python ] && python=.venv/bin/python  # h5py, numpy: requirements.txt
  "$python" - "$out/new.h5" "$out/old.h5" > "$out/bitwise.txt" 2>&1 <<'EOF' || status=1
import sys
import h5py, numpy as np
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)
def cells(path):  # the recording's cells by (case, config, grid size, contract)
    f = h5py.File(path, "r")
    out = {}
    for key in f["cells"]:
        c = f["cells"][key]
        out[tuple(text(c.attrs[a]) for a in ("case_id", "config", "sms", "contract"))] = c
    return out
new, old = cells(sys.argv[1]), cells(sys.argv[2])
common = sorted(set(new) & set(old))
differ = 0
for key in common:
    a, b = new[key]["C"][()].view(np.uint16), old[key]["C"][()].view(np.uint16)
    if a.shape != b.shape or not np.array_equal(a, b):
        differ += 1
        print("DIFFERS:", *key)
only_old = len(set(old) - set(new))  # a cell the new library no longer runs is a regression
only_new = len(set(new) - set(old))  # e.g. a format the old library did not list
print(f"{len(common)} cells in both, {differ} differ; {only_new} only in the new library, {only_old} only in the old")
sys.exit(1 if differ or not common or only_old else 0)
EOF
  echo "- bitwise (tilecheck run --committed, C of every cell): $(tail -1 "$out/bitwise.txt")" >> "$summary"
fi

# ---- bench: one process per point, new and old interleaved A/B/A/B ----
if [ "$bench" = 1 ]; then
  {
    echo
    echo "| K x N | M | config | new us (spread) | old us (spread) | new / old | new %copy | old %copy | cuBLAS us |"
    echo "|---|---|---|---|---|---|---|---|---|"
  } >> "$summary"
  for shape in 4096x4096 8192x8192 8192x28672; do
    K=${shape%x*}; N=${shape#*x}
    for M in 1 16 32 64 128; do
      mb=$(( (M + 15) / 16 )); [ $mb -gt 4 ] && mb=4
      log="$out/bench-${shape}-M${M}.txt"
      "$tool" bench --kernel "$new_lib" --kernel "$old_lib" --contract marlin -M "$M" -K "$K" -N "$N" \
        --config "m${mb}n16k4g8" --config "m${mb}n16k4gcol" --rounds "$rounds" --repeats 20 > "$log" 2>&1 || status=1
      # rows come in --kernel order: the new library's, then the old one's, per configuration
      awk -v shape="$shape" -v M="$M" '
        $1 ~ /^m[0-9]n/ && NF >= 14 { n[$1]++; us[$1, n[$1]] = $9; sp[$1, n[$1]] = $10; pc[$1, n[$1]] = $12; cb[$1] = $13
                                      if (n[$1] == 1) order[++k] = $1 }
        END { for (i = 1; i <= k; i++) { c = order[i]; if (n[c] < 2) continue
                printf "| %s | %d | %s | %s (%s) | %s (%s) | %.2f | %s | %s | %s |\n", shape, M, c,
                       us[c, 1], sp[c, 1], us[c, 2], sp[c, 2], us[c, 1] / us[c, 2], pc[c, 1], pc[c, 2], cb[c] } }' \
        "$log" >> "$summary"
    done
  done
fi
echo >> "$summary"
echo "- total: $(( $(date +%s) - t0 )) s, status $status" >> "$summary"
cat "$summary"
exit $status
