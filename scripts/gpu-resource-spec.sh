#!/usr/bin/env bash
# Writes a ctest resource spec file listing this machine's GPUs, for
#   ctest -L gpu -j N --resource-spec-file <file>
# which spreads the GPU test processes (RESOURCE_GROUPS "gpus:1") over the GPUs; each process then
# runs on the GPU ctest gave it (tests/common/gtest_main.cpp sets CUDA_VISIBLE_DEVICES).
#   scripts/gpu-resource-spec.sh [--slots S] [FILE]   (default: 8 processes per GPU, build/gpu-resources.json)
set -euo pipefail
slots=8
if [ "${1:-}" = "--slots" ]; then slots=$2; shift 2; fi
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac
file=${1:-build/gpu-resources.json}
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
[ "$count" -gt 0 ] || { echo "gpu-resource-spec: nvidia-smi lists no GPU" >&2; exit 1; }
mkdir -p "$(dirname "$file")"
{
  printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
  for ((i = 0; i < count; i++)); do
    [ "$i" -gt 0 ] && printf ', '
    printf '{"id": "%d", "slots": %d}' "$i" "$slots"
  done
  printf ']}]}\n'
} > "$file"
echo "$file: $count GPUs, $slots slots each"
