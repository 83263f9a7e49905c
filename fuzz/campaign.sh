#!/usr/bin/env bash
# The fuzzing campaign: every target (or the TARGETs named) for SECONDS
# (default 3600) at once,
# each with libFuzzer's slow-input report (-report_slow_units: any input
# taking over a second), a 120 s timeout (a process starved by a busy
# machine must not count as a hang: replay a timeout alone to judge it)
# and a 2 GB memory limit. Logs and
# any crashing, leaking or slow inputs go to campaign/<UTC date>/; the last
# lines of each log (executions, coverage, corpus) are collected in
# campaign/<date>/summary.txt. The C ABI target is built with
# AddressSanitizer; the others, safe Rust, without a sanitizer (ten times
# the executions).
#
# With CAMPAIGN_CPU=1, SECONDS is CPU time: each target runs until its
# process has used that much (checked every 10 s, then interrupted), so
# that a campaign sharing the machine with builds still gives each
# target its time.
#
#   fuzz/seed-corpus.sh && fuzz/campaign.sh 3600
#   fuzz/campaign.sh 3600 pipeline capi     # two targets, a core each
#   CAMPAIGN_CPU=1 fuzz/campaign.sh 3000 jit run_shader
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-3600}
shift || true
targets=${*:-parse_text decode_tokens parse_state run_shader pipeline generated capi jit}
out=campaign/$(date -u +%Y-%m-%dT%H%M)
commit=$(git rev-parse --short HEAD)
mkdir -p "$out"
target_dir=${CARGO_TARGET_DIR:-target}
# Only what the campaign runs is built.
for t in $targets; do
    if [ "$t" = capi ]; then cargo +nightly fuzz build -O -s address capi --target-dir "$target_dir/asan"
    else cargo +nightly fuzz build -O -s none "$t"; fi
done
bin() {
    if [ "$1" = capi ]; then echo "$target_dir/asan/x86_64-unknown-linux-gnu/release/capi"
    else echo "$target_dir/x86_64-unknown-linux-gnu/release/$1"; fi
}
cpu_budget=${CAMPAIGN_CPU:-0}
wall=$seconds
if [ "$cpu_budget" = 1 ]; then wall=0; fi
# The CPU seconds (user and system) process $1 has used so far.
cpu_of() {
    local ticks
    ticks=$(awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null) || return 1
    echo $((ticks / $(getconf CLK_TCK)))
}
for t in $targets; do
    mkdir -p "corpus/$t" "$out/$t"
    (
        /usr/bin/time -v "$(bin "$t")" "corpus/$t" -max_total_time="$wall" -timeout=120 -rss_limit_mb=2048 \
            -report_slow_units=1 -print_final_stats=1 -artifact_prefix="$out/$t/" > "$out/$t.log" 2>&1 &
        timer=$!
        if [ "$cpu_budget" = 1 ]; then
            sleep 2
            fuzzer=$(pgrep -P "$timer" | head -1)
            while used=$(cpu_of "$fuzzer"); do
                if [ "$used" -ge "$seconds" ]; then kill -INT "$fuzzer"; break; fi
                sleep 10
            done
        fi
        wait "$timer" || true
    ) &
done
wait
{
    echo "campaign $(basename "$out"), built at commit $commit: $seconds s$([ "$cpu_budget" = 1 ] && echo " of CPU") per target, $(echo $targets | wc -w) at once on $(nproc) cores"
    for t in $targets; do
        log=$out/$t.log
        execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
        # The last status line: DONE, or the one before an interruption.
        cov=$(grep -E '^#[0-9]+[[:space:]]' "$log" | grep -o 'cov: [0-9]*' | tail -1 || true)
        corp=$(grep -E '^#[0-9]+[[:space:]]' "$log" | grep -o 'corp: [0-9]*/[0-9A-Za-z]*' | tail -1 || true)
        cpu=$(grep -E 'User time' "$log" | grep -o '[0-9.]*$' || echo '?')
        slow=$(grep -c 'Slowest unit' "$log" || true)
        found=$(find "$out/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
        echo "$t: executions $execs, $cov, $corp, user CPU ${cpu}s, slow-unit reports $slow, crashes/leaks/timeouts/ooms $found"
    done
} | tee "$out/summary.txt"
