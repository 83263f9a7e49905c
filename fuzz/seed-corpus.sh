#!/usr/bin/env bash
# Fills fuzz/corpus/{parse_text,decode_tokens} with seeds: the bundled
# examples, and Mesa's conformance shaders and token streams from
# ../shared/conformance/text when that folder is present.
set -euo pipefail
cd "$(dirname "$0")"
root=..
shared=$root/../shared/conformance/text
mkdir -p corpus/parse_text corpus/decode_tokens

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
echo "parse_text: $(ls corpus/parse_text | wc -l) seeds; decode_tokens: $(ls corpus/decode_tokens | wc -l) seeds"
