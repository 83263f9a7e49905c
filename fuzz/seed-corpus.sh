#!/usr/bin/env bash
# Fills fuzz/corpus/{parse_text,decode_tokens,run_shader} with seeds: the
# bundled examples, and Mesa's conformance shaders, token streams and
# execution cases from ../shared/conformance when that folder is present.
set -euo pipefail
cd "$(dirname "$0")"
root=..
shared=$root/../shared/conformance/text
mkdir -p corpus/parse_text corpus/decode_tokens corpus/run_shader
exec_cases=$root/../shared/conformance/exec

cp "$root"/examples/shaders/*.tgsi corpus/parse_text/
if [ -d "$shared" ]; then
    cp "$shared"/*.tgsi corpus/parse_text/
    # One 0x%08x word a line -> the same words as little-endian bytes.
    for hex in "$shared"/*.hex; do
        out=corpus/decode_tokens/$(basename "$hex" .hex).bin
        : > "$out"
        while read -r word; do
            w=${word#0x}
            [ ${#w} -eq 8 ] || continue
            printf "\\x${w:6:2}\\x${w:4:2}\\x${w:2:2}\\x${w:0:2}" >> "$out"
        done < "$hex"
    done
else
    echo "note: $shared not found; seeding with the bundled examples only" >&2
fi
# run_shader: a state, a `@@` line, a shader.
{ cat "$root"/examples/states/vertex_transform.state; printf '\n@@\n'; cat "$root"/examples/shaders/vertex_transform.tgsi; } \
    > corpus/run_shader/vertex_transform
if [ -d "$exec_cases" ]; then
    for t in "$exec_cases"/*.tgsi; do
        name=$(basename "$t" .tgsi)
        { cat "$exec_cases/$name.state"; printf '\n@@\n'; cat "$t"; } > "corpus/run_shader/$name"
    done
fi
echo "parse_text: $(ls corpus/parse_text | wc -l) seeds; decode_tokens: $(ls corpus/decode_tokens | wc -l) seeds; run_shader: $(ls corpus/run_shader | wc -l) seeds"
