#include "common/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK 1024

struct arena_block {
	struct arena_block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

struct arena {
	struct arena_block *head; /* current block; the first block is at the end of the chain */
	struct arena_block *first;
	size_t next_size;
	size_t used;
};

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
	struct arena *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	if (!first_block)
		first_block = ARENA_DEFAULT_BLOCK;
	a->first = a->head = block_new(first_block);
	if (!a->first) {
		free(a);
		return NULL;
	}
	a->next_size = first_block * 2;
	return a;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (need < n)
		return NULL; /* overflow */
	struct arena_block *b = a->head;
	if (b->size - b->used < need) {
		size_t size = a->next_size > need ? a->next_size : need;
		b = block_new(size);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		if (a->next_size < (SIZE_MAX >> 2))
			a->next_size *= 2;
	}
	void *p = b->data + b->used;
	b->used += need;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);
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
