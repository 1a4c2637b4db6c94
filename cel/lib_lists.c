/* Lists: cel-go's lists extension at version 3 (ext/lists.go: slice, flatten, sort, sortBy's
 * @sortByAssociatedKeys, lists.range, reverse, distinct, with their runtime cost trackers) and
 * Kubernetes' lists library at version 1 (apiserver pkg/cel/library/lists.go: isSorted, sum,
 * min, max, indexOf, lastIndexOf, includes, costed by Kubernetes' CostEstimator as one
 * traversal of the list).
 *
 * cel-go declares the Kubernetes functions per element type (list(int).sum() -> int) and picks
 * the overload when it type-checks; csched dispatches at run time on the elements: sum starts
 * from the zero of the first element's type (int 0 for an empty list) and adds as `+` does,
 * so a list mixing types is "no such overload" like cel-go's Adder.
 *
 * Differences: sort / sortBy use a stable merge sort where cel-go uses Go's sort.Slice
 * (pdqsort). Both give the same order for keys that compare unequal, and for lists of up to
 * 12 elements (where pdqsort is an insertion sort, stable) in every case; for longer lists
 * with equal sortBy keys Go's order of the tied elements is an artefact of pdqsort.
 * lists.range is limited to CEL_LISTS_RANGE_MAX elements (cel-go's ListsMaxRangeSize option
 * with its message), as the runtime cost limit is only checked after the list is built. */
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"

#define CEL_LISTS_RANGE_MAX 1000000

static int new_list(struct cel_eval *ev, size_t n, struct cel_list **l, cel_value *out)
{
	*l = cel_new_list(ev, n);
	if (!*l)
		return CEL_NOMEM;
	*out = (cel_value){ .kind = CEL_LIST };
	out->list = *l;
	return 0;
}

/* ---- cel-go ext lists ---- */

static int fn_slice(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	const struct cel_list *l = a[0].list;
	int64_t start = a[1].i, end = a[2].i;
	if (start < 0 || end < 0)
		return cel_error(ev, out, "cannot slice(%lld, %lld), negative indexes not supported", (long long)start,
				 (long long)end);
	if (start > end)
		return cel_error(ev, out,
				 "cannot slice(%lld, %lld), start index must be less than or equal to end index",
				 (long long)start, (long long)end);
	if ((int64_t)l->n < end)
		return cel_error(ev, out, "cannot slice(%lld, %lld), list is length %u", (long long)start,
				 (long long)end, l->n);
	struct cel_list *r;
	if (new_list(ev, (size_t)(end - start), &r, out))
		return CEL_NOMEM;
	memcpy(r->items, l->items + start, (size_t)(end - start) * sizeof(cel_value));
	return 0;
}

static size_t flat_count(const struct cel_list *l, int64_t depth)
{
	size_t n = 0;
	for (uint32_t i = 0; i < l->n; i++)
		n += l->items[i].kind == CEL_LIST && depth > 0 ? flat_count(l->items[i].list, depth - 1) : 1;
	return n;
}

static size_t flat_fill(const struct cel_list *l, int64_t depth, cel_value *dst)
{
	size_t n = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->items[i].kind == CEL_LIST && depth > 0)
			n += flat_fill(l->items[i].list, depth - 1, dst + n);
		else
			dst[n++] = l->items[i];
	}
	return n;
}

static int fn_flatten(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	int64_t depth = n > 1 ? a[1].i : 1;
	if (depth < 0)
		return cel_error(ev, out, "level must be non-negative");
	/* Nesting deeper than the values can be is the same as that nesting: bound the recursion. */
	if (depth > 64)
		depth = 64;
	struct cel_list *r;
	if (new_list(ev, flat_count(a[0].list, depth), &r, out))
		return CEL_NOMEM;
	flat_fill(a[0].list, depth, r->items);
	return 0;
}

static int fn_range(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	int64_t k = a[0].i;
	if (k < 0)
		return cel_error(ev, out, "lists.range: size must be non-negative, got %lld", (long long)k);
	if (k > CEL_LISTS_RANGE_MAX)
		return cel_error(ev, out, "lists.range: size %lld exceeds maximum allowed (%d)", (long long)k,
				 CEL_LISTS_RANGE_MAX);
	struct cel_list *r;
	if (new_list(ev, (size_t)k, &r, out))
		return CEL_NOMEM;
	for (int64_t i = 0; i < k; i++)
		r->items[i] = cel_int(i);
	return 0;
}

static int fn_reverse(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	const struct cel_list *l = a[0].list;
	struct cel_list *r;
	if (new_list(ev, l->n, &r, out))
		return CEL_NOMEM;
	for (uint32_t i = 0; i < l->n; i++)
		r->items[i] = l->items[l->n - 1 - i];
	return 0;
}

static int fn_distinct(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	const struct cel_list *l = a[0].list;
	if (l->n == 0) {
		*out = a[0];
		return 0;
	}
	cel_value *tmp = cel_alloc(ev, l->n * sizeof(cel_value));
	if (!tmp)
		return CEL_NOMEM;
	size_t k = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = cel_value_equal(l->items[i], tmp[j]);
		if (!seen)
			tmp[k++] = l->items[i];
	}
	struct cel_list *r;
	if (new_list(ev, k, &r, out))
		return CEL_NOMEM;
	memcpy(r->items, tmp, k * sizeof(cel_value));
	return 0;
}

/* The kinds cel-go's Comparer covers (the sort overloads' element types). */
static bool comparable_kind(uint8_t k)
{
	switch (k) {
	case CEL_INT: case CEL_UINT: case CEL_DOUBLE: case CEL_BOOL: case CEL_DURATION: case CEL_TIMESTAMP:
	case CEL_STRING: case CEL_BYTES:
		return true;
	}
	return false;
}

/* cel-go's traits.Comparer: the ordered kinds, and library objects with an ordering */
static bool comparer(cel_value v)
{
	return comparable_kind(v.kind) || (v.kind == CEL_OBJECT && v.obj->type->compare);
}

static bool key_less(cel_value a, cel_value b)
{
	int c;
	return cel_value_compare(a, b, &c) == 0 && c == -1;
}

/* Stable merge sort of the indices idx[0..n) by keys. */
static void merge_sort(uint32_t *idx, uint32_t *tmp, size_t n, const cel_value *keys)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(idx, tmp, h, keys);
	merge_sort(idx + h, tmp, n - h, keys);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = key_less(keys[idx[j]], keys[idx[i]]) ? idx[j++] : idx[i++];
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

/* sortListByAssociatedKeys */
static int sort_by_keys(struct cel_eval *ev, cel_value listv, const struct cel_list *keys, cel_value *out)
{
	const struct cel_list *l = listv.list;
	if (l->n != keys->n)
		return cel_error(ev, out,
				 "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
				 "but got %u and %u elements respectively",
				 l->n, keys->n);
	if (l->n == 0) {
		*out = listv;
		return 0;
	}
	uint8_t kind = keys->items[0].kind;
	if (!comparable_kind(kind))
		return cel_error(ev, out, "list elements must be comparable");
	for (uint32_t i = 1; i < keys->n; i++)
		if (keys->items[i].kind != kind)
			return cel_error(ev, out, "list elements must have the same type");
	uint32_t *idx = cel_alloc(ev, 2 * l->n * sizeof(uint32_t));
	if (!idx)
		return CEL_NOMEM;
	for (uint32_t i = 0; i < l->n; i++)
		idx[i] = i;
	merge_sort(idx, idx + l->n, l->n, keys->items);
	struct cel_list *r;
	if (new_list(ev, l->n, &r, out))
		return CEL_NOMEM;
	for (uint32_t i = 0; i < l->n; i++)
		r->items[i] = l->items[idx[i]];
	return 0;
}

static int fn_sort(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return sort_by_keys(ev, a[0], a[0].list, out);
}

static int fn_sort_by_keys(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return sort_by_keys(ev, a[0], a[1].list, out);
}

/* ---- cel-go's runtime costs (trackAllocatingListCall: size * factor + 1 + ListCreateBaseCost) ---- */

static uint64_t alloc_cost(double factor, uint64_t size)
{
	if (factor < 0)
		factor = 1;
	return (uint64_t)((double)size * factor) + 1 + 10;
}

static uint64_t cost_output(const cel_value *a, size_t n, const cel_value *r)
{
	(void)a, (void)n;
	return alloc_cost(1, r->kind == CEL_LIST ? r->list->n : 1);
}

static uint64_t cost_flatten(const cel_value *a, size_t n, const cel_value *r)
{
	(void)r;
	return alloc_cost(n > 1 ? (double)a[1].i : 1.0, a[0].list->n);
}

static uint64_t self_compare(const struct cel_list *l)
{
	uint64_t sz = l->n;
	double f = 2.0;
	if (sz == 0)
		return alloc_cost(f, 0);
	if (l->items[0].kind == CEL_STRING || l->items[0].kind == CEL_BYTES)
		f += 0.1;
	return alloc_cost(f, sz * sz);
}

static uint64_t cost_self(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return self_compare(a[0].list);
}

static uint64_t cost_sort_by(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return self_compare(a[1].list);
}

/* ---- Kubernetes' lists ---- */

/* traversalCost (apiserver library/cost.go): strings and bytes 0.1 per byte (rounded down),
 * lists and maps the sum over their elements, anything else 1. */
static uint64_t traversal(cel_value v)
{
	uint64_t c = 0;
	switch (v.kind) {
	case CEL_STRING:
	case CEL_BYTES:
		return (uint64_t)((double)v.n * 0.1);
	case CEL_LIST:
		for (uint32_t i = 0; i < v.list->n; i++)
			c += traversal(v.list->items[i]);
		return c;
	case CEL_MAP:
		for (uint32_t i = 0; i < v.map->n; i++)
			c += traversal(v.map->keys[i]) + traversal(v.map->vals[i]);
		return c;
	}
	return 1;
}

static uint64_t cost_traversal(const cel_value *a, size_t n, const cel_value *r)
{
	(void)r;
	return n > 0 ? traversal(a[0]) : 0;
}

static int fn_is_sorted(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	const struct cel_list *l = a[0].list;
	for (uint32_t i = 0; i < l->n; i++) {
		if (!comparer(l->items[i]))
			return cel_error_no_overload(ev, out, "isSorted", a, n);
		if (i == 0)
			continue;
		int c;
		if (cel_value_compare(l->items[i - 1], l->items[i], &c) != 0)
			return cel_error_no_overload(ev, out, "isSorted", a, n);
		if (c == 1) {
			*out = cel_bool(false);
			return 0;
		}
	}
	*out = cel_bool(true);
	return 0;
}

static int fn_sum(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	const struct cel_list *l = a[0].list;
	cel_value acc = cel_int(0);
	if (l->n > 0) {
		switch (l->items[0].kind) {
		case CEL_INT: break;
		case CEL_UINT: acc = cel_uint(0); break;
		case CEL_DOUBLE: acc = cel_double(0); break;
		case CEL_DURATION: acc = cel_duration(0); break;
		default: return cel_error_no_overload(ev, out, "sum", a, n);
		}
	}
	for (uint32_t i = 0; i < l->n; i++) {
		cel_value x = l->items[i];
		if (x.kind != acc.kind)
			return cel_error(ev, out, "no such overload");
		switch (x.kind) {
		case CEL_INT:
		case CEL_DURATION:
			if (__builtin_add_overflow(acc.i, x.i, &acc.i))
				return cel_error(ev, out, "integer overflow");
			break;
		case CEL_UINT:
			if (__builtin_add_overflow(acc.u, x.u, &acc.u))
				return cel_error(ev, out, "unsigned integer overflow");
			break;
		case CEL_DOUBLE:
			acc.d += x.d;
			break;
		}
	}
	*out = acc;
	return 0;
}

/* cmp(): the element e replaces the running result when result.Compare(e) == prefer. */
static int min_max(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, const char *name, int prefer)
{
	const struct cel_list *l = a[0].list;
	if (l->n == 0)
		return cel_error(ev, out, "%s called on empty list", name);
	cel_value r = l->items[0];
	for (uint32_t i = 0; i < l->n; i++) {
		if (!comparer(l->items[i]))
			return cel_error_no_overload(ev, out, name, a, n);
		if (i == 0)
			continue;
		int c;
		if (cel_value_compare(r, l->items[i], &c) != 0)
			return cel_error_no_overload(ev, out, name, a, n);
		if (c == prefer)
			r = l->items[i];
	}
	*out = r;
	return 0;
}

static int fn_min(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	return min_max(ev, a, n, out, "min", 1);
}

static int fn_max(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	return min_max(ev, a, n, out, "max", -1);
}

static int fn_index_of(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	const struct cel_list *l = a[0].list;
	int64_t r = -1;
	for (uint32_t i = 0; i < l->n && r < 0; i++)
		if (cel_value_equal(l->items[i], a[1]))
			r = i;
	*out = cel_int(r);
	return 0;
}

static int fn_last_index_of(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	const struct cel_list *l = a[0].list;
	int64_t r = -1;
	for (uint32_t i = l->n; i-- > 0 && r < 0;)
		if (cel_value_equal(l->items[i], a[1]))
			r = i;
	*out = cel_int(r);
	return 0;
}

static int fn_includes(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	bool r = false;
	if (a[0].kind == CEL_LIST) {
		for (uint32_t i = 0; i < a[0].list->n && !r; i++)
			r = cel_value_equal(a[0].list->items[i], a[1]);
	} else {
		r = cel_value_equal(a[0], a[1]);
	}
	*out = cel_bool(r);
	return 0;
}

#define L { CEL_LIST, NULL }
#define I { CEL_INT, NULL }
#define A { CEL_ANY, NULL }
#define R CEL_OV_RECEIVER

static const struct cel_overload lists_overloads[] = {
	/* cel-go ext lists v3 */
	{ "list_slice", "slice", R, 3, { L, I, I }, fn_slice, NULL, NULL, cost_output },
	{ "list_flatten", "flatten", R, 1, { L }, fn_flatten, NULL, NULL, cost_flatten },
	{ "list_flatten_int", "flatten", R, 2, { L, I }, fn_flatten, NULL, NULL, cost_flatten },
	{ "list_sort", "sort", R, 1, { L }, fn_sort, NULL, NULL, cost_self },
	{ "list_sortByAssociatedKeys", "@sortByAssociatedKeys", R, 2, { L, L }, fn_sort_by_keys, NULL, NULL,
	  cost_sort_by },
	{ "lists_range", "lists.range", CEL_OV_GLOBAL, 1, { I }, fn_range, NULL, NULL, cost_output },
	{ "list_reverse", "reverse", R, 1, { L }, fn_reverse, NULL, NULL, cost_output },
	{ "list_distinct", "distinct", R, 1, { L }, fn_distinct, NULL, NULL, cost_self },
	/* Kubernetes' lists v1 */
	{ "list_is_sorted_bool", "isSorted", R, 1, { L }, fn_is_sorted, NULL, NULL, cost_traversal },
	{ "list_sum", "sum", R, 1, { L }, fn_sum, NULL, NULL, cost_traversal },
	{ "list_max", "max", R, 1, { L }, fn_max, NULL, NULL, cost_traversal },
	{ "list_min", "min", R, 1, { L }, fn_min, NULL, NULL, cost_traversal },
	{ "list_a_index_of_int", "indexOf", R, 2, { L, A }, fn_index_of, NULL, NULL, cost_traversal },
	{ "list_a_last_index_of_int", "lastIndexOf", R, 2, { L, A }, fn_last_index_of, NULL, NULL, cost_traversal },
	{ "list_includes_dyn_dyn", "includes", R, 2, { A, A }, fn_includes, NULL, NULL, cost_traversal },
};

int cel_lib_lists_register(struct cel_env *env, struct err *e)
{
	return cel_env_add_overloads(env, lists_overloads, ARRAY_SIZE(lists_overloads), e);
}
