/* Helpers shared by unit, integration and bench programs. */
#ifndef CSCHED_TESTUTIL_H
#define CSCHED_TESTUTIL_H

#include <stddef.h>

/* Reads a file under the source tree ("tests/fixtures/pod.json"); malloc'd, NUL-terminated,
 * *len (if not NULL) set. Aborts the test program when the file cannot be read. */
char *testutil_read_source_file(const char *relpath, size_t *len);
/* Absolute path of a file under the source tree, in a static buffer. */
const char *testutil_source_path(const char *relpath);

#endif
