/* NodeResourcesFit (PreFilter, Filter, PreScore, Score): the pod's requests must fit the
 * node's allocatable minus what its pods request; scoring by LeastAllocated (default),
 * MostAllocated or RequestedToCapacityRatio (NodeResourcesFitArgs). */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "dra_allocator.h"

#define MAX_UTILIZATION 100
#define MAX_CUSTOM_PRIORITY_SCORE 10

struct fit_priv {
	enum cfg_scoring_type type;
	uint32_t n_res;
	const char **res_names; /* scoringStrategy.resources: names (interned) */
	int64_t *res_weights;   /* and weights, as PreScore resolves them */
	uint32_t n_shape;
	struct { int64_t utilization, score; } *shape; /* score scaled to 0..100 */
	uint32_t n_ignored, n_ignored_groups;
	const char **ignored, **ignored_groups; /* borrowed from the args */
	/* DRAExtendedResource: the DeviceClass selectors compiled for scoring (upstream NewFit's
	 * cel.NewCache(10)), made when a scored resource may be DRA-backed; NULL otherwise */
	struct dra_cel_cache *cel;
};

/* scoringStrategy.resources (default cpu and memory, weight 1). */
static int init_resources(struct fit_priv *p, const struct cfg_fit_args *a, struct err *e)
{
	const struct fw_names *nm = fw_names();
	uint32_t n = a && a->n_resources ? a->n_resources : 2;
	p->res_names = calloc(n, sizeof(*p->res_names));
	p->res_weights = calloc(n, sizeof(*p->res_weights));
	if (!p->res_names || !p->res_weights)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (!a || !a->n_resources) {
		p->res_names[0] = nm->cpu;
		p->res_names[1] = nm->memory;
		p->res_weights[0] = p->res_weights[1] = 1;
	}
	for (uint32_t i = 0; a && i < a->n_resources; i++) {
		p->res_names[i] = intern_str(a->resources[i].name);
		p->res_weights[i] = a->resources[i].weight;
		if (!p->res_names[i])
			return err_set(e, ERR_NOMEM, "out of memory");
		if (p->res_weights[i] < 1 || p->res_weights[i] > 100)
			return err_set(e, ERR_INVALID, "scoringStrategy.resources[%u].weight: must be in the range 1..100, got %lld",
				       i, (long long)p->res_weights[i]);
	}
	p->n_res = n;
	return fw_dra_scoring_cache(p->res_names, n, &p->cel, e);
}

/* scoringStrategy.requestedToCapacityRatio.shape, scores scaled to 0..100. */
static int init_shape(struct fit_priv *p, const struct cfg_fit_args *a, struct err *e)
{
	if (!a || !a->n_shape)
		return err_set(e, ERR_INVALID, "scoringStrategy.requestedToCapacityRatio.shape: required");
	p->shape = calloc(a->n_shape, sizeof(*p->shape));
	if (!p->shape)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < a->n_shape; i++) {
		const struct cfg_shape_point *sp = &a->shape[i];
		if (sp->utilization < 0 || sp->utilization > MAX_UTILIZATION ||
		    (i && sp->utilization <= a->shape[i - 1].utilization))
			return err_set(e, ERR_INVALID,
				       "scoringStrategy.requestedToCapacityRatio.shape[%u].utilization: must be increasing in 0..100", i);
		if (sp->score < 0 || sp->score > MAX_CUSTOM_PRIORITY_SCORE)
			return err_set(e, ERR_INVALID,
				       "scoringStrategy.requestedToCapacityRatio.shape[%u].score: must be in the range 0..10", i);
		p->shape[i].utilization = sp->utilization;
		p->shape[i].score = (int64_t)sp->score * (FW_MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE);
	}
	p->n_shape = a->n_shape;
	return 0;
}

static int init(struct fw_pl *pl, struct err *e)
{
	const struct cfg_fit_args *a = pl->args;
	struct fit_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ERR_NOMEM, "out of memory");
	pl->priv = p;
	p->type = a ? a->scoring_type : CFG_SCORING_LEAST_ALLOCATED;
	int rc = init_resources(p, a, e);
	if (rc == 0 && p->type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO)
		rc = init_shape(p, a, e);
	if (rc < 0)
		return rc;
	if (a) {
		p->n_ignored = a->n_ignored_resources;
		p->ignored = a->ignored_resources;
		p->n_ignored_groups = a->n_ignored_resource_groups;
		p->ignored_groups = a->ignored_resource_groups;
	}
	return 0;
}

static void release(struct fw_pl *pl)
{
	struct fit_priv *p = pl->priv;
	if (!p)
		return;
	free(p->res_names);
	free(p->res_weights);
	free(p->shape);
	dra_cel_cache_free(p->cel);
	free(p);
	pl->priv = NULL;
}

/* ---------- Filter ---------- */

static bool ignored(const struct fit_priv *p, const char *name)
{
	if (!p || !fw_is_extended_resource(name))
		return false;
	for (uint32_t i = 0; i < p->n_ignored; i++)
		if (strcmp(p->ignored[i], name) == 0)
			return true;
	if (p->n_ignored_groups) {
		size_t glen = strcspn(name, "/");
		for (uint32_t i = 0; i < p->n_ignored_groups; i++)
			if (strlen(p->ignored_groups[i]) == glen && strncmp(p->ignored_groups[i], name, glen) == 0)
				return true;
	}
	return false;
}

static bool backed_by_class(const struct fw_pl *pl, const char *name)
{
	struct api_device_class *dc = fw_extended_resource_class(pl, name);
	api_device_class_unref(dc);
	return dc != NULL;
}

/* upstream fitsRequest (pl: the DeviceClasses of shouldDelegateResourceToDRA). Returns Success or
 * the rejection with every reason in st. */
static enum fw_code fits_request(const struct fw_pl *pl, const struct fit_priv *p, const struct node_res *r,
				 const struct api_resources *alloc, const struct node_res *used, uint32_t n_pods,
				 struct fw_status *st)
{
	bool fail = false, unresolvable = false;
	fw_status_reset(st);
	if ((int64_t)n_pods + 1 > alloc->pods) {
		fw_status_add_reason(st, "Too many pods");
		fail = true;
	}
	if (!r->cpu && !r->memory && !r->ephemeral_storage && !r->n_scalar)
		goto out;
	if (r->cpu > 0 && r->cpu > alloc->cpu - used->cpu) {
		fw_status_add_reason(st, "Insufficient cpu");
		fail = true;
		unresolvable |= r->cpu > alloc->cpu;
	}
	if (r->memory > 0 && r->memory > alloc->memory - used->memory) {
		fw_status_add_reason(st, "Insufficient memory");
		fail = true;
		unresolvable |= r->memory > alloc->memory;
	}
	if (r->ephemeral_storage > 0 && r->ephemeral_storage > alloc->ephemeral_storage - used->ephemeral_storage) {
		fw_status_add_reason(st, "Insufficient ephemeral-storage");
		fail = true;
		unresolvable |= r->ephemeral_storage > alloc->ephemeral_storage;
	}
	for (uint32_t i = 0; i < r->n_scalar; i++) {
		const struct api_resource *q = &r->scalar[i];
		if (q->value == 0 || ignored(p, q->name))
			continue;
		int64_t a = api_resources_scalar(alloc, q->name);
		if (a <= 0 && backed_by_class(pl, q->name)) /* shouldDelegateResourceToDRA */
			continue;
		if (q->value > a - node_res_scalar(used, q->name)) {
			fw_status_add_reasonf(st, "Insufficient %s", q->name);
			fail = true;
			unresolvable |= q->value > a;
		}
	}
out:
	if (!fail)
		return FW_SUCCESS;
	/* a request above the node's whole allocatable cannot be fixed by preemption */
	st->code = unresolvable ? FW_UNSCHEDULABLE_AND_UNRESOLVABLE : FW_UNSCHEDULABLE;
	return st->code;
}

/* PreFilter state: the pod's requests and, resolved once per pod, the scalar requests the Filter
 * compares on every node (non-zero, not ignored) with their "Insufficient NAME" reasons, so that
 * the per-node work, fitting or not, involves no string work. */
struct filter_state {
	struct node_res r;
	bool any;        /* any request at all (else only the pod count is checked) */
	uint32_t n_check;
	const struct api_resource *check; /* in r.scalar order; arena */
	const char **check_reason;        /* check[i]'s reason; arena */
	/* DRAExtendedResource: a DeviceClass backs check[i] (fw_extended_resource_class), so that a
	 * node not advertising it leaves it to DynamicResources (upstream shouldDelegateResourceToDRA);
	 * arena, NULL when no request is backed. */
	const bool *check_dra;
};

static void release_state(void *arg)
{
	node_res_release(&((struct filter_state *)arg)->r);
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	const struct fit_priv *p = pl->priv;
	struct filter_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s)
		return fw_status_set(st, FW_ERROR, "NodeResourcesFit: out of memory");
	if (node_res_of_pod(pod, NODE_RES_SPEC, &s->r) < 0)
		return fw_status_set(st, FW_ERROR, "NodeResourcesFit: computing pod requests failed");
	if (fw_cycle_on_release(c, release_state, s) < 0) {
		node_res_release(&s->r);
		return fw_status_set(st, FW_ERROR, "NodeResourcesFit: out of memory");
	}
	const struct node_res *r = &s->r;
	s->any = r->cpu || r->memory || r->ephemeral_storage || r->n_scalar;
	if (r->n_scalar) {
		struct api_resource *check = fw_cycle_alloc(c, r->n_scalar * sizeof(*check));
		const char **reason = fw_cycle_alloc(c, r->n_scalar * sizeof(*reason));
		bool *dra = fw_cycle_alloc(c, r->n_scalar * sizeof(*dra));
		if (!check || !reason || !dra)
			return fw_status_set(st, FW_ERROR, "NodeResourcesFit: out of memory");
		for (uint32_t i = 0; i < r->n_scalar; i++) {
			if (r->scalar[i].value == 0 || ignored(p, r->scalar[i].name))
				continue;
			/* as fw_status_add_reasonf would format it (same truncation) */
			size_t len = strlen(r->scalar[i].name) + sizeof("Insufficient ");
			if (len > FW_STATUS_TEXT_MAX)
				len = FW_STATUS_TEXT_MAX;
			char *text = fw_cycle_alloc(c, len);
			if (!text)
				return fw_status_set(st, FW_ERROR, "NodeResourcesFit: out of memory");
			snprintf(text, len, "Insufficient %s", r->scalar[i].name);
			struct api_device_class *dc = fw_extended_resource_class(pl, r->scalar[i].name);
			dra[s->n_check] = dc != NULL;
			if (dc) {
				s->check_dra = dra;
				api_device_class_unref(dc);
			}
			reason[s->n_check] = text;
			check[s->n_check++] = r->scalar[i];
		}
		s->check = check;
		s->check_reason = reason;
	}
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

static bool dra_delegated(const struct filter_state *s, uint32_t i, const struct api_resources *alloc)
{
	return s->check_dra && fw_delegate_resource_to_dra(alloc, s->check[i].name, s->check_dra[i]);
}

/* upstream fitsRequest over the prepared state: Success, or the rejection with every reason in
 * st (st untouched on Success). */
static enum fw_code fits_state(const struct filter_state *s, const struct node_info *ni, struct fw_status *st)
{
	const struct api_resources *alloc = node_info_allocatable(ni);
	const struct node_res *r = &s->r, *used = &ni->requested;
	bool pods = (int64_t)ni->n_pods + 1 > alloc->pods;
	bool cpu = false, mem = false, eph = false, scalar = false;
	if (s->any) {
		cpu = r->cpu > 0 && r->cpu > alloc->cpu - used->cpu;
		mem = r->memory > 0 && r->memory > alloc->memory - used->memory;
		eph = r->ephemeral_storage > 0 && r->ephemeral_storage > alloc->ephemeral_storage - used->ephemeral_storage;
		for (uint32_t i = 0; i < s->n_check && !scalar; i++)
			scalar = !dra_delegated(s, i, alloc) &&
				 s->check[i].value > api_resources_scalar(alloc, s->check[i].name) -
							     node_res_scalar(used, s->check[i].name);
	}
	if (!pods && !cpu && !mem && !eph && !scalar)
		return FW_SUCCESS;
	/* the reasons, in upstream's order */
	bool unresolvable = false;
	fw_status_reset(st);
	if (pods)
		fw_status_add_reason(st, "Too many pods");
	if (cpu) {
		fw_status_add_reason(st, "Insufficient cpu");
		unresolvable |= r->cpu > alloc->cpu;
	}
	if (mem) {
		fw_status_add_reason(st, "Insufficient memory");
		unresolvable |= r->memory > alloc->memory;
	}
	if (eph) {
		fw_status_add_reason(st, "Insufficient ephemeral-storage");
		unresolvable |= r->ephemeral_storage > alloc->ephemeral_storage;
	}
	for (uint32_t i = 0; scalar && i < s->n_check; i++) {
		const struct api_resource *q = &s->check[i];
		int64_t a = api_resources_scalar(alloc, q->name);
		if (!dra_delegated(s, i, alloc) && q->value > a - node_res_scalar(used, q->name)) {
			fw_status_add_reason(st, s->check_reason[i]);
			unresolvable |= q->value > a;
		}
	}
	/* a request above the node's whole allocatable cannot be fixed by preemption */
	st->code = unresolvable ? FW_UNSCHEDULABLE_AND_UNRESOLVABLE : FW_UNSCHEDULABLE;
	return st->code;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pod;
	const struct filter_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
	return fits_state(s, ni, st);
}

/* ---------- Score ---------- */

/* PreScore state (struct fw_pod_res_refs): the configured resources this pod is scored on. */
static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)nodes;
	(void)n;
	const struct fit_priv *p = pl->priv;
	const struct fw_pod_res_refs *s;
	int rc = fw_pod_res_refs_new(pl, p->cel, c, pod, NODE_RES_FIT_SCORE, p->res_names, p->res_weights, p->n_res, &s);
	if (rc < 0)
		return fw_status_set(st, FW_ERROR, rc == ERR_NOMEM ? "NodeResourcesFit: out of memory"
								   : "NodeResourcesFit: computing pod requests failed");
	fw_cycle_set_state(c, pl, (void *)s);
	return FW_SUCCESS;
}

static int64_t broken_linear(const struct fit_priv *p, int64_t u)
{
	for (uint32_t i = 0; i < p->n_shape; i++) {
		if (u <= p->shape[i].utilization) {
			if (i == 0)
				return p->shape[0].score;
			return p->shape[i - 1].score + (p->shape[i].score - p->shape[i - 1].score) *
							       (u - p->shape[i - 1].utilization) /
							       (p->shape[i].utilization - p->shape[i - 1].utilization);
		}
	}
	return p->shape[p->n_shape - 1].score;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct fit_priv *p = pl->priv;
	const struct fw_pod_res_refs *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "reading \"PreScoreNodeResourcesFit\" from cycleState: not found");
	int64_t num = 0, den = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		int64_t alloc, req, rs;
		fw_res_ref_alloc_req_dra(s, ni, &s->res[i], false, &alloc, &req);
		if (alloc == 0)
			continue;
		int64_t w = s->res[i].weight;
		switch (p->type) {
		case CFG_SCORING_MOST_ALLOCATED:
			if (req > alloc)
				req = alloc;
			num += req * FW_MAX_NODE_SCORE / alloc * w;
			den += w;
			break;
		case CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO:
			rs = req > alloc ? broken_linear(p, MAX_UTILIZATION) : broken_linear(p, req * MAX_UTILIZATION / alloc);
			if (rs > 0) {
				num += rs * w;
				den += w;
			}
			break;
		default: /* LeastAllocated */
			num += (req > alloc ? 0 : (alloc - req) * FW_MAX_NODE_SCORE / alloc) * w;
			den += w;
			break;
		}
	}
	if (!den)
		*out = 0;
	else if (p->type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO)
		*out = (int64_t)round((double)num / (double)den); /* Go math.Round: halves away from 0 */
	else
		*out = num / den;
	return FW_SUCCESS;
}

/* ---------- Queueing hints ---------- */

/* Whether pod fits an empty node (upstream isFit: no ignored resources). */
static bool fits_empty_node(const struct fw_pl *pl, const struct api_pod *pod, const struct api_node *node)
{
	struct node_res r, used = { 0 };
	struct fw_status st;
	if (node_res_of_pod(pod, NODE_RES_SPEC, &r) < 0)
		return true; /* an error counts as Queue */
	bool ok = fits_request(pl, NULL, &r, &node->allocatable, &used, 0, &st) == FW_SUCCESS;
	node_res_release(&r);
	return ok;
}

static bool requested_increased(const struct fw_pl *pl, const struct api_pod *pod, const struct api_node *on,
				const struct api_node *nn)
{
	const struct api_resources *o = &on->allocatable, *n = &nn->allocatable;
	if (n->pods > o->pods)
		return true;
	struct node_res r;
	if (node_res_of_pod(pod, NODE_RES_SPEC, &r) < 0)
		return true;
	bool inc = false;
	if (!r.cpu && !r.memory && !r.ephemeral_storage && !r.n_scalar)
		goto out;
	if ((r.cpu > 0 && n->cpu > o->cpu) || (r.memory > 0 && n->memory > o->memory) ||
	    (r.ephemeral_storage > 0 && n->ephemeral_storage > o->ephemeral_storage)) {
		inc = true;
		goto out;
	}
	for (uint32_t i = 0; i < r.n_scalar && !inc; i++) {
		if (!r.scalar[i].value)
			continue;
		int64_t a = api_resources_scalar(n, r.scalar[i].name);
		/* increased, or left to DRA on the new node (shouldDelegateResourceToDRA) */
		inc = a > api_resources_scalar(o, r.scalar[i].name) || (a <= 0 && backed_by_class(pl, r.scalar[i].name));
	}
out:
	node_res_release(&r);
	return inc;
}

static enum queue_hint node_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return QUEUE_HINT_SKIP;
	if (!fits_empty_node(pl, pod, nn))
		return QUEUE_HINT_SKIP;
	if (!on)
		return QUEUE_HINT_QUEUE;
	return requested_increased(pl, pod, on, nn) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* Whether pod requests the resource name (upstream: a key of resource.PodRequests, zero or not). */
static bool pod_requests(const struct api_pod *pod, const char *name)
{
	struct node_res r;
	if (node_res_of_pod(pod, NODE_RES_REQUESTS, &r) < 0)
		return true; /* an error counts as Queue */
	bool found = false;
	for (uint32_t i = 0; i < r.n_scalar && !found; i++)
		found = strcmp(r.scalar[i].name, name) == 0;
	node_res_release(&r);
	return found;
}

/* upstream isSchedulableAfterDeviceClassEvent (DRAExtendedResource): a class added whose implicit
 * name the pod requests, or a class whose extendedResourceName changed to one the pod requests. */
static enum queue_hint device_class_event(const void *pl, const struct api_pod *pod, const void *old_obj,
					  const void *new_obj)
{
	(void)pl;
	const struct api_device_class *oc = old_obj, *nc = new_obj;
	if (!nc)
		return QUEUE_HINT_ERROR;
	if (oc) {
		if (oc->extended_resource_name == nc->extended_resource_name) /* interned, NULL = "" */
			return QUEUE_HINT_SKIP;
	} else {
		char implicit[FW_STATUS_TEXT_MAX];
		snprintf(implicit, sizeof(implicit), "deviceclass.resource.kubernetes.io/%s", nc->meta.name);
		if (pod_requests(pod, implicit))
			return QUEUE_HINT_QUEUE;
	}
	if (nc->extended_resource_name && pod_requests(pod, nc->extended_resource_name))
		return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* Whether a request of pod (non-zero) shrank from old to new (upstream isResourceScaleDown). */
static bool scaled_down(const struct api_pod *pod, const struct api_pod *op, const struct api_pod *np)
{
	struct node_res t, o, n;
	bool down = false;
	if (node_res_of_pod(pod, NODE_RES_REQUESTS, &t) < 0)
		return true;
	if (node_res_of_pod(op, NODE_RES_REQUESTS, &o) < 0) {
		node_res_release(&t);
		return true;
	}
	if (node_res_of_pod(np, NODE_RES_REQUESTS, &n) < 0) {
		node_res_release(&t);
		node_res_release(&o);
		return true;
	}
	if ((t.cpu && o.cpu > n.cpu) || (t.memory && o.memory > n.memory) ||
	    (t.ephemeral_storage && o.ephemeral_storage > n.ephemeral_storage))
		down = true;
	for (uint32_t i = 0; i < t.n_scalar && !down; i++) {
		const char *name = t.scalar[i].name;
		if (t.scalar[i].value && node_res_scalar(&o, name) > node_res_scalar(&n, name))
			down = true;
	}
	node_res_release(&t);
	node_res_release(&o);
	node_res_release(&n);
	return down;
}

/* upstream isSchedulableAfterAssignedPodDelete: a pod that was bound or nominated frees room
 * (an unassigned pod that had a nomination comes as AssignedPodDelete too). */
static enum queue_hint assigned_pod_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
					    const void *new_obj)
{
	(void)pl;
	(void)pod;
	(void)new_obj;
	const struct api_pod *op = old_obj;
	if (!op)
		return QUEUE_HINT_ERROR; /* upstream: unexpected objects -> Queue with an error */
	bool placed = (op->node_name && op->node_name[0]) || (op->nominated_node_name && op->nominated_node_name[0]);
	return placed ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterAssignedPodScaleDown (haveEnoughRelevantResourcesDecreased). */
static enum queue_hint assigned_pod_scaled_down(const void *pl, const struct api_pod *pod, const void *old_obj,
						const void *new_obj)
{
	(void)pl;
	const struct api_pod *op = old_obj, *np = new_obj;
	if (!op || !np)
		return QUEUE_HINT_ERROR;
	if (!np->node_name || !np->node_name[0])
		return QUEUE_HINT_SKIP; /* an unscheduled pod's update frees nothing */
	return scaled_down(pod, op, np) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* upstream v1.37 EventsToRegister with InPlacePodVerticalScaling (GA) and DRAExtendedResource
 * (GA) on and InPlacePodVerticalScalingSchedulerPreemption (alpha) off. The pending pod's own
 * scale-down always queues (isSchedulableAfterTargetPodScaleDown). */
static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, assigned_pod_deleted },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_ALLOCATABLE }, node_change },
	{ { .resource = QUEUE_RES_DEVICE_CLASS, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, device_class_event },
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_UPDATE_POD_SCALE_DOWN }, assigned_pod_scaled_down },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_SCALE_DOWN }, NULL },
};

const struct fw_plugin fw_plugin_node_resources_fit = {
	.name = "NodeResourcesFit",
	.args_kind = CFG_ARGS_FIT,
	.init = init,
	.release = release,
	.pre_filter = pre_filter,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	FW_EVENTS(events),
};
