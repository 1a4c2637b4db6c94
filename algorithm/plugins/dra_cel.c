/* DRA's CEL selectors (upstream k8s.io/dynamic-resource-allocation v0.37.2 cel/: Cache,
 * CompileCELExpression, DeviceMatches, EnhanceRuntimeError) on csched's cel/ module.
 *
 * DESIGN: the cache is shared by every scheduling cycle and Filter thread. lock guards the
 * map and the environment (compiling declares nothing but is not documented as thread-safe);
 * it is a leaf lock, held while compiling (upstream also serialises compiles of one
 * expression). A cached entry is never evicted while the cache lives, so the program pointers
 * handed out stay valid; past max_entries new expressions are compiled for the caller, who
 * releases them. Programs are evaluated without the lock, each thread with its own evaluation
 * state and activation.
 *
 * A selector's result on a device depends on the device and the selector only (upstream
 * DeviceMatches binds the device per call; evaluation is deterministic), and slices are
 * immutable: the cache keeps one dra_slice_views per decoded ResourceSlice object (keyed by its
 * pointer, holding a reference so that the pointer is not reused), shared by every pod's
 * allocator and every Filter thread. It remembers, per device, the result of each cached
 * selector (an entry's id is its bit: cached entries are never evicted) in one atomic word per
 * 32 entries, so the device's CEL view (~2 KB of maps and values for a device with a dozen
 * attributes) is built once per selector and freed at once instead of kept for every device of
 * the cluster. Errors are not remembered (rare, and their text would have to be kept).
 * Selectors the cache does not keep (past max_entries) have no bit: for them the view is built
 * on first use and kept, as all views were before, so that they do not bind the device per
 * evaluation; each views' bind_lock guards building those, published with release/acquire
 * atomics and never changed after. views_lock guards the map. Views of slices nobody else holds
 * (the informer replaced or deleted them) are dropped by a sweep when the map has grown to
 * twice its live size. views_lock also guards the last allocator inventory built
 * (dra_allocator.c), which the next pod's allocator reuses while the slice objects are the
 * same. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra_internal.h"
#include "cel/cel.h"
#include "common/err.h"
#include "common/map.h"
#include "common/pmap.h"

struct dra_cel_entry {
	char *expr;                /* owned: the map's key */
	struct cel_program *prog;  /* NULL: compile_err */
	char *compile_err;         /* owned */
	bool cached;
	uint32_t id; /* cached: its number (< max_entries), its bit in the views' remembered results */
};

struct dra_cel_cache {
	pthread_mutex_t lock; /* guards env and entries; leaf */
	struct cel_env *env;
	int slot; /* the "device" variable */
	uint32_t max_entries;
	struct map entries; /* expr -> struct dra_cel_entry */
	pthread_mutex_t views_lock; /* guards views; leaf (never held with a views' bind_lock) */
	struct pmap views;          /* decoded slice -> struct dra_slice_views (a reference) */
	uint32_t views_live;        /* entries kept by the last sweep */
	struct dra_inventory *inventory; /* the last one built (a reference); views_lock */
};

struct dra_cel_cache *dra_cel_cache_new(uint32_t max_entries)
{
	struct dra_cel_cache *cc = calloc(1, sizeof(*cc));
	struct err e = { 0 };
	if (!cc)
		return NULL;
	pthread_mutex_init(&cc->lock, NULL);
	pthread_mutex_init(&cc->views_lock, NULL);
	map_init(&cc->entries);
	pmap_init(&cc->views);
	cc->max_entries = max_entries;
	/* upstream: the DRA environment on Kubernetes' base environment (OptOptimize, strings
	 * version 2) with the selector cost limit CELSelectorExpressionMaxCost */
	struct cel_env_options o = { .cost_limit = 1000000, .optimize = true,
				     .strings_version = CEL_STRINGS_VERSION_KUBERNETES };
	cc->env = cel_env_new(&o);
	if (!cc->env || cel_env_add_kubernetes(cc->env, &e) < 0)
		goto fail;
	cc->slot = cel_env_declare(cc->env, "device", &e);
	if (cc->slot < 0)
		goto fail;
	return cc;
fail:
	dra_cel_cache_free(cc);
	return NULL;
}

static void entry_free(struct dra_cel_entry *ent)
{
	if (!ent)
		return;
	cel_program_free(ent->prog);
	free(ent->compile_err);
	free(ent->expr);
	free(ent);
}

void dra_cel_cache_free(struct dra_cel_cache *cc)
{
	if (!cc)
		return;
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&cc->entries, &it, &k, &v);)
		entry_free(v);
	map_release(&cc->entries);
	const void *sk;
	for (size_t it = 0; pmap_next(&cc->views, &it, &sk, &v);)
		dra_slice_views_unref(v);
	pmap_release(&cc->views);
	dra_inventory_unref(cc->inventory);
	pthread_mutex_destroy(&cc->views_lock);
	cel_env_free(cc->env);
	pthread_mutex_destroy(&cc->lock);
	free(cc);
}

/* upstream CompileCELExpression's "compilation failed: " + cel.Issues.String(): "ERROR:
 * <input>:line:col: message" and the source line with a caret under the column. */
static char *compile_error_text(const char *expr, const char *msg)
{
	unsigned line = 0, col = 0;
	const char *body = msg;
	char buf[1024];
	if (sscanf(msg, "%u:%u:", &line, &col) == 2) {
		body = strchr(msg, ':');
		body = body ? strchr(body + 1, ':') : NULL;
		body = body ? body + 1 + (body[1] == ' ') : msg;
	}
	if (!line) {
		snprintf(buf, sizeof(buf), "compilation failed: ERROR: <input>: %s", msg);
		return strdup(buf);
	}
	const char *l = expr;
	for (unsigned i = 1; i < line && l; i++) {
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	int ll = l ? (int)strcspn(l, "\n") : 0;
	char pad[256];
	unsigned np = col > 1 ? col - 1 : 0;
	if (np >= sizeof(pad))
		np = sizeof(pad) - 1;
	memset(pad, '.', np);
	pad[np] = 0;
	snprintf(buf, sizeof(buf), "compilation failed: ERROR: <input>:%u:%u: %s\n | %.*s\n | %s^", line, col, body, ll,
		 l ? l : "", pad);
	return strdup(buf);
}

static struct dra_cel_entry *compile_locked(struct dra_cel_cache *cc, const char *expr)
{
	struct dra_cel_entry *ent = calloc(1, sizeof(*ent));
	struct err ce = { 0 };
	if (!ent || !(ent->expr = strdup(expr)))
		goto fail;
	ent->prog = cel_program_compile(cc->env, expr, &ce);
	if (!ent->prog) {
		if (ce.code == ERR_NOMEM || !(ent->compile_err = compile_error_text(expr, ce.msg)))
			goto fail;
	}
	return ent;
fail:
	entry_free(ent);
	return NULL;
}

struct dra_cel_entry *dra_cel_get(struct dra_cel_cache *cc, const char *expr, const char **compile_err,
				  struct err *e)
{
	struct dra_cel_entry *ent;
	pthread_mutex_lock(&cc->lock);
	ent = map_get(&cc->entries, expr);
	if (!ent) {
		ent = compile_locked(cc, expr);
		/* upstream caches successful compilations only; a failed one is compiled again */
		if (ent && ent->prog && map_len(&cc->entries) < cc->max_entries) {
			ent->id = (uint32_t)map_len(&cc->entries);
			if (map_put(&cc->entries, ent->expr, ent, NULL) == 0)
				ent->cached = true;
		}
	}
	pthread_mutex_unlock(&cc->lock);
	if (!ent) {
		err_set(e, ERR_NOMEM, "compile CEL selector: out of memory");
		return NULL;
	}
	*compile_err = ent->compile_err;
	return ent;
}

bool dra_cel_entry_cached(const struct dra_cel_entry *ent)
{
	return ent->cached;
}

void dra_cel_entry_release(struct dra_cel_cache *cc, struct dra_cel_entry *ent)
{
	(void)cc;
	if (ent && !ent->cached)
		entry_free(ent);
}

/* ---------- Bound devices ---------- */

struct dra_bound_device {
	struct cel_map *dev, *attrs, *caps, *empty;
	uint32_t n_maps, n_objs;
	struct cel_map **maps; /* domain maps */
	cel_value *objs;       /* semver and quantity values */
	cel_value value;
};

void dra_bound_device_free(struct dra_bound_device *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->n_maps; i++)
		cel_map_free(b->maps[i]);
	for (uint32_t i = 0; i < b->n_objs; i++)
		cel_object_free(b->objs[i]);
	free(b->maps);
	free(b->objs);
	cel_map_free(b->dev);
	cel_map_free(b->attrs);
	cel_map_free(b->caps);
	cel_map_free(b->empty);
	free(b);
}

/* upstream parseQualifiedName: "domain/id", or the driver's domain for a bare id */
static void split_name(const char *qn, const char *driver, const char **dom, size_t *dl, const char **id)
{
	const char *slash = strchr(qn, '/');
	if (slash) {
		*dom = qn;
		*dl = (size_t)(slash - qn);
		*id = slash + 1;
	} else {
		*dom = driver;
		*dl = strlen(driver);
		*id = qn;
	}
}

/* The domain's inner map in outer (the maps array has room: one per attribute and capacity). */
static struct cel_map *domain_map(struct dra_bound_device *b, struct cel_map *outer, const char *dom, size_t len)
{
	cel_value v;
	if (cel_map_find(outer, cel_string(dom, len), &v))
		return (struct cel_map *)v.map;
	struct cel_map *m = cel_map_new(4);
	if (!m)
		return NULL;
	b->maps[b->n_maps++] = m;
	if (cel_map_put(outer, cel_string(dom, len), cel_map_value(m)) < 0)
		return NULL;
	return m;
}

struct dra_bound_device *dra_bound_device_new(const char *driver, const struct api_dra_device *d, struct err *e)
{
	struct dra_bound_device *b = calloc(1, sizeof(*b));
	uint32_t n = d->n_attributes + d->n_capacity;
	if (!b)
		goto nomem;
	b->maps = calloc(n ? n : 1, sizeof(*b->maps));
	b->objs = calloc(n ? n : 1, sizeof(*b->objs));
	b->dev = cel_map_new(4);
	b->attrs = cel_map_new(4);
	b->caps = cel_map_new(4);
	b->empty = cel_map_new(1);
	if (!b->maps || !b->objs || !b->dev || !b->attrs || !b->caps || !b->empty)
		goto nomem;
	cel_map_set_default(b->attrs, cel_map_value(b->empty));
	cel_map_set_default(b->caps, cel_map_value(b->empty));
	for (uint32_t i = 0; i < d->n_attributes; i++) {
		const struct api_dra_attribute *a = &d->attributes[i];
		const char *dom, *id;
		size_t dl;
		cel_value v = cel_null();
		struct err pe = { 0 };
		switch (a->type) {
		case API_DRA_ATTR_BOOL: v = cel_bool(a->b); break;
		case API_DRA_ATTR_INT: v = cel_int(a->i); break;
		case API_DRA_ATTR_STRING: v = a->s ? cel_string(a->s, strlen(a->s)) : cel_string("", 0); break;
		case API_DRA_ATTR_VERSION:
			if (cel_semver_new(a->s ? a->s : "", a->s ? strlen(a->s) : 0, false, &v, &pe) < 0) {
				if (pe.code == ERR_NOMEM)
					goto nomem;
				err_set(e, ERR_INVALID, "attribute %s: parse semantic version: %s", a->name, pe.msg);
				goto fail;
			}
			b->objs[b->n_objs++] = v;
			break;
		}
		split_name(a->name, driver, &dom, &dl, &id);
		struct cel_map *m = domain_map(b, b->attrs, dom, dl);
		if (!m || cel_map_put(m, cel_string(id, strlen(id)), v) < 0)
			goto nomem;
	}
	for (uint32_t i = 0; i < d->n_capacity; i++) {
		const struct api_dra_capacity *c = &d->capacity[i];
		const char *dom, *id;
		size_t dl;
		cel_value v;
		struct err pe = { 0 };
		if (cel_quantity_new(c->value.s, strlen(c->value.s), &v, &pe) < 0) {
			if (pe.code == ERR_NOMEM)
				goto nomem;
			err_set(e, ERR_INVALID, "capacity %s: %s", c->name, pe.msg);
			goto fail;
		}
		b->objs[b->n_objs++] = v;
		split_name(c->name, driver, &dom, &dl, &id);
		struct cel_map *m = domain_map(b, b->caps, dom, dl);
		if (!m || cel_map_put(m, cel_string(id, strlen(id)), v) < 0)
			goto nomem;
	}
	if (cel_map_put(b->dev, cel_string("driver", 6), cel_string(driver, strlen(driver))) < 0 ||
	    cel_map_put(b->dev, cel_string("allowMultipleAllocations", 24), cel_bool(d->allow_multiple_allocations)) < 0 ||
	    cel_map_put(b->dev, cel_string("attributes", 10), cel_map_value(b->attrs)) < 0 ||
	    cel_map_put(b->dev, cel_string("capacity", 8), cel_map_value(b->caps)) < 0)
		goto nomem;
	b->value = cel_map_value(b->dev);
	return b;
nomem:
	err_set(e, ERR_NOMEM, "bind device %s: out of memory", d->name);
fail:
	dra_bound_device_free(b);
	return NULL;
}

/* ---------- Device views per ResourceSlice ---------- */

/* A device's kept view, or why it could not be bound (err; dev NULL). */
struct dra_device_view {
	struct dra_bound_device *dev;
	char *err;
};

struct dra_slice_views {
	int refs; /* atomic */
	struct api_resource_slice *slice; /* a reference: the decoded slice the views were built from */
	uint32_t memo_words;              /* per device: one per 32 entries the cache can keep */
	/* [device * memo_words + id / 32]: bit id % 32 set when cached entry id's result on the
	 * device is known, bit 32 + id % 32 when it matched; set together by one atomic or */
	_Atomic uint64_t *memo;
	pthread_mutex_t bind_lock;        /* guards building dev[] entries; leaf */
	_Atomic(struct dra_device_view *) *dev; /* per device of slice, built on first use by an
						   entry the cache does not keep */
};

static struct dra_slice_views *views_new(struct api_resource_slice *s, uint32_t max_entries)
{
	struct dra_slice_views *v = calloc(1, sizeof(*v));
	size_t nd = s->n_devices ? s->n_devices : 1;
	if (!v)
		return NULL;
	v->memo_words = (max_entries + 31) / 32;
	v->dev = calloc(nd, sizeof(*v->dev));
	v->memo = calloc(nd * (v->memo_words ? v->memo_words : 1), sizeof(*v->memo));
	if (!v->dev || !v->memo) {
		free(v->dev);
		free(v->memo);
		free(v);
		return NULL;
	}
	v->refs = 1;
	v->slice = api_resource_slice_ref(s);
	pthread_mutex_init(&v->bind_lock, NULL);
	return v;
}

void dra_slice_views_unref(struct dra_slice_views *v)
{
	if (!v || __atomic_sub_fetch(&v->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (uint32_t i = 0; i < v->slice->n_devices; i++) {
		struct dra_device_view *dv = atomic_load_explicit(&v->dev[i], memory_order_relaxed);
		if (dv) {
			dra_bound_device_free(dv->dev);
			free(dv->err);
			free(dv);
		}
	}
	free(v->dev);
	free(v->memo);
	pthread_mutex_destroy(&v->bind_lock);
	api_resource_slice_unref(v->slice);
	free(v);
}

/* Drops the views of slices nobody but the cache holds any more (the informer deleted or
 * replaced them: no one can look them up again). Called with views_lock held. */
static int views_sweep_locked(struct dra_cel_cache *cc)
{
	struct pmap keep;
	const void *k;
	void *val;
	pmap_init(&keep);
	for (size_t it = 0; pmap_next(&cc->views, &it, &k, &val);) {
		struct dra_slice_views *v = val;
		if (v && __atomic_load_n(&v->slice->refs, __ATOMIC_ACQUIRE) > 1 && pmap_put(&keep, k, v) < 0) {
			pmap_release(&keep);
			return ERR_NOMEM;
		}
	}
	for (size_t it = 0; pmap_next(&cc->views, &it, &k, &val);) {
		struct dra_slice_views *v = val;
		if (v && pmap_get(&keep, k) != v)
			dra_slice_views_unref(v);
	}
	pmap_release(&cc->views);
	cc->views = keep;
	cc->views_live = (uint32_t)pmap_len(&keep);
	return 0;
}

int dra_cel_views_acquire(struct dra_cel_cache *cc, struct api_resource_slice *const *slices, uint32_t n,
			  struct dra_slice_views **out, struct err *e)
{
	int rc = 0;
	uint32_t i = 0;
	pthread_mutex_lock(&cc->views_lock);
	for (; i < n; i++) {
		/* a copy with DeviceTaintRules applied binds as its base: taints are not in the view */
		struct api_resource_slice *s = slices[i]->base ? slices[i]->base : slices[i];
		/* a NULL value: an earlier views_new ran out of memory (a pmap has no deletion) */
		void **slot = pmap_ref(&cc->views, s, NULL);
		if (!slot || (!*slot && !(*slot = views_new(s, cc->max_entries)))) {
			rc = err_set(e, ERR_NOMEM, "ResourceSlice %s: device views: out of memory", s->meta.name);
			break;
		}
		out[i] = *slot;
		__atomic_add_fetch(&out[i]->refs, 1, __ATOMIC_RELAXED);
	}
	/* past twice the live entries of the last sweep, the dead ones are worth dropping (each sweep
	 * costs what this loop does) */
	if (rc == 0 && pmap_len(&cc->views) > 2 * (size_t)cc->views_live + 64)
		(void)views_sweep_locked(cc); /* out of memory: the map stays whole, swept on a later call */
	pthread_mutex_unlock(&cc->views_lock);
	if (rc < 0) {
		for (uint32_t j = 0; j < i; j++) {
			dra_slice_views_unref(out[j]);
			out[j] = NULL;
		}
	}
	return rc;
}

struct dra_inventory *dra_cel_inventory_get(struct dra_cel_cache *cc, const struct dra_features *f,
					    struct api_resource_slice *const *slices, uint32_t n)
{
	struct dra_inventory *inv = NULL;
	pthread_mutex_lock(&cc->views_lock);
	if (cc->inventory && dra_inventory_matches(cc->inventory, f, slices, n)) {
		inv = dra_inventory_ref(cc->inventory);
	}
	pthread_mutex_unlock(&cc->views_lock);
	return inv;
}

void dra_cel_inventory_keep(struct dra_cel_cache *cc, struct dra_inventory *inv)
{
	pthread_mutex_lock(&cc->views_lock);
	struct dra_inventory *old = cc->inventory;
	cc->inventory = dra_inventory_ref(inv);
	pthread_mutex_unlock(&cc->views_lock);
	dra_inventory_unref(old);
}

uint32_t dra_cel_views_len(struct dra_cel_cache *cc)
{
	pthread_mutex_lock(&cc->views_lock);
	uint32_t n = (uint32_t)pmap_len(&cc->views);
	pthread_mutex_unlock(&cc->views_lock);
	return n;
}

/* Device i's kept view, built on first use. NULL on out of memory. */
static const struct dra_device_view *kept_view(struct dra_slice_views *v, uint32_t i)
{
	struct dra_device_view *dv = atomic_load_explicit(&v->dev[i], memory_order_acquire);
	if (dv)
		return dv;
	pthread_mutex_lock(&v->bind_lock);
	dv = atomic_load_explicit(&v->dev[i], memory_order_relaxed);
	if (!dv && (dv = calloc(1, sizeof(*dv)))) {
		struct err be = { 0 };
		dv->dev = dra_bound_device_new(v->slice->driver, &v->slice->devices[i], &be);
		if (!dv->dev && (be.code == ERR_NOMEM || !(dv->err = strdup(be.msg)))) {
			free(dv);
			dv = NULL;
		} else {
			atomic_store_explicit(&v->dev[i], dv, memory_order_release);
		}
	}
	pthread_mutex_unlock(&v->bind_lock);
	return dv;
}

uint32_t dra_slice_views_kept(struct dra_slice_views *v)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->slice->n_devices; i++)
		n += atomic_load_explicit(&v->dev[i], memory_order_acquire) != NULL;
	return n;
}

uint32_t dra_slice_views_remembered(struct dra_slice_views *v, uint32_t i)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < v->memo_words; k++)
		n += (uint32_t)__builtin_popcountll(atomic_load_explicit(&v->memo[(size_t)i * v->memo_words + k],
									  memory_order_relaxed) & UINT32_MAX);
	return n;
}

/* ---------- Evaluation ---------- */

struct dra_cel_eval {
	struct cel_activation *act;
	struct cel_eval *ev;
	int slot;
};

struct dra_cel_eval *dra_cel_eval_new(struct dra_cel_cache *cc)
{
	struct dra_cel_eval *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->slot = cc->slot;
	/* reads the environment's slots: not while another thread compiles into it */
	pthread_mutex_lock(&cc->lock);
	ev->act = cel_activation_new(cc->env);
	pthread_mutex_unlock(&cc->lock);
	ev->ev = cel_eval_new();
	if (!ev->act || !ev->ev) {
		dra_cel_eval_free(ev);
		return NULL;
	}
	return ev;
}

void dra_cel_eval_free(struct dra_cel_eval *ev)
{
	if (!ev)
		return;
	if (ev->act)
		cel_activation_free(ev->act);
	if (ev->ev)
		cel_eval_free(ev->ev);
	free(ev);
}

int dra_cel_eval_device(struct dra_cel_eval *ev, const struct dra_cel_entry *ent, const struct dra_bound_device *b,
			struct err *e)
{
	cel_activation_set(ev->act, ev->slot, b->value);
	int rc = cel_program_eval_bool(ent->prog, ev->ev, ev->act, e);
	cel_activation_unset(ev->act, ev->slot);
	if (rc >= 0)
		return rc;
	if (e && e->code != ERR_NOMEM && strstr(e->msg, "no such key:")) {
		/* upstream EnhanceRuntimeError */
		char msg[ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", e->msg);
		err_set(e, ERR_INVALID,
			"%s. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
			msg);
	}
	return rc < 0 ? rc : ERR_INVALID;
}

int dra_slice_views_eval(struct dra_slice_views *v, uint32_t i, struct dra_cel_eval *ev,
			 const struct dra_cel_entry *ent, struct err *e)
{
	_Atomic uint64_t *w = NULL;
	uint64_t known = 0, match = 0;
	int rc;
	if (ent->cached) {
		w = &v->memo[(size_t)i * v->memo_words + ent->id / 32];
		known = UINT64_C(1) << (ent->id % 32);
		match = known << 32;
		uint64_t m = atomic_load_explicit(w, memory_order_relaxed);
		if (m & known)
			return (m & match) != 0;
	}
	/* a view kept for an uncached entry serves a cached one as well */
	const struct dra_device_view *dv = atomic_load_explicit(&v->dev[i], memory_order_acquire);
	if (!dv && !ent->cached && !(dv = kept_view(v, i)))
		return err_set(e, ERR_NOMEM, "bind device %s: out of memory", v->slice->devices[i].name);
	if (dv) {
		rc = dv->err ? err_set(e, ERR_INVALID, "%s", dv->err) : dra_cel_eval_device(ev, ent, dv->dev, e);
	} else {
		/* bound for this evaluation only: its result is remembered below */
		struct err be;
		be.code = 0;
		be.msg[0] = 0;
		struct dra_bound_device *b = dra_bound_device_new(v->slice->driver, &v->slice->devices[i], &be);
		if (!b)
			return err_set(e, be.code ? be.code : ERR_NOMEM, "%s", be.msg);
		rc = dra_cel_eval_device(ev, ent, b, e);
		dra_bound_device_free(b);
	}
	if (rc >= 0 && w)
		atomic_fetch_or_explicit(w, known | (rc ? match : 0), memory_order_relaxed);
	return rc;
}

/* ---------- dra_device_matches ---------- */

/* dra_bound_device_matches over b, or over device i of v when v is set. */
static enum dra_result matches(struct dra_cel_cache *cc, struct dra_cel_eval *ev, struct dra_slice_views *v, uint32_t i,
			       const struct dra_bound_device *b, const struct api_resource_slice *s,
			       const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e)
{
	if (e)
		e->msg[0] = 0;
	for (uint32_t k = 0; k < n; k++) {
		const char *cerr;
		struct dra_cel_entry *ent = dra_cel_get(cc, exprs[k], &cerr, e);
		if (!ent)
			return DRA_ERROR;
		if (cerr) {
			err_set(e, ERR_INVALID, "selector #%u: CEL compile error: %s", k, cerr);
			dra_cel_entry_release(cc, ent);
			return DRA_ERROR;
		}
		int rc = v ? dra_slice_views_eval(v, i, ev, ent, e) : dra_cel_eval_device(ev, ent, b, e);
		dra_cel_entry_release(cc, ent);
		if (rc < 0) {
			/* binding the view ran out of memory: the caller's out of memory (as a kept view
			 * that could not be made was) */
			if (v && e && e->code == ERR_NOMEM)
				return DRA_ERROR;
			char msg[ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", e ? e->msg : "");
			err_set(e, ERR_INVALID, "selector #%u on device %s/%s/%s: CEL runtime error: %s", k, s->driver,
				s->pool_name, d->name, msg);
			return DRA_ERROR;
		}
		if (!rc) {
			if (e)
				e->msg[0] = 0;
			return DRA_UNSCHEDULABLE;
		}
	}
	return DRA_ALLOCATED;
}

enum dra_result dra_bound_device_matches(struct dra_cel_cache *cc, struct dra_cel_eval *ev,
					 const struct dra_bound_device *b, const struct api_resource_slice *s,
					 const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e)
{
	return matches(cc, ev, NULL, 0, b, s, d, exprs, n, e);
}

enum dra_result dra_slice_views_matches(struct dra_cel_cache *cc, struct dra_cel_eval *ev, struct dra_slice_views *v,
					uint32_t i, const char *const *exprs, uint32_t n, struct err *e)
{
	return matches(cc, ev, v, i, NULL, v->slice, &v->slice->devices[i], exprs, n, e);
}

enum dra_result dra_device_matches(struct dra_cel_cache *cc, const struct api_resource_slice *s,
				   const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e)
{
	enum dra_result res;
	struct dra_bound_device *b = NULL;
	struct dra_cel_eval *ev = NULL;
	if (e)
		e->msg[0] = 0;
	if (!n)
		return DRA_ALLOCATED;
	ev = dra_cel_eval_new(cc);
	if (!ev) {
		err_set(e, ERR_NOMEM, "device %s: out of memory", d->name);
		return DRA_ERROR;
	}
	b = dra_bound_device_new(s->driver, d, e);
	res = b ? dra_bound_device_matches(cc, ev, b, s, d, exprs, n, e) : DRA_ERROR;
	dra_bound_device_free(b);
	dra_cel_eval_free(ev);
	return res;
}
