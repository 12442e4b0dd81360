#!/usr/bin/env bash
# Samples the machine while a GPU label runs (device-pipeline.sh's trace step): every 0.2 s a line
# "T <epoch seconds>", the CPU line of /proc/stat, and one line per process whose command names
# PATTERN (pid, ppid, state, CPU seconds so far, command). scripts/label-timeline.py reads the file.
#   scripts/sample-processes.sh PATTERN OUTFILE      (runs until killed)
set -u
pattern=${1:?"sample-processes: PATTERN OUTFILE"}
out=${2:?"sample-processes: PATTERN OUTFILE"}
: > "$out"
while :; do
  {
    printf 'T %s\n' "$(date +%s.%N)"
    head -1 /proc/stat
    ps -eo pid=,ppid=,stat=,cputimes=,args= | awk -v p="$pattern" '$0 ~ p && !/awk -v p/'
  } >> "$out"
  sleep 0.2
done
