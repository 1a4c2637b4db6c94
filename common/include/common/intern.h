/* Process-wide string interning.
 *
 * Label keys and values, namespaces, node names, resource names and image names are interned:
 * two interned strings are equal exactly when their pointers are equal, and the hash is
 * computed once. Interned strings live until the process exits and are never freed.
 * Thread-safe (one mutex; callers intern while decoding, not on the scheduling hot path). */
#ifndef CSCHED_INTERN_H
#define CSCHED_INTERN_H

#include <stddef.h>
#include <stdint.h>

/* Returns the canonical copy of s, or NULL on out of memory. NULL in -> NULL out. */
const char *intern_str(const char *s);
const char *intern_strn(const char *s, size_t len);

/* Hash of an interned string (stored beside it). Undefined for strings not from intern_*. */
uint32_t intern_hash(const char *interned);

/* FNV-1a, as used by the table; exposed for maps keyed by non-interned strings. */
uint32_t intern_hash_bytes(const char *s, size_t len);

/* Number of distinct strings interned so far. */
size_t intern_count(void);

#endif
