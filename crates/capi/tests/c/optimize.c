/* A driver's use of the C ABI: reads a shader's token words from the file
 * argv[1], optimizes them with -O1, prints the result, and shows the errors
 * an unknown pass and a tightened limit give. Exits 0 when every call
 * behaved as documented. */
#include <stdio.h>
#include <stdlib.h>

#include "tgsi_opt.h"

int main(int argc, char **argv)
{
   if (argc != 2)
      return 2;
   FILE *f = fopen(argv[1], "rb");
   if (!f)
      return 2;
   uint32_t words[4096];
   size_t count = fread(words, sizeof(uint32_t), 4096, f);
   fclose(f);

   uint32_t *optimized = NULL;
   size_t optimized_count = 0;
   char *error = NULL;
   tgsi_opt_status status =
      tgsi_opt_optimize(words, count, "-O1", NULL, &optimized, &optimized_count, &error);
   if (status != TGSI_OPT_OK) {
      fprintf(stderr, "optimize: %d %s\n", status, error ? error : "");
      tgsi_opt_free_string(error);
      return 1;
   }
   char *text = NULL;
   status = tgsi_opt_print(optimized, optimized_count, &text, &error);
   if (status != TGSI_OPT_OK) {
      fprintf(stderr, "print: %d %s\n", status, error ? error : "");
      tgsi_opt_free_string(error);
      tgsi_opt_free_tokens(optimized, optimized_count);
      return 1;
   }
   fputs(text, stdout);
   tgsi_opt_free_string(text);
   tgsi_opt_free_tokens(optimized, optimized_count);

   status = tgsi_opt_optimize(words, count, "constfold,bogus", NULL, &optimized, &optimized_count, &error);
   printf("status %d: %s\n", status, error ? error : "(no message)");
   tgsi_opt_free_string(error);
   if (status != TGSI_OPT_BAD_PASSES)
      return 1;

   tgsi_opt_limits limits;
   tgsi_opt_default_limits(&limits);
   if (limits.max_register_index != 32767 || limits.max_nesting != 64)
      return 1;
   limits.max_instructions = 1;
   status = tgsi_opt_optimize_limited(words, count, "-O1", NULL, &limits, &optimized, &optimized_count,
                                      &error);
   printf("status %d: %s\n", status, error ? error : "(no message)");
   tgsi_opt_free_string(error);
   if (status != TGSI_OPT_LIMIT_EXCEEDED || optimized != NULL) {
      tgsi_opt_free_tokens(optimized, optimized_count);
      return 1;
   }
   return 0;
}
