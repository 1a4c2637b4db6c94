/* JSON (yajl tree) -> immutable api_pod / api_node / api_lease.
 *
 * One arena per object holds the object itself and everything it points to except interned
 * strings, so api_*_unref frees an object with one arena_free and one intern_release_n of the
 * counted intern references listed in its meta. Decoding follows encoding/json's
 * rules as the apiserver's Go clients see them: unknown fields are ignored, null reads as the
 * zero value, a value of the wrong JSON type is an error. Errors name the object and the field
 * path ("pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity ...").
 *
 * Not thread-affine: each call has its own arena; common/intern is thread-safe. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/macros.h"
#include "common/rfc3339.h"

static struct arena_hint node_hint = { ARENA_HINT_START };

/* ---------- paths and errors ---------- */

/* Appends ".key" (or "key" at the start), truncating at the buffer's end. Runs for every field
 * read, so it copies bytes instead of formatting. */
size_t api__dec_push_key(struct dec *d, const char *key)
{
	size_t mark = d->plen, room = sizeof(d->path) - 1 - d->plen;
	if (d->plen && room) {
		d->path[d->plen++] = '.';
		room--;
	}
	size_t n = strlen(key);
	if (n > room)
		n = room;
	memcpy(d->path + d->plen, key, n);
	d->plen += n;
	d->path[d->plen] = '\0';
	return mark;
}

static size_t push_idx(struct dec *d, size_t i)
{
	char buf[24], *p = buf + sizeof(buf);
	*--p = ']';
	do
		*--p = (char)('0' + i % 10);
	while ((i /= 10));
	*--p = '[';
	size_t mark = d->plen, n = (size_t)(buf + sizeof(buf) - p), room = sizeof(d->path) - 1 - d->plen;
	if (n > room)
		n = room;
	memcpy(d->path + d->plen, p, n);
	d->plen += n;
	d->path[d->plen] = '\0';
	return mark;
}

void api__dec_pop(struct dec *d, size_t mark)
{
	d->plen = mark;
	d->path[mark] = '\0';
}

int api__dec_fail_code(struct dec *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int api__dec_fail_code(struct dec *d, int code, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char who[300];
	if (d->name && d->ns && d->ns[0])
		snprintf(who, sizeof(who), "%s %s/%s", d->kind, d->ns, d->name);
	else if (d->name)
		snprintf(who, sizeof(who), "%s %s", d->kind, d->name);
	else
		snprintf(who, sizeof(who), "%s", d->kind);
	if (d->plen)
		return err_set(d->e, code, "%s: %s: %s", who, d->path, msg);
	return err_set(d->e, code, "%s: %s", who, msg);
}

int api__dec_nomem(struct dec *d)
{
	return api__dec_fail_code(d, ERR_NOMEM, "out of memory");
}

const char *api__dec_jtype(jv v)
{
	switch (v->type) {
	case yajl_t_string:
		return "string";
	case yajl_t_number:
		return "number";
	case yajl_t_object:
		return "object";
	case yajl_t_array:
		return "array";
	case yajl_t_true:
	case yajl_t_false:
		return "boolean";
	default:
		return "null";
	}
}

void *api__dec_alloc(struct dec *d, size_t n)
{
	return n ? arena_alloc(d->a, n) : NULL;
}

/* ---------- interned strings ---------- */

const char *api__dec_intern(struct dec *d, const char *s)
{
	const char *p = intern_acquire(s, strlen(s));
	if (!p || intern_pinned(p))
		return p;
	/* one reference per distinct string: an object holds few (a node's images are the most) */
	for (uint32_t i = d->n_held; i-- > 0;)
		if (d->held[i] == p) {
			intern_release(p);
			return p;
		}
	if (d->n_held == d->cap_held) {
		uint32_t cap = d->cap_held ? d->cap_held * 2 : 16;
		const char **v = realloc(d->held, cap * sizeof(*v));
		if (!v) {
			intern_release(p);
			return NULL;
		}
		d->held = v;
		d->cap_held = cap;
	}
	d->held[d->n_held++] = p;
	return p;
}

/* Moves the references taken into d->meta->interned, in the object's arena. */
static int dec_keep_interned(struct dec *d)
{
	if (!d->n_held)
		return 0;
	const char **keep = d->meta ? arena_alloc(d->a, d->n_held * sizeof(*keep)) : NULL;
	if (!keep)
		return api__dec_nomem(d);
	memcpy(keep, d->held, d->n_held * sizeof(*keep));
	d->meta->interned = keep;
	d->meta->n_interned = d->n_held;
	d->n_held = 0;
	return 0;
}

/* ---------- field access ---------- */

/* The value of key in obj; NULL when obj is not an object, the key is absent or its value is
 * null (encoding/json reads null as the zero value). */
static jv get(jv obj, const char *key)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	for (size_t i = 0; i < obj->u.object.len; i++) {
		/* the first byte settles most keys without a call (this runs ~60 times per pod) */
		if (obj->u.object.keys[i][0] == key[0] && strcmp(obj->u.object.keys[i], key) == 0) {
			jv v = obj->u.object.values[i];
			return YAJL_IS_NULL(v) ? NULL : v;
		}
	}
	return NULL;
}


/* Checks that v (already fetched, path already pushed) is an object or absent. */
int api__dec_want_object(struct dec *d, jv v)
{
	if (v && !YAJL_IS_OBJECT(v) && !YAJL_IS_NULL(v))
		return fail(d, "expected object, got %s", api__dec_jtype(v));
	return 0;
}

static int str_value(struct dec *d, jv v, bool interned, const char *dflt, const char **out)
{
	if (!v || YAJL_IS_NULL(v)) {
		*out = interned ? api__dec_intern(d, dflt) : dflt;
		return *out ? 0 : api__dec_nomem(d);
	}
	if (!YAJL_IS_STRING(v))
		return fail(d, "expected string, got %s", api__dec_jtype(v));
	*out = interned ? api__dec_intern(d, v->u.string) : arena_strdup(d->a, v->u.string);
	return *out ? 0 : api__dec_nomem(d);
}

int api__dec_get_str(struct dec *d, jv obj, const char *key, bool interned, const char *dflt, const char **out)
{
	return WITH_KEY(d, key, str_value(d, get(obj, key), interned, dflt, out));
}

int api__dec_get_bool(struct dec *d, jv obj, const char *key, bool *out)
{
	jv v = get(obj, key);
	*out = false;
	if (!v)
		return 0;
	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		*out = YAJL_IS_TRUE(v);
		return 0;
	}
	return WITH_KEY(d, key, fail(d, "expected boolean, got %s", api__dec_jtype(v)));
}

int api__dec_get_i64(struct dec *d, jv obj, const char *key, int64_t min, int64_t max, bool *has, int64_t *out)
{
	jv v = get(obj, key);
	*out = 0;
	if (has)
		*has = v != NULL;
	if (!v)
		return 0;
	if (!YAJL_IS_NUMBER(v))
		return WITH_KEY(d, key, fail(d, "expected integer, got %s", api__dec_jtype(v)));
	if (!YAJL_IS_INTEGER(v) || strpbrk(v->u.number.r, ".eE") || v->u.number.i < min || v->u.number.i > max)
		return WITH_KEY(d, key, fail(d, "invalid integer %s", v->u.number.r));
	*out = v->u.number.i;
	return 0;
}

int api__dec_get_i32(struct dec *d, jv obj, const char *key, bool *has, int32_t *out)
{
	int64_t v;
	int rc = api__dec_get_i64(d, obj, key, INT32_MIN, INT32_MAX, has, &v);
	*out = (int32_t)v;
	return rc;
}

/* Fetches an object-valued field (or NULL when absent) with a type check. */
int api__dec_get_obj(struct dec *d, jv obj, const char *key, jv *out)
{
	*out = get(obj, key);
	if (*out && !YAJL_IS_OBJECT(*out))
		return WITH_KEY(d, key, fail(d, "expected object, got %s", api__dec_jtype(*out)));
	return 0;
}

/* Decodes each element of the array obj[key] into a zeroed arena array of item_size bytes. A null
 * element is decoded like an empty object. */

int api__dec_get_array(struct dec *d, jv obj, const char *key, size_t item_size, uint32_t *n_out, void **out,
		     item_fn fn)
{
	int rc = 0;
	jv v = get(obj, key);
	size_t mark = api__dec_push_key(d, key);
	*n_out = 0;
	*out = NULL;
	if (!v)
		goto out;
	if (!YAJL_IS_ARRAY(v)) {
		rc = fail(d, "expected array, got %s", api__dec_jtype(v));
		goto out;
	}
	size_t n = v->u.array.len;
	if (n > UINT32_MAX) {
		rc = fail(d, "too many items");
		goto out;
	}
	char *items = api__dec_alloc(d, n * item_size);
	if (n && !items) {
		rc = api__dec_nomem(d);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t m = push_idx(d, i);
		jv item = v->u.array.values[i];
		if ((rc = fn(d, YAJL_IS_NULL(item) ? NULL : item, items + i * item_size)))
			goto out;
		api__dec_pop(d, m);
	}
	*n_out = (uint32_t)n;
	*out = items;
out:
	if (!rc)
		api__dec_pop(d, mark);
	return rc;
}

static int istr_item(struct dec *d, jv v, void *item)
{
	return str_value(d, v, true, "", item);
}

int api__dec_str_item(struct dec *d, jv v, void *item)
{
	return str_value(d, v, false, "", item);
}

int api__dec_get_istrs(struct dec *d, jv obj, const char *key, uint32_t *n, const char ***out)
{
	return api__dec_get_array(d, obj, key, sizeof(const char *), n, (void **)out, istr_item);
}

/* ---------- labels and resources ---------- */

/* map[string]string; keys and values interned, or copied into the arena when !interned. */
static int labels_value(struct dec *d, jv v, bool interned, struct api_labels *l)
{
	l->n = 0;
	l->items = NULL;
	if (!v)
		return 0;
	if (!YAJL_IS_OBJECT(v))
		return fail(d, "expected object, got %s", api__dec_jtype(v));
	size_t n = v->u.object.len;
	l->items = api__dec_alloc(d, n * sizeof(*l->items));
	if (n && !l->items)
		return api__dec_nomem(d);
	for (size_t i = 0; i < n; i++) {
		const char *key = v->u.object.keys[i];
		struct api_kv *kv = &l->items[l->n];
		int rc = WITH_KEY(d, key, str_value(d, v->u.object.values[i], interned, "", &kv->value));
		if (rc)
			return rc;
		if (!(kv->key = interned ? api__dec_intern(d, key) : arena_strdup(d->a, key)))
			return api__dec_nomem(d);
		/* Duplicate keys: the last one wins, as in Go. */
		uint32_t j = 0;
		while (j < l->n && (interned ? l->items[j].key != kv->key : strcmp(l->items[j].key, kv->key) != 0))
			j++;
		if (j < l->n)
			l->items[j].value = kv->value;
		else
			l->n++;
	}
	return 0;
}

int api__dec_get_labels(struct dec *d, jv obj, const char *key, struct api_labels *l)
{
	return WITH_KEY(d, key, labels_value(d, get(obj, key), true, l));
}

/* One quantity as Quantity.UnmarshalJSON reads it: a string (surrounding spaces trimmed), a bare
 * JSON number, or null (zero). */
static int quantity_value(struct dec *d, jv v, bool milli, int64_t *out)
{
	char buf[128];
	const char *s;
	*out = 0;
	if (!v || YAJL_IS_NULL(v))
		return 0;
	if (YAJL_IS_STRING(v)) {
		s = v->u.string;
		size_t n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		while (n && isspace((unsigned char)*s)) {
			s++;
			n--;
		}
		if (s[n]) { /* trailing spaces: copy the trimmed part */
			if (n >= sizeof(buf))
				return fail(d, "invalid quantity \"%.64s...\": too long", s);
			memcpy(buf, s, n);
			buf[n] = '\0';
			s = buf;
		}
	} else if (YAJL_IS_NUMBER(v)) {
		s = v->u.number.r;
	} else {
		return fail(d, "expected quantity string, got %s", api__dec_jtype(v));
	}
	int64_t value, mv;
	struct err qe;
	int rc = api_quantity_parse(s, &value, &mv, &qe);
	if (rc)
		return api__dec_fail_code(d, rc, "%s", qe.msg);
	*out = milli ? mv : value;
	return 0;
}

int api__dec_get_quantity(struct dec *d, jv obj, const char *key, bool null_present, bool *has, int64_t *out)
{
	*has = false;
	*out = 0;
	if (!YAJL_IS_OBJECT(obj))
		return 0;
	for (size_t i = 0; i < obj->u.object.len; i++) {
		if (strcmp(obj->u.object.keys[i], key) != 0)
			continue;
		jv v = obj->u.object.values[i];
		if (!v || (YAJL_IS_NULL(v) && !null_present))
			return 0;
		*has = true;
		return WITH_KEY(d, key, quantity_value(d, v, false, out));
	}
	return 0;
}

/* The well-known resource names, interned once (informer threads decode concurrently). */
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static const char *name_cpu, *name_memory, *name_eph, *name_pods;

static void names_init(void)
{
	name_cpu = intern_str("cpu");
	name_memory = intern_str("memory");
	name_eph = intern_str("ephemeral-storage");
	name_pods = intern_str("pods");
}

static int resources_value(struct dec *d, jv v, struct api_resources *r)
{
	memset(r, 0, sizeof(*r));
	if (!v)
		return 0;
	if (!YAJL_IS_OBJECT(v))
		return fail(d, "expected object, got %s", api__dec_jtype(v));
	pthread_once(&names_once, names_init);
	const char *cpu = name_cpu, *memory = name_memory, *eph = name_eph, *pods = name_pods;
	if (!cpu || !memory || !eph || !pods)
		return api__dec_nomem(d);
	size_t n = v->u.object.len, n_other = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = v->u.object.keys[i];
		n_other += strcmp(k, "cpu") && strcmp(k, "memory") && strcmp(k, "ephemeral-storage") && strcmp(k, "pods");
	}
	r->scalar = api__dec_alloc(d, n_other * sizeof(*r->scalar)); /* most lists hold only the well-known names */
	if (n_other && !r->scalar)
		return api__dec_nomem(d);
	for (size_t i = 0; i < n; i++) {
		const char *name = api__dec_intern(d, v->u.object.keys[i]);
		int64_t q;
		if (!name)
			return api__dec_nomem(d);
		int rc = WITH_KEY(d, name, quantity_value(d, v->u.object.values[i], name == cpu, &q));
		if (rc)
			return rc;
		if (name == cpu) {
			r->cpu = q;
			r->has_cpu = true;
		} else if (name == memory) {
			r->memory = q;
			r->has_memory = true;
		} else if (name == eph) {
			r->ephemeral_storage = q;
			r->has_ephemeral_storage = true;
		} else if (name == pods) {
			r->pods = q;
			r->has_pods = true;
		} else {
			uint32_t j = 0;
			while (j < r->n_scalar && r->scalar[j].name != name)
				j++;
			r->scalar[j].name = name;
			r->scalar[j].value = q;
			if (j == r->n_scalar)
				r->n_scalar++;
		}
	}
	if (!r->n_scalar)
		r->scalar = NULL;
	return 0;
}

int api__dec_get_resources(struct dec *d, jv obj, const char *key, struct api_resources *r)
{
	return WITH_KEY(d, key, resources_value(d, get(obj, key), r));
}

/* ---------- metadata and status ---------- */

int api__dec_get_time_us(struct dec *d, jv obj, const char *key, bool *has, int64_t *us)
{
	const char *s;
	*us = 0;
	if (has)
		*has = false;
	int rc = api__dec_get_str(d, obj, key, false, "", &s);
	if (rc || !s[0])
		return rc;
	if (!rfc3339_parse(s, us))
		return WITH_KEY(d, key, fail(d, "invalid time \"%.64s\"", s));
	if (has)
		*has = true;
	return 0;
}

static int owner_item(struct dec *d, jv v, void *item)
{
	struct api_owner_ref *o = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "apiVersion", false, "", &o->api_version)) ||
	    (rc = api__dec_get_str(d, v, "kind", false, "", &o->kind)) || (rc = api__dec_get_str(d, v, "name", false, "", &o->name)) ||
	    (rc = api__dec_get_str(d, v, "uid", false, "", &o->uid)))
		return rc;
	return api__dec_get_bool(d, v, "controller", &o->controller);
}

int api__dec_condition_item(struct dec *d, jv v, void *item)
{
	struct api_condition *c = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "type", true, "", &c->type)) ||
	    (rc = api__dec_get_str(d, v, "status", true, "", &c->status)) ||
	    (rc = api__dec_get_str(d, v, "reason", false, "", &c->reason)) ||
	    (rc = api__dec_get_str(d, v, "message", false, "", &c->message)))
		return rc;
	c->last_probe_time = c->last_transition_time = "";
	/* Only a pod's PodScheduled needs them (the patch diffs against it): memory per pod. */
	if (!d->pod || strcmp(c->type, "PodScheduled") != 0)
		return 0;
	if ((rc = api__dec_get_str(d, v, "lastProbeTime", false, "", &c->last_probe_time)) ||
	    (rc = api__dec_get_str(d, v, "lastTransitionTime", false, "", &c->last_transition_time)))
		return rc;
	return api__dec_get_i64(d, v, "observedGeneration", 0, INT64_MAX, NULL, &c->observed_generation);
}

/* Sets d->ns/d->name from metadata before anything else so every message names the object. */
static void peek_identity(struct dec *d, jv obj)
{
	jv md = get(obj, "metadata");
	jv name = get(md, "name"), ns = get(md, "namespace");
	d->name = YAJL_IS_STRING(name) ? name->u.string : NULL;
	d->ns = YAJL_IS_STRING(ns) ? ns->u.string : NULL;
}

int api__dec_meta_value(struct dec *d, jv obj, struct api_meta *m)
{
	jv md;
	int64_t us;
	int rc;
	if ((rc = api__dec_get_obj(d, obj, "metadata", &md)))
		return rc;
	size_t mark = api__dec_push_key(d, "metadata");
	d->meta = m;
	/* A pod's name is unique to it: interning it would keep every name ever seen. A pod's UID is
	 * interned (the cache, queue and plugins compare them by pointer); a node's is not read.
	 * Annotations are read only for nodes (NodeAnnotationChange); no plugin reads a pod's. */
	if ((rc = api__dec_get_str(d, md, "name", !d->pod, "", &m->name)) ||
	    (rc = api__dec_get_str(d, md, "namespace", true, "", &m->namespace)) ||
	    (rc = api__dec_get_str(d, md, "uid", d->pod, "", &m->uid)) ||
	    (rc = api__dec_get_str(d, md, "resourceVersion", false, "", &m->resource_version)) ||
	    (rc = api__dec_get_i64(d, md, "generation", 0, INT64_MAX, NULL, &m->generation)) ||
	    (rc = api__dec_get_labels(d, md, "labels", &m->labels)) ||
	    (!d->pod && (rc = WITH_KEY(d, "annotations", labels_value(d, get(md, "annotations"), false, &m->annotations)))) ||
	    (rc = api__dec_get_array(d, md, "ownerReferences", sizeof(*m->owner_refs), &m->n_owner_refs,
			    (void **)&m->owner_refs, owner_item)) ||
	    (rc = api__dec_get_time_us(d, md, "creationTimestamp", NULL, &us)))
		return rc;
	m->creation_timestamp = us / 1000000;
	if ((rc = api__dec_get_time_us(d, md, "deletionTimestamp", &m->being_deleted, &us)))
		return rc;
	m->deletion_timestamp = us / 1000000;
	api__dec_pop(d, mark);
	return 0;
}

/* The parts every object kind has: metadata into m, and spec and status (absent: NULL). */
int api__dec_object_parts(struct dec *d, jv obj, struct api_meta *m, jv *spec, jv *status)
{
	int rc;
	if (!YAJL_IS_OBJECT(obj))
		return fail(d, "expected object, got %s", obj ? api__dec_jtype(obj) : "nothing");
	if ((rc = api__dec_meta_value(d, obj, m)) || (rc = api__dec_get_obj(d, obj, "spec", spec)))
		return rc;
	return api__dec_get_obj(d, obj, "status", status);
}


/* ---------- one object in its arena ---------- */

/* Decodes obj into a new arena whose first block is first_block bytes; NULL on error (e set).
 * *meta: the object's metadata (its intern references), for a caller that drops the object. */
static void *decode_in(const struct dec_kind *k, jv obj, size_t first_block, struct arena **arena,
		       struct api_meta **meta, struct err *e)
{
	struct dec d = {.e = e, .kind = k->kind, .pod = k->pod};
	void *o = NULL;
	peek_identity(&d, obj);
	if (!(d.a = arena_new(first_block)) || !(o = arena_alloc(d.a, k->size))) {
		api__dec_nomem(&d);
		goto fail;
	}
	if (k->fill(&d, obj, o) || dec_keep_interned(&d))
		goto fail;
	free(d.held);
	*arena = d.a;
	*meta = d.meta;
	return o;
fail:
	intern_release_n(d.held, d.n_held);
	free(d.held);
	arena_free(d.a);
	return NULL;
}

void *api__dec_object(const struct dec_kind *k, const struct yajl_val_s *obj, struct err *e)
{
	struct arena *a = NULL;
	struct api_meta *m = NULL;
	void *o = decode_in(k, (jv)obj, hint_get(k->hint), &a, &m, e);
	if (!o)
		return NULL;
	size_t need = arena_footprint(a);
	hint_learn(k->hint, need);
	if (arena_overflowed(a)) {
		/* the only reference: the object was never handed out. The second decode takes its
		 * references before these go, so the strings are not freed and re-made in between. */
		struct arena *first = a;
		const char **held = m ? m->interned : NULL;
		uint32_t n_held = m ? m->n_interned : 0;
		o = decode_in(k, (jv)obj, need, &a, &m, e);
		intern_release_n(held, n_held);
		arena_free(first);
	}
	return o;
}

/* ---------- Node ---------- */

static int image_item(struct dec *d, jv v, void *item)
{
	struct api_node_image *im = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_istrs(d, v, "names", &im->n_names, &im->names)))
		return rc;
	return api__dec_get_i64(d, v, "sizeBytes", INT64_MIN, INT64_MAX, NULL, &im->size_bytes);
}

static int node_spec(struct dec *d, jv spec, struct api_node *n)
{
	int rc = api__dec_get_bool(d, spec, "unschedulable", &n->unschedulable);
	if (rc)
		return rc;
	return api__dec_get_array(d, spec, "taints", sizeof(*n->taints), &n->n_taints, (void **)&n->taints, api__dec_taint_item);
}

static int node_status(struct dec *d, jv st, struct api_node *n)
{
	int rc;
	if ((rc = api__dec_get_resources(d, st, "capacity", &n->capacity)) ||
	    (rc = api__dec_get_resources(d, st, "allocatable", &n->allocatable)) ||
	    (rc = api__dec_get_array(d, st, "conditions", sizeof(*n->conditions), &n->n_conditions, (void **)&n->conditions,
			    api__dec_condition_item)))
		return rc;
	if ((rc = api__dec_get_array(d, st, "images", sizeof(*n->images), &n->n_images, (void **)&n->images, image_item)))
		return rc;
	return api__dec_get_istrs(d, st, "declaredFeatures", &n->n_declared_features, &n->declared_features);
}

static int node_fill(struct dec *d, jv obj, void *out)
{
	struct api_node *n = out;
	n->arena = d->a;
	n->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &n->meta, &spec, &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", node_spec(d, spec, n))) || (rc = WITH_KEY(d, "status", node_status(d, st, n))))
		return rc;
	if (__atomic_load_n(&api__keep_node_json, __ATOMIC_RELAXED))
		return api__dec_keep_json(d, obj, &n->json, &n->json_len);
	return 0;
}

static const struct dec_kind node_kind = {"node", false, sizeof(struct api_node), &node_hint, node_fill};

struct api_node *api_node_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&node_kind, obj, e);
}

/* ---------- JSON text ---------- */

/* Parses text into a tree in j (the parser the informers use: fields csched never reads are
 * skipped); on error fills e with "KIND: invalid JSON: <yajl's first line>". */
static jv parse_text(struct api__json *j, const char *kind, const char *json, size_t len, struct err *e)
{
	char errbuf[256] = "";
	jv tree = NULL;
	int rc = ERR_INVALID;
	if (!j) {
		err_set(e, ERR_NOMEM, "%s: out of memory", kind);
		return NULL;
	}
	if (memchr(json, '\0', len))
		snprintf(errbuf, sizeof(errbuf), "NUL byte in input");
	else
		rc = api__json_parse(j, json, len, &tree, errbuf, sizeof(errbuf));
	if (rc == ERR_NOMEM) {
		err_set(e, rc, "%s: out of memory", kind);
	} else if (rc) {
		errbuf[strcspn(errbuf, "\n")] = '\0';
		err_set(e, ERR_INVALID, "%s: invalid JSON: %s", kind, errbuf[0] ? errbuf : "parse error");
	}
	return rc ? NULL : tree;
}

void *api__dec_json(const struct dec_kind *k, const char *json, size_t len, struct err *e)
{
	struct api__json *j = api__json_new();
	jv tree = parse_text(j, k->kind, json, len, e);
	void *o = tree ? api__dec_object(k, tree, e) : NULL;
	api__json_free(j);
	return o;
}

struct api_node *api_node_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&node_kind, json, len, e);
}

/* ---------- Lease ---------- */

static int lease_dup(struct dec *d, jv obj, const char *key, bool null_when_absent, char **out)
{
	const char *s;
	int rc = api__dec_get_str(d, obj, key, false, "", &s);
	*out = NULL;
	if (rc)
		return rc;
	if (null_when_absent && !get(obj, key))
		return 0;
	if (!(*out = strdup(s)))
		return api__dec_nomem(d);
	return 0;
}

int api_lease_decode(const struct yajl_val_s *obj, struct api_lease *out, struct err *e)
{
	struct dec d = { .e = e, .kind = "lease" };
	struct api_lease l = { 0 };
	jv md, spec;
	int rc;
	peek_identity(&d, (jv)obj);
	memset(out, 0, sizeof(*out));
	/* Strings pass through a scratch arena (get_str's copies) before being strdup'd. */
	if (!(d.a = arena_new(512))) {
		rc = api__dec_nomem(&d);
		goto out;
	}
	if (!YAJL_IS_OBJECT((jv)obj)) {
		rc = fail(&d, "expected object, got %s", obj ? api__dec_jtype((jv)obj) : "nothing");
		goto out;
	}
	if ((rc = api__dec_get_obj(&d, (jv)obj, "metadata", &md)) || (rc = api__dec_get_obj(&d, (jv)obj, "spec", &spec)))
		goto out;
	size_t mark = api__dec_push_key(&d, "metadata");
	if ((rc = lease_dup(&d, md, "name", false, &l.name)) || (rc = lease_dup(&d, md, "namespace", false, &l.namespace)) ||
	    (rc = lease_dup(&d, md, "resourceVersion", false, &l.resource_version)))
		goto out;
	api__dec_pop(&d, mark);
	mark = api__dec_push_key(&d, "spec");
	if ((rc = lease_dup(&d, spec, "holderIdentity", true, &l.holder_identity)) ||
	    (rc = api__dec_get_i32(&d, spec, "leaseDurationSeconds", NULL, &l.lease_duration_seconds)) ||
	    (rc = api__dec_get_time_us(&d, spec, "acquireTime", NULL, &l.acquire_time_us)) ||
	    (rc = api__dec_get_time_us(&d, spec, "renewTime", NULL, &l.renew_time_us)) ||
	    (rc = api__dec_get_i32(&d, spec, "leaseTransitions", NULL, &l.lease_transitions)))
		goto out;
	api__dec_pop(&d, mark);
	*out = l;
	memset(&l, 0, sizeof(l));
out:
	api_lease_release(&l);
	intern_release_n(d.held, d.n_held); /* none: a lease interns nothing */
	free(d.held);
	arena_free(d.a);
	return rc;
}
