// fuzz_front_end.c: libFuzzer target: any bytes through the lexer, parser,
// type inference and size check must end in a result or a diagnostic.
#include "lang/lang.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  diag_quiet = true;
  Arena *a = arena_new();
  Source *src = source_from_string(a, "fuzz.vec", (const char *)data, size);
  DiagTrap trap;
  if (DIAG_TRY(&trap)) {
    program_check(a, src, NULL);
    diag_untrap(&trap);
  }
  arena_free(a);
  return 0;
}
