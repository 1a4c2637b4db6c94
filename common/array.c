/* Growable arrays. */
#include "common/array.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

int array_reserve(void *arrp, size_t elem_size, size_t n, size_t *cap, size_t min)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : min;
	if (c <= n)
		c = n + 1;
	void *old;
	memcpy(&old, arrp, sizeof(old)); /* arrp points to a T *, not a void * */
	void *p = realloc(old, c * elem_size);
	if (!p)
		return ERR_NOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = c;
	return 0;
}
