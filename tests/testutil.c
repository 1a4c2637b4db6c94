#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

const char *testutil_source_path(const char *relpath)
{
	static _Thread_local char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", CSCHED_SOURCE_DIR, relpath);
	return buf;
}

char *testutil_read_source_file(const char *relpath, size_t *len)
{
	const char *path = testutil_source_path(relpath);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "testutil: cannot open %s\n", path);
		abort();
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			abort();
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
