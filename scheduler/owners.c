/* The stores behind PodTopologySpread's default constraints (upstream helper.DefaultSelector
 * reads Services, ReplicationControllers, ReplicaSets and StatefulSets through informer
 * listers): four informers, created only when a profile runs PodTopologySpread with default
 * constraints (upstream sets its listers, and so starts those informers, only then).
 *
 * DESIGN: the informers' own stores answer get-by-name. Services are looked up by namespace for
 * every pod with default constraints, so the Service handlers also keep them indexed by
 * namespace (by_ns, guarded by lock; the informer thread writes it, plugin callers read it). The
 * lock is a leaf: nothing is called while it is held but the caller's callback, which must not
 * call a lister (struct fw_listers). */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"

struct svc_list {
	uint32_t n, cap;
	struct api_selector_owner **items; /* referenced */
};

struct sched_owners {
	struct api_informer *inf[4]; /* services, replicationcontrollers, replicasets, statefulsets */
	pthread_mutex_t lock;        /* guards by_ns; a leaf lock */
	struct map by_ns;            /* interned namespace -> struct svc_list * */
};

static const enum api_kind kinds[4] = { API_KIND_SERVICE, API_KIND_RC, API_KIND_REPLICASET, API_KIND_STATEFULSET };

static void svc_remove_locked(struct sched_owners *o, const struct api_selector_owner *svc)
{
	struct svc_list *l = map_get(&o->by_ns, svc->meta.namespace);
	for (uint32_t i = 0; l && i < l->n; i++) {
		if (strcmp(l->items[i]->meta.name, svc->meta.name))
			continue;
		api_selector_owner_unref(l->items[i]);
		l->items[i] = l->items[--l->n];
		return;
	}
}

static void svc_add_locked(struct sched_owners *o, struct api_selector_owner *svc)
{
	struct svc_list *l = map_get(&o->by_ns, svc->meta.namespace);
	if (!l) {
		/* the key outlives the Services that brought it: pinned (namespaces are few) */
		const char *ns = intern_str(svc->meta.namespace);
		if (!ns || !(l = calloc(1, sizeof(*l))) || map_put(&o->by_ns, ns, l, NULL) < 0) {
			free(l);
			goto nomem;
		}
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 4;
		struct api_selector_owner **items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			goto nomem;
		l->items = items;
		l->cap = cap;
	}
	l->items[l->n++] = api_selector_owner_ref(svc);
	return;
nomem:
	LOG_ERROR("services index: out of memory adding %s/%s", svc->meta.namespace, svc->meta.name);
}

static void on_svc_add(void *ctx, void *obj)
{
	struct sched_owners *o = ctx;
	pthread_mutex_lock(&o->lock);
	svc_add_locked(o, obj);
	pthread_mutex_unlock(&o->lock);
}

static void on_svc_update(void *ctx, void *old_obj, void *new_obj)
{
	struct sched_owners *o = ctx;
	pthread_mutex_lock(&o->lock);
	svc_remove_locked(o, old_obj);
	svc_add_locked(o, new_obj);
	pthread_mutex_unlock(&o->lock);
}

static void on_svc_delete(void *ctx, void *obj)
{
	struct sched_owners *o = ctx;
	pthread_mutex_lock(&o->lock);
	svc_remove_locked(o, obj);
	pthread_mutex_unlock(&o->lock);
}

bool sched_owners_needed(const struct config *cfg)
{
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		const struct cfg_profile *p = &cfg->profiles[i];
		const struct cfg_topology_spread_args *a = &p->args.topology_spread;
		bool runs = config_profile_runs(p, CFG_EP_PRE_FILTER, "PodTopologySpread", NULL) ||
			    config_profile_runs(p, CFG_EP_FILTER, "PodTopologySpread", NULL) ||
			    config_profile_runs(p, CFG_EP_PRE_SCORE, "PodTopologySpread", NULL) ||
			    config_profile_runs(p, CFG_EP_SCORE, "PodTopologySpread", NULL);
		if (runs && (a->defaulting_type == CFG_DEFAULTING_SYSTEM || a->n_default_constraints))
			return true;
	}
	return false;
}

struct sched_owners *sched_owners_new(struct api_client *c, struct err *e)
{
	struct sched_owners *o = calloc(1, sizeof(*o));
	if (!o) {
		err_set(e, ERR_NOMEM, "sched_owners_new: out of memory");
		return NULL;
	}
	pthread_mutex_init(&o->lock, NULL);
	map_init(&o->by_ns);
	struct api_informer_handlers sh = { on_svc_add, on_svc_update, on_svc_delete, NULL, o };
	struct api_informer_options io = { .shared_connection = true };
	for (int i = 0; i < 4; i++)
		if (!(o->inf[i] = api_informer_new(c, kinds[i], &io, i == 0 ? &sh : NULL, e))) {
			sched_owners_free(o);
			return NULL;
		}
	return o;
}

int sched_owners_start(struct sched_owners *o, struct err *e)
{
	for (int i = 0; o && i < 4; i++) {
		int rc = api_informer_start(o->inf[i], e);
		if (rc < 0) {
			while (i-- > 0)
				api_informer_stop(o->inf[i]);
			return rc;
		}
	}
	return 0;
}

int sched_owners_load(struct sched_owners *o, const char *json, size_t len, struct err *e)
{
	size_t loaded;
	for (int i = 0; o && i < 4; i++) {
		int rc = api_informer_load_list(o->inf[i], json, len, &loaded, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void sched_owners_stop(struct sched_owners *o)
{
	for (int i = 3; o && i >= 0; i--)
		api_informer_stop(o->inf[i]);
}

void sched_owners_free(struct sched_owners *o)
{
	if (!o)
		return;
	for (int i = 3; i >= 0; i--)
		api_informer_free(o->inf[i]);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&o->by_ns, &it, &k, &v);) {
		struct svc_list *l = v;
		for (uint32_t j = 0; j < l->n; j++)
			api_selector_owner_unref(l->items[j]);
		free(l->items);
		free(l);
	}
	map_release(&o->by_ns);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

bool sched_owners_synced(const struct sched_owners *o)
{
	for (int i = 0; o && i < 4; i++)
		if (!api_informer_synced(o->inf[i]))
			return false;
	return true;
}

bool sched_owners_wait_synced(struct sched_owners *o, long timeout_ms)
{
	int64_t deadline = api_now_ns() + (int64_t)timeout_ms * 1000000LL;
	for (int i = 0; o && i < 4; i++) {
		long left = (long)((deadline - api_now_ns()) / 1000000LL);
		if (!api_informer_wait_synced(o->inf[i], left > 0 ? left : 0))
			return false;
	}
	return true;
}

/* fw_listers.owner */
struct api_selector_owner *sched_owners_get(void *ctx, enum api_selector_kind kind, const char *ns, const char *name)
{
	const struct scheduler *s = ctx;
	int i = kind == API_SEL_RC ? 1 : kind == API_SEL_RS ? 2 : kind == API_SEL_SS ? 3 : -1;
	if (!s->owners || i < 0)
		return NULL;
	return api_informer_get(s->owners->inf[i], ns, name);
}

/* fw_listers.services_each */
int sched_owners_services_each(void *ctx, const char *ns, int (*fn)(void *arg, const struct api_selector_owner *svc),
			       void *arg)
{
	const struct scheduler *s = ctx;
	struct sched_owners *o = s->owners;
	int rc = 0;
	if (!o || !ns)
		return 0;
	pthread_mutex_lock(&o->lock);
	const struct svc_list *l = map_get(&o->by_ns, ns);
	for (uint32_t i = 0; l && i < l->n && !rc; i++)
		rc = fn(arg, l->items[i]);
	pthread_mutex_unlock(&o->lock);
	return rc;
}
