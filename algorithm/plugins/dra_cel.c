/* DRA's CEL selectors (upstream k8s.io/dynamic-resource-allocation v0.37.2 cel/: Cache,
 * CompileCELExpression, DeviceMatches, EnhanceRuntimeError) on csched's cel/ module.
 *
 * DESIGN: the cache is shared by every scheduling cycle and Filter thread. lock guards the
 * map and the environment (compiling declares nothing but is not documented as thread-safe);
 * it is a leaf lock, held while compiling (upstream also serialises compiles of one
 * expression). A cached entry is never evicted while the cache lives, so the program pointers
 * handed out stay valid; past max_entries new expressions are compiled for the caller, who
 * releases them. Programs are evaluated without the lock, each thread with its own evaluation
 * state and activation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra_internal.h"
#include "cel/cel.h"
#include "common/err.h"
#include "common/map.h"

struct dra_cel_entry {
	char *expr;                /* owned: the map's key */
	struct cel_program *prog;  /* NULL: compile_err */
	char *compile_err;         /* owned */
	bool cached;
};

struct dra_cel_cache {
	pthread_mutex_t lock; /* guards env and entries; leaf */
	struct cel_env *env;
	int slot; /* the "device" variable */
	uint32_t max_entries;
	struct map entries; /* expr -> struct dra_cel_entry */
};

struct dra_cel_cache *dra_cel_cache_new(uint32_t max_entries)
{
	struct dra_cel_cache *cc = calloc(1, sizeof(*cc));
	struct err e = { 0 };
	if (!cc)
		return NULL;
	pthread_mutex_init(&cc->lock, NULL);
	map_init(&cc->entries);
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

/* ---------- dra_device_matches ---------- */

enum dra_result dra_device_matches(struct dra_cel_cache *cc, const struct api_resource_slice *s,
				   const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e)
{
	enum dra_result res = DRA_ALLOCATED;
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
	if (!b) {
		res = DRA_ERROR;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *cerr;
		struct dra_cel_entry *ent = dra_cel_get(cc, exprs[i], &cerr, e);
		if (!ent) {
			res = DRA_ERROR;
			goto out;
		}
		if (cerr) {
			err_set(e, ERR_INVALID, "selector #%u: CEL compile error: %s", i, cerr);
			dra_cel_entry_release(cc, ent);
			res = DRA_ERROR;
			goto out;
		}
		int rc = dra_cel_eval_device(ev, ent, b, e);
		dra_cel_entry_release(cc, ent);
		if (rc < 0) {
			char msg[ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", e ? e->msg : "");
			err_set(e, ERR_INVALID, "selector #%u on device %s/%s/%s: CEL runtime error: %s", i, s->driver,
				s->pool_name, d->name, msg);
			res = DRA_ERROR;
			goto out;
		}
		if (!rc) {
			if (e)
				e->msg[0] = 0;
			res = DRA_UNSCHEDULABLE;
			goto out;
		}
	}
out:
	dra_bound_device_free(b);
	dra_cel_eval_free(ev);
	return res;
}
