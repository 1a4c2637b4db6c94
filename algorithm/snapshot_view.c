/* The cache snapshot as the framework's node list (cache/snapshot.h). Kept apart so that
 * programs using the framework without a cache snapshot do not link it. */
#include "framework_internal.h"

#include "cache/snapshot.h"

static const struct node_info *snapshot_lookup(const void *ctx, const char *name)
{
	return snapshot_get(ctx, name);
}

void fw_node_list_from_snapshot(const struct snapshot *s, struct fw_node_list *out)
{
	out->n = snapshot_num_nodes(s);
	out->nodes = snapshot_nodes(s);
	out->get = snapshot_lookup;
	out->get_ctx = s;
	out->has_pod_lists = true;
	out->n_with_affinity = snapshot_num_have_pods_with_affinity(s);
	out->with_affinity = snapshot_have_pods_with_affinity(s);
	out->n_with_required_anti = snapshot_num_have_pods_with_required_anti_affinity(s);
	out->with_required_anti = snapshot_have_pods_with_required_anti_affinity(s);
}
