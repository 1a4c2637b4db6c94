/* A point-in-time copy of the cache's nodes for one scheduling cycle.
 *
 * Owned by the scheduler thread; cache_update_snapshot refreshes it between cycles. While a cycle
 * runs it is read-only, so worker threads may read it concurrently without locks. Pointers returned
 * here stay valid until the next cache_update_snapshot or snapshot_free. Ghost nodes (no Node
 * object) are never in a snapshot. */
#ifndef CSCHED_SNAPSHOT_H
#define CSCHED_SNAPSHOT_H

#include <stdint.h>

#include "cache/node_info.h"

struct snapshot;

struct snapshot *snapshot_new(void);
void snapshot_free(struct snapshot *s); /* NULL is a no-op */

/* Nodes in upstream's nodeTree order: zones (region + zone labels) in first-seen order, one node
 * of each zone in turn. */
uint32_t snapshot_num_nodes(const struct snapshot *s);
const struct node_info *snapshot_node_at(const struct snapshot *s, uint32_t i);
/* The whole list (snapshot_num_nodes entries), for the parallel filter. */
const struct node_info *const *snapshot_nodes(const struct snapshot *s);
/* By name (interned or not); NULL when the snapshot has no such node. */
const struct node_info *snapshot_get(const struct snapshot *s, const char *name);

/* Nodes having at least one pod with pod affinity or anti-affinity (any), in node-list order. */
uint32_t snapshot_num_have_pods_with_affinity(const struct snapshot *s);
const struct node_info *const *snapshot_have_pods_with_affinity(const struct snapshot *s);
/* Nodes having at least one pod with required pod anti-affinity, in node-list order. */
uint32_t snapshot_num_have_pods_with_required_anti_affinity(const struct snapshot *s);
const struct node_info *const *snapshot_have_pods_with_required_anti_affinity(const struct snapshot *s);

/* The cache generation the snapshot reflects. */
uint64_t snapshot_generation(const struct snapshot *s);

/* Work counters, for tests and benchmarks: node_infos copied from the cache, and node-list
 * rebuilds, since snapshot_new. */
struct snapshot_stats {
	uint64_t node_copies;
	uint64_t list_rebuilds;
};
void snapshot_stats(const struct snapshot *s, struct snapshot_stats *out);

#endif
