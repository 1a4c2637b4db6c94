/* Read-only accessors of a snapshot; cache_update_snapshot (cache.c) fills it. */
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"

struct snapshot *snapshot_new(void)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	if (s)
		map_init(&s->infos);
	return s;
}

void snapshot_clear_(struct snapshot *s)
{
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&s->infos, &it, &k, &v);) {
		node_info_release(v);
		free(v);
	}
	map_release(&s->infos);
	free(s->list);
	free(s->aff);
	free(s->anti);
	s->list = s->aff = s->anti = NULL;
	s->n_list = s->cap_list = s->n_aff = s->n_anti = 0;
	s->generation = s->tree_generation = 0;
	s->owner = NULL;
	s->stale = false;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	snapshot_clear_(s);
	free(s);
}

uint32_t snapshot_num_nodes(const struct snapshot *s)
{
	return s->n_list;
}

const struct node_info *snapshot_node_at(const struct snapshot *s, uint32_t i)
{
	return i < s->n_list ? s->list[i] : NULL;
}

const struct node_info *const *snapshot_nodes(const struct snapshot *s)
{
	return s->list;
}

const struct node_info *snapshot_get(const struct snapshot *s, const char *name)
{
	return name ? map_get(&s->infos, name) : NULL;
}

uint32_t snapshot_num_have_pods_with_affinity(const struct snapshot *s)
{
	return s->n_aff;
}

const struct node_info *const *snapshot_have_pods_with_affinity(const struct snapshot *s)
{
	return s->aff;
}

uint32_t snapshot_num_have_pods_with_required_anti_affinity(const struct snapshot *s)
{
	return s->n_anti;
}

const struct node_info *const *snapshot_have_pods_with_required_anti_affinity(const struct snapshot *s)
{
	return s->anti;
}

uint64_t snapshot_generation(const struct snapshot *s)
{
	return s->generation;
}

void snapshot_stats(const struct snapshot *s, struct snapshot_stats *out)
{
	*out = s->stats;
}
