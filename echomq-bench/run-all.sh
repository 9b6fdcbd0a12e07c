#!/usr/bin/env bash
# run-all.sh: the figures of BENCHMARKS.md. Runs `emq bench locks`, `emq bench queue` and
# `emq bench scaling` RUNS times each (default 3), alternating, records the machine and the load
# before every run, keeps every output under echomq-bench/results/<time>/, and prints the median of
# every figure. Each locks and queue run is itself --rounds A/B rounds against its peer (default 3),
# and records the medians of those rounds.
#
#   echomq-bench/run-all.sh                                  # embedded Redis (6.2), 3 runs each
#   EMQ_REDIS_SERVER=/usr/bin/redis-server echomq-bench/run-all.sh   # Debian's Redis 7.0
#   RUNS=5 echomq-bench/run-all.sh --redis redis://127.0.0.1:6379    # extra options go to both benches
#   LOCKS_ARGS="--seconds 10" QUEUE_ARGS="--jobs 200000" SCALING_ARGS="--jobs 20000" echomq-bench/run-all.sh
#                                                            # or to one of them
#   BENCHES=locks echomq-bench/run-all.sh                    # one bench only
#   echomq-bench/run-all.sh --load                           # locks and queue beside a CPU hog
# Options given on the command line go to locks and queue only: scaling starts its own servers and
# takes other options (SCALING_ARGS).
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-3}"
benches="${BENCHES:-locks queue scaling}"
out="$root/echomq-bench/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "redis binary: ${EMQ_REDIS_SERVER:-the embedded one (test kit)}"
  echo "node: $(node --version 2>/dev/null || echo missing)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee "$out/machine.txt"

for i in $(seq 1 "$runs"); do
  for bench in $benches; do
    echo "== $bench run $i of $runs, load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
    extra=()
    common=("$@")
    case "$bench" in
      locks) read -r -a extra <<< "${LOCKS_ARGS:-}" ;;
      queue) read -r -a extra <<< "${QUEUE_ARGS:-}" ;;
      scaling) read -r -a extra <<< "${SCALING_ARGS:-}"; common=() ;;
    esac
    "$root/emq" bench "$bench" ${common[@]+"${common[@]}"} ${extra[@]+"${extra[@]}"} --record "$out/$bench-$i.tsv" \
      > "$out/$bench-$i.txt" 2> "$out/$bench-$i.err"
    tail -1 "$out/$bench-$i.txt"
  done
done

echo
echo "== medians of $runs run(s); every output is in $out"
for bench in $benches; do
  echo "-- $bench"
  cat "$out/$bench"-*.tsv 2>/dev/null | awk -F'\t' '
    { if (!($1 in n)) order[++rows] = $1; v[$1, ++n[$1]] = $2 }
    END {
      for (r = 1; r <= rows; r++) {
        k = order[r]; m = n[k]
        for (i = 1; i <= m; i++) a[i] = v[k, i] + 0
        for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        printf "%-44s %12.2f   (%d runs:", k, med, m
        for (i = 1; i <= m; i++) printf " %.2f", v[k, i]
        print ")"
      }
    }' | tee "$out/$bench-median.txt"
done
