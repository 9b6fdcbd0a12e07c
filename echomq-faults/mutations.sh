#!/usr/bin/env bash
# mutations.sh: break each safety property on purpose, run the tests that should catch it, show that they fail,
# and put the code back.
#
# Usage (from the repository root or anywhere):   echomq-faults/mutations.sh [name...]
#   with no name, every mutation runs; names: fence-write, stale-complete, release-token, reap-dead, watchdog,
#   acquire-nx, release-hint, waiting-mark. Prints a markdown table (the one in docs/reliability.md) and exits 0 only if every mutation was
#   applied and caught by a failing test.
#
# Each mutation is a literal search-and-replace in one named file. The search text must occur exactly once; if the
# code has moved, the mutation is reported NOT APPLIED
# and the script fails: re-point its file and search text below. Every file is restored from a copy when the
# mutation is done, and on any exit (also Ctrl-C). Builds are offline (-o) and never install.
#
# Every named test class runs (-Dmaven.test.failure.ignore=true lets the reactor go on to echomq-faults after a
# failure in echomq-core), and the table says, per class, whether it failed and how many of its tests did. A
# mutation counts as caught only if at least one named test failed; a build that fails for another reason
# (compilation) is reported as an ERROR, not as caught.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LUA=echomq-core/src/main/resources/io/echomq/lua
JAVA=echomq-core/src/main/java/io/echomq
CORE=echomq-server,echomq-testkit,echomq-core
FAULTS=echomq-server,echomq-testkit,echomq-core,echomq-cli,echomq-faults
BACKUP=$(mktemp -d)
LOG=$(mktemp -d)
restore() {
  for f in "$BACKUP"/*; do
    [ -e "$f" ] || continue
    cp "$f" "$ROOT/$(basename "$f" | tr '%' '/')"
    rm -f "$f"
  done
}
trap restore EXIT INT TERM

# name | file | search | replace [| search | replace] ... are given as separate arrays per mutation.
declare -a NAMES=(fence-write stale-complete release-token reap-dead watchdog acquire-nx release-hint waiting-mark)
declare -A WHAT FILE EDITS MODULES TESTS
WHAT[fence-write]="fenced write skips its fence check (a stale fence is written)"
FILE[fence-write]=$LUA/lock/fenced-write-1.lua
EDITS[fence-write]='if fence < stored then=>if false then'
MODULES[fence-write]=$FAULTS
TESTS[fence-write]='SeedScenariosTest,Scenario2PausedHolderTest'

WHAT[stale-complete]="the fenced writes (complete, fail, extend, …) skip the attempt (fence) check of the job"
FILE[stale-complete]=$LUA/includes/fence-check.lua
EDITS[stale-complete]="if h[2] ~= attempt then return -1 end=>"
MODULES[stale-complete]=$FAULTS
TESTS[stale-complete]='FenceTest,Scenario4PausedWorkerTest'

WHAT[release-token]="release drops its token compare (deletes whoever holds the lock)"
FILE[release-token]=$LUA/lock/release-3.lua
EDITS[release-token]='if held ~= 1 then return held end=>if held == -1 then return held end'
MODULES[release-token]=$CORE
TESTS[release-token]='LeaseLifecycleTest,LockInputPropertyTest'

WHAT[reap-dead]="the reaper dead-letters every expired job instead of returning it"
FILE[reap-dead]=$LUA/queue/reap-5.lua
EDITS[reap-dead]='if spent >= maxAttempts or not h[1] then=>if true then'
MODULES[reap-dead]=$FAULTS
TESTS[reap-dead]='ReapTest,Scenario3KillNineTest'

WHAT[watchdog]="the watchdog keeps renewing a lease after it was lost or released"
FILE[watchdog]=$JAVA/lock/Watchdog.java
EDITS[watchdog]='if (!lease.isActive()) {=>if (false) {||if (outcome == RenewOutcome.RENEWED) {=>if (true) {'
MODULES[watchdog]=$CORE
TESTS[watchdog]='WatchdogTest'

WHAT[acquire-nx]="acquire drops NX (a held lock is granted again)"
FILE[acquire-nx]=$LUA/lock/acquire-2.lua
EDITS[acquire-nx]="redis.call('SET', lockKey, token, 'NX', 'PX', ttl)=>redis.call('SET', lockKey, token, 'PX', ttl)"
MODULES[acquire-nx]=$CORE
TESTS[acquire-nx]='ContentionTest,RedlockFaultTest'

WHAT[release-hint]="release ignores the waiting mark (publishes only for its own client's waiters: a waiter elsewhere sleeps)"
FILE[release-hint]=$LUA/lock/release-3.lua
EDITS[release-hint]="if ARGV[3] == '1' or redis.call('EXISTS', waitingKey) == 1 then=>if ARGV[3] == '1' then"
MODULES[release-hint]=$CORE
TESTS[release-hint]='ReleasePublishTest,HandoffTest'

WHAT[waiting-mark]="a refused waiter never sets the waiting mark (a release elsewhere then publishes nothing)"
FILE[waiting-mark]=$LUA/lock/wait-acquire-3.lua
EDITS[waiting-mark]="if redis.call('PTTL', waitingKey) < wait then=>if false then"
MODULES[waiting-mark]=$CORE
TESTS[waiting-mark]='ReleasePublishTest,HandoffTest'

apply() {   # file, edits: "search=>replace||search=>replace"
  python3 - "$1" "$2" <<'PY'
import sys
path, edits = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
for edit in edits.split("||"):
    search, replace = edit.split("=>", 1)
    n = text.count(search)
    if n != 1:
        print(f"search text found {n} times in {path}: {search!r}", file=sys.stderr)
        sys.exit(3)
    text = text.replace(search, replace)
open(path, "w", encoding="utf-8").write(text)
PY
}

selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=("${NAMES[@]}")
rows=()
bad=0
for name in "${selected[@]}"; do
  file=${FILE[$name]:-}
  if [ -z "$file" ]; then echo "unknown mutation: $name" >&2; exit 2; fi
  saved="$BACKUP/$(echo "$file" | tr '/' '%')"
  cp "$file" "$saved"
  if ! apply "$file" "${EDITS[$name]}"; then
    rows+=("| $name | ${WHAT[$name]} | \`$file\` | NOT APPLIED (re-point it) |")
    bad=1
    restore
    continue
  fi
  echo ">>> $name: ${WHAT[$name]}; running ${TESTS[$name]}" >&2
  mvn -B -o test -pl "${MODULES[$name]}" -Dtest="${TESTS[$name]}" -Dsurefire.failIfNoSpecifiedTests=false \
      -Dmaven.test.failure.ignore=true > "$LOG/$name.log" 2>&1
  code=$?
  restore
  verdicts=()
  caught=0
  missing=0
  for t in ${TESTS[$name]//,/ }; do
    line=$(grep -a -E "Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+.* -- in [a-z.]*\.$t\$" \
        "$LOG/$name.log" | tail -1)
    if [ -z "$line" ]; then
      verdicts+=("$t did not run")
      missing=1
      continue
    fi
    run=$(echo "$line" | sed -E 's/.*Tests run: ([0-9]+).*/\1/')
    failures=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1+\2/' | bc)
    if [ "$failures" -gt 0 ]; then
      verdicts+=("$t failed ($failures of $run)")
      caught=1
    else
      verdicts+=("$t passed ($run)")
    fi
  done
  result=$(printf '%s; ' "${verdicts[@]}")
  result=${result%; }
  if [ $code -ne 0 ] || [ $missing -ne 0 ]; then
    rows+=("| $name | ${WHAT[$name]} | \`$file\` | ERROR (build failed or a test did not run: $result; see $LOG/$name.log) |")
    bad=1
  elif [ $caught -eq 1 ]; then
    rows+=("| $name | ${WHAT[$name]} | \`$file\` | caught: $result |")
  else
    rows+=("| $name | ${WHAT[$name]} | \`$file\` | **SURVIVED**: $result |")
    bad=1
  fi
done
echo "| mutation | what it breaks | file | result, per test class run |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "(logs in $LOG)" >&2
exit $bad
