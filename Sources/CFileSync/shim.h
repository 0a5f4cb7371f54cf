// Linux's sync_file_range, which Swift's Glibc module does not export (fcntl.h declares it only
// under _GNU_SOURCE): OutputSink starts the writeback of a durable output as it goes, so the
// fsync before the rename has little left to wait for. Nothing is linked: it is libc's.
#ifdef __linux__
#include <stdint.h>
int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags);
/// Start writeback of the range's dirty pages; do not wait for it.
static const unsigned int meridian_sync_file_range_write = 2;
// Linux's syncfs (unistd.h, _GNU_SOURCE only): a folder sink makes a whole level's tiles durable
// with one call, where an fsync of each tile cost a folder run of 40,000 tiles seconds.
int syncfs(int fd);
#endif
