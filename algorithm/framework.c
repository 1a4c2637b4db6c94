/* Statuses, profiles and the cycle state (the scheduling algorithm proper is in cycle.c, the
 * extension-point runners in runners.c).
 *
 * DESIGN: a profile is immutable after fw_profile_new except the few fields the scheduling
 * algorithm mutates (next start index, RNG, scratch buffers), which only the scheduler thread
 * touches. A cycle state belongs to one thread at a time: the scheduler thread until the pod is
 * handed to a binder, then that binder thread. No locks here. */
#include "framework_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/arena.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"

/* ---------- Status ---------- */

static const char *const code_names[] = {
	[FW_SUCCESS] = "Success",
	[FW_ERROR] = "Error",
	[FW_UNSCHEDULABLE] = "Unschedulable",
	[FW_UNSCHEDULABLE_AND_UNRESOLVABLE] = "UnschedulableAndUnresolvable",
	[FW_WAIT] = "Wait",
	[FW_SKIP] = "Skip",
	[FW_PENDING] = "Pending",
};

const char *fw_code_str(enum fw_code c)
{
	if ((unsigned)c >= sizeof(code_names) / sizeof(code_names[0]))
		return "Unknown";
	return code_names[c];
}

/* Appends len bytes of reason; a reason that does not fit is cut and marked with "...". */
static void status_append(struct fw_status *st, const char *reason, size_t len)
{
	size_t room = FW_STATUS_TEXT_MAX - st->len; /* includes the NUL */
	if (room < 4)
		return; /* not even "..." fits: the status is full */
	char *dst = st->text + st->len;
	if (len + 1 <= room) {
		memcpy(dst, reason, len);
		dst[len] = '\0';
		st->len += (uint16_t)(len + 1);
	} else {
		size_t keep = room - 4;
		memcpy(dst, reason, keep);
		memcpy(dst + keep, "...", 4);
		st->len = FW_STATUS_TEXT_MAX;
	}
	st->n_reasons++;
}

void fw_status_add_reason(struct fw_status *st, const char *reason)
{
	if (reason)
		status_append(st, reason, strlen(reason));
}

void fw_status_add_reasonf(struct fw_status *st, const char *fmt, ...)
{
	char buf[FW_STATUS_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	status_append(st, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

enum fw_code fw_status_set(struct fw_status *st, enum fw_code code, const char *reason)
{
	fw_status_reset(st);
	st->code = code;
	fw_status_add_reason(st, reason);
	return code;
}

enum fw_code fw_status_setf(struct fw_status *st, enum fw_code code, const char *fmt, ...)
{
	char buf[FW_STATUS_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fw_status_reset(st);
	st->code = code;
	if (n >= 0)
		status_append(st, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	return code;
}

const char *fw_status_reason_next(const struct fw_status *st, const char *prev)
{
	if (!st->n_reasons)
		return NULL;
	if (!prev)
		return st->text;
	const char *next = prev + strlen(prev) + 1;
	if (next >= st->text + st->len)
		return NULL;
	return next;
}

const char *fw_status_message(const struct fw_status *st, char *buf, size_t size)
{
	if (!size)
		return buf;
	size_t off = 0;
	buf[0] = '\0';
	for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r)) {
		int n = snprintf(buf + off, size - off, "%s%s", off ? ", " : "", r);
		if (n < 0 || (size_t)n >= size - off)
			break; /* truncated: buf is NUL-terminated by snprintf */
		off += (size_t)n;
	}
	return buf;
}

/* ---------- Profiles ---------- */

/* The instance for plugin, created on first use. */
static struct fw_pl *profile_instance(struct fw_profile *p, const struct fw_plugin *plugin,
				      const struct cfg_plugin_args *args, struct err *e)
{
	for (uint32_t i = 0; i < p->n_pl; i++)
		if (p->pls[i].plugin == plugin)
			return &p->pls[i];
	if (p->n_pl == FW_MAX_PLUGINS) {
		err_set(e, ERR_INVALID, "profile %s: more than %d plugins", p->name, FW_MAX_PLUGINS);
		return NULL;
	}
	struct fw_pl *pl = &p->pls[p->n_pl];
	pl->plugin = plugin;
	pl->index = p->n_pl;
	pl->args = cfg_args_member(cfg_args_type_of(plugin->args_kind), args);
	pl->priv = NULL;
	pl->profile = p;
	p->weights[pl->index] = 1;
	if (plugin->init && plugin->init(pl, e) < 0) {
		if (plugin->release)
			plugin->release(pl);
		err_prefix(e, "profile %s: plugin %s", p->name, plugin->name);
		return NULL;
	}
	p->n_pl++;
	return pl;
}

static int build_hints(struct fw_profile *p);

static bool names_ready(const struct fw_names *nm)
{
	return nm->cpu && nm->memory && nm->ephemeral_storage && nm->pods && nm->any_ip && nm->tcp && nm->empty &&
	       nm->metadata_name && nm->taint_unschedulable;
}

struct api_pvc *fw_get_pvc(const struct fw_pl *pl, const char *ns, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->pvc ? l->pvc(l->ctx, ns, name) : NULL;
}

struct api_namespace *fw_get_namespace(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->ns ? l->ns(l->ctx, name) : NULL;
}

int fw_each_namespace(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_namespace *ns), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->ns_each ? l->ns_each(l->ctx, fn, arg) : 0;
}

struct api_selector_owner *fw_get_selector_owner(const struct fw_pl *pl, enum api_selector_kind kind, const char *ns,
						 const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->owner ? l->owner(l->ctx, kind, ns, name) : NULL;
}

int fw_each_service(const struct fw_pl *pl, const char *ns,
		    int (*fn)(void *arg, const struct api_selector_owner *svc), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->services_each ? l->services_each(l->ctx, ns, fn, arg) : 0;
}

struct api_pod *fw_get_pod(const struct fw_pl *pl, const char *ns, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->pod ? l->pod(l->ctx, ns, name) : NULL;
}

int fw_each_pdb(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->pdb_each ? l->pdb_each(l->ctx, fn, arg) : 0;
}

struct api_pv *fw_get_pv(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->pv ? l->pv(l->ctx, name) : NULL;
}

int fw_each_pv(const struct fw_pl *pl, const char *class_name, int (*fn)(void *arg, const struct api_pv *pv),
	       void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->pv_each ? l->pv_each(l->ctx, class_name, fn, arg) : 0;
}

struct api_storage_class *fw_get_storage_class(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->storage_class ? l->storage_class(l->ctx, name) : NULL;
}

struct api_csinode *fw_get_csinode(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->csinode ? l->csinode(l->ctx, name) : NULL;
}

struct api_csidriver *fw_get_csidriver(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->csidriver ? l->csidriver(l->ctx, name) : NULL;
}

int fw_each_volume_attachment(const struct fw_pl *pl, const char *node_name,
			      int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->volume_attachment_each ? l->volume_attachment_each(l->ctx, node_name, fn, arg) : 0;
}

int fw_each_csi_storage_capacity(const struct fw_pl *pl,
				 int (*fn)(void *arg, const struct api_csi_storage_capacity *c), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->csi_storage_capacity_each ? l->csi_storage_capacity_each(l->ctx, fn, arg) : 0;
}

struct api_resource_claim *fw_get_resource_claim(const struct fw_pl *pl, const char *ns, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->resource_claim ? l->resource_claim(l->ctx, ns, name) : NULL;
}

int fw_each_resource_claim(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_resource_claim *c),
			   void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->resource_claim_each ? l->resource_claim_each(l->ctx, fn, arg) : 0;
}

int fw_watch_resource_claims(const struct fw_pl *pl,
			     void (*fn)(void *arg, const struct api_resource_claim *old,
					const struct api_resource_claim *new_obj),
			     void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->resource_claim_sink ? l->resource_claim_sink(l->ctx, fn, arg) : 1;
}

int fw_each_resource_slice(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_resource_slice *s),
			   void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->resource_slice_each ? l->resource_slice_each(l->ctx, fn, arg) : 0;
}

struct api_device_class *fw_get_device_class(const struct fw_pl *pl, const char *name)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->device_class ? l->device_class(l->ctx, name) : NULL;
}

int fw_each_device_class(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->device_class_each ? l->device_class_each(l->ctx, fn, arg) : 0;
}

int fw_each_device_taint_rule(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_device_taint_rule *r),
			      void *arg)
{
	const struct fw_listers *l = &pl->profile->listers;
	return l->device_taint_rule_each ? l->device_taint_rule_each(l->ctx, fn, arg) : 0;
}

const struct fw_dra_ops *fw_dra_ops(const struct fw_pl *pl)
{
	return &pl->profile->dra;
}

enum fw_code fw_preempt_actuate(const struct fw_pl *pl, const struct api_pod *preemptor, const struct fw_preemption *p,
				struct fw_status *st)
{
	const struct fw_preempt_ops *o = &pl->profile->preempt;
	return o->actuate ? o->actuate(o->ctx, preemptor, p, st) : FW_SUCCESS;
}

bool fw_preempt_is_running(const struct fw_pl *pl, const char *pod_uid)
{
	const struct fw_preempt_ops *o = &pl->profile->preempt;
	return o->is_running && o->is_running(o->ctx, pod_uid);
}

int fw_volume_bind_pv(const struct fw_pl *pl, const char *pv_name, const char *pv_rv, const struct api_pvc *claim,
		      bool bound_by_controller, char *new_rv, size_t size, struct err *e)
{
	const struct fw_volume_ops *o = &pl->profile->volume;
	if (!o->bind_pv)
		return err_set(e, ERR_INVALID, "update of persistentvolume %s: no API client", pv_name);
	return o->bind_pv(o->ctx, pv_name, pv_rv, claim, bound_by_controller, new_rv, size, e);
}

int fw_volume_select_node(const struct fw_pl *pl, const struct api_pvc *claim, const char *node_name, char *new_rv,
			  size_t size, struct err *e)
{
	const struct fw_volume_ops *o = &pl->profile->volume;
	if (!o->select_node)
		return err_set(e, ERR_INVALID, "update of persistentvolumeclaim %s/%s: no API client",
			       claim->meta.namespace, claim->meta.name);
	return o->select_node(o->ctx, claim, node_name, new_rv, size, e);
}

struct api_node *fw_volume_node(const struct fw_pl *pl, const char *name)
{
	const struct fw_volume_ops *o = &pl->profile->volume;
	return o->node ? o->node(o->ctx, name) : NULL;
}

bool fw_volume_sleep(const struct fw_pl *pl, int64_t ms)
{
	const struct fw_volume_ops *o = &pl->profile->volume;
	if (o->sleep)
		return o->sleep(o->ctx, ms);
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return true;
}

static void profile_set_options(struct fw_profile *p, const struct fw_profile_options *o)
{
	if (o) {
		p->global_pct = o->percentage_of_nodes_to_score;
		p->pool = o->pool;
		p->bind = o->bind;
		p->bind_ctx = o->bind_ctx;
		p->listers = o->listers;
		p->preempt = o->preempt;
		p->volume = o->volume;
		p->dra = o->dra;
		p->extenders = o->extenders;
		p->n_extenders = o->n_extenders;
		p->ext_prioritize_all = o->ext_prioritize_all;
		p->ext_ctx = o->ext_ctx;
	}
}

/* Appends entry i of point ep. config/ has validated a loaded profile already; these checks
 * guard the framework's own invariants (a callback exists, the per-point arrays hold
 * FW_MAX_PLUGINS) for hand-built configs (tests, benchmarks). */
static int profile_add(struct fw_profile *p, int ep, uint32_t i, const struct cfg_plugin *item,
		       const struct cfg_plugin_args *args, struct err *e)
{
	const char *ep_key = cfg_ext_point_key((enum cfg_ext_point)ep);
	const char *name = item->name;
	int32_t w = item->weight;
	const struct fw_plugin *plugin = name ? fw_registry_lookup(name) : NULL;
	if (!plugin)
		return err_set(e, ERR_INVALID, "profile %s: plugins.%s.enabled[%u]: plugin \"%s\" does not exist",
			       p->name, ep_key, i, name ? name : "");
	if (!fw_plugin_implements(plugin, ep))
		return err_set(e, ERR_INVALID, "profile %s: plugins.%s.enabled[%u]: plugin \"%s\" does not extend %s",
			       p->name, ep_key, i, name, ep_key);
	if (ep == CFG_EP_SCORE && (w < 0 || w > CFG_MAX_PLUGIN_WEIGHT))
		return err_set(e, ERR_INVALID, "profile %s: plugins.score.enabled[%u]: weight of %s must be in the range 1..100, got %d",
			       p->name, i, name, w);
	for (uint32_t j = 0; j < p->n_points[ep]; j++)
		if (p->points[ep][j]->plugin == plugin)
			return err_set(e, ERR_INVALID, "profile %s: plugins.%s: plugin %s enabled twice", p->name,
				       ep_key, name);
	struct fw_pl *pl = profile_instance(p, plugin, args, e);
	if (!pl)
		return ERR_INVALID; /* e says why */
	if (ep == CFG_EP_SCORE)
		p->weights[pl->index] = w ? w : 1;
	p->points[ep][p->n_points[ep]++] = pl;
	return 0;
}

struct fw_profile *fw_profile_new(const struct fw_profile_config *pc, const struct fw_profile_options *o,
				  struct err *e)
{
	struct fw_profile *p = NULL;
	if (!pc || !pc->scheduler_name || !pc->scheduler_name[0]) {
		err_set(e, ERR_INVALID, "fw_profile_new: profile without a schedulerName");
		goto fail;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->name = intern_str(pc->scheduler_name)) || !names_ready(fw_names())) {
		err_set(e, ERR_NOMEM, "profile %s: out of memory", pc->scheduler_name);
		goto fail;
	}
	p->has_pct = pc->has_percentage_of_nodes_to_score;
	p->pct = pc->percentage_of_nodes_to_score;
	if (p->has_pct && (p->pct < 0 || p->pct > 100)) {
		err_set(e, ERR_INVALID, "profile %s: percentageOfNodesToScore: must be in the range 0..100, got %d",
			p->name, p->pct);
		goto fail;
	}
	profile_set_options(p, o);
	p->batch.sign_mask = pc->sign_mask;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		for (uint32_t i = 0; i < pc->points[ep].n; i++)
			if (profile_add(p, ep, i, &pc->points[ep].items[i], pc->args, e) < 0)
				goto fail;
	if (build_hints(p) < 0) {
		err_set(e, ERR_NOMEM, "profile %s: out of memory", p->name);
		goto fail;
	}
	if (p->n_points[CFG_EP_QUEUE_SORT] != 1) {
		err_set(e, ERR_INVALID, "profile %s: one queue sort plugin required for profile, got %u",
			p->name, p->n_points[CFG_EP_QUEUE_SORT]);
		goto fail;
	}
	if (!p->n_points[CFG_EP_BIND]) {
		err_set(e, ERR_INVALID, "profile %s: at least one bind plugin is needed for profile", p->name);
		goto fail;
	}
	return p;
fail:
	fw_profile_free(p);
	return NULL;
}

void fw_profile_free(struct fw_profile *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n_pl; i++)
		if (p->pls[i].plugin->release)
			p->pls[i].plugin->release(&p->pls[i]);
	free(p->hints);
	free(p->scratch_status);
	free(p->scratch_state);
	free(p->scratch_feasible);
	free(p->scratch_scores);
	free(p->scratch_totals);
	free(p->scratch_node_scores);
	free(p->scratch_nodes);
	free(p->scratch_call_ticks);
	free(p->scratch_call_code);
	free(p->sorted);
	fw_batch_release(&p->batch);
	free(p);
}

const char *fw_profile_name(const struct fw_profile *p)
{
	return p->name;
}

const struct fw_pl *const *fw_profile_plugins(const struct fw_profile *p, enum cfg_ext_point ep, uint32_t *n)
{
	if ((unsigned)ep >= CFG_EP_COUNT) {
		*n = 0;
		return NULL;
	}
	*n = p->n_points[ep];
	return p->points[ep];
}

void fw_profile_object_deleted(const struct fw_profile *p, enum queue_resource res, const void *obj)
{
	/* pls holds each enabled instance once, whatever the points it runs at */
	for (uint32_t i = 0; i < p->n_pl; i++)
		if (p->pls[i].plugin->object_deleted)
			p->pls[i].plugin->object_deleted(&p->pls[i], res, obj);
}

int32_t fw_profile_weight(const struct fw_profile *p, const struct fw_pl *pl)
{
	return p->weights[pl->index];
}

void fw_profile_rewind(struct fw_profile *p)
{
	p->next_start = 0;
}

bool fw_profile_has_post_filter(const struct fw_profile *p)
{
	return p->n_points[CFG_EP_POST_FILTER] > 0;
}

fw_less_fn fw_profile_less(const struct fw_profile *p)
{
	return p->points[CFG_EP_QUEUE_SORT][0]->plugin->less;
}

int fw_profile_call_bind(const struct fw_profile *p, const struct api_pod *pod, const char *node_name,
			 struct err *e)
{
	if (!p->bind)
		return err_set(e, ERR_UNSUPPORTED, "profile %s: no bind callback configured", p->name);
	return p->bind(p->bind_ctx, pod, node_name, e);
}

static bool plugin_can_reject(const struct fw_plugin *pl)
{
	return pl->pre_enqueue || pl->pre_filter || pl->filter || pl->reserve || pl->permit;
}

/* Upstream registers every event for a plugin without EnqueueExtensions; only plugins that can
 * reject a pod ever appear in a rejector set, so the others need no registration. */
static uint32_t plugin_hint_count(const struct fw_plugin *plugin)
{
	return plugin->n_events ? plugin->n_events : plugin_can_reject(plugin);
}

/* The queue's registrations of every enabled plugin, as declared (upstream buildQueueingHintMap). */
static int build_hints(struct fw_profile *p)
{
	static const struct queue_event_hint every_event = { { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, NULL }, NULL };
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->n_pl; i++)
		n += plugin_hint_count(p->pls[i].plugin);
	n += p->n_extenders > 0;
	if (n && !(p->hints = calloc(n, sizeof(*p->hints))))
		return ERR_NOMEM;
	/* upstream NewFramework: with extenders, the fake plugin "Extender" (the rejector when an
	 * extender filtered nodes out) registers every event, without a hint */
	if (p->n_extenders)
		p->hints[p->n_hints++] = (struct queue_hint_reg){ .plugin = FW_EXTENDER_NAME, .event = every_event.event };
	for (uint32_t i = 0; i < p->n_pl; i++) {
		const struct fw_pl *pl = &p->pls[i];
		const struct queue_event_hint *regs = pl->plugin->n_events ? pl->plugin->events : &every_event;
		for (uint32_t j = 0; j < plugin_hint_count(pl->plugin); j++)
			p->hints[p->n_hints++] = (struct queue_hint_reg){
				.plugin = pl->plugin->name, .event = regs[j].event, .hint = regs[j].hint, .ctx = pl,
			};
	}
	return 0;
}

static bool pre_enqueue_adapter(void *ctx, const struct api_pod *pod, const char **gating_plugin)
{
	struct fw_status st;
	if (fw_run_pre_enqueue(ctx, pod, &st) == FW_SUCCESS)
		return true;
	*gating_plugin = st.plugin;
	return false;
}

void fw_profile_queue_profile(const struct fw_profile *p, struct queue_profile *out)
{
	out->scheduler_name = p->name;
	out->hints = p->hints;
	out->n_hints = p->n_hints;
	out->pre_enqueue = p->n_points[CFG_EP_PRE_ENQUEUE] ? pre_enqueue_adapter : NULL;
	out->pre_enqueue_ctx = (void *)p;
}

/* ---------- Cycle state ---------- */

struct fw_cleanup {
	struct fw_cleanup *next;
	void (*fn)(void *);
	void *arg;
};

/* First block of a cycle arena. A cycle stays alive with its pod until the bind returns, so
 * hundreds can exist at once (SchedulingBasic_500Nodes peaks at ~200 pods created but not yet
 * bound): 64 KiB each made the cycles the largest item of the heap, and 8 KiB still ~1.8 MB. The per-node arrays of the
 * scheduling algorithm live in the profile's scratch, so a cycle of the default plugins uses
 * ~830 bytes at 500 or 5000 nodes (bench_cycle); plugins with per-node state (topology spreading
 * at 5000 nodes: ~9 KB) and failures grow more blocks, freed when the cycle is reset. */
#define CYCLE_ARENA_BLOCK 1024

struct fw_cycle *fw_cycle_new(const struct fw_profile *p)
{
	struct fw_cycle *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->profile = p;
	c->arena = arena_new(CYCLE_ARENA_BLOCK);
	if (!c->arena) {
		free(c);
		return NULL;
	}
	return c;
}

static void run_cleanups(struct fw_cycle *c)
{
	for (struct fw_cleanup *cl = c->cleanups; cl; cl = cl->next)
		cl->fn(cl->arg);
	c->cleanups = NULL;
}

void fw_cycle_reset(struct fw_cycle *c)
{
	run_cleanups(c);
	arena_reset(c->arena); /* keeps the first block; growth restarts from it */
	memset(c->slots, 0, sizeof(c->slots));
	memset(c->skip_filter, 0, sizeof(c->skip_filter));
	memset(c->skip_score, 0, sizeof(c->skip_score));
	c->nodes = NULL;
	c->nominated = NULL;
	c->used = false;
	c->preempting = false;
	c->record = NULL;
	c->record_plugins = false;
	c->n_ep_times = 0;
	c->plugin_times = NULL; /* lived in the arena */
}

void fw_cycle_free(struct fw_cycle *c)
{
	if (!c)
		return;
	run_cleanups(c);
	arena_free(c->arena);
	free(c);
}

void *fw_cycle_alloc(struct fw_cycle *c, size_t n)
{
	return arena_alloc(c->arena, n ? n : 1);
}

void fw_cycle_set_state(struct fw_cycle *c, const struct fw_pl *pl, void *data)
{
	c->slots[pl->index] = data;
}

void *fw_cycle_state(const struct fw_cycle *c, const struct fw_pl *pl)
{
	return c->slots[pl->index];
}

int fw_cycle_on_release(struct fw_cycle *c, void (*fn)(void *), void *arg)
{
	struct fw_cleanup *cl = arena_alloc(c->arena, sizeof(*cl));
	if (!cl)
		return ERR_NOMEM;
	cl->fn = fn;
	cl->arg = arg;
	cl->next = c->cleanups;
	c->cleanups = cl;
	return 0;
}

const struct fw_node_list *fw_cycle_nodes(const struct fw_cycle *c)
{
	return c->nodes;
}

void fw_cycle_set_preempting(struct fw_cycle *c, bool on)
{
	c->preempting = on;
}

const struct api_pod *fw_removed_pod_next(const struct fw_cycle *c, const struct node_info *ni, uint32_t *it)
{
	const struct fw_node_list *l = c->preempting ? c->nodes : NULL;
	if (!l)
		return NULL;
	const struct node_info *base = NULL;
	if (l->get)
		base = l->get(l->get_ctx, ni->name);
	for (uint32_t i = 0; !l->get && i < l->n && !base; i++)
		if (l->nodes[i]->name == ni->name)
			base = l->nodes[i];
	if (!base || base == ni)
		return NULL;
	while (*it < base->n_pods) {
		const struct api_pod *p = base->pods[(*it)++].pod;
		if (node_info_pod_index(ni, p->meta.uid) < 0)
			return p;
	}
	return NULL;
}

const struct api_pod *const *fw_cycle_nominated_pods(const struct fw_cycle *c, const char *node_name, uint32_t *n)
{
	const struct fw_nom_bucket *b = c->nominated ? map_get(c->nominated, node_name) : NULL;
	*n = b ? b->n : 0;
	return b && b->n ? b->pods : NULL;
}

/* ---------- Timings ---------- */

struct fw_plugin_timing_node {
	struct fw_plugin_timing t;
	struct fw_plugin_timing_node *next;
};

const char *fw_ep_str(enum fw_ep ep)
{
	static const char *const names[FW_EP_COUNT] = {
		[FW_EP_PRE_FILTER] = "PreFilter",
		[FW_EP_FILTER] = "Filter",
		[FW_EP_POST_FILTER] = "PostFilter",
		[FW_EP_PRE_SCORE] = "PreScore",
		[FW_EP_SCORE] = "Score",
		[FW_EP_SCORE_NORMALIZE] = "ScoreExtensionNormalize",
		[FW_EP_RESERVE] = "Reserve",
		[FW_EP_UNRESERVE] = "Unreserve",
		[FW_EP_PERMIT] = "Permit",
		[FW_EP_PRE_BIND] = "PreBind",
		[FW_EP_BIND] = "Bind",
		[FW_EP_POST_BIND] = "PostBind",
	};
	return (unsigned)ep < FW_EP_COUNT ? names[ep] : "Unknown";
}

static double timing_bounds[FW_PLUGIN_TIMING_BUCKETS];
/* The largest duration in ns that the metrics place in bucket i ((double)ns / 1e9 <= bound i), so
 * that binning a call is integer compares. */
static int64_t timing_bounds_ns[FW_PLUGIN_TIMING_BUCKETS];
static pthread_once_t timing_bounds_once = PTHREAD_ONCE_INIT;

static void timing_bounds_init(void)
{
	double b = 0.00001;
	for (int i = 0; i < FW_PLUGIN_TIMING_BUCKETS; i++, b *= 1.5) {
		timing_bounds[i] = b;
		int64_t ns = (int64_t)(b * 1e9);
		while ((double)(ns + 1) / 1e9 <= b)
			ns++;
		while (ns > 0 && (double)ns / 1e9 > b)
			ns--;
		timing_bounds_ns[i] = ns;
	}
}

const double *fw_plugin_timing_bounds(void)
{
	pthread_once(&timing_bounds_once, timing_bounds_init);
	return timing_bounds;
}

void fw_cycle_set_record(struct fw_cycle *c, struct fw_record *r)
{
	if (r) {
		memset(r, 0, sizeof(*r));
		r->cycle = c;
	}
	c->record = r;
}

int fw_explain_rejection(const struct fw_record *rec, const struct node_info *ni, const char *plugin,
			 struct strbuf *out, struct err *e)
{
	if (!rec || !rec->cycle || !rec->pod || !ni || !plugin)
		return 0;
	const struct fw_profile *p = rec->cycle->profile;
	/* only a plugin that ran Filter in this cycle rejected the pod there */
	for (uint32_t i = 0; i < p->n_points[CFG_EP_FILTER]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_FILTER][i];
		if (strcmp(pl->plugin->name, plugin) != 0)
			continue;
		if (!pl->plugin->explain || rec->cycle->skip_filter[pl->index])
			return 0;
		return pl->plugin->explain(pl, rec->cycle, rec->pod, ni, out, e);
	}
	return 0;
}

void fw_cycle_set_record_plugin_timings(struct fw_cycle *c, bool on)
{
	c->record_plugins = on;
}

void fw_cycle_record_ep(struct fw_cycle *c, enum fw_ep ep, enum fw_code code, int64_t start_ns)
{
	if (c->n_ep_times < FW_EP_TIMINGS_MAX)
		c->ep_times[c->n_ep_times++] = (struct fw_ep_timing){ ep, code, fw_now_ns() - start_ns };
}

/* The record of (plugin, ep, code), created on first use; NULL on out of memory (the call is
 * then not counted: a metric must not fail a cycle). */
static struct fw_plugin_timing *plugin_timing(struct fw_cycle *c, const char *plugin, enum fw_ep ep,
					      enum fw_code code)
{
	struct fw_plugin_timing_node *n;
	for (n = c->plugin_times; n; n = n->next)
		if (n->t.plugin == plugin && n->t.ep == ep && n->t.code == code)
			return &n->t;
	if (!(n = arena_alloc(c->arena, sizeof(*n))))
		return NULL;
	n->t.plugin = plugin;
	n->t.ep = ep;
	n->t.code = code;
	n->next = c->plugin_times;
	c->plugin_times = n;
	return &n->t;
}

/* The bucket of a call as the metrics histogram would pick it ("le": the first bound >= it). */
static int timing_bucket(int64_t ns)
{
	int lo = 0, hi = FW_PLUGIN_TIMING_BUCKETS;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (ns <= timing_bounds_ns[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void plugin_timing_add(struct fw_plugin_timing *t, int64_t ns)
{
	pthread_once(&timing_bounds_once, timing_bounds_init);
	t->buckets[timing_bucket(ns)]++;
	t->count++;
	t->sum_s += (double)ns / 1e9;
}

void fw_cycle_record_plugin(struct fw_cycle *c, const struct fw_pl *pl, enum fw_ep ep, enum fw_code code, int64_t t0)
{
	if (!c->record_plugins)
		return;
	int64_t ns = fw_now_ns() - t0;
	struct fw_plugin_timing *t = plugin_timing(c, pl->plugin->name, ep, code);
	if (t)
		plugin_timing_add(t, ns);
}

static double ns_per_tick = 1.0;
/* The largest tick count the metrics place in bucket i, for ns_per_tick. */
static uint32_t timing_bounds_ticks[FW_PLUGIN_TIMING_BUCKETS];
static pthread_once_t ticks_once = PTHREAD_ONCE_INIT;

static int64_t ticks_to_ns(uint64_t ticks)
{
	return (int64_t)((double)ticks * ns_per_tick + 0.5);
}

static void ticks_init(void)
{
	pthread_once(&timing_bounds_once, timing_bounds_init);
	int64_t n0 = fw_now_ns(), k0 = fw_ticks(), n1, k1;
	do {
		n1 = fw_now_ns();
		k1 = fw_ticks();
	} while (n1 - n0 < 2000000);
	if (k1 > k0)
		ns_per_tick = (double)(n1 - n0) / (double)(k1 - k0);
	for (int i = 0; i < FW_PLUGIN_TIMING_BUCKETS; i++) {
		double t = (double)timing_bounds_ns[i] / ns_per_tick;
		uint64_t tb = t >= UINT32_MAX ? UINT32_MAX : (uint64_t)t;
		while (tb < UINT32_MAX && ticks_to_ns(tb + 1) <= timing_bounds_ns[i])
			tb++;
		while (tb > 0 && ticks_to_ns(tb) > timing_bounds_ns[i])
			tb--;
		timing_bounds_ticks[i] = (uint32_t)tb;
	}
}

double fw_ns_per_tick(void)
{
	pthread_once(&ticks_once, ticks_init);
	return ns_per_tick;
}

void fw_cycle_record_calls(struct fw_cycle *c, enum fw_ep ep, const struct fw_pl *const *pls, uint32_t n_pl,
			   const uint32_t *ticks, const uint8_t *code, size_t n_slots, size_t n_used)
{
	pthread_once(&ticks_once, ticks_init);
	for (uint32_t k = 0; k < n_pl; k++) {
		/* the record of each code this plugin returned, looked up once; sums added at the end */
		struct fw_plugin_timing *by_code[FW_PENDING + 1] = { 0 };
		uint64_t sum_ticks[FW_PENDING + 1] = { 0 };
		const uint32_t *kticks = ticks + (size_t)k * n_slots;
		const uint8_t *kcode = code + (size_t)k * n_slots;
		for (size_t s = 0; s < n_used; s++) {
			uint8_t cd = kcode[s];
			if (cd > FW_PENDING) /* FW_CALL_NOT_RUN */
				continue;
			if (!by_code[cd] && !(by_code[cd] = plugin_timing(c, pls[k]->plugin->name, ep, cd)))
				continue;
			/* from the first bucket up: a Filter or Score call rarely leaves the first (10 us) */
			uint32_t t = kticks[s];
			int b = 0;
			while (b < FW_PLUGIN_TIMING_BUCKETS && t > timing_bounds_ticks[b])
				b++;
			by_code[cd]->buckets[b]++;
			by_code[cd]->count++;
			sum_ticks[cd] += t;
		}
		for (int cd = 0; cd <= FW_PENDING; cd++)
			if (by_code[cd])
				by_code[cd]->sum_s += (double)sum_ticks[cd] * ns_per_tick / 1e9;
	}
}

void fw_cycle_drain_timings(struct fw_cycle *c, const struct fw_timing_sink *sink)
{
	if (sink && sink->ep)
		for (uint32_t i = 0; i < c->n_ep_times; i++)
			sink->ep(sink->ctx, &c->ep_times[i]);
	if (sink && sink->plugin)
		for (const struct fw_plugin_timing_node *n = c->plugin_times; n; n = n->next)
			sink->plugin(sink->ctx, &n->t);
	c->n_ep_times = 0;
	c->plugin_times = NULL; /* the nodes stay in the arena until the reset */
}
