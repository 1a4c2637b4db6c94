/* DynamicResources (PreEnqueue, PreFilter, Filter, PostFilter, Score, Reserve, Unreserve,
 * PreBind; upstream plugins/dynamicresources/dynamicresources.go, dra_manager.go and
 * allocateddevices.go of v1.37.2 with its default gates): a pod's ResourceClaims must exist;
 * allocated ones restrict the nodes by their allocation's node selector, unallocated ones are
 * allocated per node by the structured allocator (dra_allocator.h) on the devices nobody else
 * holds; Reserve keeps the chosen allocation in flight so no other pod gets those devices, and
 * PreBind writes status.allocation and status.reservedFor through the scheduler's fw_dra_ops,
 * then waits for the devices' binding conditions. Extended resources backed by DRA
 * (DRAExtendedResource, upstream extendeddynamicresources.go) take the same path as the pod's
 * "special claim": the last of the state's claims, built in memory in PreFilter, given its
 * requests per node in Filter, created by PreBind and deleted again by Unreserve.
 *
 * DESIGN (threads). PreEnqueue and the queueing hints run on queue/informer threads, PreFilter,
 * PostFilter and Reserve on the scheduler thread, Filter and Score on the worker pool, PreBind and
 * Unreserve on a binder thread. Two kinds of shared state:
 * - the plugin instance's (struct dr_priv, upstream's claimTracker): the in-flight allocations
 *   (claim uid -> allocation, between Reserve and the end of PreBind or Unreserve) and the
 *   assumed claims (the claim an API write returned, used instead of the informer's older copy
 *   until the informer catches up: upstream's assume cache). priv->lock guards both; it is a
 *   leaf lock: nothing is called with it held but the maps and reference counts.
 * - the cycle's (struct dr_state, upstream's stateData): written by PreFilter, read by Filter
 *   on many threads at once; state->lock guards the per-node allocations and the unavailable
 *   claims Filter records (leaf lock too).
 * An allocation computed for a node lives in that node's arena (struct dr_node_alloc,
 * refcounted): the cycle state and an in-flight entry each hold a reference, so a pod's
 * in-flight devices stay valid after its cycle state is reset. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"
#include "common/arena.h"
#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"
#include "common/strbuf.h"
#include "dra_allocator.h"
#include "dra_internal.h"
#include "plugin_helpers.h"

#define NAME "DynamicResources"
#define FINALIZER "resource.kubernetes.io/delete-protection"
/* upstream resourceapi.FirstAvailableDeviceRequestMaxSize */
#define FIRST_AVAILABLE_MAX 8
/* upstream's PreBind poll of binding conditions (wait.PollUntilContextTimeout, 5 s) */
#define BINDING_POLL_MS 5000
/* upstream retry.DefaultRetry: 5 steps of 10 ms (jitter 0.1 left out: one writer per claim) */
#define CONFLICT_RETRY_STEPS 5
#define CONFLICT_RETRY_MS 10
/* upstream cel.NewCache(10, ...) */
#define CEL_CACHE_SIZE 10

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* ---------- Plugin instance ---------- */

/* A node's allocation results (one per claim to allocate, in claim order), in its own arena. */
struct dr_node_alloc {
	atomic_int refs;
	struct arena *arena;
	uint32_t n;
	struct api_dra_allocation *results;
	/* DRAExtendedResource (upstream nodeAllocation.extendedResourceClaim and
	 * containerResourceRequestMappings): the pod's special claim with this node's requests, and
	 * which container's resource each request serves; in arena, NULL / 0 when the pod has no
	 * special claim to allocate. The claim is never ref'd nor unref'd (arena NULL, refs 1); its
	 * metadata is the state's special claim's, read (by PreBind) only while the state holds it. */
	struct api_resource_claim *ext_claim;
	uint32_t n_mappings;
	struct api_pod_extended_mapping *mappings;
};

static void node_alloc_unref(struct dr_node_alloc *na)
{
	if (na && atomic_fetch_sub(&na->refs, 1) == 1) {
		arena_free(na->arena);
		free(na);
	}
}

/* upstream inFlightAllocation: the allocation Reserve picked, shared by the pods of a claim. */
struct dr_inflight {
	const char *uid; /* counted intern reference (the map key) */
	const struct api_dra_allocation *allocation; /* in holder's arena */
	struct dr_node_alloc *holder; /* one reference */
	int sharers;
};

/* An assumed claim (upstream AssumeCache.Assume): key "ns/name" (malloc'd, the map key). */
struct dr_assumed {
	char *key;
	int64_t version; /* resourceVersion as an integer, as the assume cache compares them */
	struct api_resource_claim *claim; /* one reference */
};

struct dr_priv {
	int64_t filter_timeout_ns;
	int64_t binding_timeout_ns;
	struct dra_cel_cache *cel;
	pthread_mutex_t lock; /* guards inflight and assumed; leaf */
	struct map inflight;  /* claim uid -> struct dr_inflight */
	struct map assumed;   /* "ns/name" -> struct dr_assumed */
	/* The informer's claims and the devices they hold (upstream allocateddevices.go's tracker),
	 * kept by the claim informer's events (claim_event); priv->lock guards them too. tracked:
	 * the events come (the listers have a sink) and none was lost to out of memory; otherwise
	 * PreFilter gathers the devices from every claim (gather_allocated). */
	bool tracked;
	struct map claims; /* "ns/name" -> struct dr_assumed holding the informer's claim */
	struct dra_allocated_state *allocated;
};

static int64_t rv_int(const char *rv)
{
	return rv ? strtoll(rv, NULL, 10) : 0;
}

static void assumed_free(struct dr_assumed *a)
{
	if (!a)
		return;
	api_resource_claim_unref(a->claim);
	free(a->key);
	free(a);
}

static void inflight_free(struct dr_inflight *f)
{
	if (!f)
		return;
	node_alloc_unref(f->holder);
	intern_release(f->uid);
	free(f);
}

static void claim_event(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj);
static void release(struct fw_pl *pl);

static int init(struct fw_pl *pl, struct err *e)
{
	static const struct cfg_dynamic_resources_args defaults = { 10 * 1000000000LL, 600 * 1000000000LL };
	const struct cfg_dynamic_resources_args *a = pl->args ? pl->args : &defaults;
	if (a->filter_timeout_ns < 0)
		return err_set(e, ERR_INVALID, NAME ": filterTimeout: must be zero or positive");
	if (a->binding_timeout_ns < 1000000000LL)
		return err_set(e, ERR_INVALID, NAME ": bindingTimeout: must be at least 1 second");
	struct dr_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ERR_NOMEM, NAME ": out of memory");
	p->filter_timeout_ns = a->filter_timeout_ns;
	p->binding_timeout_ns = a->binding_timeout_ns;
	p->cel = dra_cel_cache_new(CEL_CACHE_SIZE);
	if (!p->cel || pthread_mutex_init(&p->lock, NULL) != 0) {
		dra_cel_cache_free(p->cel);
		free(p);
		return err_set(e, ERR_NOMEM, NAME ": out of memory");
	}
	map_init(&p->inflight);
	map_init(&p->assumed);
	map_init(&p->claims);
	pl->priv = p;
	if (!(p->allocated = dra_allocated_state_new())) {
		release(pl);
		return err_set(e, ERR_NOMEM, NAME ": out of memory");
	}
	p->tracked = true; /* before the sink replays the claims the store holds */
	int rc = fw_watch_resource_claims(pl, claim_event, p);
	if (rc < 0) {
		release(pl);
		return err_set(e, ERR_NOMEM, NAME ": claim events: out of memory");
	}
	if (rc == 1)
		p->tracked = false;
	return 0;
}

/* Frees every struct dr_assumed of m (the assumed copies, the tracker's claims) and empties it. */
static void assumed_map_clear(struct map *m)
{
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(m, &it, &k, &v))
		assumed_free(v);
	map_release(m);
	map_init(m);
}

static void release(struct fw_pl *pl)
{
	struct dr_priv *p = pl->priv;
	if (!p)
		return;
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&p->inflight, &it, &k, &v))
		inflight_free(v);
	map_release(&p->inflight);
	assumed_map_clear(&p->assumed);
	assumed_map_clear(&p->claims);
	dra_allocated_state_free(p->allocated);
	pthread_mutex_destroy(&p->lock);
	dra_cel_cache_free(p->cel);
	free(p);
	pl->priv = NULL;
}

/* ---------- Claims as the assume cache sees them ---------- */

static void claim_key(char *buf, size_t size, const char *ns, const char *name)
{
	snprintf(buf, size, "%s/%s", ns, name);
}

/* Drops the tracker (out of memory): PreFilter gathers from every claim from now on. Called
 * with priv->lock held. */
static void tracker_drop(struct dr_priv *p)
{
	assumed_map_clear(&p->claims);
	dra_allocated_state_free(p->allocated);
	p->allocated = NULL;
	p->tracked = false;
	LOG_WARN(NAME ": claim tracker: out of memory, allocated devices are gathered per pod from now on");
}

/* The claim informer's event sink (fw_listers.resource_claim_sink; upstream
 * allocateddevices.go's handlers): the claim's old devices out, its new ones in. An assumed copy
 * as old as the delivered claim, or older, is done (upstream's assume cache drops it on the
 * informer's event), as is the assumed copy of a deleted claim. */
static void claim_event(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj)
{
	struct dr_priv *p = arg;
	const struct api_resource_claim *c = new_obj ? new_obj : old;
	char key[512];
	claim_key(key, sizeof(key), c->meta.namespace, c->meta.name);
	struct dr_assumed *t = NULL, *cur = NULL, *drop = NULL;
	if (new_obj && (t = calloc(1, sizeof(*t)))) {
		if (!(t->key = strdup(key))) {
			free(t);
			t = NULL;
		} else {
			t->version = rv_int(new_obj->meta.resource_version);
			t->claim = api_resource_claim_ref((struct api_resource_claim *)new_obj);
		}
	}
	pthread_mutex_lock(&p->lock);
	if (!p->tracked)
		goto unlock;
	if ((cur = map_del(&p->claims, key)) && dra_allocated_state_adjust(p->allocated, cur->claim->allocation, -1) < 0) {
		tracker_drop(p);
		goto unlock;
	}
	if (new_obj) {
		void *prev = NULL;
		if (!t || map_put(&p->claims, t->key, t, &prev) < 0) {
			tracker_drop(p);
			goto unlock;
		}
		struct dr_assumed *in = t;
		t = NULL; /* the map's */
		if (dra_allocated_state_adjust(p->allocated, in->claim->allocation, 1) < 0) {
			tracker_drop(p);
			goto unlock;
		}
	}
	struct dr_assumed *a = map_get(&p->assumed, key);
	if (a && (!new_obj || rv_int(new_obj->meta.resource_version) >= a->version))
		drop = map_del(&p->assumed, key);
unlock:
	pthread_mutex_unlock(&p->lock);
	assumed_free(t);
	assumed_free(cur);
	assumed_free(drop);
}

/* upstream claimTracker.Get: the informer's claim, or the assumed one while it is newer. A new
 * reference, or NULL when the claim does not exist. */
static struct api_resource_claim *claim_get(const struct fw_pl *pl, const char *ns, const char *name)
{
	struct dr_priv *p = pl->priv;
	struct api_resource_claim *c = fw_get_resource_claim(pl, ns, name);
	struct dr_assumed *drop = NULL;
	char key[512];
	claim_key(key, sizeof(key), ns, name);
	pthread_mutex_lock(&p->lock);
	struct dr_assumed *a = map_get(&p->assumed, key);
	if (a) {
		if (!c || rv_int(c->meta.resource_version) >= a->version) {
			/* the informer caught up (or deleted the claim): the assumed copy is done */
			drop = map_del(&p->assumed, key);
		} else {
			api_resource_claim_unref(c);
			c = api_resource_claim_ref(a->claim);
		}
	}
	pthread_mutex_unlock(&p->lock);
	assumed_free(drop);
	return c;
}

/* upstream AssumeCache.Assume: claim (an API write's answer) replaces the cached one until the
 * informer delivers this version or a newer one. An older version than the informer's is not
 * assumed (upstream's "out of sync" error, which PreBind only logs). */
static void claim_assume(const struct fw_pl *pl, struct api_resource_claim *claim)
{
	struct dr_priv *p = pl->priv;
	int64_t version = rv_int(claim->meta.resource_version);
	struct api_resource_claim *cur = fw_get_resource_claim(pl, claim->meta.namespace, claim->meta.name);
	bool stale = cur && rv_int(cur->meta.resource_version) > version;
	api_resource_claim_unref(cur);
	if (stale)
		return;
	struct dr_assumed *a = calloc(1, sizeof(*a));
	char key[512];
	claim_key(key, sizeof(key), claim->meta.namespace, claim->meta.name);
	if (!a || !(a->key = strdup(key))) {
		free(a);
		LOG_WARN(NAME ": out of memory assuming claim %s", key);
		return;
	}
	a->version = version;
	a->claim = api_resource_claim_ref(claim);
	void *old = NULL;
	pthread_mutex_lock(&p->lock);
	int rc = map_put(&p->assumed, a->key, a, &old);
	pthread_mutex_unlock(&p->lock);
	if (rc < 0) {
		LOG_WARN(NAME ": out of memory assuming claim %s", key);
		assumed_free(a);
		return;
	}
	assumed_free(old);
}

/* upstream AssumeCache.Restore: forget the assumed copy of ns/name. */
static void claim_restore(const struct fw_pl *pl, const char *ns, const char *name)
{
	struct dr_priv *p = pl->priv;
	char key[512];
	claim_key(key, sizeof(key), ns, name);
	pthread_mutex_lock(&p->lock);
	struct dr_assumed *a = map_del(&p->assumed, key);
	pthread_mutex_unlock(&p->lock);
	assumed_free(a);
}

/* upstream GetPendingAllocation: whether claim uid has an in-flight allocation. */
static bool inflight_has(struct dr_priv *p, const char *uid)
{
	pthread_mutex_lock(&p->lock);
	bool found = map_get(&p->inflight, uid) != NULL;
	pthread_mutex_unlock(&p->lock);
	return found;
}

/* upstream MaybeRemoveClaimPendingAllocation: true when the entry was removed. */
static bool inflight_remove(struct dr_priv *p, const char *uid, bool force)
{
	struct dr_inflight *gone = NULL;
	pthread_mutex_lock(&p->lock);
	struct dr_inflight *f = map_get(&p->inflight, uid);
	if (f) {
		if (force || f->sharers == 1)
			gone = map_del(&p->inflight, uid);
		else
			f->sharers--;
	}
	pthread_mutex_unlock(&p->lock);
	inflight_free(gone);
	return gone != NULL;
}

/* ---------- Pod claims (upstream resourceclaim.Name, IsForPod, foreachPodResourceClaim) ---------- */

static bool claim_reserved_for_pod(const struct api_resource_claim *c, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < c->n_reserved_for; i++)
		if (str_eq(c->reserved_for[i].uid, pod->meta.uid))
			return true;
	return false;
}

/* upstream resourceclaim.CanBeReserved: v1.37 has no limit on reservedFor any more. */
static bool claim_can_be_reserved(const struct api_resource_claim *c)
{
	(void)c;
	return true;
}

static bool claim_controlled_by(const struct api_resource_claim *c, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < c->meta.n_owner_refs; i++) {
		const struct api_owner_ref *o = &c->meta.owner_refs[i];
		if (o->controller)
			return str_eq(o->uid, pod->meta.uid);
	}
	return false;
}

/* Calls fn(arg, claim) for each claim of pod (borrowed for the call), in spec order, skipping
 * template claims the controller decided not to create. Returns 0, or 1 with msg (upstream's
 * error text) when a claim is missing, being deleted or not the pod's. */
static int each_pod_claim(const struct fw_pl *pl, const struct api_pod *pod,
			  void (*fn)(void *arg, struct api_resource_claim *c), void *arg, char *msg, size_t size)
{
	for (uint32_t i = 0; i < pod->n_resource_claims; i++) {
		const struct api_pod_resource_claim *pc = &pod->resource_claims[i];
		const char *name = NULL;
		bool check_owner = false;
		if (pc->resource_claim_name) {
			name = pc->resource_claim_name;
		} else if (pc->resource_claim_template_name) {
			bool found = false;
			for (uint32_t j = 0; j < pod->n_resource_claim_statuses; j++)
				if (strcmp(pod->resource_claim_statuses[j].name, pc->name) == 0) {
					name = pod->resource_claim_statuses[j].resource_claim_name;
					found = true;
					break;
				}
			if (!found) {
				snprintf(msg, size, "pod \"%s/%s\": ResourceClaim not created yet", pod->meta.namespace,
					 pod->meta.name);
				return 1;
			}
			check_owner = true;
		} else {
			snprintf(msg, size, "pod \"%s/%s\", spec.resourceClaim \"%s\": none of the supported fields are set",
				 pod->meta.namespace, pod->meta.name, pc->name);
			return 1;
		}
		if (!name)
			continue; /* no claim needed */
		struct api_resource_claim *c = claim_get(pl, pod->meta.namespace, name);
		if (!c) {
			snprintf(msg, size, "could not find ResourceClaim \"%s/%s\"", pod->meta.namespace, name);
			return 1;
		}
		if (c->meta.being_deleted) {
			snprintf(msg, size, "resourceclaim \"%s\" is being deleted", c->meta.name);
			api_resource_claim_unref(c);
			return 1;
		}
		if (check_owner && !claim_controlled_by(c, pod)) {
			snprintf(msg, size, "ResourceClaim %s/%s was not created for Pod %s/%s (Pod is not owner)",
				 c->meta.namespace, c->meta.name, pod->meta.namespace, pod->meta.name);
			api_resource_claim_unref(c);
			return 1;
		}
		if (fn)
			fn(arg, c);
		api_resource_claim_unref(c);
	}
	return 0;
}

/* ---------- PreEnqueue ---------- */

static enum fw_code pre_enqueue(const struct fw_pl *pl, const struct api_pod *pod, struct fw_status *st)
{
	char msg[FW_STATUS_TEXT_MAX];
	if (each_pod_claim(pl, pod, NULL, NULL, msg, sizeof(msg)))
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, msg);
	return FW_SUCCESS;
}

/* ---------- Cycle state ---------- */

/* A pod's non-zero request of an extended resource name, with the DeviceClass backing it,
 * resolved once in PreFilter (as NodeResourcesFit's PreFilter resolves it). */
struct dr_ext_req {
	const char *name; /* interned */
	int64_t value;
	const char *class_name; /* interned (pinned), NULL when no class backs the name */
};

struct dr_state {
	uint32_t n;
	struct api_resource_claim **claims; /* references; PreBind swaps in the updated ones */
	const struct api_node_selector **available_on; /* allocated claims' node selectors (NULL: any) */
	bool *has_available_on;
	const struct api_dra_allocation **allocation; /* set by Reserve (upstream informationsForClaim) */
	struct dr_node_alloc *reserved;               /* the node allocation Reserve used (a reference) */
	uint32_t n_to_allocate;
	struct dra_allocated_state *allocated;
	struct api_resource_slice **slices;
	uint32_t n_slices;
	struct dra_allocator *allocator;

	/* DRAExtendedResource (upstream claimStore's numUserOwned and initialExtendedResourceClaimUID,
	 * draExtendedResource.podScalarResources): claims[0..n_user) are the pod's own claims; when
	 * n > n_user, claims[n_user] is its special claim, either the one a prior cycle created (the
	 * pod's controller, annotated) or an in-memory one named "<extended-resources>" without
	 * requests, which PreBind replaces with the created claim. ext_uid is the special claim's uid
	 * at PreFilter (the in-flight key). ext_reqs are the pod's non-zero requests of extended
	 * resource names with their classes (cycle arena). */
	uint32_t n_user;
	const char *ext_uid;
	uint32_t n_ext_reqs;
	struct dr_ext_req *ext_reqs;

	pthread_mutex_t lock; /* guards unavailable and nodes (Filter runs on many threads); leaf */
	bool lock_ok;
	bool *unavailable;
	struct map nodes; /* interned node name -> struct dr_node_alloc */
};

/* The state of a pod without claims: read only, never freed. */
static const struct dr_state no_claims;

static void state_free(void *arg)
{
	struct dr_state *s = arg;
	dra_allocator_free(s->allocator);
	dra_allocated_state_free(s->allocated);
	for (uint32_t i = 0; i < s->n_slices; i++)
		api_resource_slice_unref(s->slices[i]);
	free(s->slices);
	for (uint32_t i = 0; i < s->n; i++)
		api_resource_claim_unref(s->claims[i]);
	free(s->claims);
	free(s->available_on);
	free(s->has_available_on);
	free(s->allocation);
	free(s->unavailable);
	node_alloc_unref(s->reserved);
	intern_release(s->ext_uid);
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&s->nodes, &it, &k, &v))
		node_alloc_unref(v);
	map_release(&s->nodes);
	if (s->lock_ok)
		pthread_mutex_destroy(&s->lock);
	free(s);
}

struct collect {
	struct api_resource_claim **v;
	uint32_t n, cap;
	bool nomem;
};

static void collect_claim(void *arg, struct api_resource_claim *c)
{
	struct collect *cl = arg;
	if (cl->n == cl->cap) {
		uint32_t cap = cl->cap ? cl->cap * 2 : 4;
		void *v = realloc(cl->v, cap * sizeof(*cl->v));
		if (!v) {
			cl->nomem = true;
			return;
		}
		cl->v = v;
		cl->cap = cap;
	}
	cl->v[cl->n++] = api_resource_claim_ref(c);
}

/* upstream validateDeviceClass: NULL when the class exists (st untouched), else the status. */
static bool class_missing(const struct fw_pl *pl, const char *class_name, const char *request, struct fw_status *st)
{
	if (!class_name || !*class_name) {
		fw_status_setf(st, FW_ERROR, "request %s: unsupported request type", request);
		return true;
	}
	struct api_device_class *dc = fw_get_device_class(pl, class_name);
	if (!dc) {
		fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "request %s: device class %s does not exist", request,
			       class_name);
		return true;
	}
	api_device_class_unref(dc);
	return false;
}

/* The allocated state (upstream GatherAllocatedState): every claim's allocation as the assume
 * cache sees it, plus the in-flight allocations.
 * An assumed copy counts only while it is newer than the informer's claim. Once the informer has
 * the same version or a newer one (say, the claim deallocated after its pods went away), or no
 * longer has the claim (deleted), upstream's assume cache has dropped the copy on that informer
 * event; here the copy is dropped by the gather that finds it so, which keeps the assumed map to
 * the writes the informer has not delivered yet (without it a deleted or deallocated claim's
 * devices stayed allocated for good, and every gather scanned every claim ever bound). */
enum { ASSUMED_GONE, ASSUMED_CAUGHT_UP, ASSUMED_NEWER }; /* struct gather's state[] */

struct gather {
	struct dra_allocated_state *st;
	struct dr_assumed **assumed; /* snapshot (references to the claims) */
	uint8_t *state;              /* per assumed copy: ASSUMED_* (GONE until the informer's claim is seen) */
	uint32_t n_assumed;
	int rc;
};

static int gather_claim(void *arg, const struct api_resource_claim *c)
{
	struct gather *g = arg;
	for (uint32_t i = 0; i < g->n_assumed; i++) {
		const struct api_resource_claim *a = g->assumed[i]->claim;
		if (a->meta.namespace != c->meta.namespace || strcmp(a->meta.name, c->meta.name) != 0)
			continue;
		if (g->assumed[i]->version > rv_int(c->meta.resource_version)) {
			g->state[i] = ASSUMED_NEWER;
			return 0; /* the assumed copy counts instead */
		}
		g->state[i] = ASSUMED_CAUGHT_UP;
		break;
	}
	if (c->allocation && dra_allocated_state_add(g->st, c->allocation) < 0)
		return g->rc = ERR_NOMEM;
	return 0;
}

/* Drops the assumed copies g found superseded or gone, unless assumed again since the snapshot
 * (another version). */
static void assumed_prune(struct dr_priv *p, const struct gather *g)
{
	char key[512];
	for (uint32_t i = 0; i < g->n_assumed; i++) {
		if (g->state[i] == ASSUMED_NEWER)
			continue;
		const struct api_resource_claim *c = g->assumed[i]->claim;
		claim_key(key, sizeof(key), c->meta.namespace, c->meta.name);
		struct dr_assumed *drop = NULL;
		pthread_mutex_lock(&p->lock);
		struct dr_assumed *a = map_get(&p->assumed, key);
		if (a && a->version == g->assumed[i]->version)
			drop = map_del(&p->assumed, key);
		pthread_mutex_unlock(&p->lock);
		assumed_free(drop);
	}
}

/* The allocated state from the tracker (what gather_allocated computes, without walking the
 * claims): a copy of the informer's claims' devices, an assumed copy newer than the informer's
 * claim counted instead of it (an assumed copy of a claim the informer does not have is not
 * counted, as there), plus the in-flight allocations. *tracked false (and NULL): no tracker. */
static struct dra_allocated_state *tracked_allocated(struct dr_priv *p, bool *tracked, struct err *e)
{
	struct dra_allocated_state *st = NULL;
	pthread_mutex_lock(&p->lock);
	if (!(*tracked = p->tracked))
		goto out;
	if (!(st = dra_allocated_state_copy(p->allocated)))
		goto nomem;
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&p->assumed, &it, &k, &v)) {
		const struct dr_assumed *a = v, *t = map_get(&p->claims, k);
		if (!t || a->version <= t->version)
			continue;
		if (dra_allocated_state_adjust(st, t->claim->allocation, -1) < 0 ||
		    dra_allocated_state_adjust(st, a->claim->allocation, 1) < 0)
			goto nomem;
	}
	it = 0;
	while (map_next(&p->inflight, &it, &k, &v))
		if (dra_allocated_state_adjust(st, ((struct dr_inflight *)v)->allocation, 1) < 0)
			goto nomem;
	goto out;
nomem:
	err_set(e, ERR_NOMEM, "gather allocation state: out of memory");
	dra_allocated_state_free(st);
	st = NULL;
out:
	pthread_mutex_unlock(&p->lock);
	return st;
}

static struct dra_allocated_state *gather_allocated(const struct fw_pl *pl, struct err *e)
{
	struct dr_priv *p = pl->priv;
	struct gather g = { .st = dra_allocated_state_new() };
	struct dr_node_alloc **holders = NULL;
	const struct api_dra_allocation **allocs = NULL;
	uint32_t n_holders = 0;
	if (!g.st)
		goto nomem;
	/* snapshot both maps under the lock, use them without it */
	pthread_mutex_lock(&p->lock);
	size_t na = map_len(&p->assumed), nf = map_len(&p->inflight);
	g.assumed = calloc(na ? na : 1, sizeof(*g.assumed));
	g.state = calloc(na ? na : 1, sizeof(*g.state));
	holders = calloc(nf ? nf : 1, sizeof(*holders));
	allocs = calloc(nf ? nf : 1, sizeof(*allocs));
	if (g.assumed && g.state && holders && allocs) {
		size_t it = 0;
		const char *k;
		void *v;
		while (map_next(&p->assumed, &it, &k, &v)) {
			struct dr_assumed *src = v, *cp = malloc(sizeof(*cp));
			if (!cp)
				break;
			*cp = (struct dr_assumed){ .key = NULL, .version = src->version,
						   .claim = api_resource_claim_ref(src->claim) };
			g.assumed[g.n_assumed++] = cp;
		}
		it = 0;
		while (map_next(&p->inflight, &it, &k, &v)) {
			struct dr_inflight *f = v;
			atomic_fetch_add(&f->holder->refs, 1);
			holders[n_holders] = f->holder;
			allocs[n_holders++] = f->allocation;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (!g.assumed || !g.state || !holders || !allocs || g.n_assumed != na)
		goto nomem;
	fw_each_resource_claim(pl, gather_claim, &g);
	if (g.rc < 0)
		goto nomem;
	for (uint32_t i = 0; i < g.n_assumed; i++) {
		const struct api_resource_claim *a = g.assumed[i]->claim;
		if (g.state[i] == ASSUMED_NEWER && a->allocation && dra_allocated_state_add(g.st, a->allocation) < 0)
			goto nomem;
	}
	assumed_prune(p, &g);
	for (uint32_t i = 0; i < n_holders; i++)
		if (dra_allocated_state_add(g.st, allocs[i]) < 0)
			goto nomem;
	goto out;
nomem:
	err_set(e, ERR_NOMEM, "gather allocation state: out of memory");
	dra_allocated_state_free(g.st);
	g.st = NULL;
out:
	for (uint32_t i = 0; i < g.n_assumed; i++)
		assumed_free(g.assumed[i]);
	free(g.assumed);
	free(g.state);
	for (uint32_t i = 0; i < n_holders; i++)
		node_alloc_unref(holders[i]);
	free(holders);
	free(allocs);
	return g.st;
}

/* The profile's DynamicResources instance (at whichever extension point it runs), or NULL. */
static const struct fw_pl *dynamic_resources_of(const struct fw_profile *prof)
{
	for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
		uint32_t n;
		const struct fw_pl *const *pls = fw_profile_plugins(prof, (enum cfg_ext_point)ep, &n);
		for (uint32_t i = 0; i < n; i++)
			if (pls[i]->plugin == &fw_plugin_dynamic_resources && pls[i]->priv)
				return pls[i];
	}
	return NULL;
}

static int gather_claim_only(void *arg, const struct api_resource_claim *c)
{
	struct gather *g = arg;
	if (c->allocation && dra_allocated_state_add(g->st, c->allocation) < 0)
		return g->rc = ERR_NOMEM;
	return 0;
}

struct dra_allocated_state *dra_gather_allocated_for(const struct fw_pl *pl, struct err *e)
{
	const struct fw_pl *dr = dynamic_resources_of(pl->profile);
	if (dr) {
		bool tracked;
		struct dra_allocated_state *st = tracked_allocated(dr->priv, &tracked, e);
		return tracked ? st : gather_allocated(dr, e);
	}
	/* upstream's DRA manager exists without the plugin, but nothing is assumed or in flight */
	struct gather g = { .st = dra_allocated_state_new() };
	if (g.st)
		fw_each_resource_claim(pl, gather_claim_only, &g);
	if (!g.st || g.rc < 0) {
		dra_allocated_state_free(g.st);
		err_set(e, ERR_NOMEM, "gather allocation state: out of memory");
		return NULL;
	}
	return g.st;
}

/* The slices with DeviceTaintRules applied (upstream ListWithDeviceTaintRules). */
struct slices_ctx {
	struct api_device_taint_rule **rules;
	uint32_t n_rules, cap_rules;
	struct api_resource_slice **slices;
	uint32_t n_slices, cap_slices;
	struct err *e;
	int rc;
};

/* arr grown for one more element (n used of *cap, elem bytes each, first the initial size):
 * arr itself when there is room, the reallocated array (*cap updated), or NULL on out of
 * memory (arr untouched then). */
static void *room_for_one(void *arr, uint32_t n, uint32_t *cap, uint32_t first, size_t elem)
{
	if (n < *cap)
		return arr;
	uint32_t c = *cap ? *cap * 2 : first;
	void *v = realloc(arr, c * elem);
	if (v)
		*cap = c;
	return v;
}

static int collect_rule(void *arg, const struct api_device_taint_rule *r)
{
	struct slices_ctx *x = arg;
	void *rules = room_for_one(x->rules, x->n_rules, &x->cap_rules, 8, sizeof(*x->rules));
	if (!rules)
		return x->rc = err_set(x->e, ERR_NOMEM, "device taint rules: out of memory");
	x->rules = rules;
	x->rules[x->n_rules++] = api_device_taint_rule_ref((struct api_device_taint_rule *)r);
	return 0;
}

static int collect_slice(void *arg, const struct api_resource_slice *s)
{
	struct slices_ctx *x = arg;
	void *slices = room_for_one(x->slices, x->n_slices, &x->cap_slices, 16, sizeof(*x->slices));
	if (!slices)
		return x->rc = err_set(x->e, ERR_NOMEM, "resource slices: out of memory");
	x->slices = slices;
	struct api_resource_slice *patched =
		dra_slice_with_taint_rules((struct api_resource_slice *)s,
					   (const struct api_device_taint_rule *const *)x->rules, x->n_rules, x->e);
	if (!patched)
		return x->rc = ERR_NOMEM;
	x->slices[x->n_slices++] = patched;
	return 0;
}

static struct api_device_class *class_lookup(void *ctx, const char *name)
{
	return fw_get_device_class(ctx, name);
}

/* ---------- DRAExtendedResource (upstream extendeddynamicresources.go) ---------- */

/* upstream specialClaimInMemName: not a valid object name, so no real claim has it */
#define SPECIAL_CLAIM_NAME "<extended-resources>"
/* upstream waitForExtendedClaimInAssumeCache: polled every second for
 * AssumeExtendedResourceTimeoutDefaultSeconds */
#define EXT_ASSUME_POLL_MS 1000
#define EXT_ASSUME_TIMEOUT_S 120

static bool is_special_claim(const struct api_resource_claim *c)
{
	return strcmp(c->meta.name, SPECIAL_CLAIM_NAME) == 0;
}

/* Whether the state holds a special claim (claims[n_user]). */
static bool has_ext_claim(const struct dr_state *s)
{
	return s->n > s->n_user;
}

static int cmp_ext_req(const void *a, const void *b)
{
	return strcmp(((const struct dr_ext_req *)a)->name, ((const struct dr_ext_req *)b)->name);
}

/* upstream preFilterExtendedResources' first half: 1 when a DeviceClass backs one of the pod's
 * non-zero requests (hasDeviceClassMappedExtendedResource), with *out its non-zero requests of
 * extended resource names and their classes, sorted by name (cycle arena: podScalarResources as
 * Filter reads it); 0 when none is backed; -1 out of memory. */
static int ext_requests(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod, uint32_t *n_out,
			struct dr_ext_req **out)
{
	struct node_res r;
	struct dr_ext_req *v = NULL;
	uint32_t n = 0;
	int mapped = 0;
	*out = NULL;
	*n_out = 0;
	if (node_res_of_pod(pod, NODE_RES_REQUESTS, &r) < 0)
		return -1;
	for (uint32_t i = 0; i < r.n_scalar; i++) {
		if (!r.scalar[i].value || !fw_is_dra_extended_resource(r.scalar[i].name))
			continue;
		if (!v && !(v = fw_cycle_alloc(c, r.n_scalar * sizeof(*v)))) {
			mapped = -1;
			break;
		}
		struct api_device_class *dc = fw_extended_resource_class(pl, r.scalar[i].name);
		/* pinned: the node claims' requests name it beyond the class's life (a bounded set) */
		const char *cls = dc ? intern_str(dc->meta.name) : NULL;
		bool nomem = dc && !cls;
		api_device_class_unref(dc);
		if (nomem) {
			mapped = -1;
			break;
		}
		mapped |= cls != NULL;
		v[n++] = (struct dr_ext_req){ r.scalar[i].name, r.scalar[i].value, cls };
	}
	node_res_release(&r);
	if (mapped > 0) {
		qsort(v, n, sizeof(*v), cmp_ext_req);
		*out = v;
		*n_out = n;
	}
	return mapped;
}

struct find_ext {
	const struct api_pod *pod;
	char name[256]; /* the claim found, "" none */
};

static int find_ext_visit(void *arg, const struct api_resource_claim *c)
{
	struct find_ext *f = arg;
	if (!c->extended_resource_claim || c->meta.namespace != f->pod->meta.namespace)
		return 0;
	for (uint32_t i = 0; i < c->meta.n_owner_refs; i++) {
		const struct api_owner_ref *o = &c->meta.owner_refs[i];
		if (o->controller && str_eq(o->name, f->pod->meta.name) && str_eq(o->uid, f->pod->meta.uid)) {
			snprintf(f->name, sizeof(f->name), "%s", c->meta.name);
			return 1;
		}
	}
	return 0;
}

/* upstream findExtendedResourceClaim: the claim a prior cycle created for pod (annotated, the
 * pod its controller), as the assume cache has it; a new reference, or NULL. */
static struct api_resource_claim *find_ext_claim(const struct fw_pl *pl, const struct api_pod *pod)
{
	struct find_ext f = { .pod = pod };
	fw_each_resource_claim(pl, find_ext_visit, &f);
	return f.name[0] ? claim_get(pl, pod->meta.namespace, f.name) : NULL;
}

/* upstream preFilterExtendedResources' in-memory claim: named "<extended-resources>", a fresh
 * uid (the in-flight key until PreBind creates the claim), the pod as controller, the
 * extended-resource-claim annotation, no requests. Its own arena; NULL on out of memory. */
static struct api_resource_claim *special_claim_new(const struct api_pod *pod)
{
	char uid[40];
	struct arena *a = arena_new(512);
	if (!a)
		return NULL;
	struct api_resource_claim *c = arena_alloc(a, sizeof(*c));
	const char **interned = arena_alloc(a, 2 * sizeof(*interned));
	struct api_owner_ref *o = arena_alloc(a, sizeof(*o));
	dra_uuid_v4(uid);
	if (!c || !interned || !o || !(o->name = arena_strdup(a, pod->meta.name)) ||
	    !(o->uid = arena_strdup(a, pod->meta.uid)) || !(interned[0] = intern_acquire(uid, strlen(uid)))) {
		arena_free(a);
		return NULL;
	}
	interned[1] = intern_ref(pod->meta.namespace);
	o->api_version = "v1";
	o->kind = "Pod";
	o->controller = true;
	c->refs = 1;
	c->arena = a;
	c->meta.name = SPECIAL_CLAIM_NAME;
	c->meta.namespace = interned[1];
	c->meta.uid = interned[0];
	c->meta.owner_refs = o;
	c->meta.n_owner_refs = 1;
	c->meta.interned = interned;
	c->meta.n_interned = 2;
	c->extended_resource_claim = true;
	return c;
}

/* upstream filterExtendedResources: which of the pod's extended resources the node has to
 * provide through DRA (need[i] for s->ext_reqs[i]), and whether the special claim is to be
 * allocated on it with the other claims (*build). */
static enum fw_code filter_ext(const struct dr_state *s, const struct node_info *ni, bool *need, bool *build,
			       struct fw_status *st)
{
	const struct api_resource_claim *ext = s->claims[s->n_user];
	const struct api_resources *alloc = node_info_allocatable(ni);
	bool any = false;
	*build = false;
	/* a claim from a prior cycle: PostFilter deletes it and the pod starts anew */
	if (ext->n_requests > 0)
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot schedule extended resource claim");
	for (uint32_t i = 0; i < s->n_ext_reqs; i++) {
		const char *name = s->ext_reqs[i].name;
		bool present = false;
		int64_t allocatable = 0;
		for (uint32_t k = 0; alloc && k < alloc->n_scalar; k++)
			if (alloc->scalar[k].name == name) {
				present = true;
				allocatable = alloc->scalar[k].value;
				break;
			}
		if (s->ext_reqs[i].class_name && allocatable == 0) {
			need[i] = true;
			any = true;
		} else if (!present) {
			return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot fit resource");
		}
	}
	*build = (s->n_user > 0 || any) && !ext->allocation;
	return FW_SUCCESS;
}

/* The sorted position of name among the keys of a container's requests (upstream sorts the
 * map's keys to number the request). */
static uint32_t request_key_index(const struct api_resources *r, const char *name)
{
	static const char *const wk[] = { "cpu", "memory", "ephemeral-storage", "pods" };
	const bool has[] = { r->has_cpu, r->has_memory, r->has_ephemeral_storage, r->has_pods };
	uint32_t idx = 0;
	for (uint32_t i = 0; i < 4; i++)
		idx += has[i] && strcmp(wk[i], name) < 0;
	for (uint32_t i = 0; i < r->n_scalar; i++)
		idx += strcmp(r->scalar[i].name, name) < 0;
	return idx;
}

/* upstream createResourceRequestAndMappings: the request of container ci (ctr) for resource
 * name beyond what reusable[0..n_reusable) (other containers' requests, NULL entries skipped)
 * already give it; appends the container's mappings to maps (*n). NULL when no request is
 * needed, or on out of memory (*nomem). */
static struct api_dra_request *ext_container_request(struct arena *a, uint32_t ci, const struct api_container *ctr,
						     const char *name, const char *class_name,
						     struct api_dra_request *const *reusable, uint32_t n_reusable,
						     struct api_pod_extended_mapping *maps, uint32_t *n, bool *nomem)
{
	int64_t crq = api_resources_scalar(&ctr->requests, name), sum = 0;
	if (crq <= 0)
		return NULL;
	for (uint32_t k = 0; k < n_reusable; k++) {
		const struct api_dra_request *r = reusable[k];
		if (!r)
			continue;
		sum += r->exactly->count;
		maps[(*n)++] = (struct api_pod_extended_mapping){ ctr->name, name, r->name };
		if (sum >= crq)
			return NULL;
	}
	char rn[64];
	snprintf(rn, sizeof(rn), "container-%u-request-%u", ci, request_key_index(&ctr->requests, name));
	struct api_dra_request *req = arena_alloc(a, sizeof(*req));
	struct api_dra_device_request *ex = arena_alloc(a, sizeof(*ex));
	/* interned as the allocator compares request names; pinned: a bounded set */
	const char *iname = intern_str(rn);
	if (!req || !ex || !iname) {
		*nomem = true;
		return NULL;
	}
	ex->name = iname;
	ex->device_class_name = class_name; /* interned (struct dr_ext_req) */
	ex->allocation_mode = API_DRA_MODE_EXACT_COUNT;
	ex->allocation_mode_text = "ExactCount";
	ex->count = crq - sum;
	req->name = iname;
	req->exactly = ex;
	maps[(*n)++] = (struct api_pod_extended_mapping){ ctr->name, name, iname };
	return req;
}

static int cmp_request_name(const void *a, const void *b)
{
	return strcmp((*(struct api_dra_request *const *)a)->name, (*(struct api_dra_request *const *)b)->name);
}

/* upstream createRequestsAndMappings for the resources need[] marks: the node claim's requests
 * (claim->requests) and na's mappings, in na's arena. 0, or -1 on out of memory. */
static int ext_requests_and_mappings(const struct dr_state *s, const bool *need, const struct api_pod *pod,
				     struct api_resource_claim *claim, struct dr_node_alloc *na)
{
	struct arena *a = na->arena;
	uint32_t n_init = pod->n_init_containers, total = n_init + pod->n_containers;
	size_t per_res = (size_t)total + (size_t)total * (total + 1); /* long mappings + short ones */
	const struct api_container **ctrs = arena_alloc(a, (total + 1) * sizeof(*ctrs));
	struct api_dra_request **lng = arena_alloc(a, (total + 1) * sizeof(*lng));
	struct api_dra_request **shorts = arena_alloc(a, (total + 1) * sizeof(*shorts));
	struct api_dra_request **reqs = arena_alloc(a, ((size_t)s->n_ext_reqs * total + 1) * sizeof(*reqs));
	struct api_pod_extended_mapping *maps = arena_alloc(a, (s->n_ext_reqs * per_res + 1) * sizeof(*maps));
	struct api_pod_extended_mapping *smaps = arena_alloc(a, (per_res + 1) * sizeof(*smaps));
	uint32_t n_reqs = 0, n_maps = 0;
	bool nomem = false;
	if (!ctrs || !lng || !shorts || !reqs || !maps || !smaps)
		return -1;
	for (uint32_t i = 0; i < total; i++)
		ctrs[i] = i < n_init ? &pod->init_containers[i] : &pod->containers[i - n_init];
	for (uint32_t r = 0; r < s->n_ext_reqs && !nomem; r++) {
		if (!need[r])
			continue;
		const char *name = s->ext_reqs[r].name, *class_name = s->ext_reqs[r].class_name;
		/* long-lived: regular containers and sidecars; short-lived: the other init containers */
		uint32_t n_smaps = 0, n_shorts = 0;
		struct api_dra_request *max_short = NULL;
		for (uint32_t i = 0; i < total; i++) {
			bool long_lived = i >= n_init || ctrs[i]->restart_policy_always;
			lng[i] = long_lived ? ext_container_request(a, i, ctrs[i], name, class_name, NULL, 0, maps, &n_maps, &nomem)
					    : NULL;
		}
		for (uint32_t i = 0; i < n_init; i++) {
			if (ctrs[i]->restart_policy_always)
				continue;
			struct api_dra_request *q = ext_container_request(a, i, ctrs[i], name, class_name, lng + i, total - i,
									  smaps, &n_smaps, &nomem);
			if (!q)
				continue;
			shorts[n_shorts++] = q;
			if (!max_short || max_short->exactly->count < q->exactly->count)
				max_short = q;
		}
		/* the init containers run one after another: they share the largest request */
		if (max_short && n_shorts > 1)
			for (uint32_t m = 0; m < n_smaps; m++)
				for (uint32_t k = 0; k < n_shorts; k++)
					if (smaps[m].request_name == shorts[k]->name)
						smaps[m].request_name = max_short->name;
		if (max_short)
			reqs[n_reqs++] = max_short;
		for (uint32_t i = 0; i < total; i++)
			if (lng[i])
				reqs[n_reqs++] = lng[i];
		memcpy(maps + n_maps, smaps, n_smaps * sizeof(*smaps));
		n_maps += n_smaps;
	}
	if (nomem)
		return -1;
	qsort(reqs, n_reqs, sizeof(*reqs), cmp_request_name);
	struct api_dra_request *out = arena_alloc(a, (n_reqs + 1) * sizeof(*out));
	if (!out)
		return -1;
	for (uint32_t i = 0; i < n_reqs; i++)
		out[i] = *reqs[i];
	claim->requests = n_reqs ? out : NULL;
	claim->n_requests = n_reqs;
	na->mappings = n_maps ? maps : NULL;
	na->n_mappings = n_maps;
	return 0;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	struct dr_priv *p = pl->priv;
	struct collect cl = { 0 };
	char msg[FW_STATUS_TEXT_MAX];
	struct err e = { 0 };
	struct slices_ctx sx = { .e = &e };
	enum fw_code code = FW_SUCCESS;
	uint32_t n_ext_reqs;
	struct dr_ext_req *ext_reqs;
	int mapped = ext_requests(pl, c, pod, &n_ext_reqs, &ext_reqs);
	if (mapped < 0)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	/* Most pods have no claims: the shared empty state (upstream writes a stateData with an
	 * empty claim store), without allocating one per pod */
	if (pod->n_resource_claims == 0 && !mapped) {
		fw_cycle_set_state(c, pl, (void *)&no_claims);
		return fw_status_set(st, FW_SKIP, NULL);
	}
	struct dr_state *s = calloc(1, sizeof(*s));
	if (!s)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	map_init(&s->nodes);
	if (fw_cycle_on_release(c, state_free, s) < 0) {
		state_free(s);
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	}
	s->lock_ok = pthread_mutex_init(&s->lock, NULL) == 0;
	if (!s->lock_ok)
		return fw_status_set(st, FW_ERROR, NAME ": mutex init failed");
	fw_cycle_set_state(c, pl, s);
	s->ext_reqs = ext_reqs;
	s->n_ext_reqs = n_ext_reqs;

	if (each_pod_claim(pl, pod, collect_claim, &cl, msg, sizeof(msg))) {
		code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, msg);
		goto out;
	}
	s->n_user = cl.n;
	if (mapped) {
		/* upstream preFilterExtendedResources: the special claim comes last */
		struct api_resource_claim *ext = find_ext_claim(pl, pod);
		if (!ext)
			ext = special_claim_new(pod);
		if (ext) {
			collect_claim(&cl, ext);
			s->ext_uid = intern_ref(ext->meta.uid);
			api_resource_claim_unref(ext);
		} else {
			cl.nomem = true;
		}
	}
	if (cl.nomem) {
		code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
		goto out;
	}
	/* the claims belong to the state from here on */
	s->claims = cl.v;
	s->n = cl.n;
	cl.v = NULL;
	cl.n = 0;
	if (s->n == 0) {
		code = fw_status_set(st, FW_SKIP, NULL);
		goto out;
	}
	uint32_t n = s->n;
	s->available_on = calloc(n, sizeof(*s->available_on));
	s->has_available_on = calloc(n, sizeof(*s->has_available_on));
	s->allocation = calloc(n, sizeof(*s->allocation));
	s->unavailable = calloc(n, sizeof(*s->unavailable));
	if (!s->available_on || !s->has_available_on || !s->allocation || !s->unavailable) {
		code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		if (claim->allocation && !claim_can_be_reserved(claim) && !claim_reserved_for_pod(claim, pod)) {
			code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use");
			goto out;
		}
		if (claim->allocation) {
			/* nodeSelectorFromAllocation: no selector = every node */
			s->available_on[i] = claim->allocation->node_selector;
			s->has_available_on[i] = claim->allocation->node_selector != NULL;
			continue;
		}
		s->n_to_allocate++;
		if (inflight_has(p, claim->meta.uid)) {
			code = fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
					      "resource claim %s/%s is in the process of being allocated",
					      claim->meta.namespace, claim->meta.name);
			goto out;
		}
		/* the special claim has no requests yet (Filter makes them per node); one from a
		 * prior cycle is Filter's to reject */
		if (i == s->n_user)
			continue;
		for (uint32_t r = 0; r < claim->n_requests; r++) {
			const struct api_dra_request *req = &claim->requests[r];
			if (req->exactly) {
				if (class_missing(pl, req->exactly->device_class_name, req->name, st)) {
					code = st->code;
					goto out;
				}
			} else if (req->n_first_available > 0) {
				for (uint32_t k = 0; k < req->n_first_available; k++) {
					char qual[512];
					snprintf(qual, sizeof(qual), "%s/%s", req->name, req->first_available[k].name);
					if (class_missing(pl, req->first_available[k].device_class_name, qual, st)) {
						code = st->code;
						goto out;
					}
				}
			} else {
				code = fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						      "resource claim %s/%s, request %s: unknown request type",
						      claim->meta.namespace, claim->meta.name, req->name);
				goto out;
			}
		}
	}
	if (s->n_to_allocate == 0)
		goto out;
	bool tracked;
	s->allocated = tracked_allocated(p, &tracked, &e);
	if (!tracked)
		s->allocated = gather_allocated(pl, &e);
	if (!s->allocated) {
		code = fw_status_setf(st, FW_ERROR, "%s", e.msg);
		goto out;
	}
	fw_each_device_taint_rule(pl, collect_rule, &sx);
	if (sx.rc == 0)
		fw_each_resource_slice(pl, collect_slice, &sx);
	if (sx.rc < 0) {
		code = fw_status_setf(st, FW_ERROR, "%s", e.msg);
		goto out;
	}
	s->slices = sx.slices;
	s->n_slices = sx.n_slices;
	sx.slices = NULL;
	sx.n_slices = 0;
	s->allocator = dra_allocator_new(&dra_features_default, s->allocated, class_lookup, (void *)pl,
					 (struct api_resource_slice *const *)s->slices, s->n_slices, p->cel, &e);
	if (!s->allocator)
		code = fw_status_setf(st, FW_ERROR, "%s", e.msg);
out:
	for (uint32_t i = 0; i < cl.n; i++)
		api_resource_claim_unref(cl.v[i]);
	free(cl.v);
	for (uint32_t i = 0; i < sx.n_rules; i++)
		api_device_taint_rule_unref(sx.rules[i]);
	free(sx.rules);
	for (uint32_t i = 0; i < sx.n_slices; i++)
		api_resource_slice_unref(sx.slices[i]);
	free(sx.slices);
	return code;
}

/* ---------- Binding conditions (upstream isClaimReadyForBinding, isClaimTimeout) ---------- */

static const struct api_dra_device_status *device_status(const struct api_resource_claim *c,
							 const struct api_dra_device_result *r)
{
	for (uint32_t i = 0; i < c->n_device_statuses; i++) {
		const struct api_dra_device_status *d = &c->device_statuses[i];
		if (d->device == r->device && d->driver == r->driver && d->pool == r->pool)
			return d;
	}
	return NULL;
}

static const struct api_condition *find_condition(const struct api_dra_device_status *d, const char *type)
{
	for (uint32_t i = 0; i < d->n_conditions; i++)
		if (d->conditions[i].type && strcmp(d->conditions[i].type, type) == 0)
			return &d->conditions[i];
	return NULL;
}

static bool condition_true(const struct api_dra_device_status *d, const char *type)
{
	const struct api_condition *c = find_condition(d, type);
	return c && c->status && strcmp(c->status, "True") == 0;
}

/* 1 ready, 0 not yet, -1 a binding failure condition is true (msg says which). */
static int claim_ready_for_binding(const struct api_resource_claim *c, char *msg, size_t size)
{
	if (!c->allocation)
		return 0;
	for (uint32_t i = 0; i < c->allocation->n_results; i++) {
		const struct api_dra_device_result *r = &c->allocation->results[i];
		if (r->n_binding_conditions == 0)
			continue;
		const struct api_dra_device_status *d = device_status(c, r);
		if (!d)
			return 0;
		for (uint32_t k = 0; k < r->n_binding_failure_conditions; k++) {
			const struct api_condition *f = find_condition(d, r->binding_failure_conditions[k]);
			if (f && f->status && strcmp(f->status, "True") == 0) {
				snprintf(msg, size, "device binding failed: claim=%s, reason=%s, message=\"%s\"", c->meta.name,
					 f->reason ? f->reason : "", f->message ? f->message : "");
				return -1;
			}
		}
		for (uint32_t k = 0; k < r->n_binding_conditions; k++)
			if (!condition_true(d, r->binding_conditions[k]))
				return 0;
	}
	return 1;
}

static bool claim_binding_timed_out(const struct dr_priv *p, const struct api_resource_claim *c)
{
	const struct api_dra_allocation *a = c->allocation;
	if (!a || !a->has_allocation_timestamp)
		return false;
	int64_t now_us = wall_us();
	for (uint32_t i = 0; i < a->n_results; i++) {
		if (!a->results[i].binding_conditions)
			continue;
		if (a->allocation_timestamp * 1000000 + p->binding_timeout_ns / 1000 < now_us)
			return true;
	}
	return false;
}

/* ---------- Filter ---------- */

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	struct dr_priv *p = pl->priv;
	struct dr_state *s = fw_cycle_state(c, pl);
	const struct api_node *node = ni->node;
	const struct api_resource_claim **to_alloc = NULL;
	struct dr_node_alloc *na = NULL;
	bool *unavailable = NULL, *need = NULL, build = false;
	uint32_t n_unavailable = 0;
	enum fw_code code = FW_SUCCESS;
	if (!s)
		return fw_status_set(st, FW_ERROR, NAME ": no state from PreFilter");
	if (has_ext_claim(s)) {
		if (!(need = calloc(s->n_ext_reqs + 1, sizeof(*need))))
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
		if ((code = filter_ext(s, ni, need, &build, st)) != FW_SUCCESS)
			goto out;
	}
	/* no claim of the pod's own, and the node's device plugins give all its extended resources */
	if (s->n_user == 0 && !build)
		goto out;
	unavailable = calloc(s->n, sizeof(*unavailable));
	if (!unavailable) {
		code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		const struct api_node_selector *sel = s->available_on[i];
		if (s->has_available_on[i] && !fw_node_selector_matches(sel->terms, sel->n_terms, node)) {
			unavailable[i] = true;
			n_unavailable++;
			continue;
		}
		if (claim->allocation) {
			char why[FW_STATUS_TEXT_MAX];
			int ready = claim_ready_for_binding(claim, why, sizeof(why));
			if (ready < 0 || (ready == 0 && claim_binding_timed_out(p, claim))) {
				unavailable[i] = true;
				n_unavailable++;
			}
		}
	}
	if (s->allocator) {
		to_alloc = calloc(s->n, sizeof(*to_alloc));
		na = calloc(1, sizeof(*na));
		if (!to_alloc || !na || !(na->arena = arena_new(4096)) ||
		    !(na->results = arena_alloc(na->arena, s->n * sizeof(*na->results)))) {
			code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
			goto out;
		}
		atomic_init(&na->refs, 1);
		if (build) {
			/* upstream: each node needs its own variant of the special claim */
			struct api_resource_claim *nc = arena_alloc(na->arena, sizeof(*nc));
			if (!nc) {
				code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
				goto out;
			}
			*nc = *s->claims[s->n_user];
			nc->refs = 1;
			nc->arena = NULL;
			nc->meta.interned = NULL;
			nc->meta.n_interned = 0;
			if (ext_requests_and_mappings(s, need, pod, nc, na) < 0) {
				code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
				goto out;
			}
			na->ext_claim = nc;
		}
		uint32_t k = 0;
		for (uint32_t i = 0; i < s->n; i++)
			if (!s->claims[i]->allocation)
				to_alloc[k++] = i == s->n_user && na->ext_claim ? na->ext_claim : s->claims[i];
		int64_t deadline = p->filter_timeout_ns > 0 ? mono_ns() + p->filter_timeout_ns : 0;
		struct err e = { 0 };
		enum dra_result r = dra_allocator_allocate(s->allocator, node, to_alloc, k, deadline, na->arena,
							   na->results, &e);
		switch (r) {
		case DRA_ALLOCATED:
			na->n = k;
			break;
		case DRA_TIMEOUT:
			code = fw_status_setf(st, FW_ERROR, "node %s: timed out trying to allocate devices", node->meta.name);
			goto out;
		case DRA_UNSCHEDULABLE:
			code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
					     e.msg[0] ? e.msg : "cannot allocate all claims");
			goto out;
		default:
			code = fw_status_setf(st, FW_ERROR, "%s", e.msg);
			goto out;
		}
	}
	if (n_unavailable || na) {
		pthread_mutex_lock(&s->lock);
		if (n_unavailable) {
			for (uint32_t i = 0; i < s->n; i++)
				if (unavailable[i])
					s->unavailable[i] = true;
		} else {
			void *old = NULL;
			if (map_put(&s->nodes, node->meta.name, na, &old) < 0)
				code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
			else
				na = NULL; /* the state's now */
			node_alloc_unref(old);
		}
		pthread_mutex_unlock(&s->lock);
		if (n_unavailable)
			code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim not available on the node");
	}
out:
	node_alloc_unref(na);
	free(to_alloc);
	free(unavailable);
	free(need);
	return code;
}

/* ---------- Explain (csched explain only) ---------- */

struct owners {
	struct api_resource_claim **v;
	uint32_t n, cap;
	bool nomem;
};

static int collect_owner(void *arg, const struct api_resource_claim *c)
{
	struct owners *o = arg;
	if (!c->allocation)
		return 0;
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 16;
		void *v = realloc(o->v, cap * sizeof(*o->v));
		if (!v) {
			o->nomem = true;
			return 1;
		}
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = api_resource_claim_ref((struct api_resource_claim *)c);
	return 0;
}

/* Why Filter rejected the pod on ni, beyond upstream's "cannot allocate all claims" and
 * "resourceclaim not available on the node": per allocated claim that does not fit the node,
 * why; for the claims to allocate, dra_allocator_diagnose (a separate walk with the allocator's
 * checks, so Filter itself stays as it is). Runs after the cycle on its PreFilter state. */
static int explain(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
		   const struct node_info *ni, struct strbuf *out, struct err *e)
{
	(void)pod;
	struct dr_priv *p = pl->priv;
	const struct dr_state *s = fw_cycle_state(c, pl);
	const struct api_resource_claim **to_alloc = NULL;
	struct owners o = { 0 };
	int rc = 0;
	if (!s || s->n == 0 || !ni->node)
		return 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		const struct api_node_selector *sel = s->available_on[i];
		char kobj[320], why[FW_STATUS_TEXT_MAX];
		snprintf(kobj, sizeof(kobj), "%s/%s", claim->meta.namespace, claim->meta.name);
		if (s->has_available_on[i] && !fw_node_selector_matches(sel->terms, sel->n_terms, ni->node)) {
			strbuf_addf(out, "claim %s: already allocated, on devices this node cannot reach (the allocation's node selector does not match it)\n",
				    kobj);
			continue;
		}
		if (!claim->allocation)
			continue;
		int ready = claim_ready_for_binding(claim, why, sizeof(why));
		if (ready < 0)
			strbuf_addf(out, "claim %s: %s\n", kobj, why);
		else if (ready == 0 && claim_binding_timed_out(p, claim))
			strbuf_addf(out, "claim %s: its devices' binding conditions were not met within the binding timeout\n",
				    kobj);
	}
	if (!s->allocator)
		goto out;
	if (!(to_alloc = calloc(s->n, sizeof(*to_alloc)))) {
		rc = err_set(e, ERR_NOMEM, NAME ": explain: out of memory");
		goto out;
	}
	uint32_t k = 0;
	/* the pod's own claims: the special claim has its requests per node only (Filter) */
	for (uint32_t i = 0; i < s->n_user; i++)
		if (!s->claims[i]->allocation)
			to_alloc[k++] = s->claims[i];
	fw_each_resource_claim(pl, collect_owner, &o);
	if (o.nomem) {
		rc = err_set(e, ERR_NOMEM, NAME ": explain: out of memory");
		goto out;
	}
	rc = dra_allocator_diagnose(s->allocator, ni->node, to_alloc, k, (const struct api_resource_claim *const *)o.v,
				    o.n, out, e);
out:
	for (uint32_t i = 0; i < o.n; i++)
		api_resource_claim_unref(o.v[i]);
	free(o.v);
	free(to_alloc);
	return rc;
}

/* ---------- PostFilter ---------- */

static enum fw_code post_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				const struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st)
{
	(void)d;
	(void)out;
	struct dr_state *s = fw_cycle_state(c, pl);
	/* no state: PreFilter did not run (an earlier PreFilter rejected the pod); upstream's
	 * getStateData error, framework.ErrNotFound, becomes the PostFilter's Error "not found",
	 * which ends up in the FailedScheduling message */
	if (!s)
		return fw_status_set(st, FW_ERROR, "not found");
	if (s->n == 0)
		return fw_status_set(st, FW_UNSCHEDULABLE, NULL);
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	/* upstream: the special claim of a prior cycle is deleted, and the pod retries anew */
	bool ext_created = has_ext_claim(s) && !is_special_claim(s->claims[s->n_user]);
	for (uint32_t i = 0; i < s->n; i++) {
		if (!s->unavailable || !s->unavailable[i])
			continue;
		if (has_ext_claim(s) && i == s->n_user) {
			if (ext_created)
				break;
			continue;
		}
		const struct api_resource_claim *claim = s->claims[i];
		if (claim->n_reserved_for == 0 ||
		    (claim->n_reserved_for == 1 && claim_reserved_for_pod(claim, pod))) {
			struct err e = { 0 };
			int rc = ops->deallocate ? ops->deallocate(ops->ctx, claim, &e)
						 : err_set(&e, ERR_UNSUPPORTED, "deallocate claim %s/%s: no DRA ops",
							   claim->meta.namespace, claim->meta.name);
			if (rc < 0)
				return fw_status_setf(st, FW_ERROR, "%s", e.msg);
			return fw_status_set(st, FW_UNSCHEDULABLE, "deallocation of ResourceClaim completed");
		}
	}
	if (ext_created) {
		const struct api_resource_claim *claim = s->claims[s->n_user];
		struct err e = { 0 };
		int rc = ops->delete_claim ? ops->delete_claim(ops->ctx, claim, &e)
					   : err_set(&e, ERR_UNSUPPORTED, "delete claim %s/%s: no DRA ops",
						     claim->meta.namespace, claim->meta.name);
		if (rc < 0)
			return fw_status_setf(st, FW_ERROR, "%s", e.msg);
		return fw_status_set(st, FW_UNSCHEDULABLE, "deletion of ResourceClaim completed");
	}
	return fw_status_set(st, FW_UNSCHEDULABLE, NULL);
}

/* ---------- Score (upstream computeScore) ---------- */

static bool results_have_request(const struct api_dra_allocation *a, const char *req, const char *sub)
{
	size_t lr = strlen(req);
	for (uint32_t i = 0; i < a->n_results; i++) {
		const char *r = a->results[i].request;
		if (r && strncmp(r, req, lr) == 0 && r[lr] == '/' && strcmp(r + lr + 1, sub) == 0)
			return true;
	}
	return false;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	struct dr_state *s = fw_cycle_state(c, pl);
	*out = 0;
	if (!s || s->n == 0)
		return FW_SUCCESS;
	pthread_mutex_lock(&s->lock);
	struct dr_node_alloc *na = map_get(&s->nodes, ni->node->meta.name);
	pthread_mutex_unlock(&s->lock);
	if (!na)
		return FW_SUCCESS;
	int64_t total = 0;
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		const struct api_dra_allocation *a = claim->allocation;
		if (!a) {
			if (k >= na->n)
				return fw_status_setf(st, FW_ERROR,
						      "number of allocations %u is smaller than number of claims needing allocation",
						      na->n);
			a = &na->results[k++];
		}
		for (uint32_t r = 0; r < claim->n_requests; r++) {
			const struct api_dra_request *req = &claim->requests[r];
			if (req->exactly)
				continue;
			for (uint32_t j = 0; j < req->n_first_available; j++)
				if (results_have_request(a, req->name, req->first_available[j].name))
					total += FIRST_AVAILABLE_MAX - (int64_t)j;
		}
	}
	*out = total;
	return FW_SUCCESS;
}

enum fw_code fw_dynamic_resources_prepare(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
					  const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)pod;
	(void)nodes;
	(void)n;
	(void)st;
	const struct dr_state *s = fw_cycle_state(c, pl);
	/* without an allocator no node has an allocation: Score is 0 everywhere */
	return !s || s->n == 0 || !s->allocator ? FW_SKIP : FW_SUCCESS;
}

/* ---------- Reserve / Unreserve ---------- */

static bool has_finalizer(const struct api_resource_claim *c)
{
	for (uint32_t i = 0; i < c->n_finalizers; i++)
		if (strcmp(c->finalizers[i], FINALIZER) == 0)
			return true;
	return false;
}

/* upstream SignalClaimPendingAllocation. */
static int inflight_signal(const struct fw_pl *pl, const struct api_resource_claim *claim,
			   const struct api_dra_allocation *allocation, struct dr_node_alloc *holder, struct err *e)
{
	struct dr_priv *p = pl->priv;
	pthread_mutex_lock(&p->lock);
	struct dr_inflight *f = map_get(&p->inflight, claim->meta.uid);
	if (f)
		f->sharers++;
	pthread_mutex_unlock(&p->lock);
	if (f)
		return 0;
	/* upstream: an in-memory special claim is neither shared nor allocated, nothing to check */
	if (!is_special_claim(claim)) {
		struct api_resource_claim *assumed = claim_get(pl, claim->meta.namespace, claim->meta.name);
		if (!assumed)
			return err_set(e, ERR_NOT_FOUND,
				       "look up assumed claim %s/%s, UID=%s: could not find ResourceClaim \"%s/%s\"",
				       claim->meta.namespace, claim->meta.name, claim->meta.uid, claim->meta.namespace,
				       claim->meta.name);
		bool done = str_eq(assumed->meta.uid, claim->meta.uid) && assumed->allocation;
		api_resource_claim_unref(assumed);
		if (done)
			return 0; /* already allocated: nothing in flight */
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->uid = intern_acquire(claim->meta.uid, strlen(claim->meta.uid)))) {
		free(f);
		return err_set(e, ERR_NOMEM, "in-flight claim %s: out of memory", claim->meta.name);
	}
	f->allocation = allocation;
	f->holder = holder;
	atomic_fetch_add(&holder->refs, 1);
	f->sharers = 1;
	void *old = NULL;
	pthread_mutex_lock(&p->lock);
	struct dr_inflight *raced = map_get(&p->inflight, f->uid);
	int rc = 0;
	if (raced)
		raced->sharers++; /* another pod of the claim signalled meanwhile */
	else
		rc = map_put(&p->inflight, f->uid, f, &old);
	pthread_mutex_unlock(&p->lock);
	if (raced || rc < 0)
		inflight_free(f);
	if (rc < 0)
		return err_set(e, ERR_NOMEM, "in-flight claim %s: out of memory", claim->meta.name);
	return 0;
}

/* After Reserve the binding cycle needs the claims, the slices the allocation results point into
 * and the reserved node's allocation only. The search's structures (the allocator over every
 * slice, the allocated state, every other node's allocation: megabytes at 500 nodes with 10
 * devices each) go at Reserve instead of when the binding ends: the scheduler keeps a pod's cycle
 * state through PreBind, and with a backlog of pods in binding (up to 64 binder threads, each
 * waiting on its claim writes) csched's RSS reached 770 MB in
 * SchedulingWithResourceClaimTemplate/5000pods_500nodes. */
static void state_drop_search(struct dr_state *s)
{
	dra_allocator_free(s->allocator);
	s->allocator = NULL;
	dra_allocated_state_free(s->allocated);
	s->allocated = NULL;
	pthread_mutex_lock(&s->lock);
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&s->nodes, &it, &k, &v))
		node_alloc_unref(v);
	map_release(&s->nodes);
	map_init(&s->nodes);
	pthread_mutex_unlock(&s->lock);
}

static enum fw_code reserve(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			    const char *node_name, struct fw_status *st)
{
	(void)pod;
	struct dr_state *s = fw_cycle_state(c, pl);
	if (!s || s->n == 0)
		return FW_SUCCESS;
	uint32_t n_unallocated = 0;
	bool user_to_allocate = false;
	for (uint32_t i = 0; i < s->n; i++)
		if (!s->claims[i]->allocation) {
			n_unallocated++;
			user_to_allocate |= i < s->n_user;
		}
	if (n_unallocated == 0 || !s->allocator)
		return FW_SUCCESS;
	const char *key = intern_find(node_name);
	pthread_mutex_lock(&s->lock);
	struct dr_node_alloc *na = key ? map_get(&s->nodes, key) : NULL;
	pthread_mutex_unlock(&s->lock);
	if (!na || na->n == 0) {
		/* only the special claim, and the node's device plugins give the resources */
		if (!user_to_allocate)
			return FW_SUCCESS;
		return fw_status_set(st, FW_ERROR, "claim allocation not found for node");
	}
	if (na->n != s->n_to_allocate || na->n != n_unallocated)
		return fw_status_setf(st, FW_ERROR, "internal error, have %u allocations, %u claims to allocate, want %u claims",
				      na->n, s->n_to_allocate, n_unallocated);
	node_alloc_unref(s->reserved);
	atomic_fetch_add(&na->refs, 1);
	s->reserved = na;
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		if (claim->allocation)
			continue;
		if (i == s->n_user && na->ext_claim)
			claim = na->ext_claim; /* the special claim as this node needs it */
		const struct api_dra_allocation *a = &na->results[k++];
		s->allocation[i] = a;
		struct err e = { 0 };
		if (inflight_signal(pl, claim, a, na, &e) < 0)
			return fw_status_setf(st, FW_ERROR, "internal error, couldn't signal allocation for claim %s: %s",
					      claim->meta.name, e.msg);
	}
	state_drop_search(s);
	return FW_SUCCESS;
}

/* upstream unreserveExtendedResourceClaim: the special claim leaves the in-flight allocations
 * (by its uid at PreFilter), and the claim PreBind created is deleted again. */
static void unreserve_ext(const struct fw_pl *pl, struct dr_state *s)
{
	const struct api_resource_claim *claim = s->claims[s->n_user];
	if (inflight_remove(pl->priv, s->ext_uid, false))
		claim_restore(pl, claim->meta.namespace, claim->meta.name);
	if (is_special_claim(claim))
		return; /* only in memory */
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	struct err e = { 0 };
	int rc = ops->delete_claim ? ops->delete_claim(ops->ctx, claim, &e)
				   : err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
	if (rc < 0)
		LOG_WARN(NAME ": delete resourceclaim %s/%s: %s", claim->meta.namespace, claim->meta.name, e.msg);
}

static void unreserve(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod, const char *node_name)
{
	(void)node_name;
	struct dr_priv *p = pl->priv;
	struct dr_state *s = fw_cycle_state(c, pl);
	if (!s || s->n == 0)
		return;
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	for (uint32_t i = 0; i < s->n_user; i++) {
		const struct api_resource_claim *claim = s->claims[i];
		if (inflight_remove(p, claim->meta.uid, false))
			claim_restore(pl, claim->meta.namespace, claim->meta.name);
		if (claim->allocation && claim_reserved_for_pod(claim, pod)) {
			struct err e = { 0 };
			int rc = ops->unreserve ? ops->unreserve(ops->ctx, claim, pod->meta.uid, &e)
						: err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
			if (rc < 0)
				LOG_WARN(NAME ": unreserve claim %s/%s: %s", claim->meta.namespace, claim->meta.name, e.msg);
		}
	}
	if (has_ext_claim(s))
		unreserve_ext(pl, s);
}

/* ---------- PreBind ---------- */

static bool dra_sleep(const struct fw_dra_ops *ops, int64_t ms)
{
	if (ops->sleep)
		return ops->sleep(ops->ctx, ms);
	sleep_ns(ms * 1000000);
	return true;
}

/* ---------- PreBind of the special claim (upstream extendeddynamicresources.go) ---------- */

/* s as a JSON string (quoted, escaped). */
static void json_str(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			strbuf_addf(sb, "\\%c", *c);
		else if (*c < 0x20)
			strbuf_addf(sb, "\\u%04x", *c);
		else
			strbuf_add(sb, c, 1);
	}
	strbuf_puts(sb, "\"");
}

/* upstream createExtendedResourceClaimInAPI: creates the node's variant of the special claim
 * (the pod's name plus "-extended-resources-" as generateName, the pod as controller, the
 * extended-resource-claim annotation, the node's requests) and puts the created claim in its
 * place in s. 0, or -1 with msg. */
static int create_ext_claim(const struct fw_pl *pl, struct dr_state *s, const struct api_pod *pod,
			    const char *node_name, char *msg, size_t size)
{
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	const struct api_resource_claim *nc = s->reserved ? s->reserved->ext_claim : NULL;
	struct strbuf sb = STRBUF_INIT;
	struct api_resource_claim *created = NULL;
	struct err e = { 0 };
	if (!nc) {
		snprintf(msg, size, "extended resource claim not found for node %s", node_name);
		return -1;
	}
	strbuf_puts(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"generateName\":");
	char gen[320];
	snprintf(gen, sizeof(gen), "%s-extended-resources-", pod->meta.name);
	json_str(&sb, gen);
	strbuf_puts(&sb, ",\"namespace\":");
	json_str(&sb, pod->meta.namespace);
	strbuf_puts(&sb, ",\"annotations\":{\"resource.kubernetes.io/extended-resource-claim\":\"true\"}"
			 ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":");
	json_str(&sb, pod->meta.name);
	strbuf_puts(&sb, ",\"uid\":");
	json_str(&sb, pod->meta.uid);
	strbuf_puts(&sb, ",\"controller\":true}]},\"spec\":{\"devices\":{\"requests\":[");
	for (uint32_t i = 0; i < nc->n_requests; i++) {
		const struct api_dra_device_request *x = nc->requests[i].exactly;
		strbuf_puts(&sb, i ? ",{\"name\":" : "{\"name\":");
		json_str(&sb, nc->requests[i].name);
		strbuf_puts(&sb, ",\"exactly\":{\"deviceClassName\":");
		json_str(&sb, x->device_class_name);
		strbuf_addf(&sb, ",\"allocationMode\":\"ExactCount\",\"count\":%lld}}", (long long)x->count);
	}
	strbuf_puts(&sb, "]}}}");
	int rc = sb.oom || !sb.data ? err_set(&e, ERR_NOMEM, "out of memory")
	       : ops->create_claim ? ops->create_claim(ops->ctx, pod->meta.namespace, sb.data, sb.len, &created, &e)
				   : err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
	strbuf_release(&sb);
	if (rc < 0 || !created) {
		/* upstream klog.KObj of the claim, whose name is still empty */
		snprintf(msg, size, "create claim for extended resources %s/: %.380s", pod->meta.namespace,
			 rc < 0 ? e.msg : "no claim returned");
		return -1;
	}
	api_resource_claim_unref(s->claims[s->n_user]);
	s->claims[s->n_user] = created; /* Unreserve deletes it if binding fails */
	return 0;
}

/* upstream waitForExtendedClaimInAssumeCache: the created claim counts as allocated once the
 * informer has it (the assumed copy is dropped while the informer does not know the claim, see
 * gather_allocated), so the claim is assumed when the informer has delivered it, polled every
 * second for up to 120 s; giving up is only logged, as upstream does. */
static void ext_wait_assume(const struct fw_pl *pl, struct api_resource_claim *claim)
{
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	for (int waited = 0;; waited++) {
		struct api_resource_claim *cur = fw_get_resource_claim(pl, claim->meta.namespace, claim->meta.name);
		bool seen = cur != NULL;
		api_resource_claim_unref(cur);
		if (seen) {
			claim_assume(pl, claim);
			return;
		}
		if (waited == EXT_ASSUME_TIMEOUT_S || !dra_sleep(ops, EXT_ASSUME_POLL_MS))
			break;
	}
	LOG_V(5, NAME ": claim %s/%s not stored in assume cache: the informer did not deliver it",
		 claim->meta.namespace, claim->meta.name);
}

/* upstream patchPodExtendedResourceClaimStatus: the pod's status.extendedResourceClaimStatus
 * names the created claim and which request serves which container's resource. 0, or -1 with
 * msg. */
static int patch_pod_ext_status(const struct fw_pl *pl, const struct dr_state *s, const struct api_pod *pod, char *msg,
				size_t size)
{
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	const struct dr_node_alloc *na = s->reserved;
	struct strbuf sb = STRBUF_INIT;
	struct err e = { 0 };
	if (!na || na->n_mappings == 0) {
		snprintf(msg, size, "nil or empty request mappings, no update of pod %s/%s ExtendedResourceClaimStatus",
			 pod->meta.namespace, pod->meta.name);
		return -1;
	}
	strbuf_puts(&sb, "{\"requestMappings\":[");
	for (uint32_t i = 0; i < na->n_mappings; i++) {
		const struct api_pod_extended_mapping *m = &na->mappings[i];
		strbuf_puts(&sb, i ? ",{\"containerName\":" : "{\"containerName\":");
		json_str(&sb, m->container_name);
		strbuf_puts(&sb, ",\"resourceName\":");
		json_str(&sb, m->resource_name);
		strbuf_puts(&sb, ",\"requestName\":");
		json_str(&sb, m->request_name);
		strbuf_puts(&sb, "}");
	}
	strbuf_puts(&sb, "],\"resourceClaimName\":");
	json_str(&sb, s->claims[s->n_user]->meta.name);
	strbuf_puts(&sb, "}");
	int rc = sb.oom || !sb.data ? err_set(&e, ERR_NOMEM, "out of memory")
	       : ops->patch_pod_extended_status ? ops->patch_pod_extended_status(ops->ctx, pod, sb.data, &e)
						: err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
	strbuf_release(&sb);
	if (rc < 0) {
		snprintf(msg, size, "update pod %s/%s ExtendedResourceClaimStatus: %.380s", pod->meta.namespace,
			 pod->meta.name, e.msg);
		return -1;
	}
	return 0;
}

/* upstream bindClaim: *out the updated claim (new reference). 0, or -1 with msg. */
static int bind_claim(const struct fw_pl *pl, struct dr_state *s, uint32_t index, const struct api_pod *pod,
		      bool ext, struct api_resource_claim **out, char *msg, size_t size)
{
	const struct fw_dra_ops *ops = fw_dra_ops(pl);
	const struct api_dra_allocation *allocation = s->allocation[index];
	struct api_resource_claim *claim = api_resource_claim_ref(s->claims[index]);
	struct api_dra_consumer consumer = { .api_group = "", .resource = "pods", .name = pod->meta.name,
					     .uid = pod->meta.uid };
	/* upstream klog.KObj(claim): "namespace/name" */
	const char *ns = s->claims[index]->meta.namespace, *name = s->claims[index]->meta.name;
	struct err e = { 0 };
	int rc = -1;
	for (int attempt = 0; attempt < CONFLICT_RETRY_STEPS; attempt++) {
		err_clear(&e);
		if (attempt > 0) {
			dra_sleep(ops, CONFLICT_RETRY_MS);
			struct api_resource_claim *fresh = NULL;
			int grc = ops->get_claim ? ops->get_claim(ops->ctx, claim->meta.namespace, claim->meta.name, &fresh, &e)
						 : err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
			if (grc < 0) {
				snprintf(msg, size, "get updated claim %s/%s after conflict: %.380s", ns, name, e.msg);
				if (e.code == ERR_CONFLICT)
					continue;
				goto out;
			}
			api_resource_claim_unref(claim);
			claim = fresh;
		}
		if (claim->meta.being_deleted) {
			snprintf(msg, size, "claim %s/%s got deleted in the meantime", ns, name);
			goto out;
		}
		if (allocation) {
			if (claim->allocation) {
				snprintf(msg, size, "claim %s/%s got allocated elsewhere in the meantime", ns, name);
				goto out;
			}
			if (!has_finalizer(claim)) {
				struct api_resource_claim *upd = NULL;
				int frc = ops->add_finalizer ? ops->add_finalizer(ops->ctx, claim, &upd, &e)
							     : err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
				if (frc < 0) {
					snprintf(msg, size, "add finalizer to claim %s/%s: %.380s", ns, name, e.msg);
					if (e.code == ERR_CONFLICT)
						continue;
					goto out;
				}
				api_resource_claim_unref(claim);
				claim = upd;
			}
		} else if (!claim->allocation) {
			/* DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are on */
			snprintf(msg, size, "claim %s/%s got deallocated elsewhere in the meantime", ns, name);
			goto out;
		}
		struct api_resource_claim *upd = NULL;
		int rrc = ops->reserve ? ops->reserve(ops->ctx, claim, allocation, &consumer, true, &upd, &e)
				       : err_set(&e, ERR_UNSUPPORTED, "no DRA ops");
		if (rrc < 0) {
			snprintf(msg, size, "%s to claim %s/%s: %.380s",
				 allocation ? "add allocation and reservation" : "add reservation", ns, name, e.msg);
			if (e.code == ERR_CONFLICT)
				continue;
			goto out;
		}
		api_resource_claim_unref(claim);
		claim = upd;
		if (ext)
			ext_wait_assume(pl, claim);
		else
			claim_assume(pl, claim);
		*out = claim;
		claim = NULL;
		rc = 0;
		break;
	}
out:
	api_resource_claim_unref(claim);
	return rc;
}

static bool has_binding_conditions(const struct dr_state *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const struct api_dra_allocation *a = s->claims[i]->allocation;
		for (uint32_t k = 0; a && k < a->n_results; k++)
			if (a->results[k].n_binding_conditions > 0)
				return true;
	}
	return false;
}

/* upstream isPodReadyForBinding: 1 ready, 0 not yet, -1 failed (msg). */
static int pod_ready_for_binding(const struct fw_pl *pl, struct dr_state *s, char *msg, size_t size)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct api_resource_claim *c = claim_get(pl, s->claims[i]->meta.namespace, s->claims[i]->meta.name);
		if (!c) {
			snprintf(msg, size, "could not find ResourceClaim \"%s/%s\"", s->claims[i]->meta.namespace,
				 s->claims[i]->meta.name);
			return -1;
		}
		api_resource_claim_unref(s->claims[i]);
		s->claims[i] = c;
		int ready = claim_ready_for_binding(c, msg, size);
		if (ready < 0)
			return -1;
		if (ready == 0) {
			if (claim_binding_timed_out(pl->priv, c)) {
				snprintf(msg, size, "device binding timeout: claim=%s", c->meta.name);
				return -1;
			}
			return 0;
		}
	}
	return 1;
}

static enum fw_code pre_bind(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			     const char *node_name, struct fw_status *st)
{
	struct dr_priv *p = pl->priv;
	struct dr_state *s = fw_cycle_state(c, pl);
	char msg[FW_STATUS_TEXT_MAX];
	if (!s || s->n == 0)
		return FW_SUCCESS;
	for (uint32_t i = 0; i < s->n; i++) {
		if (claim_reserved_for_pod(s->claims[i], pod))
			continue;
		bool ext = has_ext_claim(s) && i == s->n_user;
		/* the node's device plugins give all the extended resources: no claim */
		if (ext && !s->allocation[i] && s->claims[i]->n_requests == 0)
			continue;
		if (ext && is_special_claim(s->claims[i]) && create_ext_claim(pl, s, pod, node_name, msg, sizeof(msg)) < 0)
			return fw_status_set(st, FW_ERROR, msg);
		struct api_resource_claim *upd = NULL;
		if (bind_claim(pl, s, i, pod, ext, &upd, msg, sizeof(msg)) < 0)
			return fw_status_set(st, FW_ERROR, msg);
		api_resource_claim_unref(s->claims[i]);
		s->claims[i] = upd;
		if (ext && patch_pod_ext_status(pl, s, pod, msg, sizeof(msg)) < 0)
			return fw_status_set(st, FW_ERROR, msg);
	}
	if (has_binding_conditions(s)) {
		const struct fw_dra_ops *ops = fw_dra_ops(pl);
		int64_t deadline = mono_ns() + p->binding_timeout_ns;
		for (;;) {
			int ready = pod_ready_for_binding(pl, s, msg, sizeof(msg));
			if (ready > 0)
				break;
			if (ready < 0)
				return fw_status_set(st, FW_ERROR, msg);
			int64_t left = deadline - mono_ns();
			if (left <= 0)
				return fw_status_set(st, FW_ERROR, "device binding timeout: context deadline exceeded");
			int64_t ms = left / 1000000 < BINDING_POLL_MS ? left / 1000000 + 1 : BINDING_POLL_MS;
			if (!dra_sleep(ops, ms))
				return fw_status_set(st, FW_ERROR, "device binding timeout: context canceled");
		}
	}
	/* upstream's prebindSuccessCleanup, only when PreBind succeeds: the allocations are in the
	 * API (and assumed), nothing stays in flight; on failure Unreserve removes them */
	for (uint32_t i = 0; i < s->n; i++)
		if (s->allocation[i])
			inflight_remove(p, has_ext_claim(s) && i == s->n_user ? s->ext_uid : s->claims[i]->meta.uid, true);
	return FW_SUCCESS;
}

/* ---------- Queueing hints ---------- */

static bool conditions_equal(const struct api_dra_device_status *a, const struct api_dra_device_status *b)
{
	if (a->n_conditions != b->n_conditions)
		return false;
	for (uint32_t i = 0; i < a->n_conditions; i++) {
		const struct api_condition *x = &a->conditions[i], *y = &b->conditions[i];
		if (x->type != y->type || x->status != y->status || strcmp(x->reason ? x->reason : "", y->reason ? y->reason : "") ||
		    strcmp(x->message ? x->message : "", y->message ? y->message : ""))
			return false;
	}
	return true;
}

/* upstream apiequality.Semantic.DeepEqual(&old.Status, &new.Status) on the fields csched decodes. */
static bool status_equal(const struct api_resource_claim *a, const struct api_resource_claim *b)
{
	if (!a->allocation != !b->allocation || a->n_reserved_for != b->n_reserved_for ||
	    a->n_device_statuses != b->n_device_statuses)
		return false;
	for (uint32_t i = 0; i < a->n_reserved_for; i++)
		if (!str_eq(a->reserved_for[i].uid, b->reserved_for[i].uid) ||
		    !str_eq(a->reserved_for[i].name, b->reserved_for[i].name) ||
		    !str_eq(a->reserved_for[i].resource, b->reserved_for[i].resource))
			return false;
	for (uint32_t i = 0; i < a->n_device_statuses; i++) {
		const struct api_dra_device_status *x = &a->device_statuses[i], *y = &b->device_statuses[i];
		if (x->driver != y->driver || x->pool != y->pool || x->device != y->device || !str_eq(x->share_id, y->share_id) ||
		    !conditions_equal(x, y))
			return false;
	}
	const struct api_dra_allocation *x = a->allocation, *y = b->allocation;
	if (!x)
		return true;
	if (x->n_results != y->n_results || x->n_config != y->n_config || !x->node_selector != !y->node_selector ||
	    x->has_allocation_timestamp != y->has_allocation_timestamp || x->allocation_timestamp != y->allocation_timestamp)
		return false;
	for (uint32_t i = 0; i < x->n_results; i++) {
		const struct api_dra_device_result *r = &x->results[i], *q = &y->results[i];
		if (r->request != q->request || r->driver != q->driver || r->pool != q->pool || r->device != q->device ||
		    r->admin_access != q->admin_access || !str_eq(r->share_id, q->share_id) ||
		    r->n_consumed_capacity != q->n_consumed_capacity || r->n_binding_conditions != q->n_binding_conditions)
			return false;
	}
	return true;
}

struct uses {
	const char *uid;
	bool found;
};

static void uses_claim(void *arg, struct api_resource_claim *c)
{
	struct uses *u = arg;
	if (str_eq(c->meta.uid, u->uid))
		u->found = true;
}

/* upstream isSchedulableAfterClaimChange. */
static enum queue_hint hint_claim_change(const void *plugin, const struct api_pod *pod, const void *old_obj,
					 const void *new_obj)
{
	const struct fw_pl *pl = plugin;
	const struct api_resource_claim *old_c = old_obj, *new_c = new_obj;
	char msg[FW_STATUS_TEXT_MAX];
	if (!new_c) /* deleted: only an allocated claim frees devices */
		return old_c && old_c->allocation ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
	struct uses u = { .uid = new_c->meta.uid };
	if (each_pod_claim(pl, pod, uses_claim, &u, msg, sizeof(msg)))
		return QUEUE_HINT_SKIP; /* the pod is not schedulable yet anyway */
	if (old_c && old_c->allocation && !new_c->allocation)
		return QUEUE_HINT_QUEUE; /* deallocated: its devices may be what the pod needs */
	if (!u.found)
		return QUEUE_HINT_SKIP;
	if (!old_c)
		return QUEUE_HINT_QUEUE;
	return status_equal(old_c, new_c) ? QUEUE_HINT_SKIP : QUEUE_HINT_QUEUE;
}

/* upstream isSchedulableAfterTargetPodUpdate. */
static enum queue_hint hint_target_pod(const void *plugin, const struct api_pod *pod, const void *old_obj,
				       const void *new_obj)
{
	(void)pod;
	(void)old_obj;
	char msg[FW_STATUS_TEXT_MAX];
	const struct api_pod *np = new_obj;
	if (!np)
		return QUEUE_HINT_QUEUE;
	return each_pod_claim(plugin, np, NULL, NULL, msg, sizeof(msg)) ? QUEUE_HINT_SKIP : QUEUE_HINT_QUEUE;
}

/* upstream EventsToRegister (the pre-queueing hint, which only narrows which pods a claim event
 * visits, has no csched counterpart: hint_claim_change runs for each). */
static const struct queue_event_hint events[] = {
	{ { QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL | QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, NULL }, NULL },
	{ { QUEUE_RES_RESOURCE_CLAIM, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE | QUEUE_ACT_DELETE, NULL }, hint_claim_change },
	{ { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM, NULL }, hint_target_pod },
	{ { QUEUE_RES_DEVICE_CLASS, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, NULL }, NULL },
	{ { QUEUE_RES_RESOURCE_SLICE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, NULL }, NULL },
};

const struct fw_plugin fw_plugin_dynamic_resources = {
	.name = NAME,
	.args_kind = CFG_ARGS_DYNAMIC_RESOURCES,
	.init = init,
	.release = release,
	.pre_enqueue = pre_enqueue,
	.pre_filter = pre_filter,
	.filter = filter,
	.post_filter = post_filter,
	.score = score,
	.normalize_score = fw_normalize_to_max,
	.reserve = reserve,
	.unreserve = unreserve,
	.pre_bind = pre_bind,
	FW_EVENTS(events),
	.explain = explain,
};
