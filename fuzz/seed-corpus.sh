#!/usr/bin/env bash
# Fills fuzz/corpus/<target> with seeds for every target: the bundled
# examples and the project's test shaders (every stage, subroutines,
# arrays, SWITCH), shapes written here (a subroutine call chain, deep
# nesting, a large SWITCH, a SWITCH whose cases write other registers),
# and, when ../shared is present, Mesa's conformance shaders, token
# streams and execution cases and the corpus of real shaders. The
# minimized corpora kept in the tree (fuzz/seeds/<target>, made by
# fuzz/keep-seeds.sh) come first.
set -euo pipefail
cd "$(dirname "$0")"
root=..
shared=$root/../shared
targets="parse_text decode_tokens run_shader parse_state pipeline generated capi jit"
for t in $targets; do
    mkdir -p "corpus/$t"
    if [ -d "seeds/$t" ]; then cp seeds/"$t"/* "corpus/$t/"; fi
done

# Text seeds: every shader the project has, and the shapes below.
texts=$(mktemp -d)
trap 'rm -rf "$texts"' EXIT
i=0
for f in "$root"/examples/shaders/*.tgsi $(find "$root/tests/inputs" -name '*.tgsi' | sort); do
    i=$((i + 1)); cp "$f" "$texts/project-$i.tgsi"
done
# main calls sub 1; each of K subs calls the next twice (issue: exponential
# inlining without a budget).
chain() {
    local k=$1 n
    printf 'FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\nMOV TEMP[0], IN[0]\nCAL :4\nMOV OUT[0], TEMP[0]\nEND\n'
    for ((j = 0; j < k; j++)); do n=$((4 + 4 * (j + 1))); printf 'BGNSUB\nCAL :%d\nCAL :%d\nENDSUB\n' $n $n; done
    printf 'BGNSUB\nADD TEMP[0], TEMP[0], IN[0]\nENDSUB\n'
}
chain 3 > "$texts/call-chain-3.tgsi"
chain 12 > "$texts/call-chain-12.tgsi"
{   printf 'FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\nMOV TEMP[0], IN[0]\n'
    for ((j = 0; j < 40; j++)); do printf 'IF TEMP[0].xxxx\nADD TEMP[0], TEMP[0], IN[0]\n'; done
    for ((j = 0; j < 40; j++)); do printf 'ENDIF\n'; done
    printf 'MOV OUT[0], TEMP[0]\nEND\n'; } > "$texts/nested-ifs.tgsi"
{   printf 'FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nIMM[0] FLT32 {1.0, 2.0, 3.0, 4.0}\nF2I TEMP[1].x, IN[0].xxxx\nMOV TEMP[0], IN[0]\nSWITCH TEMP[1].xxxx\n'
    for ((j = 0; j < 24; j++)); do printf 'CASE IMM[0].xxxx\nADD TEMP[0], TEMP[0], IMM[0].%s\n' "$( [ $((j % 3)) -eq 0 ] && echo yyyy || echo xxxx)"; [ $((j % 2)) -eq 0 ] && printf 'BRK\n'; done
    printf 'DEFAULT\nMUL TEMP[0], TEMP[0], IMM[0].zzzz\nBRK\nENDSWITCH\nMOV OUT[0], TEMP[0]\nEND\n'; } > "$texts/switch.tgsi"
# A SWITCH whose cases each write another TEMP, all read after it (the
# phi budget's shape).
{   printf 'FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..40]\nIMM[0] INT32 {0, 1, 2, 3}\nF2I TEMP[40].x, IN[0].xxxx\nSWITCH TEMP[40].xxxx\n'
    for ((j = 0; j < 40; j++)); do printf 'CASE IMM[0].yyyy\nMOV TEMP[%d].x, IN[0].xxxx\nBRK\n' $j; done
    printf 'ENDSWITCH\n'
    for ((j = 0; j < 40; j++)); do printf 'ADD TEMP[40].x, TEMP[40].xxxx, TEMP[%d].xxxx\n' $j; done
    printf 'MOV OUT[0], TEMP[40].xxxx\nEND\n'; } > "$texts/switch-of-writes.tgsi"
if [ -d "$shared/conformance/text" ]; then cp "$shared"/conformance/text/*.tgsi "$texts/"; fi
if [ -d "$shared/corpus" ]; then
    find "$shared/corpus" -name '*.tgsi' | sort | while read -r f; do cp "$f" "$texts/corpus-$(echo "$f" | md5sum | cut -c1-12).tgsi"; done
else
    echo "note: $shared not found; seeding with the project's own shaders only" >&2
fi
cp "$texts"/*.tgsi corpus/parse_text/
cp "$texts"/*.tgsi corpus/pipeline/

# Token seeds: Mesa's streams (one 0x%08x word a line -> little-endian
# bytes); capi's are the same behind a first byte choosing the passes.
if [ -d "$shared/conformance/text" ]; then
    for hex in "$shared"/conformance/text/*.hex; do
        out=corpus/decode_tokens/$(basename "$hex" .hex).bin
        : > "$out"
        while read -r word; do
            w=${word#0x}
            [ ${#w} -eq 8 ] || continue
            printf "\\x${w:6:2}\\x${w:4:2}\\x${w:2:2}\\x${w:0:2}" >> "$out"
        done < "$hex"
        { printf '\x00'; cat "$out"; } > "corpus/capi/$(basename "$out")"
    done
fi

# run_shader: a state, a `@@` line, a shader; parse_state: the states.
{ cat "$root"/examples/states/vertex_transform.state; printf '\n@@\n'; cat "$root"/examples/shaders/vertex_transform.tgsi; } \
    > corpus/run_shader/vertex_transform
cp "$root"/examples/states/*.state corpus/parse_state/
if [ -d "$shared/conformance/exec" ]; then
    for t in "$shared"/conformance/exec/*.tgsi; do
        name=$(basename "$t" .tgsi)
        { cat "$shared/conformance/exec/$name.state"; printf '\n@@\n'; cat "$t"; } > "corpus/run_shader/$name"
        cp "$shared/conformance/exec/$name.state" "corpus/parse_state/$name.state"
    done
fi

# jit: what run_shader has, the text seeds (run on a default state of 4
# invocations), and declarations at the register index limit that store
# to one register or none (the compiled code's size must follow the
# stores, not the declarations).
cp corpus/run_shader/* corpus/jit/
cp "$texts"/*.tgsi corpus/jit/
printf 'FRAG\nDCL OUT[0..32767], GENERIC[0]\nEND\n' > corpus/jit/outputs-at-limit.tgsi
printf 'FRAG\nDCL IN[0..32767], GENERIC[0], PERSPECTIVE\nDCL OUT[0..32767], GENERIC[0]\nMOV OUT[32767], IN[32767]\nEND\n' \
    > corpus/jit/inputs-outputs-at-limit.tgsi

# generated: tapes; any bytes are a program, so a few random ones start it.
for j in 1 2 3 4 5 6 7 8; do head -c $((64 * j)) /dev/urandom > "corpus/generated/random-$j"; done

for t in $targets; do printf '%s: %s seeds\n' "$t" "$(ls "corpus/$t" | wc -l)"; done
