/* Helpers shared by the Kubernetes library files: Go's spellings in error messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib_internal.h"

const char *cel_lib_go_quote(struct cel_eval *ev, const char *s, size_t n)
{
	char *out = cel_alloc(ev, n * 4 + 3), *p = out;
	if (!out)
		return NULL;
	*p++ = '"';
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			size_t j = i;
			int32_t cp = cel_utf8_next(s, n, &j);
			if (cp < 0) {
				p += sprintf(p, "\\x%02x", c);
				i++;
			} else {
				memcpy(p, s + i, j - i);
				p += j - i;
				i = j;
			}
			continue;
		}
		i++;
		switch (c) {
		case '"': *p++ = '\\'; *p++ = '"'; continue;
		case '\\': *p++ = '\\'; *p++ = '\\'; continue;
		case '\a': *p++ = '\\'; *p++ = 'a'; continue;
		case '\b': *p++ = '\\'; *p++ = 'b'; continue;
		case '\f': *p++ = '\\'; *p++ = 'f'; continue;
		case '\n': *p++ = '\\'; *p++ = 'n'; continue;
		case '\r': *p++ = '\\'; *p++ = 'r'; continue;
		case '\t': *p++ = '\\'; *p++ = 't'; continue;
		case '\v': *p++ = '\\'; *p++ = 'v'; continue;
		}
		if (c < 0x20 || c == 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p++ = '"';
	*p = 0;
	return out;
}

int cel_lib_go_parse_uint(struct cel_eval *ev, const char *s, size_t n, uint64_t *v, const char **msg)
{
	const char *what = NULL;
	uint64_t x = 0;
	if (n == 0)
		what = "invalid syntax";
	for (size_t i = 0; i < n && !what; i++) {
		if (s[i] < '0' || s[i] > '9')
			what = "invalid syntax";
		else if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			what = "value out of range";
		else
			x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (!what) {
		*v = x;
		return 0;
	}
	const char *q = cel_lib_go_quote(ev, s, n);
	size_t len = (q ? strlen(q) : 0) + 64;
	char *m = q ? cel_alloc(ev, len) : NULL;
	if (m)
		snprintf(m, len, "strconv.ParseUint: parsing %s: %s", q, what);
	*msg = m;
	return -1;
}

/* cel.h: frees a value made by cel_quantity_new / cel_semver_new (one malloc'd block each). */
void cel_object_free(cel_value v)
{
	if (v.kind == CEL_OBJECT)
		free((void *)v.obj);
}
