/* upstream OpportunisticBatching (v1.37 pkg/scheduler/framework/runtime/batch.go, called from
 * schedule_one.go findNodesThatFitPod / schedulePod), for profiles whose pods upstream signs
 * (config_profile_sign_mask). Runs on the scheduler thread; the state lives in the profile and
 * its buffers only grow, so a warm cycle allocates nothing here. */
#include "cycle_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

/* upstream maxBatchAge */
#define MAX_BATCH_AGE_NS (500LL * 1000 * 1000)

const char *fw_batch_flush_name(enum fw_batch_flush f)
{
	static const char *const names[] = {
		[FW_FLUSH_NONE] = "",
		[FW_FLUSH_POD_FAILED] = "pod_failed",
		[FW_FLUSH_POD_SKIPPED] = "pod_skipped",
		[FW_FLUSH_POD_NOMINATED] = "pod_nominated",
		[FW_FLUSH_NODE_MISSING] = "node_missing",
		[FW_FLUSH_EMPTY_LIST] = "empty_list",
		[FW_FLUSH_EXPIRED] = "expired",
		[FW_FLUSH_POD_INCOMPATIBLE] = "pod_incompatible",
		[FW_FLUSH_POD_NOT_BATCHABLE] = "pod_not_batchable",
		[FW_FLUSH_FILTER_ERROR] = "filter_error",
		[FW_FLUSH_PRESCORE_ERROR] = "prescore_error",
		[FW_FLUSH_RESCORE_ERROR] = "rescore_error",
		[FW_FLUSH_NORMALIZE_ERROR] = "normalize_error",
	};
	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "";
}

bool fw_profile_batches(const struct fw_profile *p)
{
	return p && p->batch.sign_mask != 0;
}

void fw_profile_set_cycle(struct fw_profile *p, uint64_t cycle)
{
	p->batch.cycle = cycle;
	p->batch.cycle_given = true;
}

/* Gives back the references the state holds on node names. */
static void drop_names(struct fw_batch *b)
{
	intern_release_n(b->owned, b->n_owned);
	b->n_owned = 0;
	intern_release(b->last_chosen);
	b->last_chosen = NULL;
}

/* The state takes a reference on each of the heap's n names (replacing the ones it held). */
static int own_heap_names(struct fw_batch *b, uint32_t n)
{
	intern_release_n(b->owned, b->n_owned);
	b->n_owned = 0;
	if (n > b->owned_cap) {
		size_t cap = b->owned_cap ? b->owned_cap : 256;
		while (cap < n)
			cap *= 2;
		const char **o = realloc(b->owned, cap * sizeof(*o));
		if (!o)
			return ERR_NOMEM;
		b->owned = o;
		b->owned_cap = cap;
	}
	for (uint32_t i = 0; i < n; i++)
		b->owned[i] = b->heap[i].name;
	intern_ref_n(b->owned, n);
	b->n_owned = n;
	return 0;
}

void fw_profile_batch_reset(struct fw_profile *p)
{
	struct fw_batch *b = &p->batch;
	drop_names(b);
	b->have_state = false;
	b->n_heap = 0;
	b->last_cycle = 0;
	b->last_succeeded = false;
	b->cycle = 0;
	b->cycle_given = false;
}

void fw_batch_release(struct fw_batch *b)
{
	drop_names(b);
	free(b->owned);
	fw_sig_release(&b->pod);
	fw_sig_release(&b->sig);
	free(b->heap);
	free(b->raw);
	free(b->cur_raw);
	memset(b, 0, sizeof(*b));
}

static const struct node_info *node_named(const struct fw_node_list *l, const char *name)
{
	if (l->get)
		return l->get(l->get_ctx, name);
	for (uint32_t i = 0; i < l->n; i++)
		if (l->nodes[i]->name == name || strcmp(l->nodes[i]->name, name) == 0)
			return l->nodes[i];
	return NULL;
}

static int heap_room(struct fw_batch *b, size_t n)
{
	if (n <= b->heap_cap)
		return 0;
	size_t cap = b->heap_cap ? b->heap_cap : 256;
	while (cap < n)
		cap *= 2;
	struct fw_scored_node *h = realloc(b->heap, cap * sizeof(*h));
	if (!h)
		return ERR_NOMEM;
	b->heap = h;
	b->heap_cap = cap;
	return 0;
}

/* upstream batchStateCompatible: FW_FLUSH_NONE when the state can give a hint. An unusable state
 * is only counted, not dropped (the next store replaces it). */
static enum fw_batch_flush compatible(const struct fw_batch *b, const struct api_pod *pod, bool *usable)
{
	*usable = false;
	if (!b->have_state || b->n_heap == 0)
		return FW_FLUSH_NONE;
	if (b->cycle != b->last_cycle + 1)
		return FW_FLUSH_POD_SKIPPED;
	if (!b->last_succeeded)
		return FW_FLUSH_POD_FAILED;
	if (pod->nominated_node_name && pod->nominated_node_name[0])
		return FW_FLUSH_POD_NOMINATED;
	if (!b->pod_signed || !fw_sig_equal(&b->pod, &b->sig))
		return FW_FLUSH_POD_INCOMPATIBLE;
	if (fw_now_ns() > b->created_ns + MAX_BATCH_AGE_NS)
		return FW_FLUSH_EXPIRED;
	*usable = true;
	return FW_FLUSH_NONE;
}

/* upstream refreshHintCandidates + rescoreHintedNode: true when a hint may be popped. */
static bool refresh(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
		    const struct api_pod *pod, struct fw_batch_outcome *o, struct err *e, int *rc)
{
	struct fw_batch *b = &p->batch;
	const struct node_info *last = node_named(nodes, b->last_chosen);
	if (!last) {
		o->hint_flush = FW_FLUSH_NODE_MISSING;
		return false;
	}
	struct fw_status st;
	fw_status_reset(&st);
	enum fw_code code = fw_run_filters(p, c, pod, last, &st);
	if (code == FW_UNSCHEDULABLE || code == FW_UNSCHEDULABLE_AND_UNRESOLVABLE)
		return true;
	if (code != FW_SUCCESS) {
		o->hint_flush = FW_FLUSH_FILTER_ERROR;
		return false;
	}
	/* still feasible: rescore it against the cached candidates */
	int64_t t0 = fw_now_ns();
	o->rescored = true;
	uint32_t n = b->n_heap + 1;
	if (heap_room(b, n) < 0 || fw_ensure_scratch(p, n, e) < 0) {
		*rc = err_set(e, ERR_NOMEM, "profile %s: batching: out of memory", p->name);
		return false;
	}
	/* the candidates in scratch_nodes: PreFilter's narrowing (candidates()) comes later */
	const struct node_info **cand = p->scratch_nodes;
	for (uint32_t i = 0; i < b->n_heap; i++)
		if (!(cand[i] = node_named(nodes, b->heap[i].name))) {
			o->hint_flush = FW_FLUSH_NODE_MISSING;
			o->rescore_ns = fw_now_ns() - t0;
			return false;
		}
	cand[n - 1] = last;
	/* upstream rescores on state.Clone(): PreScore must not replace what PreFilter stored */
	void *slots[FW_MAX_PLUGINS];
	bool skip_score[FW_MAX_PLUGINS];
	memcpy(slots, c->slots, sizeof(slots));
	memcpy(skip_score, c->skip_score, sizeof(skip_score));
	o->hint_flush = fw_batch_rescore(p, c, pod, cand, n, e, rc);
	/* the rebuilt heap holds the last chosen node too: own its names again */
	if (*rc == 0 && o->hint_flush == FW_FLUSH_NONE && own_heap_names(b, b->n_heap) < 0)
		*rc = err_set(e, ERR_NOMEM, "profile %s: batching: out of memory", p->name);
	memcpy(c->slots, slots, sizeof(slots));
	memcpy(c->skip_score, skip_score, sizeof(skip_score));
	o->rescore_ns = fw_now_ns() - t0;
	return *rc == 0 && o->hint_flush == FW_FLUSH_NONE;
}

const char *fw_batch_get_node_hint(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
				   const struct api_pod *pod, struct fw_schedule_result *res, struct err *e, int *rc)
{
	struct fw_batch *b = &p->batch;
	struct fw_batch_outcome *o = &res->batch;
	*rc = 0;
	int64_t t0 = fw_now_ns();
	bool usable;
	o->hint_flush = compatible(b, pod, &usable);
	if (usable && refresh(p, c, nodes, pod, o, e, rc))
		o->hint = fw_sorted_nodes_pop(b->heap, &b->n_heap).name;
	o->hint_ns = fw_now_ns() - t0;
	return o->hint;
}

int fw_batch_store(struct fw_profile *p, const char *hinted, const char *chosen, bool sorted,
		   struct fw_schedule_result *res)
{
	struct fw_batch *b = &p->batch;
	struct fw_batch_outcome *o = &res->batch;
	int64_t t0 = fw_now_ns();
	o->stored = true;
	b->last_cycle = b->cycle;
	const char *prev = b->last_chosen;
	b->last_chosen = intern_ref(chosen);
	intern_release(prev);
	b->last_succeeded = true;
	if (hinted && hinted == chosen) {
		o->attempt = "hint_used";
		o->store_ns = fw_now_ns() - t0;
		return 0;
	}
	if (hinted)
		o->attempt = "hint_not_used";
	uint32_t n = sorted ? p->n_sorted : 0;
	if (b->pod_signed && n > 0) {
		/* the state takes this cycle's signature, remainder and raw scores (buffers swapped) */
		struct fw_sig t = b->sig;
		b->sig = b->pod;
		b->pod = t;
		b->pod_signed = false;
		struct fw_scored_node *h = b->heap;
		size_t hc = b->heap_cap;
		b->heap = p->sorted;
		b->heap_cap = p->sorted_cap;
		p->sorted = h;
		p->sorted_cap = hc;
		p->n_sorted = 0;
		b->n_heap = n;
		/* out of memory: no state, the next pod is scored in full */
		bool owned = own_heap_names(b, n) == 0;
		int64_t *r = b->raw;
		size_t rc = b->raw_cap;
		b->raw = b->cur_raw;
		b->raw_cap = b->cur_raw_cap;
		b->cur_raw = r;
		b->cur_raw_cap = rc;
		b->n_pls = b->cur_n_pls;
		b->stride = b->cur_stride;
		memcpy(b->pls, b->cur_pls, b->cur_n_pls * sizeof(*b->pls));
		b->created_ns = fw_now_ns();
		b->have_state = owned;
	} else {
		o->store_flush = n == 0 ? FW_FLUSH_EMPTY_LIST : FW_FLUSH_POD_NOT_BATCHABLE;
		b->have_state = false;
	}
	o->store_ns = fw_now_ns() - t0;
	return 0;
}
