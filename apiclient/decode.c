/* JSON (yajl tree) -> immutable api_pod / api_node / api_lease.
 *
 * One arena per object holds the object itself and everything it points to except interned
 * strings, so api_*_unref frees an object with one arena_free. Decoding follows encoding/json's
 * rules as the apiserver's Go clients see them: unknown fields are ignored, null reads as the
 * zero value, a value of the wrong JSON type is an error. Errors name the object and the field
 * path ("pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity ...").
 *
 * Not thread-affine: each call has its own arena; intern_str is thread-safe. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"
#include "common/arena.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/macros.h"
#include "common/rfc3339.h"

/* Each object lives in one arena whose first block is sized from what recent objects of its kind
 * needed (a decoded pod-default Pod takes ~700 bytes, a Node ~500; fixed 2 and 4 KiB blocks
 * left most of 40 MB unused at 5000 nodes and 11000 pods). The size follows larger objects
 * quickly and smaller ones slowly, so pods of one workload fit at once; an object that does not
 * fit is decoded again into one block of its exact size, so no object keeps a second block. */
#define ARENA_HINT_START 1024
#define ARENA_HINT_MIN 256

struct arena_hint {
	size_t bytes; /* accessed with relaxed atomics: informer threads decode concurrently */
};
static struct arena_hint pod_hint = { ARENA_HINT_START }, node_hint = { ARENA_HINT_START };

static size_t hint_get(struct arena_hint *h)
{
	size_t b = __atomic_load_n(&h->bytes, __ATOMIC_RELAXED);
	return b < ARENA_HINT_MIN ? ARENA_HINT_MIN : b;
}

/* Half way up to a larger object, 1/32 of the way down to a smaller one. */
static void hint_learn(struct arena_hint *h, size_t need)
{
	size_t cur = __atomic_load_n(&h->bytes, __ATOMIC_RELAXED);
	size_t next = need > cur ? cur + (need - cur + 1) / 2 : cur - (cur - need) / 32;
	__atomic_store_n(&h->bytes, next, __ATOMIC_RELAXED);
}

struct dec {
	struct arena *a;
	struct err *e;
	const char *kind; /* "pod", "node", "lease" */
	bool pod;
	const char *ns;   /* for messages; NULL when unknown */
	const char *name;
	char path[400];
	size_t plen;
};

typedef struct yajl_val_s *jv;

/* ---------- paths and errors ---------- */

/* Appends ".key" (or "key" at the start), truncating at the buffer's end. Runs for every field
 * read, so it copies bytes instead of formatting. */
static size_t push_key(struct dec *d, const char *key)
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

static void pop(struct dec *d, size_t mark)
{
	d->plen = mark;
	d->path[mark] = '\0';
}

static int fail_code(struct dec *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_code(struct dec *d, int code, const char *fmt, ...)
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
#define fail(d, ...) fail_code((d), ERR_INVALID, __VA_ARGS__)

static int nomem(struct dec *d)
{
	return fail_code(d, ERR_NOMEM, "out of memory");
}

static const char *jtype(jv v)
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

static void *alloc(struct dec *d, size_t n)
{
	return n ? arena_alloc(d->a, n) : NULL;
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

/* Runs with the path extended by key. */
#define WITH_KEY(d, key, expr)                         \
	({                                             \
		size_t mark_ = push_key((d), (key));   \
		int rc_ = (expr);                      \
		if (!rc_)                              \
			pop((d), mark_);               \
		rc_;                                   \
	})

/* Checks that v (already fetched, path already pushed) is an object or absent. */
static int want_object(struct dec *d, jv v)
{
	if (v && !YAJL_IS_OBJECT(v) && !YAJL_IS_NULL(v))
		return fail(d, "expected object, got %s", jtype(v));
	return 0;
}

static int str_value(struct dec *d, jv v, bool interned, const char *dflt, const char **out)
{
	if (!v || YAJL_IS_NULL(v)) {
		*out = interned ? intern_str(dflt) : dflt;
		return *out ? 0 : nomem(d);
	}
	if (!YAJL_IS_STRING(v))
		return fail(d, "expected string, got %s", jtype(v));
	*out = interned ? intern_str(v->u.string) : arena_strdup(d->a, v->u.string);
	return *out ? 0 : nomem(d);
}

static int get_str(struct dec *d, jv obj, const char *key, bool interned, const char *dflt, const char **out)
{
	return WITH_KEY(d, key, str_value(d, get(obj, key), interned, dflt, out));
}

static int get_bool(struct dec *d, jv obj, const char *key, bool *out)
{
	jv v = get(obj, key);
	*out = false;
	if (!v)
		return 0;
	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		*out = YAJL_IS_TRUE(v);
		return 0;
	}
	return WITH_KEY(d, key, fail(d, "expected boolean, got %s", jtype(v)));
}

static int get_i64(struct dec *d, jv obj, const char *key, int64_t min, int64_t max, bool *has, int64_t *out)
{
	jv v = get(obj, key);
	*out = 0;
	if (has)
		*has = v != NULL;
	if (!v)
		return 0;
	if (!YAJL_IS_NUMBER(v))
		return WITH_KEY(d, key, fail(d, "expected integer, got %s", jtype(v)));
	if (!YAJL_IS_INTEGER(v) || strpbrk(v->u.number.r, ".eE") || v->u.number.i < min || v->u.number.i > max)
		return WITH_KEY(d, key, fail(d, "invalid integer %s", v->u.number.r));
	*out = v->u.number.i;
	return 0;
}

static int get_i32(struct dec *d, jv obj, const char *key, bool *has, int32_t *out)
{
	int64_t v;
	int rc = get_i64(d, obj, key, INT32_MIN, INT32_MAX, has, &v);
	*out = (int32_t)v;
	return rc;
}

/* Fetches an object-valued field (or NULL when absent) with a type check. */
static int get_obj(struct dec *d, jv obj, const char *key, jv *out)
{
	*out = get(obj, key);
	if (*out && !YAJL_IS_OBJECT(*out))
		return WITH_KEY(d, key, fail(d, "expected object, got %s", jtype(*out)));
	return 0;
}

/* Decodes each element of the array obj[key] into a zeroed arena array of item_size bytes. A null
 * element is decoded like an empty object. */
typedef int (*item_fn)(struct dec *d, jv v, void *item);

static int get_array(struct dec *d, jv obj, const char *key, size_t item_size, uint32_t *n_out, void **out,
		     item_fn fn)
{
	int rc = 0;
	jv v = get(obj, key);
	size_t mark = push_key(d, key);
	*n_out = 0;
	*out = NULL;
	if (!v)
		goto out;
	if (!YAJL_IS_ARRAY(v)) {
		rc = fail(d, "expected array, got %s", jtype(v));
		goto out;
	}
	size_t n = v->u.array.len;
	if (n > UINT32_MAX) {
		rc = fail(d, "too many items");
		goto out;
	}
	char *items = alloc(d, n * item_size);
	if (n && !items) {
		rc = nomem(d);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t m = push_idx(d, i);
		jv item = v->u.array.values[i];
		if ((rc = fn(d, YAJL_IS_NULL(item) ? NULL : item, items + i * item_size)))
			goto out;
		pop(d, m);
	}
	*n_out = (uint32_t)n;
	*out = items;
out:
	if (!rc)
		pop(d, mark);
	return rc;
}

static int istr_item(struct dec *d, jv v, void *item)
{
	return str_value(d, v, true, "", item);
}

static int str_item(struct dec *d, jv v, void *item)
{
	return str_value(d, v, false, "", item);
}

static int get_istrs(struct dec *d, jv obj, const char *key, uint32_t *n, const char ***out)
{
	return get_array(d, obj, key, sizeof(const char *), n, (void **)out, istr_item);
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
		return fail(d, "expected object, got %s", jtype(v));
	size_t n = v->u.object.len;
	l->items = alloc(d, n * sizeof(*l->items));
	if (n && !l->items)
		return nomem(d);
	for (size_t i = 0; i < n; i++) {
		const char *key = v->u.object.keys[i];
		struct api_kv *kv = &l->items[l->n];
		int rc = WITH_KEY(d, key, str_value(d, v->u.object.values[i], interned, "", &kv->value));
		if (rc)
			return rc;
		if (!(kv->key = interned ? intern_str(key) : arena_strdup(d->a, key)))
			return nomem(d);
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

static int get_labels(struct dec *d, jv obj, const char *key, struct api_labels *l)
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
		return fail(d, "expected quantity string, got %s", jtype(v));
	}
	int64_t value, mv;
	struct err qe;
	int rc = api_quantity_parse(s, &value, &mv, &qe);
	if (rc)
		return fail_code(d, rc, "%s", qe.msg);
	*out = milli ? mv : value;
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
		return fail(d, "expected object, got %s", jtype(v));
	pthread_once(&names_once, names_init);
	const char *cpu = name_cpu, *memory = name_memory, *eph = name_eph, *pods = name_pods;
	if (!cpu || !memory || !eph || !pods)
		return nomem(d);
	size_t n = v->u.object.len, n_other = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = v->u.object.keys[i];
		n_other += strcmp(k, "cpu") && strcmp(k, "memory") && strcmp(k, "ephemeral-storage") && strcmp(k, "pods");
	}
	r->scalar = alloc(d, n_other * sizeof(*r->scalar)); /* most lists hold only the well-known names */
	if (n_other && !r->scalar)
		return nomem(d);
	for (size_t i = 0; i < n; i++) {
		const char *name = intern_str(v->u.object.keys[i]);
		int64_t q;
		if (!name)
			return nomem(d);
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

static int get_resources(struct dec *d, jv obj, const char *key, struct api_resources *r)
{
	return WITH_KEY(d, key, resources_value(d, get(obj, key), r));
}

/* ---------- selectors ---------- */

static enum api_op parse_op(const char *s)
{
	static const struct {
		const char *s;
		enum api_op op;
	} ops[] = {
		{ "In", API_OP_IN },	 { "NotIn", API_OP_NOT_IN },		  { "Exists", API_OP_EXISTS },
		{ "DoesNotExist", API_OP_DOES_NOT_EXIST }, { "Gt", API_OP_GT }, { "Lt", API_OP_LT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (strcmp(s, ops[i].s) == 0)
			return ops[i].op;
	return API_OP_UNKNOWN;
}

static int requirement_item(struct dec *d, jv v, void *item)
{
	struct api_requirement *r = item;
	const char *op;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "key", true, "", &r->key)) ||
	    (rc = get_str(d, v, "operator", false, "", &op)))
		return rc;
	r->op = parse_op(op);
	return get_istrs(d, v, "values", &r->n_values, &r->values);
}

static int get_requirements(struct dec *d, jv obj, const char *key, uint32_t *n, struct api_requirement **out)
{
	return get_array(d, obj, key, sizeof(**out), n, (void **)out, requirement_item);
}

/* A metav1.LabelSelector, or NULL in *out when absent. */
static int get_selector(struct dec *d, jv obj, const char *key, struct api_label_selector **out)
{
	jv v;
	int rc;
	*out = NULL;
	if ((rc = get_obj(d, obj, key, &v)) || !v)
		return rc;
	struct api_label_selector *s = alloc(d, sizeof(*s));
	if (!s)
		return nomem(d);
	size_t mark = push_key(d, key);
	if ((rc = get_labels(d, v, "matchLabels", &s->match_labels)) ||
	    (rc = get_requirements(d, v, "matchExpressions", &s->n_exprs, &s->exprs)))
		return rc;
	pop(d, mark);
	*out = s;
	return 0;
}

/* ---------- affinity ---------- */

static int node_term_value(struct dec *d, jv v, struct api_node_selector_term *t)
{
	int rc;
	if ((rc = want_object(d, v)) ||
	    (rc = get_requirements(d, v, "matchExpressions", &t->n_exprs, &t->exprs)))
		return rc;
	return get_requirements(d, v, "matchFields", &t->n_fields, &t->fields);
}

static int node_term_item(struct dec *d, jv v, void *item)
{
	return node_term_value(d, v, item);
}

static int preferred_node_item(struct dec *d, jv v, void *item)
{
	struct api_preferred_node_term *p = item;
	jv pref;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_i32(d, v, "weight", NULL, &p->weight)) ||
	    (rc = get_obj(d, v, "preference", &pref)))
		return rc;
	return WITH_KEY(d, "preference", node_term_value(d, pref, &p->term));
}

static int node_affinity(struct dec *d, jv v, struct api_node_affinity **out)
{
	struct api_node_affinity *na = alloc(d, sizeof(*na));
	jv req;
	int rc;
	if (!na)
		return nomem(d);
	if ((rc = get_obj(d, v, "requiredDuringSchedulingIgnoredDuringExecution", &req)))
		return rc;
	if (req) {
		na->has_required = true;
		size_t mark = push_key(d, "requiredDuringSchedulingIgnoredDuringExecution");
		if ((rc = get_array(d, req, "nodeSelectorTerms", sizeof(*na->required), &na->n_required,
				    (void **)&na->required, node_term_item)))
			return rc;
		pop(d, mark);
	}
	if ((rc = get_array(d, v, "preferredDuringSchedulingIgnoredDuringExecution", sizeof(*na->preferred),
			    &na->n_preferred, (void **)&na->preferred, preferred_node_item)))
		return rc;
	*out = na;
	return 0;
}

static int pod_term_value(struct dec *d, jv v, struct api_pod_affinity_term *t)
{
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_selector(d, v, "labelSelector", &t->label_selector)) ||
	    (rc = get_istrs(d, v, "namespaces", &t->n_namespaces, &t->namespaces)) ||
	    (rc = get_selector(d, v, "namespaceSelector", &t->namespace_selector)) ||
	    (rc = get_str(d, v, "topologyKey", true, "", &t->topology_key)) ||
	    (rc = get_istrs(d, v, "matchLabelKeys", &t->n_match_label_keys, &t->match_label_keys)))
		return rc;
	return get_istrs(d, v, "mismatchLabelKeys", &t->n_mismatch_label_keys, &t->mismatch_label_keys);
}

static int pod_term_item(struct dec *d, jv v, void *item)
{
	return pod_term_value(d, v, item);
}

static int weighted_pod_term_item(struct dec *d, jv v, void *item)
{
	struct api_weighted_pod_affinity_term *w = item;
	jv t;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_i32(d, v, "weight", NULL, &w->weight)) ||
	    (rc = get_obj(d, v, "podAffinityTerm", &t)))
		return rc;
	return WITH_KEY(d, "podAffinityTerm", pod_term_value(d, t, &w->term));
}

static int pod_affinity(struct dec *d, jv v, struct api_pod_affinity **out)
{
	struct api_pod_affinity *pa = alloc(d, sizeof(*pa));
	int rc;
	if (!pa)
		return nomem(d);
	if ((rc = get_array(d, v, "requiredDuringSchedulingIgnoredDuringExecution", sizeof(*pa->required),
			    &pa->n_required, (void **)&pa->required, pod_term_item)) ||
	    (rc = get_array(d, v, "preferredDuringSchedulingIgnoredDuringExecution", sizeof(*pa->preferred),
			    &pa->n_preferred, (void **)&pa->preferred, weighted_pod_term_item)))
		return rc;
	*out = pa;
	return 0;
}

static int affinity_value(struct dec *d, jv v, struct api_affinity *a)
{
	jv na, pa, paa;
	int rc;
	if ((rc = get_obj(d, v, "nodeAffinity", &na)) || (rc = get_obj(d, v, "podAffinity", &pa)) ||
	    (rc = get_obj(d, v, "podAntiAffinity", &paa)))
		return rc;
	if (na && (rc = WITH_KEY(d, "nodeAffinity", node_affinity(d, na, &a->node_affinity))))
		return rc;
	if (pa && (rc = WITH_KEY(d, "podAffinity", pod_affinity(d, pa, &a->pod_affinity))))
		return rc;
	if (paa && (rc = WITH_KEY(d, "podAntiAffinity", pod_affinity(d, paa, &a->pod_anti_affinity))))
		return rc;
	return 0;
}

/* ---------- taints and tolerations ---------- */

static int effect_value(struct dec *d, jv obj, enum api_taint_effect *out)
{
	const char *s;
	int rc = get_str(d, obj, "effect", false, "", &s);
	if (rc)
		return rc;
	if (!s[0])
		*out = API_EFFECT_NONE;
	else if (!strcmp(s, "NoSchedule"))
		*out = API_EFFECT_NO_SCHEDULE;
	else if (!strcmp(s, "PreferNoSchedule"))
		*out = API_EFFECT_PREFER_NO_SCHEDULE;
	else if (!strcmp(s, "NoExecute"))
		*out = API_EFFECT_NO_EXECUTE;
	else
		*out = API_EFFECT_UNKNOWN;
	return 0;
}

static int toleration_item(struct dec *d, jv v, void *item)
{
	struct api_toleration *t = item;
	const char *op;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "key", true, "", &t->key)) ||
	    (rc = get_str(d, v, "operator", false, "", &op)) || (rc = get_str(d, v, "value", true, "", &t->value)) ||
	    (rc = effect_value(d, v, &t->effect)) ||
	    (rc = get_i64(d, v, "tolerationSeconds", INT64_MIN, INT64_MAX, &t->has_toleration_seconds,
			  &t->toleration_seconds)))
		return rc;
	t->op = (!op[0] || !strcmp(op, "Equal")) ? API_TOLERATION_EQUAL
		: !strcmp(op, "Exists")		 ? API_TOLERATION_EXISTS
						 : API_TOLERATION_UNKNOWN;
	return 0;
}

static int taint_item(struct dec *d, jv v, void *item)
{
	struct api_taint *t = item;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "key", true, "", &t->key)) ||
	    (rc = get_str(d, v, "value", true, "", &t->value)))
		return rc;
	return effect_value(d, v, &t->effect);
}

/* ---------- topology spread ---------- */

static int policy_value(struct dec *d, jv obj, const char *key, enum api_inclusion_policy *out)
{
	const char *s;
	int rc = get_str(d, obj, key, false, "", &s);
	if (rc)
		return rc;
	if (!s[0])
		*out = API_POLICY_UNSET;
	else if (!strcmp(s, "Honor"))
		*out = API_POLICY_HONOR;
	else if (!strcmp(s, "Ignore"))
		*out = API_POLICY_IGNORE;
	else
		return WITH_KEY(d, key, fail(d, "unsupported value \"%s\": supported values: \"Honor\", \"Ignore\"", s));
	return 0;
}

static int spread_item(struct dec *d, jv v, void *item)
{
	struct api_topology_spread_constraint *c = item;
	const char *when;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_i32(d, v, "maxSkew", NULL, &c->max_skew)) ||
	    (rc = get_str(d, v, "topologyKey", true, "", &c->topology_key)) ||
	    (rc = get_str(d, v, "whenUnsatisfiable", false, "", &when)) ||
	    (rc = get_selector(d, v, "labelSelector", &c->label_selector)) ||
	    (rc = get_i32(d, v, "minDomains", &c->has_min_domains, &c->min_domains)) ||
	    (rc = policy_value(d, v, "nodeAffinityPolicy", &c->node_affinity_policy)) ||
	    (rc = policy_value(d, v, "nodeTaintsPolicy", &c->node_taints_policy)) ||
	    (rc = get_istrs(d, v, "matchLabelKeys", &c->n_match_label_keys, &c->match_label_keys)))
		return rc;
	if (!strcmp(when, "DoNotSchedule"))
		c->when_unsatisfiable = API_DO_NOT_SCHEDULE;
	else if (!strcmp(when, "ScheduleAnyway"))
		c->when_unsatisfiable = API_SCHEDULE_ANYWAY;
	else
		return WITH_KEY(d, "whenUnsatisfiable",
				fail(d, "unsupported value \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
				     when));
	return 0;
}

/* ---------- containers and volumes ---------- */

static int port_item(struct dec *d, jv v, void *item)
{
	struct api_container_port *p = item;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_i32(d, v, "containerPort", NULL, &p->container_port)) ||
	    (rc = get_i32(d, v, "hostPort", NULL, &p->host_port)) ||
	    (rc = get_str(d, v, "protocol", true, "", &p->protocol)) ||
	    (rc = get_str(d, v, "hostIP", true, "", &p->host_ip)))
		return rc;
	if (!p->protocol[0] && !(p->protocol = intern_str("TCP")))
		return nomem(d);
	return 0;
}

static int container_item(struct dec *d, jv v, void *item)
{
	struct api_container *c = item;
	const char *restart;
	jv res;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "name", true, "", &c->name)) ||
	    (rc = get_str(d, v, "image", true, "", &c->image)) ||
	    (rc = get_array(d, v, "ports", sizeof(*c->ports), &c->n_ports, (void **)&c->ports, port_item)) ||
	    (rc = get_obj(d, v, "resources", &res)) || (rc = get_str(d, v, "restartPolicy", false, "", &restart)))
		return rc;
	c->restart_policy_always = !strcmp(restart, "Always");
	size_t mark = push_key(d, "resources");
	if ((rc = get_resources(d, res, "requests", &c->requests)) || (rc = get_resources(d, res, "limits", &c->limits)))
		return rc;
	pop(d, mark);
	return 0;
}

/* The fields of each volume source csched reads (readOnly is read after them, for all). */
static int vol_pvc(struct dec *d, jv s, struct api_volume *vol)
{
	return get_str(d, s, "claimName", false, "", &vol->claim_name);
}

static int vol_gce_pd(struct dec *d, jv s, struct api_volume *vol)
{
	return get_str(d, s, "pdName", false, "", &vol->pd_name);
}

static int vol_aws_ebs(struct dec *d, jv s, struct api_volume *vol)
{
	return get_str(d, s, "volumeID", false, "", &vol->volume_id);
}

static int vol_rbd(struct dec *d, jv s, struct api_volume *vol)
{
	int rc;
	if ((rc = get_array(d, s, "monitors", sizeof(char *), &vol->n_monitors, (void **)&vol->monitors, str_item)) ||
	    (rc = get_str(d, s, "pool", false, "rbd", &vol->pool)))
		return rc;
	return get_str(d, s, "image", false, "", &vol->image);
}

static int vol_iscsi(struct dec *d, jv s, struct api_volume *vol)
{
	int rc;
	if ((rc = get_str(d, s, "targetPortal", false, "", &vol->target_portal)) ||
	    (rc = get_str(d, s, "iqn", false, "", &vol->iqn)))
		return rc;
	return get_i32(d, s, "lun", NULL, &vol->lun);
}

/* Volume sources in the order they are looked for: the first one present is the volume's. */
static const struct {
	const char *key;
	enum api_volume_kind kind;
	int (*decode)(struct dec *d, jv s, struct api_volume *vol);
} volume_sources[] = {
	{"persistentVolumeClaim", API_VOLUME_PVC, vol_pvc},
	{"gcePersistentDisk", API_VOLUME_GCE_PD, vol_gce_pd},
	{"awsElasticBlockStore", API_VOLUME_AWS_EBS, vol_aws_ebs},
	{"rbd", API_VOLUME_RBD, vol_rbd},
	{"iscsi", API_VOLUME_ISCSI, vol_iscsi},
};

static int volume_item(struct dec *d, jv v, void *item)
{
	struct api_volume *vol = item;
	jv s;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "name", false, "", &vol->name)))
		return rc;
	vol->kind = API_VOLUME_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(volume_sources); i++) {
		if ((rc = get_obj(d, v, volume_sources[i].key, &s)))
			return rc;
		if (!s)
			continue;
		vol->kind = volume_sources[i].kind;
		size_t m = push_key(d, volume_sources[i].key);
		if ((rc = volume_sources[i].decode(d, s, vol)) || (rc = get_bool(d, s, "readOnly", &vol->read_only)))
			return rc;
		pop(d, m);
		return 0;
	}
	return 0;
}

static int gate_item(struct dec *d, jv v, void *item)
{
	int rc = want_object(d, v);
	return rc ? rc : get_str(d, v, "name", false, "", item);
}

/* ---------- metadata and status ---------- */

static int get_time_us(struct dec *d, jv obj, const char *key, bool *has, int64_t *us)
{
	const char *s;
	*us = 0;
	if (has)
		*has = false;
	int rc = get_str(d, obj, key, false, "", &s);
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
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "apiVersion", false, "", &o->api_version)) ||
	    (rc = get_str(d, v, "kind", false, "", &o->kind)) || (rc = get_str(d, v, "name", false, "", &o->name)) ||
	    (rc = get_str(d, v, "uid", false, "", &o->uid)))
		return rc;
	return get_bool(d, v, "controller", &o->controller);
}

static int condition_item(struct dec *d, jv v, void *item)
{
	struct api_condition *c = item;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_str(d, v, "type", true, "", &c->type)) ||
	    (rc = get_str(d, v, "status", true, "", &c->status)) ||
	    (rc = get_str(d, v, "reason", false, "", &c->reason)))
		return rc;
	return get_str(d, v, "message", false, "", &c->message);
}

/* Sets d->ns/d->name from metadata before anything else so every message names the object. */
static void peek_identity(struct dec *d, jv obj)
{
	jv md = get(obj, "metadata");
	jv name = get(md, "name"), ns = get(md, "namespace");
	d->name = YAJL_IS_STRING(name) ? name->u.string : NULL;
	d->ns = YAJL_IS_STRING(ns) ? ns->u.string : NULL;
}

static int meta_value(struct dec *d, jv obj, struct api_meta *m)
{
	jv md;
	int64_t us;
	int rc;
	if ((rc = get_obj(d, obj, "metadata", &md)))
		return rc;
	size_t mark = push_key(d, "metadata");
	/* A pod's name is unique to it: interning it would keep every name ever seen. A pod's UID is
	 * interned (the cache, queue and plugins compare them by pointer); a node's is not read.
	 * Annotations are read only for nodes (NodeAnnotationChange); no plugin reads a pod's. */
	if ((rc = get_str(d, md, "name", !d->pod, "", &m->name)) ||
	    (rc = get_str(d, md, "namespace", true, "", &m->namespace)) ||
	    (rc = get_str(d, md, "uid", d->pod, "", &m->uid)) ||
	    (rc = get_str(d, md, "resourceVersion", false, "", &m->resource_version)) ||
	    (rc = get_labels(d, md, "labels", &m->labels)) ||
	    (!d->pod && (rc = WITH_KEY(d, "annotations", labels_value(d, get(md, "annotations"), false, &m->annotations)))) ||
	    (rc = get_array(d, md, "ownerReferences", sizeof(*m->owner_refs), &m->n_owner_refs,
			    (void **)&m->owner_refs, owner_item)) ||
	    (rc = get_time_us(d, md, "creationTimestamp", NULL, &us)))
		return rc;
	m->creation_timestamp = us / 1000000;
	if ((rc = get_time_us(d, md, "deletionTimestamp", &m->being_deleted, &us)))
		return rc;
	m->deletion_timestamp = us / 1000000;
	pop(d, mark);
	return 0;
}

/* ---------- Pod ---------- */

static int pod_spec(struct dec *d, jv spec, struct api_pod *p)
{
	const char *preempt;
	jv aff, res;
	int rc;
	if ((rc = get_str(d, spec, "nodeName", true, "", &p->node_name)) ||
	    (rc = get_str(d, spec, "schedulerName", true, "default-scheduler", &p->scheduler_name)) ||
	    (rc = get_i32(d, spec, "priority", &p->has_priority, &p->priority)) ||
	    (rc = get_str(d, spec, "preemptionPolicy", false, "", &preempt)))
		return rc;
	if (!preempt[0] || !strcmp(preempt, "PreemptLowerPriority"))
		p->preemption_policy = API_PREEMPT_LOWER_PRIORITY;
	else if (!strcmp(preempt, "Never"))
		p->preemption_policy = API_PREEMPT_NEVER;
	else
		return WITH_KEY(d, "preemptionPolicy",
				fail(d, "unsupported value \"%s\": supported values: \"Never\", \"PreemptLowerPriority\"",
				     preempt));
	/* An empty schedulerName is defaulted by the apiserver; treat it like an absent one. */
	if (!p->scheduler_name[0] && !(p->scheduler_name = intern_str("default-scheduler")))
		return nomem(d);
	if ((rc = get_labels(d, spec, "nodeSelector", &p->node_selector)) || (rc = get_obj(d, spec, "affinity", &aff)))
		return rc;
	if (aff && (rc = WITH_KEY(d, "affinity", affinity_value(d, aff, &p->affinity))))
		return rc;
	if ((rc = get_array(d, spec, "tolerations", sizeof(*p->tolerations), &p->n_tolerations,
			    (void **)&p->tolerations, toleration_item)) ||
	    (rc = get_array(d, spec, "topologySpreadConstraints", sizeof(*p->spread_constraints),
			    &p->n_spread_constraints, (void **)&p->spread_constraints, spread_item)) ||
	    (rc = get_array(d, spec, "containers", sizeof(*p->containers), &p->n_containers, (void **)&p->containers,
			    container_item)) ||
	    (rc = get_array(d, spec, "initContainers", sizeof(*p->init_containers), &p->n_init_containers,
			    (void **)&p->init_containers, container_item)) ||
	    (rc = get_resources(d, spec, "overhead", &p->overhead)) || (rc = get_obj(d, spec, "resources", &res)))
		return rc;
	if (res && (rc = WITH_KEY(d, "resources", get_resources(d, res, "requests", &p->pod_requests))))
		return rc;
	if ((rc = get_array(d, spec, "volumes", sizeof(*p->volumes), &p->n_volumes, (void **)&p->volumes,
			    volume_item)) ||
	    (rc = get_array(d, spec, "schedulingGates", sizeof(char *), &p->n_scheduling_gates,
			    (void **)&p->scheduling_gates, gate_item)))
		return rc;
	return get_bool(d, spec, "hostNetwork", &p->host_network);
}

static int pod_status(struct dec *d, jv st, struct api_pod *p)
{
	int rc;
	if ((rc = get_str(d, st, "phase", true, "", &p->phase)) ||
	    (rc = get_array(d, st, "conditions", sizeof(*p->conditions), &p->n_conditions, (void **)&p->conditions,
			    condition_item)))
		return rc;
	return get_str(d, st, "nominatedNodeName", true, "", &p->nominated_node_name);
}

static int pod_fill(struct dec *d, jv obj, struct api_pod *p)
{
	jv spec, st;
	int rc;
	if (!YAJL_IS_OBJECT(obj))
		return fail(d, "expected object, got %s", obj ? jtype(obj) : "nothing");
	if ((rc = meta_value(d, obj, &p->meta)) || (rc = get_obj(d, obj, "spec", &spec)) ||
	    (rc = get_obj(d, obj, "status", &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", pod_spec(d, spec, p))))
		return rc;
	return WITH_KEY(d, "status", pod_status(d, st, p));
}

static struct api_pod *pod_decode_in(const struct yajl_val_s *obj, size_t first_block, struct err *e)
{
	struct dec d = { .e = e, .kind = "pod", .pod = true };
	struct api_pod *p = NULL;
	peek_identity(&d, (jv)obj);
	if (!(d.a = arena_new(first_block)) || !(p = arena_alloc(d.a, sizeof(*p)))) {
		nomem(&d);
		goto fail;
	}
	p->arena = d.a;
	p->refs = 1;
	if (pod_fill(&d, (jv)obj, p))
		goto fail;
	return p;
fail:
	arena_free(d.a);
	return NULL;
}

struct api_pod *api_pod_decode(const struct yajl_val_s *obj, struct err *e)
{
	struct api_pod *p = pod_decode_in(obj, hint_get(&pod_hint), e);
	if (!p)
		return NULL;
	size_t need = arena_footprint(p->arena);
	hint_learn(&pod_hint, need);
	if (arena_overflowed(p->arena)) {
		api_pod_unref(p);
		p = pod_decode_in(obj, need, e);
	}
	return p;
}

/* ---------- Node ---------- */

static int image_item(struct dec *d, jv v, void *item)
{
	struct api_node_image *im = item;
	int rc;
	if ((rc = want_object(d, v)) || (rc = get_istrs(d, v, "names", &im->n_names, &im->names)))
		return rc;
	return get_i64(d, v, "sizeBytes", INT64_MIN, INT64_MAX, NULL, &im->size_bytes);
}

static int node_spec(struct dec *d, jv spec, struct api_node *n)
{
	int rc = get_bool(d, spec, "unschedulable", &n->unschedulable);
	if (rc)
		return rc;
	return get_array(d, spec, "taints", sizeof(*n->taints), &n->n_taints, (void **)&n->taints, taint_item);
}

static int node_status(struct dec *d, jv st, struct api_node *n)
{
	int rc;
	if ((rc = get_resources(d, st, "capacity", &n->capacity)) ||
	    (rc = get_resources(d, st, "allocatable", &n->allocatable)) ||
	    (rc = get_array(d, st, "conditions", sizeof(*n->conditions), &n->n_conditions, (void **)&n->conditions,
			    condition_item)))
		return rc;
	return get_array(d, st, "images", sizeof(*n->images), &n->n_images, (void **)&n->images, image_item);
}

static int node_fill(struct dec *d, jv obj, struct api_node *n)
{
	jv spec, st;
	int rc;
	if (!YAJL_IS_OBJECT(obj))
		return fail(d, "expected object, got %s", obj ? jtype(obj) : "nothing");
	if ((rc = meta_value(d, obj, &n->meta)) || (rc = get_obj(d, obj, "spec", &spec)) ||
	    (rc = get_obj(d, obj, "status", &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", node_spec(d, spec, n))))
		return rc;
	return WITH_KEY(d, "status", node_status(d, st, n));
}

static struct api_node *node_decode_in(const struct yajl_val_s *obj, size_t first_block, struct err *e)
{
	struct dec d = { .e = e, .kind = "node" };
	struct api_node *n = NULL;
	peek_identity(&d, (jv)obj);
	if (!(d.a = arena_new(first_block)) || !(n = arena_alloc(d.a, sizeof(*n)))) {
		nomem(&d);
		goto fail;
	}
	n->arena = d.a;
	n->refs = 1;
	if (node_fill(&d, (jv)obj, n))
		goto fail;
	return n;
fail:
	arena_free(d.a);
	return NULL;
}

struct api_node *api_node_decode(const struct yajl_val_s *obj, struct err *e)
{
	struct api_node *n = node_decode_in(obj, hint_get(&node_hint), e);
	if (!n)
		return NULL;
	size_t need = arena_footprint(n->arena);
	hint_learn(&node_hint, need);
	if (arena_overflowed(n->arena)) {
		api_node_unref(n);
		n = node_decode_in(obj, need, e);
	}
	return n;
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

struct api_pod *api_pod_decode_json(const char *json, size_t len, struct err *e)
{
	struct api__json *j = api__json_new();
	jv tree = parse_text(j, "pod", json, len, e);
	struct api_pod *p = tree ? api_pod_decode(tree, e) : NULL;
	api__json_free(j);
	return p;
}

struct api_node *api_node_decode_json(const char *json, size_t len, struct err *e)
{
	struct api__json *j = api__json_new();
	jv tree = parse_text(j, "node", json, len, e);
	struct api_node *n = tree ? api_node_decode(tree, e) : NULL;
	api__json_free(j);
	return n;
}

/* ---------- Lease ---------- */

static int lease_dup(struct dec *d, jv obj, const char *key, bool null_when_absent, char **out)
{
	const char *s;
	int rc = get_str(d, obj, key, false, "", &s);
	*out = NULL;
	if (rc)
		return rc;
	if (null_when_absent && !get(obj, key))
		return 0;
	if (!(*out = strdup(s)))
		return nomem(d);
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
		rc = nomem(&d);
		goto out;
	}
	if (!YAJL_IS_OBJECT((jv)obj)) {
		rc = fail(&d, "expected object, got %s", obj ? jtype((jv)obj) : "nothing");
		goto out;
	}
	if ((rc = get_obj(&d, (jv)obj, "metadata", &md)) || (rc = get_obj(&d, (jv)obj, "spec", &spec)))
		goto out;
	size_t mark = push_key(&d, "metadata");
	if ((rc = lease_dup(&d, md, "name", false, &l.name)) || (rc = lease_dup(&d, md, "namespace", false, &l.namespace)) ||
	    (rc = lease_dup(&d, md, "resourceVersion", false, &l.resource_version)))
		goto out;
	pop(&d, mark);
	mark = push_key(&d, "spec");
	if ((rc = lease_dup(&d, spec, "holderIdentity", true, &l.holder_identity)) ||
	    (rc = get_i32(&d, spec, "leaseDurationSeconds", NULL, &l.lease_duration_seconds)) ||
	    (rc = get_time_us(&d, spec, "acquireTime", NULL, &l.acquire_time_us)) ||
	    (rc = get_time_us(&d, spec, "renewTime", NULL, &l.renew_time_us)) ||
	    (rc = get_i32(&d, spec, "leaseTransitions", NULL, &l.lease_transitions)))
		goto out;
	pop(&d, mark);
	*out = l;
	memset(&l, 0, sizeof(l));
out:
	api_lease_release(&l);
	arena_free(d.a);
	return rc;
}
