/* Growable strings (contract in strbuf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

#define STRBUF_FIRST_CAP 4096

bool strbuf_grow(struct strbuf *sb, size_t more)
{
	if (sb->oom || more > SIZE_MAX / 2 - sb->len)
		return !(sb->oom = true);
	if (sb->len + more + 1 <= sb->cap)
		return true;
	size_t cap = sb->cap ? sb->cap : STRBUF_FIRST_CAP;
	while (cap < sb->len + more + 1)
		cap *= 2;
	char *d = realloc(sb->data, cap);
	if (!d)
		return !(sb->oom = true);
	sb->data = d;
	sb->cap = cap;
	return true;
}

bool strbuf_add_max(struct strbuf *sb, const void *p, size_t n, size_t max)
{
	if (n > max || sb->len > max - n || !strbuf_grow(sb, n))
		return false;
	if (n)
		memcpy(sb->data + sb->len, p, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
	return true;
}

bool strbuf_add(struct strbuf *sb, const void *p, size_t n)
{
	return strbuf_add_max(sb, p, n, SIZE_MAX);
}

bool strbuf_puts(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

bool strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	char tmp[256]; /* most pieces fit: one vsnprintf */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	if ((size_t)n < sizeof(tmp))
		return strbuf_add(sb, tmp, (size_t)n);
	if (!strbuf_grow(sb, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return true;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *d = sb->data;
	if (len)
		*len = sb->len;
	memset(sb, 0, sizeof(*sb));
	return d;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->data);
	memset(sb, 0, sizeof(*sb));
}
