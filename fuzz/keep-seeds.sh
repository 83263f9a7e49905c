#!/usr/bin/env bash
# Replaces the minimized corpora kept in the tree (fuzz/seeds/<target>)
# with the smallest set of fuzz/corpus/<target> that keeps its coverage
# (libFuzzer's -set_cover_merge). Run it on a corpus grown from the
# project's own seeds only: the tree must not hold shaders of ../shared or
# inputs mutated from them, so move ../shared aside (or seed a clone that
# has none) before fuzz/seed-corpus.sh.
#
#   fuzz/seed-corpus.sh && fuzz/campaign.sh 600 && fuzz/keep-seeds.sh
set -euo pipefail
cd "$(dirname "$0")"
targets="parse_text decode_tokens parse_state run_shader pipeline generated capi jit"
target_dir=${CARGO_TARGET_DIR:-target}
cargo +nightly fuzz build -O -s none
cargo +nightly fuzz build -O -s address capi --target-dir "$target_dir/asan"
for t in $targets; do
    if [ "$t" = capi ]; then bin=$target_dir/asan/x86_64-unknown-linux-gnu/release/capi
    else bin=$target_dir/x86_64-unknown-linux-gnu/release/$t; fi
    fresh=$(mktemp -d)
    "$bin" -set_cover_merge=1 -timeout=60 -rss_limit_mb=2048 "$fresh" "corpus/$t" > /dev/null 2>&1
    rm -rf "seeds/$t" && mkdir -p "seeds/$t" && cp "$fresh"/* "seeds/$t/" && rm -rf "$fresh"
    printf '%s: %s inputs, %s\n' "$t" "$(ls "seeds/$t" | wc -l)" "$(du -sh --apparent-size "seeds/$t" | cut -f1)"
done
