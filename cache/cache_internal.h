/* Internal to cache/: the snapshot's layout (filled by cache.c, read by snapshot.c) and the node
 * tree (upstream backend/cache/node_tree.go). */
#ifndef CSCHED_CACHE_INTERNAL_H
#define CSCHED_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/node_info.h"
#include "cache/snapshot.h"
#include "common/map.h"

struct cache;

struct snapshot {
	const struct cache *owner; /* the cache that last filled it (a different one resets it) */
	uint64_t generation;       /* cache generation reflected */
	uint64_t tree_generation;  /* cache node-tree generation the list reflects */
	bool stale;                /* a failed update: the next one starts afresh */
	struct map infos;          /* node name -> struct node_info * (owned clones) */
	const struct node_info **list;
	uint32_t n_list, cap_list;
	const struct node_info **aff;  /* have pods with (anti-)affinity */
	uint32_t n_aff;
	const struct node_info **anti; /* have pods with required anti-affinity */
	uint32_t n_anti;
	struct snapshot_stats stats;
};

/* Drops every clone and list; the snapshot becomes empty (generation 0). */
void snapshot_clear_(struct snapshot *s);

/* One zone of the node tree: nodes in insertion order. region/zone are interned ("" if absent).
 * members holds the same names (value: the name) so that an add finds a duplicate in O(1):
 * building a tree of n nodes is O(n), not O(n^2). */
struct node_tree_zone {
	const char *region, *zone;
	const char **names; /* interned */
	uint32_t n, cap;
	struct map members;
};

struct node_tree {
	struct node_tree_zone *zones; /* in first-seen order */
	uint32_t n_zones;
	size_t cap_zones;
	uint32_t num_nodes;
};

/* Upstream utilnode.GetZoneKey, as a (region, zone) pair of interned strings: the
 * failure-domain.beta.kubernetes.io labels win over topology.kubernetes.io ones when present. */
void node_tree_zone_of(const struct api_node *node, const char **region, const char **zone);
/* Appends name to its zone (a new zone goes last); a name already in that zone is left where it
 * is (upstream addNode). O(1) amortised, plus O(zones) to find the zone. 0 or ERR_NOMEM. */
int node_tree_add(struct node_tree *t, const char *region, const char *zone, const char *name);
/* ERR_NOT_FOUND when the node is not in that zone. An emptied zone is dropped. O(nodes of the
 * zone): the order of the others is kept. */
int node_tree_remove(struct node_tree *t, const char *region, const char *zone, const char *name);
/* Round robin over zones: the i-th node of each zone in turn. out holds t->num_nodes entries;
 * returns how many were written. */
uint32_t node_tree_list(const struct node_tree *t, const char **out);
void node_tree_release(struct node_tree *t);

#endif
