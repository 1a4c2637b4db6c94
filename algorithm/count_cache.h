/* Per-node counts of matching pods kept across cycles (algorithm/count_cache.c), shared by
 * PodTopologySpread (countPodsMatchSelector) and InterPodAffinity (the incoming pod's terms in
 * PreFilter and PreScore). Internal to algorithm/.
 *
 * A slot holds, for one pod predicate (struct fw_pod_match, copied with references on its
 * strings), each snapshot node_info's count with the generation it was taken at. The cache
 * stamps a process-unique generation on every change of a node_info's pods or labels (cache.h),
 * so (node_info address, generation) names one content: a count is reused while they hold and
 * recounted when the generation moved. A slot may also keep its counts summed per topology value
 * (fw_count_cache_domains). Not thread-safe: only a plugin's PreFilter and PreScore (the scheduler
 * thread) use its cache. */
#ifndef CSCHED_ALGORITHM_COUNT_CACHE_H
#define CSCHED_ALGORITHM_COUNT_CACHE_H

#include "algorithm/plugin.h"
#include "common/pmap.h"

/* One condition on a pod: its namespace is one of ns[] (or any_ns) and sel matches its labels
 * (NULL matches nothing). ns are interned. */
struct fw_pod_clause {
	const char *const *ns;
	uint32_t n_ns;
	bool any_ns;
	const struct api_label_selector *sel;
};

/* A pod matches when it satisfies every clause (none: no pod matches) and, with skip_deleting,
 * is not being deleted. */
struct fw_pod_match {
	const struct fw_pod_clause *c;
	uint32_t n;
	bool skip_deleting;
};

bool fw_pod_match(const struct fw_pod_match *m, const struct api_pod *p);
/* The pods of ni matching m (counted now). */
int64_t fw_pod_match_count(const struct fw_pod_match *m, const struct node_info *ni);

struct fw_domains;

/* A slot: its predicate (malloc'd copy, strings referenced so that their addresses stay theirs
 * while compared) and the counts by node_info. */
struct fw_count_slot {
	struct fw_pod_clause *c; /* NULL = unused */
	uint32_t n;
	bool skip_deleting;
	struct pmap by_node; /* const struct node_info * -> struct fw_node_count * (malloc'd) */
	uint64_t used;       /* round of the last use: LRU eviction, never in the current round */
	uint64_t id;         /* changes with the key: (slot, id) names one predicate */
	struct fw_domains *domains; /* the totals per topology value kept over this slot's counts */
};

#define FW_COUNT_CACHE_SLOTS 8

struct fw_count_cache {
	struct fw_count_slot slots[FW_COUNT_CACHE_SLOTS];
	uint64_t round;
	uint64_t ids; /* the last slot id given */
};

/* Starts a round (a PreFilter or a PreScore): the slots taken in it stay theirs until the next. */
void fw_count_cache_begin(struct fw_count_cache *cc);
/* The slot of m for a cycle over n_nodes node_infos, taken for this round; NULL when every slot is
 * taken in this round or out of memory (then count with fw_count_cache_count(NULL, ...)). */
struct fw_count_slot *fw_count_cache_slot(struct fw_count_cache *cc, const struct fw_pod_match *m, uint32_t n_nodes);
/* ni's count of m through slot s (the slot of m; NULL: counted now). */
int64_t fw_count_cache_count(struct fw_count_slot *s, const struct fw_pod_match *m, const struct node_info *ni);

/* ---------- Totals per topology domain, kept across cycles ----------
 *
 * A slot's counts summed per value of one topology key over a node list (PodTopologySpread's
 * count walk in PreFilter and PreScore's processAllNode), updated only for the nodes whose
 * (node_info, generation) moved since the slot's last cycle with the same keys: each node's
 * contribution (its value and count) is kept by its position in the list, subtracted from its
 * value's total and the new one added when the position holds another node_info or another
 * generation, so the totals equal a full walk's. A node counts when it has a node and, with
 * require_all, every key of keys[]; its value is its label of keys[key] or, without it, empty
 * (only reachable without require_all). The caller guarantees every node passes its other
 * inclusion rules (PodTopologySpread: no node affinity or taint policy to honour). */
struct fw_domain_total {
	const char *value; /* the node label's value (interned; valid while nodes > 0) */
	int64_t nodes;     /* counted nodes with this value: a domain exists while > 0 */
	int64_t sum;       /* their counts */
};

struct fw_domains {
	const char **keys; /* malloc'd copy, referenced */
	uint32_t n_keys, key;
	bool require_all;
	const char *empty;
	uint64_t used; /* the cache round of the last use */
	uint32_t n_pos;
	struct fw_domain_pos *pos; /* per position of the node list: the contribution counted there */
	struct pmap index;         /* value -> (intptr_t) 1 + its index in totals */
	uint32_t n_totals, cap_totals;
	struct fw_domain_total *totals;
	struct fw_domains *next;
};

#define FW_DOMAINS_PER_SLOT 4

/* Slot s's totals for (keys, key, require_all) over nodes, brought up to date; NULL on out of
 * memory or when s already holds FW_DOMAINS_PER_SLOT of them in use this round (then walk the
 * nodes). m is s's predicate. empty is the value of a node without keys[key] (interned). */
struct fw_domains *fw_count_cache_domains(struct fw_count_cache *cc, struct fw_count_slot *s,
					  const struct fw_pod_match *m, const char *const *keys, uint32_t n_keys,
					  uint32_t key, bool require_all, const char *empty,
					  const struct fw_node_list *nodes);
/* value's total in d: NULL when no counted node has it. */
const struct fw_domain_total *fw_domains_get(const struct fw_domains *d, const char *value);

/* Frees the slots and gives back their references (cc may be reused after). */
void fw_count_cache_release(struct fw_count_cache *cc);

#endif
