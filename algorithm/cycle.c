/* The generic scheduling algorithm (upstream schedule_one.go schedulePod / findNodesThatFitPod /
 * findNodesThatPassFilters / prioritizeNodes / selectHost and framework/types.go FitError).
 *
 * DESIGN: runs on the scheduler thread. Filter and Score fan out over the profile's worker pool:
 * a worker handling candidate i writes only slot i of the per-node arrays (status, state, score
 * row); Filter workers count feasible nodes privately and add them to a shared counter in
 * batches (filter_one), and the feasible list is collected from the states afterwards; the first
 * plugin error is claimed with an atomic flag and copied into the job. fw_pool_run returns after every
 * started piece finished (its mutex orders the workers' writes before our reads). The snapshot,
 * pod and cycle state are read-only while workers run; nominated pods are prepared beforehand
 * into a read-only map. */
#include "cycle_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"

#define MIN_FEASIBLE_NODES_TO_FIND 100
#define MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND 5

uint32_t fw_num_feasible_nodes_to_find(int32_t percentage, uint32_t num_all_nodes)
{
	if (num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND)
		return num_all_nodes;
	int64_t pct = percentage;
	if (pct == 0) {
		pct = 50 - (int64_t)num_all_nodes / 125;
		if (pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
			pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
	}
	int64_t n = (int64_t)num_all_nodes * pct / 100;
	if (n < MIN_FEASIBLE_NODES_TO_FIND)
		return MIN_FEASIBLE_NODES_TO_FIND;
	return (uint32_t)n;
}

/* ---------- PreFilter ---------- */

/* Intersects *cur (NULL = all) with next; the result lives in the cycle arena. */
static int intersect_names(struct fw_cycle *c, struct fw_node_names *cur, const struct fw_node_names *next)
{
	if (next->all)
		return 0;
	if (cur->all) {
		const char **names = fw_cycle_alloc(c, (next->n + 1) * sizeof(*names));
		if (!names)
			return ERR_NOMEM;
		/* dedupe: a plugin may list a node twice */
		struct map m;
		map_init(&m);
		uint32_t k = 0;
		for (uint32_t i = 0; i < next->n; i++) {
			if (!next->names[i] || map_get(&m, next->names[i]))
				continue;
			if (map_put(&m, next->names[i], (void *)next->names[i], NULL) < 0) {
				map_release(&m);
				return ERR_NOMEM;
			}
			names[k++] = next->names[i];
		}
		map_release(&m);
		cur->all = false;
		cur->names = names;
		cur->n = k;
		return 0;
	}
	struct map m;
	map_init(&m);
	for (uint32_t i = 0; i < next->n; i++)
		if (next->names[i] && map_put(&m, next->names[i], (void *)next->names[i], NULL) < 0) {
			map_release(&m);
			return ERR_NOMEM;
		}
	uint32_t k = 0;
	for (uint32_t i = 0; i < cur->n; i++)
		if (map_get(&m, cur->names[i]))
			cur->names[k++] = cur->names[i];
	cur->n = k;
	map_release(&m);
	return 0;
}

enum prefilter_outcome { PF_OK, PF_REJECTED, PF_ERROR };

/* upstream RunPreFilterPlugins + the rejection handling of findNodesThatFitPod. */
static int run_pre_filter(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			  struct fw_node_names *result, const char **with_nodes, uint32_t *n_with_nodes,
			  struct fw_schedule_result *res, enum prefilter_outcome *outcome, struct err *e)
{
	struct fw_status st, rejected;
	bool have_rejected = false;
	struct fw_diagnosis *d = &res->diag;
	char msg[FW_STATUS_TEXT_MAX];

	result->all = true;
	result->n = 0;
	result->names = NULL;
	*n_with_nodes = 0;
	*outcome = PF_OK;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_PRE_FILTER]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_PRE_FILTER][i];
		struct fw_node_names r = { .all = true };
		fw_status_reset(&st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &r, &st);
		fw_cycle_record_plugin(c, pl, FW_EP_PRE_FILTER, code, t0);
		st.code = code;
		if (code == FW_SKIP) {
			c->skip_filter[pl->index] = true;
			continue;
		}
		if (code != FW_SUCCESS) {
			st.plugin = pl->plugin->name;
			if (code == FW_UNSCHEDULABLE_AND_UNRESOLVABLE) {
				/* no preemption can help: the remaining PreFilters need not run */
				*n_with_nodes = 0;
				rejected = st;
				have_rejected = true;
				break;
			}
			if (code == FW_UNSCHEDULABLE) {
				/* preemption may still help: run every PreFilter so its state exists */
				rejected = st;
				have_rejected = true;
				continue;
			}
			fw_status_message(&st, msg, sizeof(msg));
			fw_status_setf(&res->status, FW_ERROR, "running PreFilter plugin \"%s\": %s", pl->plugin->name, msg);
			res->status.plugin = pl->plugin->name;
			*outcome = PF_ERROR;
			return 0;
		}
		if (!r.all) {
			fw_name_set_add(with_nodes, n_with_nodes, pl->plugin->name);
			if (intersect_names(c, result, &r) < 0)
				return err_set(e, ERR_NOMEM, "PreFilter %s: out of memory", pl->plugin->name);
			if (result->n == 0) {
				char list[256];
				if (*n_with_nodes == 1) {
					fw_status_setf(&rejected, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						       "node(s) didn't satisfy plugin %s", with_nodes[0]);
				} else {
					fw_format_plugin_list(with_nodes, *n_with_nodes, list, sizeof(list));
					fw_status_setf(&rejected, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						       "node(s) didn't satisfy plugin(s) %s simultaneously", list);
				}
				have_rejected = true;
				break;
			}
		}
	}
	for (uint32_t i = 0; i < *n_with_nodes; i++)
		fw_name_set_add(d->unschedulable_plugins, &d->n_unschedulable_plugins, with_nodes[i]);
	if (!have_rejected)
		return 0;
	d->has_absent_status = true;
	d->absent_status = rejected;
	fw_status_message(&rejected, d->pre_filter_msg, sizeof(d->pre_filter_msg));
	fw_diag_add_plugin_status(d, &rejected);
	res->code = FW_UNSCHEDULABLE;
	res->status = rejected;
	*outcome = PF_REJECTED;
	return 0;
}

/* ---------- The cycle ---------- */

static const struct node_info *list_get(const struct fw_node_list *l, const char *name)
{
	if (l->get)
		return l->get(l->get_ctx, name);
	for (uint32_t i = 0; i < l->n; i++)
		if (l->nodes[i]->name == name || strcmp(l->nodes[i]->name, name) == 0)
			return l->nodes[i];
	return NULL;
}

static void result_init(struct fw_schedule_result *res, uint32_t num_all_nodes)
{
	res->code = FW_SUCCESS;
	res->suggested_host = NULL;
	res->evaluated_nodes = 0;
	res->feasible_nodes = 0;
	res->asked_hint = false;
	fw_status_reset(&res->status);
	struct fw_diagnosis *d = &res->diag;
	d->num_all_nodes = num_all_nodes;
	d->n_node_status = 0;
	d->node_status = NULL;
	d->has_absent_status = false;
	fw_status_reset(&d->absent_status);
	d->pre_filter_msg[0] = '\0';
	d->post_filter_msg[0] = '\0';
	d->n_unschedulable_plugins = 0;
	d->n_pending_plugins = 0;
}

/* Makes a failed status of the nominated-node pass survive the main pass (which reuses the
 * scratch statuses). */
static int keep_nominated_status(struct fw_cycle *c, struct fw_diagnosis *d)
{
	for (uint32_t i = 0; i < d->n_node_status; i++) {
		struct fw_status *copy = fw_cycle_alloc(c, sizeof(*copy));
		if (!copy)
			return ERR_NOMEM;
		*copy = *d->node_status[i].status;
		((struct fw_node_status *)d->node_status)[i].status = copy;
	}
	return 0;
}

/* The nominated node's failure stays recorded unless the main pass tried it again. */
static void merge_nominated_status(struct fw_diagnosis *d, uint32_t n_nominated)
{
	if (!n_nominated)
		return;
	const struct fw_node_status nom = d->node_status[0];
	struct fw_node_status *ns = (struct fw_node_status *)d->node_status;
	bool retried = false;
	for (uint32_t i = n_nominated; i < d->n_node_status; i++)
		if (ns[i].node_name == nom.node_name)
			retried = true;
	if (retried) {
		memmove(ns, ns + 1, (d->n_node_status - 1) * sizeof(*ns));
		d->n_node_status--;
	}
}

static int check_cycle_args(const struct fw_profile *p, const struct fw_cycle *c, const struct fw_node_list *nodes,
			    const struct api_pod *pod, const struct fw_schedule_result *res, struct err *e)
{
	if (!p || !c || !nodes || !pod || !res || (nodes->n && !nodes->nodes))
		return err_set(e, ERR_INVALID, "fw_schedule_pod: missing argument");
	if (c->profile != p)
		return err_set(e, ERR_INVALID, "fw_schedule_pod: cycle state of another profile");
	if (c->used)
		return err_set(e, ERR_INVALID, "fw_schedule_pod: cycle state already used (fw_cycle_reset it)");
	return 0;
}

/* A node nominated by an earlier preemption is likely the only fit: try it alone first. Returns
 * 1 when it fits (res filled), 0 to go on with every node (*n_kept: the nominated node's failure
 * statuses kept in the diagnosis), or a negative code. */
static int try_nominated_node(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
			      const struct api_pod *pod, const char *hint, struct fw_schedule_result *res,
			      uint32_t *n_kept, struct err *e)
{
	*n_kept = 0;
	/* upstream evaluateNominatedNode: the nominated node, else the batch's hint */
	const char *nnn = pod->nominated_node_name && pod->nominated_node_name[0] ? pod->nominated_node_name : hint;
	const struct node_info *ni = nnn ? list_get(nodes, nnn) : NULL;
	if (!ni)
		return 0;
	const struct node_info *one[1] = { ni };
	uint32_t saved = p->next_start, n_feasible = 0;
	p->next_start = 0;
	int rc = fw_find_nodes_that_pass_filters(p, c, pod, one, 1, res, &n_feasible, e);
	p->next_start = saved;
	if (rc < 0)
		return rc;
	if (rc == 0 && n_feasible == 1 && p->n_extenders) {
		/* upstream evaluateNominatedNode: the extenders too; their error is only logged */
		rc = fw_find_nodes_that_pass_extenders(p, c, pod, p->scratch_feasible, &n_feasible, &res->diag,
						       &res->status, e);
		if (rc < 0)
			return rc;
	}
	if (rc == 0 && n_feasible == 1) {
		if (c->record) {
			c->record->n_feasible = 1;
			c->record->feasible = p->scratch_feasible;
			c->record->nominated_fast_path = true;
		}
		res->suggested_host = ni->name;
		res->feasible_nodes = 1;
		res->evaluated_nodes = 1 + res->diag.n_node_status;
		return 1;
	}
	if (rc > 0) {
		char key[256];
		LOG_WARN("Evaluation failed on nominated node pod=%s node=%s err=%s", api_pod_key(pod, key, sizeof(key)),
			 ni->name, res->status.text);
		fw_status_reset(&res->status);
	}
	*n_kept = res->diag.n_node_status;
	if (keep_nominated_status(c, &res->diag) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: out of memory", p->name);
	return 0;
}

/* The candidate nodes: every node, or those PreFilter narrowed them to (the others then share
 * one absent status naming the plugins that narrowed, and those that rejected the nominated node:
 * upstream formats diagnosis.UnschedulablePlugins, the set evaluateNominatedNode has added to).
 * Returns how many. */
static uint32_t candidates(struct fw_profile *p, const struct fw_node_list *nodes, const struct fw_node_names *names,
			   struct fw_diagnosis *d, const struct node_info *const **cand)
{
	*cand = nodes->nodes;
	if (names->all)
		return nodes->n;
	const struct node_info **arr = p->scratch_nodes;
	uint32_t n = 0;
	for (uint32_t i = 0; i < names->n; i++) {
		const struct node_info *ni = list_get(nodes, names->names[i]);
		if (ni)
			arr[n++] = ni;
	}
	*cand = arr;
	char list[256];
	fw_format_plugin_list(d->unschedulable_plugins, d->n_unschedulable_plugins, list, sizeof(list));
	d->has_absent_status = true;
	fw_status_setf(&d->absent_status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't satisfy plugin(s) %s", list);
	return n;
}

/* After Filter: no node, one node, or Score to pick among several. */
static int pick_feasible(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod, uint32_t n_feasible,
			 const char *hint, struct fw_schedule_result *res, struct err *e)
{
	res->feasible_nodes = n_feasible;
	res->evaluated_nodes = n_feasible + res->diag.n_node_status;
	if (c->record) {
		c->record->n_feasible = n_feasible;
		c->record->feasible = p->scratch_feasible;
	}
	if (n_feasible == 0) {
		res->code = FW_UNSCHEDULABLE;
		fw_status_set(&res->status, FW_UNSCHEDULABLE, NULL);
		return 0;
	}
	if (n_feasible == 1) {
		res->suggested_host = p->scratch_feasible[0]->name;
		return p->batch.sign_mask ? fw_batch_store(p, hint, res->suggested_host, false, res) : 0;
	}
	int rc = fw_prioritize_and_select(p, c, pod, p->scratch_feasible, n_feasible, res, e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		res->code = FW_ERROR;
	else if (p->batch.sign_mask)
		return fw_batch_store(p, hint, res->suggested_host, true, res);
	return 0;
}

int fw_schedule_pod(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
		    const struct api_pod *pod, const struct fw_nominated *nominated,
		    struct fw_schedule_result *res, struct err *e)
{
	const char *with_nodes[FW_MAX_PLUGINS];
	uint32_t n_with_nodes = 0, n_nominated_status = 0, n_feasible = 0;
	struct fw_node_names names;
	enum prefilter_outcome pf;
	int rc;

	if ((rc = check_cycle_args(p, c, nodes, pod, res, e)) < 0)
		return rc;
	c->used = true;
	if (c->record)
		c->record->pod = pod;
	p->n_sorted = 0;
	if (p->batch.sign_mask) {
		res->batch = (struct fw_batch_outcome){ 0 };
		if (!p->batch.cycle_given)
			p->batch.cycle++; /* no scheduler count given: the profile's own */
		p->batch.cycle_given = false;
	}
	result_init(res, nodes->n);
	if (nodes->n == 0) {
		fw_status_set(&res->status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "no nodes available to schedule pods");
		res->code = FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
		return 0;
	}
	if ((rc = fw_ensure_scratch(p, nodes->n, e)) < 0)
		return rc;
	c->nodes = nodes;

	int64_t t_pre_filter = fw_now_ns();
	rc = run_pre_filter(p, c, pod, &names, with_nodes, &n_with_nodes, res, &pf, e);
	fw_cycle_record_ep(c, FW_EP_PRE_FILTER,
			   rc < 0 || pf == PF_ERROR ? FW_ERROR : pf == PF_REJECTED ? res->status.code : FW_SUCCESS,
			   t_pre_filter);
	if (rc < 0 || pf == PF_REJECTED)
		return rc;
	if (pf == PF_ERROR) {
		res->code = FW_ERROR;
		return 0;
	}
	res->asked_hint = true;
	const char *hint = NULL;
	if (p->batch.sign_mask) {
		/* upstream signs the pod when it is queued; the signature is only compared here */
		p->batch.pod_signed = fw_sign_pod(p->batch.sign_mask, &p->listers, pod, &p->batch.pod);
		if ((hint = fw_batch_get_node_hint(p, c, nodes, pod, res, e, &rc), rc < 0))
			return rc;
	}
	if ((rc = fw_prepare_nominated(c, pod, nominated, e)) < 0)
		return rc;
	if ((rc = try_nominated_node(p, c, nodes, pod, hint, res, &n_nominated_status, e)) != 0) {
		if (rc > 0 && p->batch.sign_mask)
			return fw_batch_store(p, hint, res->suggested_host, false, res);
		return rc < 0 ? rc : 0;
	}

	const struct node_info *const *cand;
	uint32_t n_cand = candidates(p, nodes, &names, &res->diag, &cand);
	rc = fw_find_nodes_that_pass_filters(p, c, pod, cand, n_cand, res, &n_feasible, e);
	if (rc < 0)
		return rc;
	merge_nominated_status(&res->diag, n_nominated_status);
	/* always advance, even on error, so every node gets its turn across pods */
	p->next_start = (uint32_t)(((uint64_t)p->next_start + n_feasible + res->diag.n_node_status) % nodes->n);
	if (rc > 0) {
		res->code = FW_ERROR;
		return 0;
	}
	if (p->n_extenders) {
		uint32_t n_filtered = n_feasible;
		rc = fw_find_nodes_that_pass_extenders(p, c, pod, p->scratch_feasible, &n_feasible, &res->diag,
						       &res->status, e);
		if (rc != 0) {
			if (rc > 0)
				res->code = FW_ERROR;
			return rc < 0 ? rc : 0;
		}
		/* upstream findNodesThatFitPod: the pod waits for any cluster event (kubernetes#122019) */
		if (n_feasible != n_filtered)
			fw_name_set_add(res->diag.unschedulable_plugins, &res->diag.n_unschedulable_plugins,
					FW_EXTENDER_NAME);
	}
	return pick_feasible(p, c, pod, n_feasible, hint, res, e);
}
