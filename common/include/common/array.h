/* Growable arrays (git's ALLOC_GROW): an array pointer, how many elements it holds (n) and how
 * many it has room for (cap, a size_t). */
#ifndef CSCHED_COMMON_ARRAY_H
#define CSCHED_COMMON_ARRAY_H

#include <stddef.h>

/* Makes room for element n of *arrp (a pointer to the array pointer) of elem_size bytes: when
 * n == *cap the capacity doubles (the first one is min). Returns 0, or ERR_NOMEM with the array
 * and *cap unchanged. */
int array_reserve(void *arrp, size_t elem_size, size_t n, size_t *cap, size_t min);

#define ARRAY_RESERVE(arr, n, cap, min) array_reserve(&(arr), sizeof(*(arr)), (n), &(cap), (min))

#endif
