/* Process-wide string interning.
 *
 * Label keys and values, namespaces, node names, resource names, image names and pod UIDs are
 * interned: two live interned strings are equal exactly when their pointers are equal, and the
 * hash is computed once. Thread-safe (one mutex; callers intern while decoding, not on the
 * scheduling hot path).
 *
 * Two kinds of reference, to one table (a string has one canonical copy whichever way it was
 * interned, so pointer equality holds across both):
 * - intern_str/intern_strn pin the string: it lives until the process exits. For bounded sets
 *   (configuration, plugin and resource names, constants).
 * - intern_acquire takes a counted reference that intern_release gives back; the string is freed
 *   when the last counted reference goes and it was never pinned. For strings of API objects
 *   (a churned pod's UID and labels), held by the object and released with it. A pointer
 *   compared with another must come from a reference its holder still owns. */
#ifndef CSCHED_INTERN_H
#define CSCHED_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returns the canonical, pinned copy of s, or NULL on out of memory. NULL in -> NULL out. */
const char *intern_str(const char *s);
const char *intern_strn(const char *s, size_t len);

/* Returns the canonical copy of s with one counted reference (the caller owns it), or NULL on
 * out of memory. NULL in -> NULL out. */
const char *intern_acquire(const char *s, size_t len);
/* One more counted reference to an interned string (NULL is a no-op); returns it. */
const char *intern_ref(const char *interned);
/* One more counted reference each (NULL entries are skipped); one lock for all n. */
void intern_ref_n(const char *const *interned, size_t n);
/* Gives back one counted reference each (NULL entries are skipped); one lock for all n. */
void intern_release(const char *interned);
void intern_release_n(const char *const *interned, size_t n);
/* true when interned was pinned (intern_str): references to it need no release. */
bool intern_pinned(const char *interned);

/* The canonical copy of s if some live reference holds one, else NULL; takes no reference. Only
 * for comparing by pointer against strings of objects the caller holds. */
const char *intern_find(const char *s);

/* Hash of an interned string (stored beside it). Undefined for strings not from intern_*. */
uint32_t intern_hash(const char *interned);

/* FNV-1a, as used by the table; exposed for maps keyed by non-interned strings. */
uint32_t intern_hash_bytes(const char *s, size_t len);

/* Number of distinct strings interned and live. */
size_t intern_count(void);

struct intern_stats {
	size_t count;     /* distinct live strings (pinned ones included) */
	size_t pinned;    /* of which pinned */
	size_t bytes;     /* bytes of string storage requested from malloc (headers included) */
	size_t table_cap; /* slots of the hash table */
};
void intern_get_stats(struct intern_stats *out);

#endif
