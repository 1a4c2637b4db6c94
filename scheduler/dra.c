/* The resource.k8s.io/v1 stores DynamicResources reads (upstream's DRA manager: the
 * ResourceClaim, ResourceSlice, DeviceClass and DeviceTaintRule listers of
 * pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go) and the cluster events their
 * informers send to the queue (upstream eventhandlers.go buildEvtResHandler for ResourceClaims,
 * ResourceSlices and DeviceClasses).
 *
 * The informers exist only when a profile runs a plugin that needs them: DynamicResources (its
 * upstream constructor takes the DRA manager, which informs all four kinds), one registering
 * events for their kinds, or NodeResourcesFit / BalancedAllocation scoring an extended resource
 * DRA may back (claims, slices and classes: fw_pl_scores_device_resources). DeviceTaintRules are informed only when the server serves them
 * (upstream: the DRADeviceTaintRules gate, on in v1.37, makes the scheduler inform them; a
 * server with the API off answers 404, which csched takes as "no rules" rather than an informer
 * that never syncs). Upstream's ResourceSliceTracker applies the rules to the slices and reports
 * a rule change as an update of each slice it patches; csched gives the rules to the plugin as
 * they are (fw_listers.device_taint_rule_each) and reports a rule change as a ResourceSlice
 * update of every slice the rule's selector names (its driver, pool and device), the event that
 * requeues pods waiting for devices.
 *
 * DESIGN: the informers' own stores answer get-by-name and the walks (each under the store's
 * lock, so fn must not call a lister: struct fw_listers). The handlers run on the informer
 * threads and move pods in the queue, after calling the claim sinks (DynamicResources' tracker of
 * allocated devices, fw_listers.resource_claim_sink) on each claim event; nothing here keeps
 * state of its own beyond the informers. */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macros.h"

/* The informer slots, in start order. */
enum { D_CLAIM, D_SLICE, D_CLASS, D_TAINT_RULE, D_COUNT };

static const enum api_kind d_kinds[D_COUNT] = { API_KIND_RESOURCE_CLAIM, API_KIND_RESOURCE_SLICE,
						API_KIND_DEVICE_CLASS, API_KIND_DEVICE_TAINT_RULE };

struct sched_dra {
	struct api_client *client;
	struct api_informer *inf[D_COUNT]; /* NULL: the kind is not needed (or not served) */
	struct queue *queue;               /* where events go; NULL: nowhere (tests) */
	struct dra_handler_ctx {
		struct sched_dra *d;
		int slot;
	} hctx[D_COUNT];
	const struct sched_claim_sink *sinks; /* the scheduler's; called by the claim handlers */
	uint32_t n_sinks;
};

/* ---------- which kinds ---------- */

unsigned sched_dra_kinds_of(const struct fw_plugin *p)
{
	if (!strcmp(p->name, "DynamicResources"))
		return SCHED_DRA_ALL;
	unsigned kinds = 0;
	for (uint32_t i = 0; i < p->n_events; i++) {
		uint32_t r = p->events[i].event.resource;
		kinds |= r == QUEUE_RES_RESOURCE_CLAIM	 ? SCHED_DRA_RESOURCE_CLAIM
			 : r == QUEUE_RES_RESOURCE_SLICE ? SCHED_DRA_RESOURCE_SLICE
			 : r == QUEUE_RES_DEVICE_CLASS	 ? SCHED_DRA_DEVICE_CLASS
							 : 0;
	}
	return kinds;
}

unsigned sched_dra_kinds(const struct scheduler *s)
{
	unsigned kinds = 0;
	for (uint32_t i = 0; i < s->n_profiles; i++) {
		if (!s->profiles[i].fw)
			continue;
		for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
			uint32_t n = 0;
			const struct fw_pl *const *pls = fw_profile_plugins(s->profiles[i].fw, (enum cfg_ext_point)ep, &n);
			for (uint32_t j = 0; j < n; j++) {
				kinds |= sched_dra_kinds_of(pls[j]->plugin);
				/* scoring an extended resource DRA may back counts its devices */
				if (fw_pl_scores_device_resources(pls[j]))
					kinds |= SCHED_DRA_RESOURCE_CLAIM | SCHED_DRA_RESOURCE_SLICE |
						 SCHED_DRA_DEVICE_CLASS;
			}
		}
	}
	return kinds;
}

/* ---------- handlers ---------- */

static void move(struct sched_dra *d, uint32_t resource, uint32_t actions, const void *old_obj, const void *new_obj)
{
	struct queue_event ev = { resource, actions, NULL };
	if (d->queue)
		queue_move_on_event(d->queue, &ev, old_obj, new_obj, NULL, NULL);
}

/* The slices a DeviceTaintRule's selector names (an absent field matches every value), referenced. */
struct rule_slices {
	const struct api_device_taint_rule *rule;
	struct api_resource_slice **items;
	uint32_t n, cap;
	bool oom;
};

static bool rule_selects(const struct api_device_taint_rule *r, const struct api_resource_slice *s)
{
	if ((r->driver && r->driver != s->driver) || (r->pool && r->pool != s->pool_name))
		return false;
	if (!r->device)
		return true;
	for (uint32_t i = 0; i < s->n_devices; i++)
		if (s->devices[i].name == r->device)
			return true;
	return false;
}

static void collect_slice(void *ctx, void *obj)
{
	struct rule_slices *c = ctx;
	struct api_resource_slice *s = obj;
	if (c->oom || !rule_selects(c->rule, s))
		return;
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 8;
		struct api_resource_slice **items = realloc(c->items, cap * sizeof(*items));
		if (!items) {
			c->oom = true;
			return;
		}
		c->items = items;
		c->cap = cap;
	}
	c->items[c->n++] = api_resource_slice_ref(s);
}

/* A DeviceTaintRule changed: an update of every slice it selects (old or new selector). The
 * slices are collected first and the queue moved after, outside the slice store's lock (a
 * queueing hint may walk the slices). */
static void rule_changed(struct sched_dra *d, const struct api_device_taint_rule *old_rule,
			 const struct api_device_taint_rule *new_rule)
{
	struct api_informer *slices = d->inf[D_SLICE];
	if (!slices || !d->queue)
		return;
	struct rule_slices c = { 0 };
	const struct api_device_taint_rule *rules[2] = { old_rule, new_rule };
	for (int i = 0; i < 2; i++) {
		if (!rules[i] || (i == 1 && old_rule && old_rule->driver == new_rule->driver &&
				  old_rule->pool == new_rule->pool && old_rule->device == new_rule->device))
			continue;
		c.rule = rules[i];
		api_informer_foreach(slices, collect_slice, &c);
	}
	if (c.oom)
		LOG_ERROR("DeviceTaintRule %s: out of memory collecting its slices",
			  (new_rule ? new_rule : old_rule)->meta.name);
	for (uint32_t i = 0; i < c.n; i++) {
		bool dup = false;
		for (uint32_t j = 0; j < i && !dup; j++)
			dup = c.items[j] == c.items[i];
		if (!dup)
			move(d, QUEUE_RES_RESOURCE_SLICE, QUEUE_ACT_UPDATE, c.items[i], c.items[i]);
	}
	for (uint32_t i = 0; i < c.n; i++)
		api_resource_slice_unref(c.items[i]);
	free(c.items);
}

/* The claim sinks first (DynamicResources' allocated-device tracker), so that a pod the event
 * moves sees the claim's devices already counted. */
static void claim_sinks(struct sched_dra *d, const void *old_obj, const void *new_obj)
{
	for (uint32_t i = 0; i < d->n_sinks; i++)
		d->sinks[i].fn(d->sinks[i].arg, old_obj, new_obj);
}

static const uint32_t d_resources[D_COUNT] = { QUEUE_RES_RESOURCE_CLAIM, QUEUE_RES_RESOURCE_SLICE,
					       QUEUE_RES_DEVICE_CLASS, 0 };

static void on_add(void *ctx, void *obj)
{
	struct dra_handler_ctx *h = ctx;
	if (h->slot == D_CLAIM)
		claim_sinks(h->d, NULL, obj);
	if (h->slot == D_TAINT_RULE)
		rule_changed(h->d, NULL, obj);
	else
		move(h->d, d_resources[h->slot], QUEUE_ACT_ADD, NULL, obj);
}

static void on_update(void *ctx, void *old_obj, void *new_obj)
{
	struct dra_handler_ctx *h = ctx;
	if (h->slot == D_CLAIM)
		claim_sinks(h->d, old_obj, new_obj);
	if (h->slot == D_TAINT_RULE)
		rule_changed(h->d, old_obj, new_obj);
	else
		move(h->d, d_resources[h->slot], QUEUE_ACT_UPDATE, old_obj, new_obj);
}

static void on_delete(void *ctx, void *obj)
{
	struct dra_handler_ctx *h = ctx;
	if (h->slot == D_CLAIM)
		claim_sinks(h->d, obj, NULL);
	if (h->slot == D_TAINT_RULE)
		rule_changed(h->d, obj, NULL);
	else
		move(h->d, d_resources[h->slot], QUEUE_ACT_DELETE, obj, NULL);
}

/* ---------- lifecycle ---------- */

struct sched_dra *sched_dra_new(struct api_client *c, unsigned kinds, struct queue *q, struct err *e)
{
	struct sched_dra *d = calloc(1, sizeof(*d));
	if (!d) {
		err_set(e, ERR_NOMEM, "sched_dra_new: out of memory");
		return NULL;
	}
	d->client = c;
	d->queue = q;
	for (int i = 0; i < D_COUNT; i++) {
		if (!(kinds & (1u << i)))
			continue;
		d->hctx[i] = (struct dra_handler_ctx){ d, i };
		struct api_informer_handlers h = { on_add, on_update, on_delete, NULL, &d->hctx[i] };
		struct api_informer_options o = { .shared_connection = true };
		if (!(d->inf[i] = api_informer_new(c, d_kinds[i], &o, &h, e))) {
			sched_dra_free(d);
			return NULL;
		}
	}
	return d;
}

void sched_dra_set_claim_sinks(struct sched_dra *d, const struct sched_claim_sink *sinks, uint32_t n)
{
	if (!d)
		return;
	d->sinks = sinks;
	d->n_sinks = n;
}

int sched_resource_claim_sink(void *sched,
			      void (*fn)(void *arg, const struct api_resource_claim *old,
					 const struct api_resource_claim *new_obj),
			      void *arg)
{
	struct scheduler *s = sched;
	if (s->claim_sinks_closed)
		return 1; /* the handlers read the array without a lock: it no longer changes */
	struct sched_claim_sink *v = realloc(s->claim_sinks, (s->n_claim_sinks + 1) * sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	v[s->n_claim_sinks++] = (struct sched_claim_sink){ fn, arg };
	s->claim_sinks = v;
	return 0;
}

/* Whether the server serves DeviceTaintRules: a one-item LIST. Only a 404 says no (the API is
 * off); any other failure leaves the informer to retry as every informer does. */
static bool taint_rules_served(struct sched_dra *d)
{
	struct err e = { 0 };
	struct api_conn *conn = api_conn_new(d->client, &e);
	if (!conn) {
		LOG_ERROR("DeviceTaintRules: %s", e.msg);
		return true;
	}
	int rc = api_request(conn, "GET", "/apis/resource.k8s.io/v1/devicetaintrules?limit=1", NULL, NULL, 0, NULL, &e);
	api_conn_free(conn);
	if (rc == ERR_NOT_FOUND) {
		LOG_INFO("DeviceTaintRules are not served (%s): devices are tainted only by their slices", e.msg);
		return false;
	}
	return true;
}

int sched_dra_start(struct sched_dra *d, struct err *e)
{
	if (!d)
		return 0;
	if (d->inf[D_TAINT_RULE] && !taint_rules_served(d)) {
		api_informer_free(d->inf[D_TAINT_RULE]);
		d->inf[D_TAINT_RULE] = NULL;
	}
	for (int i = 0; i < D_COUNT; i++) {
		int rc = d->inf[i] ? api_informer_start(d->inf[i], e) : 0;
		if (rc < 0) {
			while (i-- > 0)
				if (d->inf[i])
					api_informer_stop(d->inf[i]);
			return rc;
		}
	}
	return 0;
}

void sched_dra_stop(struct sched_dra *d)
{
	for (int i = D_COUNT - 1; d && i >= 0; i--)
		if (d->inf[i])
			api_informer_stop(d->inf[i]);
}

void sched_dra_free(struct sched_dra *d)
{
	if (!d)
		return;
	for (int i = D_COUNT - 1; i >= 0; i--)
		api_informer_free(d->inf[i]);
	free(d);
}

bool sched_dra_synced(const struct sched_dra *d)
{
	for (int i = 0; d && i < D_COUNT; i++)
		if (d->inf[i] && !api_informer_synced(d->inf[i]))
			return false;
	return true;
}

bool sched_dra_wait_synced(struct sched_dra *d, long timeout_ms)
{
	int64_t deadline = api_now_ns() + (int64_t)timeout_ms * 1000000LL;
	for (int i = 0; d && i < D_COUNT; i++) {
		long left = (long)((deadline - api_now_ns()) / 1000000LL);
		if (d->inf[i] && !api_informer_wait_synced(d->inf[i], left > 0 ? left : 0))
			return false;
	}
	return true;
}

/* csched simulate: each needed kind's items of a v1 List dump, through the handlers. */
int sched_dra_load(struct sched_dra *d, const char *json, size_t len, struct err *e)
{
	size_t loaded;
	for (int i = 0; d && i < D_COUNT; i++) {
		int rc = d->inf[i] ? api_informer_load_list(d->inf[i], json, len, &loaded, e) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct api_informer *sched_dra_informer(const struct sched_dra *d, enum api_kind kind)
{
	for (int i = 0; d && i < D_COUNT; i++)
		if (d_kinds[i] == kind)
			return d->inf[i];
	return NULL;
}

/* ---------- listers (struct fw_listers) ---------- */

static struct api_informer *informer(void *sched, int slot)
{
	const struct scheduler *s = sched;
	return s->dra ? s->dra->inf[slot] : NULL;
}

struct api_resource_claim *sched_resource_claim_lister(void *sched, const char *ns, const char *name)
{
	struct api_informer *inf = informer(sched, D_CLAIM);
	return inf && ns && name ? api_informer_get(inf, ns, name) : NULL;
}

struct api_device_class *sched_device_class_lister(void *sched, const char *name)
{
	struct api_informer *inf = informer(sched, D_CLASS);
	return inf && name ? api_informer_get(inf, NULL, name) : NULL;
}

/* A typed callback behind the untyped store walk; the first non-zero answer stops the calls. */
struct dra_each {
	union {
		int (*claim)(void *arg, const struct api_resource_claim *c);
		int (*slice)(void *arg, const struct api_resource_slice *s);
		int (*dclass)(void *arg, const struct api_device_class *c);
		int (*rule)(void *arg, const struct api_device_taint_rule *r);
	} fn;
	int slot;
	void *arg;
	int rc;
};

static void each_one(void *ctx, void *obj)
{
	struct dra_each *c = ctx;
	if (c->rc)
		return;
	switch (c->slot) {
	case D_CLAIM:
		c->rc = c->fn.claim(c->arg, obj);
		break;
	case D_SLICE:
		c->rc = c->fn.slice(c->arg, obj);
		break;
	case D_CLASS:
		c->rc = c->fn.dclass(c->arg, obj);
		break;
	default:
		c->rc = c->fn.rule(c->arg, obj);
	}
}

static int each(void *sched, struct dra_each *c)
{
	struct api_informer *inf = informer(sched, c->slot);
	if (!inf)
		return 0;
	api_informer_foreach(inf, each_one, c);
	return c->rc;
}

int sched_resource_claim_each(void *sched, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg)
{
	struct dra_each c = { .fn.claim = fn, .slot = D_CLAIM, .arg = arg };
	return each(sched, &c);
}

int sched_resource_slice_each(void *sched, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg)
{
	struct dra_each c = { .fn.slice = fn, .slot = D_SLICE, .arg = arg };
	return each(sched, &c);
}

int sched_device_class_each(void *sched, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	struct dra_each c = { .fn.dclass = fn, .slot = D_CLASS, .arg = arg };
	return each(sched, &c);
}

int sched_device_taint_rule_each(void *sched, int (*fn)(void *arg, const struct api_device_taint_rule *r),
				 void *arg)
{
	struct dra_each c = { .fn.rule = fn, .slot = D_TAINT_RULE, .arg = arg };
	return each(sched, &c);
}
