#!/bin/sh
# A test for `tgsi-opt reduce`: a shader is interesting when `tgsi-opt opt -O`
# writes an instruction OPCODE for it.
#
#   usage: opt_writes.sh OPCODE FILE
#   tgsi-opt reduce --test 'sh examples/reduce/opt_writes.sh MAD' SHADER
#
# TGSI_OPT names the binary (default: tgsi-opt on PATH).
"${TGSI_OPT:-tgsi-opt}" opt -O "$2" 2>/dev/null | grep -q ": $1 "
