// libFuzzer's entry for programs that keep their own main (LLVM 11+). Declared only: the
// symbol comes from the libFuzzer runtime that -sanitize=fuzzer links (Scripts/fuzz).
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
