/* Bump allocator (contract in arena.h).
 *
 * The struct arena and its first block are one malloc: a decoded Pod or Node lives in a single
 * allocation when its decoder sized the first block right (apiclient/decode.c does). Structures
 * are 16-byte aligned; strings are packed byte by byte, which saves the padding a 16-byte
 * rounding would add to every label value or resourceVersion. */
#include "common/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK 1024

struct arena_block {
	struct arena_block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	alignas(ARENA_ALIGN) unsigned char data[];
};

struct arena {
	struct arena_block *head;  /* current block; the first block is at the end of the chain */
	struct arena_block *first; /* right after this struct, in the same allocation */
	size_t next_size;
	size_t used;
};

/* The first block's header starts at the first aligned offset after struct arena. */
#define ARENA_HDR ((sizeof(struct arena) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

static struct arena_block *block_new(size_t size)
{
	struct arena_block *b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

struct arena *arena_new(size_t first_block)
{
	if (!first_block)
		first_block = ARENA_DEFAULT_BLOCK;
	if (first_block > SIZE_MAX / 4)
		return NULL;
	struct arena *a = malloc(ARENA_HDR + sizeof(struct arena_block) + first_block);
	if (!a)
		return NULL;
	a->first = (struct arena_block *)(void *)((char *)a + ARENA_HDR);
	a->first->next = NULL;
	a->first->size = first_block;
	a->first->used = 0;
	a->head = a->first;
	a->next_size = first_block * 2;
	a->used = 0;
	return a;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	struct arena_block *b = a->head;
	while (b != a->first) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	free(a);
}

/* n bytes at an offset aligned to align (a power of two) in the current block, or in a new one. */
static void *bump(struct arena *a, size_t n, size_t align)
{
	struct arena_block *b = a->head;
	size_t off = (b->used + align - 1) & ~(align - 1);
	if (off > b->size || b->size - off < n) {
		if (n > SIZE_MAX / 2)
			return NULL;
		size_t size = a->next_size > n ? a->next_size : n;
		b = block_new(size);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		if (a->next_size < (SIZE_MAX >> 2))
			a->next_size *= 2;
		off = 0;
	}
	void *p = b->data + off;
	b->used = off + n;
	a->used += n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p = bump(a, n, ARENA_ALIGN);
	if (p)
		memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	if (len == SIZE_MAX)
		return NULL;
	char *p = bump(a, len + 1, 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_reset(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b != a->first) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = a->first;
	a->first->used = 0;
	a->used = 0;
	/* Restart growth so that an arena reset every cycle does not double its blocks forever. */
	a->next_size = a->first->size * 2;
}

size_t arena_used(const struct arena *a)
{
	return a->used;
}

size_t arena_footprint(const struct arena *a)
{
	/* Packed into one block, each boundary between blocks could cost an alignment gap. */
	size_t n = 0;
	for (const struct arena_block *b = a->head; b; b = b->next)
		n += b->used + (b->next ? ARENA_ALIGN - 1 : 0);
	return n;
}

bool arena_overflowed(const struct arena *a)
{
	return a->head != a->first;
}
