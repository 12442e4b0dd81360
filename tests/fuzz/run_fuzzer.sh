#!/usr/bin/env bash
# Runs one fuzz harness as its ctest does (tests/fuzz/CMakeLists.txt; README.md here): first every
# input that once crashed it (regressions/<name>/, each run once), then fuzzing from the committed
# seed corpus (corpus/<name>/) and a fresh working corpus, so that every run starts alike, with a
# fixed seed, for a fixed time. Inputs that reach new code go to <work>/corpus, a crashing input to
# <work>/crash-<sha1>. Exit status 0 only if nothing crashed (libFuzzer's 77 is remapped to 1: 77
# means "skipped" to ctest).
#   tests/fuzz/run_fuzzer.sh <fuzz_NAME executable> <work dir> <seconds> [libFuzzer flags...]
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,7p' "$0" | cut -c3- >&2
  exit 2
fi
harness=$1 work=$2 seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$harness")
name=${name#fuzz_}
[ -d "$here/corpus/$name" ] || { echo "run_fuzzer.sh: no seed corpus $here/corpus/$name" >&2; exit 2; }
# HDF5's own leaks on corrupt files are not ours to fix (lsan.supp says which and why). A failed
# allocation inside HDF5 returns NULL, as in production, where HDF5 turns it into an error; one of
# ours still stops the run (Eigen throws std::bad_alloc, which is not a tc::Error).
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# -malloc_limit_mb above the RSS limit: HDF5 allocates a buffer of a chunk's declared size before it
# finds the chunk beyond the end of the file (4 KB claimed 2.6 GB); untouched, it costs no memory,
# and the RSS limit still stops whatever uses memory.
flags=(-rss_limit_mb=2048 -malloc_limit_mb=65536 -timeout=30 -error_exitcode=1)
# Per-input leak checks stop the world after each input whose mallocs outnumber its frees, which
# HDF5's own leaks make most inputs of the HDF5 readers: slow, and LSan's tracer failed once on a
# loaded machine. Those harnesses check for leaks once, at exit, over the whole run.
case $name in fixture | output | recording) flags+=(-detect_leaks=0) ;; esac
rm -rf "$work"
mkdir -p "$work/corpus"
if [ -d "$here/regressions/$name" ]; then
  echo "run_fuzzer.sh: the inputs that once crashed fuzz_$name ($here/regressions/$name)"
  "$harness" "${flags[@]}" "$@" "$here/regressions/$name"/*
fi
echo "run_fuzzer.sh: fuzz_$name for ${seconds} s from $here/corpus/$name"
exec "$harness" "${flags[@]}" -seed=1 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$work/" "$@" "$work/corpus" "$here/corpus/$name"
