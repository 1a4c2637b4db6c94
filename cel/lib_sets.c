/* cel-go's sets extension (ext/sets.go), as Kubernetes' base environment enables it:
 * sets.contains(list, sublist), sets.equivalent(a, b), sets.intersects(a, b), with list
 * membership by CEL equality (1 == 1u == 1.0) and cel-go's runtime costs
 * (trackSetsCost: 1 + size(a) * size(b) * factor, factor 2 for equivalent). */
#include "cel_internal.h"
#include "common/macros.h"

static bool list_has(const struct cel_list *l, cel_value v)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (cel_value_equal(l->items[i], v))
			return true;
	return false;
}

static bool contains(const struct cel_list *l, const struct cel_list *sub)
{
	for (uint32_t i = 0; i < sub->n; i++)
		if (!list_has(l, sub->items[i]))
			return false;
	return true;
}

static int fn_contains(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(contains(a[0].list, a[1].list));
	return 0;
}

static int fn_equivalent(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(contains(a[0].list, a[1].list) && contains(a[1].list, a[0].list));
	return 0;
}

static int fn_intersects(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	bool r = false;
	for (uint32_t i = 0; i < a[0].list->n && !r; i++)
		r = list_has(a[1].list, a[0].list->items[i]);
	*out = cel_bool(r);
	return 0;
}

static uint64_t cost1(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return 1 + (uint64_t)a[0].list->n * a[1].list->n;
}

static uint64_t cost2(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return 1 + 2 * (uint64_t)a[0].list->n * a[1].list->n;
}

#define L { CEL_LIST, NULL }

static const struct cel_overload sets_overloads[] = {
	{ "list_sets_contains_list", "sets.contains", CEL_OV_GLOBAL, 2, { L, L }, fn_contains, NULL, NULL, cost1 },
	{ "list_sets_equivalent_list", "sets.equivalent", CEL_OV_GLOBAL, 2, { L, L }, fn_equivalent, NULL, NULL, cost2 },
	{ "list_sets_intersects_list", "sets.intersects", CEL_OV_GLOBAL, 2, { L, L }, fn_intersects, NULL, NULL, cost1 },
};

int cel_lib_sets_register(struct cel_env *env, struct err *e)
{
	return cel_env_add_overloads(env, sets_overloads, ARRAY_SIZE(sets_overloads), e);
}
