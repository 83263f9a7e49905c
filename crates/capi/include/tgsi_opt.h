/*
 * tgsi-opt's C ABI: optimize and print shaders given as Mesa's TGSI token
 * words (the `struct tgsi_token` array a driver holds, read as uint32_t).
 *
 * Link with libtgsi_opt_capi.a (and -lpthread -ldl -lm) or
 * libtgsi_opt_capi.so. Every function returns a tgsi_opt_status and sets
 * *error (when error is not NULL): to NULL on success, and on an error to a
 * message the caller frees with tgsi_opt_free_string. Its other results
 * are NULL (and 0) unless it succeeds, so freeing them is always safe. The
 * functions hold no state and may be called from any thread.
 */
#ifndef TGSI_OPT_H
#define TGSI_OPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tgsi_opt_status {
   TGSI_OPT_OK = 0,
   /* A required pointer is NULL, or a string is not UTF-8. */
   TGSI_OPT_BAD_ARGUMENT = 1,
   /* The tokens are not a shader Mesa's tokens can express. */
   TGSI_OPT_BAD_TOKENS = 2,
   /* The shader cannot be built into the IR (or emitted from it). */
   TGSI_OPT_UNSUPPORTED = 3,
   /* An unknown pass name, or a pass that needs a target without one. */
   TGSI_OPT_BAD_PASSES = 4,
   /* A pass broke the IR (the verifier runs after every pass): a bug. */
   TGSI_OPT_INTERNAL = 5,
   /* The shader is past a bound of tgsi_opt_limits (the defaults, or the
    * caller's); the message names the bound and the word or instruction. */
   TGSI_OPT_LIMIT_EXCEEDED = 6,
   /* The optimized shader needs what the target lacks and the input did
    * not (more TEMPs than it has, ...); the message lists each finding. */
   TGSI_OPT_TARGET_LACKS = 7,
} tgsi_opt_status;

/*
 * Bounds on an input shader, so that a host compiling untrusted shaders
 * spends time and memory proportional to their size. tgsi_opt_default_limits
 * gives the defaults, far above every real shader known; tighten any field.
 */
typedef struct tgsi_opt_limits {
   /* Words after the two header words. Default 4194304. */
   size_t max_tokens;
   /* Instructions, declarations, immediates. Defaults 262144, 16384, 16384. */
   size_t max_instructions;
   size_t max_declarations;
   size_t max_immediates;
   /* How deep IF/UIF, BGNLOOP, SWITCH and BGNSUB nest, each subroutine call
    * being inlined counting as a level too. Default 64. */
   size_t max_nesting;
   /* The largest register index anywhere (declarations and operands); never
    * more than 32767, what an operand token holds. Default 32767. */
   uint32_t max_register_index;
   /* Subroutines are inlined at each call; the program that makes may have
    * at most inline_factor times the input's instructions, or inline_floor
    * instructions if that is more. The IR's phis (an argument per edge
    * joining where registers differ; a SWITCH has an edge per case) may
    * have as many arguments. Defaults 64 and 4096. */
   size_t inline_factor;
   size_t inline_floor;
} tgsi_opt_limits;

/* Writes the default limits to *limits (nothing when limits is NULL). */
void tgsi_opt_default_limits(tgsi_opt_limits *limits);

/*
 * Builds the shader's SSA IR from tokens[0..count), runs the passes and
 * writes the emitted shader's tokens to *out_tokens (*out_count words),
 * which the caller frees with tgsi_opt_free_tokens. The shader must keep
 * within the default tgsi_opt_limits.
 *
 * passes: NULL, "-O" or "-O1" for the -O1 pipeline; "-O0" for none (the
 * shader only goes through the IR); or pass names separated by commas,
 * run once each in order ("constfold,dce").
 * target: the driver the shader is for, NULL for none: a preset ("r300",
 * "r500", "i915", "nvc0", "etnaviv-gc2000", ..., docs/targets.md lists them,
 * and the 64-bit sets of legalize-doubles: "full", "one-double",
 * "no-fp64-div", "fp64-basic", "no-fp64", "no-int64") or a list of
 * capabilities as the CLI's --caps takes ("r300,MAX_TEMPS=16"). The passes
 * make nothing it lacks; a result needing more than the input did is
 * TGSI_OPT_TARGET_LACKS.
 */
tgsi_opt_status tgsi_opt_optimize(const uint32_t *tokens, size_t count, const char *passes,
                                  const char *target, uint32_t **out_tokens, size_t *out_count,
                                  char **error);

/*
 * tgsi_opt_optimize within *limits (the defaults when limits is NULL, as
 * tgsi_opt_optimize uses); a shader past them is TGSI_OPT_LIMIT_EXCEEDED.
 */
tgsi_opt_status tgsi_opt_optimize_limited(const uint32_t *tokens, size_t count, const char *passes,
                                          const char *target, const tgsi_opt_limits *limits,
                                          uint32_t **out_tokens, size_t *out_count, char **error);

/*
 * Prints the shader in tokens[0..count) as Mesa's tgsi_dump prints it, into
 * *text (NUL-terminated), which the caller frees with tgsi_opt_free_string.
 */
tgsi_opt_status tgsi_opt_print(const uint32_t *tokens, size_t count, char **text, char **error);

/* Frees tokens from tgsi_opt_optimize (count as it returned). NULL is a no-op. */
void tgsi_opt_free_tokens(uint32_t *tokens, size_t count);

/* Frees a string from this library. NULL is a no-op. */
void tgsi_opt_free_string(char *string);

#ifdef __cplusplus
}
#endif

#endif
