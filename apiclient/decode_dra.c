/* Decoding of the resource.k8s.io/v1 kinds the DynamicResources plugin and its allocator read
 * (ResourceClaim, ResourceSlice, DeviceClass, DeviceTaintRule; api_dra.h), and their reference
 * counting. Field names and defaults follow k8s.io/api resource/v1 types.go; maps of the API
 * become arrays sorted by name, as Go's encoding/json orders map keys, so that an allocation
 * result written back and `csched devices` list them as kubectl does. */
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"
#include "common/macros.h"

/* Refcounting of a kind whose struct starts with refs, arena and meta (as all these do). */
#define DRA_REFCOUNT(type, fn)                                                         \
	struct type *fn##_ref(struct type *o)                                          \
	{                                                                              \
		if (o)                                                                 \
			__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);             \
		return o;                                                              \
	}                                                                              \
	void fn##_unref(struct type *o)                                                \
	{                                                                              \
		if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {     \
			intern_release_n(o->meta.interned, o->meta.n_interned);        \
			arena_free(o->arena);                                          \
		}                                                                      \
	}

DRA_REFCOUNT(api_resource_claim, api_resource_claim)
/* A slice may be a copy with DeviceTaintRules applied (dra_slice_with_taint_rules): it holds its
 * base, whose arena has everything the copy points to, and releases it with itself. */
struct api_resource_slice *api_resource_slice_ref(struct api_resource_slice *o)
{
	if (o)
		__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
	return o;
}

void api_resource_slice_unref(struct api_resource_slice *o)
{
	if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct api_resource_slice *base = o->base;
		intern_release_n(o->meta.interned, o->meta.n_interned);
		arena_free(o->arena);
		api_resource_slice_unref(base);
	}
}
DRA_REFCOUNT(api_device_class, api_device_class)
DRA_REFCOUNT(api_device_taint_rule, api_device_taint_rule)

/* ---------- shared pieces ---------- */

/* The value of key in obj, NULL when absent or null (Go leaves a pointer nil, a slice empty). */
static jv field(jv obj, const char *key)
{
	jv v = YAJL_IS_OBJECT(obj) ? yajl_tree_get(obj, (const char *[]){ key, NULL }, yajl_t_any) : NULL;
	return v && !YAJL_IS_NULL(v) ? v : NULL;
}

/* A *bool: *has when present and not null. */
static int opt_bool(struct dec *d, jv obj, const char *key, bool *has, bool *out)
{
	*has = field(obj, key) != NULL;
	return api__dec_get_bool(d, obj, key, out);
}

/* One quantity (path already pushed) as Quantity.UnmarshalJSON reads it: a string (surrounding
 * spaces trimmed) or a bare JSON number; q->s keeps the text, q->milli its MilliValue(). */
static int quantity_value(struct dec *d, jv v, struct api_dra_quantity *q)
{
	const char *s;
	size_t n;
	q->s = "0";
	q->milli = 0;
	if (!v || YAJL_IS_NULL(v))
		return 0;
	if (YAJL_IS_STRING(v)) {
		s = v->u.string;
		n = strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
			n--;
		while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
			s++;
			n--;
		}
	} else if (YAJL_IS_NUMBER(v)) {
		s = v->u.number.r;
		n = strlen(s);
	} else {
		return fail(d, "expected quantity string, got %s", api__dec_jtype(v));
	}
	char *text = arena_alloc(d->a, n + 1);
	if (!text)
		return api__dec_nomem(d);
	memcpy(text, s, n);
	text[n] = '\0';
	int64_t value;
	struct err qe;
	int rc = api_quantity_parse(text, &value, &q->milli, &qe);
	if (rc)
		return api__dec_fail_code(d, rc, "%s", qe.msg);
	q->s = text;
	return 0;
}

static int get_quantity(struct dec *d, jv obj, const char *key, bool *has, struct api_dra_quantity *q)
{
	jv v = field(obj, key);
	if (has)
		*has = v != NULL;
	return WITH_KEY(d, key, quantity_value(d, v, q));
}

/* Every map entry's struct starts with its interned name. */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef int (*entry_fn)(struct dec *d, jv v, void *item);

/* The map obj[key] into a zeroed arena array of item_size-byte entries sorted by name; the name
 * (first member) is interned. A key given twice keeps its last value, as encoding/json does. */
static int get_map(struct dec *d, jv obj, const char *key, size_t item_size, uint32_t *n_out, void **out, entry_fn fn)
{
	jv m = field(obj, key);
	size_t mark = api__dec_push_key(d, key);
	int rc = 0;
	*n_out = 0;
	*out = NULL;
	if (!m)
		goto out;
	if (!YAJL_IS_OBJECT(m)) {
		rc = fail(d, "expected object, got %s", api__dec_jtype(m));
		goto out;
	}
	size_t n = m->u.object.len;
	if (n > UINT32_MAX) {
		rc = fail(d, "too many entries");
		goto out;
	}
	char *items = api__dec_alloc(d, n * item_size);
	if (n && !items) {
		rc = api__dec_nomem(d);
		goto out;
	}
	uint32_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = m->u.object.keys[i];
		bool later = false;
		for (size_t j = i + 1; j < n && !later; j++)
			later = !strcmp(name, m->u.object.keys[j]);
		if (later)
			continue;
		char *item = items + k * item_size;
		memset(item, 0, item_size);
		const char *iname = api__dec_intern(d, name);
		if (!iname) {
			rc = api__dec_nomem(d);
			goto out;
		}
		*(const char **)item = iname;
		size_t km = api__dec_push_key(d, name);
		if ((rc = fn(d, m->u.object.values[i], item)))
			goto out;
		api__dec_pop(d, km);
		k += *(const char **)item != NULL; /* fn cleared the name: the entry is dropped */
	}
	if (k)
		qsort(items, k, item_size, by_name);
	*n_out = k;
	*out = k ? items : NULL;
out:
	if (!rc)
		api__dec_pop(d, mark);
	return rc;
}

/* A map value that is a bare quantity (capacity.requests, consumedCapacity). */
static int named_quantity_entry(struct dec *d, jv v, void *item)
{
	return quantity_value(d, v, &((struct api_dra_named_quantity *)item)->value);
}

/* A map value that is a Counter ({"value": quantity}). */
static int counter_entry(struct dec *d, jv v, void *item)
{
	struct api_dra_counter *c = item;
	int rc = api__dec_want_object(d, v);
	return rc ? rc : get_quantity(d, v, "value", NULL, &c->value);
}

/* A v1.NodeSelector at obj[key], NULL when absent. */
static int get_node_selector(struct dec *d, jv obj, const char *key, const struct api_node_selector **out)
{
	jv v;
	int rc = api__dec_get_obj(d, obj, key, &v);
	*out = NULL;
	if (rc || !v)
		return rc;
	struct api_node_selector *ns = api__dec_alloc(d, sizeof(*ns));
	if (!ns)
		return api__dec_nomem(d);
	memset(ns, 0, sizeof(*ns));
	if ((rc = WITH_KEY(d, key, api__dec_get_array(d, v, "nodeSelectorTerms", sizeof(*ns->terms), &ns->n_terms,
						       (void **)&ns->terms, api__dec_node_term_item))))
		return rc;
	*out = ns;
	return 0;
}

/* A *metav1.Time as Unix seconds. */
static int get_time_s(struct dec *d, jv obj, const char *key, bool *has, int64_t *s)
{
	int64_t us;
	int rc = api__dec_get_time_us(d, obj, key, has, &us);
	*s = us / 1000000;
	return rc;
}

static int taint_value(struct dec *d, jv v, struct api_dra_taint *t)
{
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", false, "", &t->key)) ||
	    (rc = api__dec_get_str(d, v, "value", false, "", &t->value)) ||
	    (rc = api__dec_get_str(d, v, "effect", false, "", &t->effect_text)) ||
	    (rc = get_time_s(d, v, "timeAdded", &t->has_time_added, &t->time_added)))
		return rc;
	t->effect = !strcmp(t->effect_text, "None")	    ? API_DRA_EFFECT_NONE
		    : !strcmp(t->effect_text, "NoSchedule") ? API_DRA_EFFECT_NO_SCHEDULE
		    : !strcmp(t->effect_text, "NoExecute")  ? API_DRA_EFFECT_NO_EXECUTE
							    : API_DRA_EFFECT_OTHER;
	return 0;
}

static int taint_item(struct dec *d, jv v, void *item)
{
	return taint_value(d, v, item);
}

static int toleration_item(struct dec *d, jv v, void *item)
{
	struct api_dra_toleration *t = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", false, "", &t->key)) ||
	    (rc = api__dec_get_str(d, v, "operator", false, "", &t->op_text)) ||
	    (rc = api__dec_get_str(d, v, "value", false, "", &t->value)) ||
	    (rc = api__dec_get_str(d, v, "effect", false, "", &t->effect)) ||
	    (rc = api__dec_get_i64(d, v, "tolerationSeconds", INT64_MIN, INT64_MAX, &t->has_toleration_seconds,
				   &t->toleration_seconds)))
		return rc;
	t->op = !t->op_text[0] || !strcmp(t->op_text, "Equal") ? API_DRA_TOL_EQUAL
		: !strcmp(t->op_text, "Exists")		       ? API_DRA_TOL_EXISTS
							       : API_DRA_TOL_OTHER;
	return 0;
}

/* selectors[].cel.expression */
static int selector_item(struct dec *d, jv v, void *item)
{
	jv cel;
	int rc;
	*(const char **)item = "";
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_obj(d, v, "cel", &cel)))
		return rc;
	return WITH_KEY(d, "cel", api__dec_get_str(d, cel, "expression", false, "", item));
}

static int get_selectors(struct dec *d, jv obj, uint32_t *n, const char ***out)
{
	return api__dec_get_array(d, obj, "selectors", sizeof(const char *), n, (void **)out, selector_item);
}

static int get_strs(struct dec *d, jv obj, const char *key, uint32_t *n, const char ***out)
{
	return api__dec_get_array(d, obj, key, sizeof(const char *), n, (void **)out, api__dec_str_item);
}

/* The requests and opaque parts of a configuration; the source is the caller's. */
static int config_value(struct dec *d, jv v, struct api_dra_config *c)
{
	jv op, params;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = get_strs(d, v, "requests", &c->n_requests, &c->requests)) ||
	    (rc = api__dec_get_obj(d, v, "opaque", &op)) || !op)
		return rc;
	size_t mark = api__dec_push_key(d, "opaque");
	if ((rc = api__dec_get_str(d, op, "driver", false, "", &c->driver)))
		return rc;
	if ((params = field(op, "parameters"))) {
		size_t len;
		if ((rc = WITH_KEY(d, "parameters", api__dec_keep_json(d, params, &c->parameters_json, &len))))
			return rc;
		if (len > UINT32_MAX)
			return WITH_KEY(d, "parameters", fail(d, "too large"));
		c->parameters_len = (uint32_t)len;
	}
	api__dec_pop(d, mark);
	return 0;
}

/* A claim's or class's own configuration (no source). */
static int config_item(struct dec *d, jv v, void *item)
{
	struct api_dra_config *c = item;
	c->source = API_DRA_CONFIG_NONE;
	return config_value(d, v, c);
}

/* An allocation result's configuration: source FromClass or FromClaim. */
static int alloc_config_item(struct dec *d, jv v, void *item)
{
	struct api_dra_config *c = item;
	const char *src;
	int rc;
	if ((rc = config_value(d, v, c)) || (rc = api__dec_get_str(d, v, "source", false, "", &src)))
		return rc;
	if (!strcmp(src, "FromClass"))
		c->source = API_DRA_CONFIG_FROM_CLASS;
	else if (!strcmp(src, "FromClaim"))
		c->source = API_DRA_CONFIG_FROM_CLAIM;
	else
		return WITH_KEY(d, "source",
				fail(d, "unsupported value \"%.64s\": supported values: \"FromClaim\", \"FromClass\"", src));
	return 0;
}

/* ---------- ResourceSlice ---------- */

static struct arena_hint slice_hint = { ARENA_HINT_START };

/* One attribute: the first of int, bool, string, version that is set. One holding only the
 * list-typed values (DRAListTypeAttributes, off) is dropped: its name is cleared, which get_map
 * reads as "leave out". */
static int attribute_entry(struct dec *d, jv v, void *item)
{
	struct api_dra_attribute *a = item;
	bool has;
	int rc;
	if ((rc = api__dec_want_object(d, v)))
		return rc;
	if ((rc = api__dec_get_i64(d, v, "int", INT64_MIN, INT64_MAX, &has, &a->i)) || has) {
		a->type = API_DRA_ATTR_INT;
		return rc;
	}
	if ((rc = opt_bool(d, v, "bool", &has, &a->b)) || has) {
		a->type = API_DRA_ATTR_BOOL;
		return rc;
	}
	if ((rc = api__dec_get_opt_str(d, v, "string", false, &a->s)) || a->s) {
		a->type = API_DRA_ATTR_STRING;
		return rc;
	}
	if ((rc = api__dec_get_opt_str(d, v, "version", false, &a->s)) || a->s) {
		a->type = API_DRA_ATTR_VERSION;
		return rc;
	}
	a->name = NULL;
	return 0;
}

static int quantities_item(struct dec *d, jv v, void *item)
{
	return quantity_value(d, v, item);
}

static int capacity_entry(struct dec *d, jv v, void *item)
{
	struct api_dra_capacity *c = item;
	jv rp, range;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = get_quantity(d, v, "value", NULL, &c->value)) ||
	    (rc = api__dec_get_obj(d, v, "requestPolicy", &rp)) || !rp)
		return rc;
	struct api_dra_request_policy *p = api__dec_alloc(d, sizeof(*p));
	if (!p)
		return api__dec_nomem(d);
	memset(p, 0, sizeof(*p));
	/* an absent bound reads as zero, like every absent quantity here */
	p->def = p->min = p->max = p->step = (struct api_dra_quantity){ "0", 0 };
	size_t mark = api__dec_push_key(d, "requestPolicy");
	if ((rc = get_quantity(d, rp, "default", &p->has_default, &p->def)) ||
	    (rc = api__dec_get_array(d, rp, "validValues", sizeof(*p->valid_values), &p->n_valid_values,
				     (void **)&p->valid_values, quantities_item)) ||
	    (rc = api__dec_get_obj(d, rp, "validRange", &range)))
		return rc;
	if ((p->has_valid_range = range != NULL)) {
		size_t m = api__dec_push_key(d, "validRange");
		if ((rc = get_quantity(d, range, "min", &p->has_min, &p->min)) ||
		    (rc = get_quantity(d, range, "max", &p->has_max, &p->max)) ||
		    (rc = get_quantity(d, range, "step", &p->has_step, &p->step)))
			return rc;
		api__dec_pop(d, m);
	}
	api__dec_pop(d, mark);
	c->request_policy = p;
	return 0;
}

/* A CounterSet (name, counters) or a DeviceCounterConsumption (counterSet, counters). */
static int counter_set_value(struct dec *d, jv v, const char *name_key, struct api_dra_counter_set *cs)
{
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, name_key, true, "", &cs->name)))
		return rc;
	return get_map(d, v, "counters", sizeof(*cs->counters), &cs->n_counters, (void **)&cs->counters, counter_entry);
}

static int counter_set_item(struct dec *d, jv v, void *item)
{
	return counter_set_value(d, v, "name", item);
}

static int consumption_item(struct dec *d, jv v, void *item)
{
	return counter_set_value(d, v, "counterSet", item);
}

static int device_item(struct dec *d, jv v, void *item)
{
	struct api_dra_device *dev = item;
	bool has;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", true, "", &dev->name)) ||
	    (rc = get_map(d, v, "attributes", sizeof(*dev->attributes), &dev->n_attributes, (void **)&dev->attributes,
			  attribute_entry)) ||
	    (rc = get_map(d, v, "capacity", sizeof(*dev->capacity), &dev->n_capacity, (void **)&dev->capacity,
			  capacity_entry)) ||
	    (rc = api__dec_get_array(d, v, "consumesCounters", sizeof(*dev->consumes_counters),
				     &dev->n_consumes_counters, (void **)&dev->consumes_counters, consumption_item)) ||
	    (rc = api__dec_get_opt_str(d, v, "nodeName", true, &dev->node_name)) ||
	    (rc = get_node_selector(d, v, "nodeSelector", &dev->node_selector)) ||
	    (rc = opt_bool(d, v, "allNodes", &has, &dev->all_nodes)) ||
	    (rc = api__dec_get_array(d, v, "taints", sizeof(*dev->taints), &dev->n_taints, (void **)&dev->taints,
				     taint_item)) ||
	    (rc = opt_bool(d, v, "bindsToNode", &has, &dev->binds_to_node)) ||
	    (rc = get_strs(d, v, "bindingConditions", &dev->n_binding_conditions, &dev->binding_conditions)) ||
	    (rc = get_strs(d, v, "bindingFailureConditions", &dev->n_binding_failure_conditions,
			   &dev->binding_failure_conditions)))
		return rc;
	return opt_bool(d, v, "allowMultipleAllocations", &has, &dev->allow_multiple_allocations);
}

static int slice_spec(struct dec *d, jv spec, struct api_resource_slice *s)
{
	jv pool;
	bool has;
	int rc;
	if ((rc = api__dec_get_str(d, spec, "driver", true, "", &s->driver)) ||
	    (rc = api__dec_get_obj(d, spec, "pool", &pool)))
		return rc;
	size_t mark = api__dec_push_key(d, "pool");
	if ((rc = api__dec_get_str(d, pool, "name", true, "", &s->pool_name)) ||
	    (rc = api__dec_get_i64(d, pool, "generation", INT64_MIN, INT64_MAX, NULL, &s->pool_generation)) ||
	    (rc = api__dec_get_i64(d, pool, "resourceSliceCount", INT64_MIN, INT64_MAX, NULL, &s->pool_slice_count)))
		return rc;
	api__dec_pop(d, mark);
	if ((rc = api__dec_get_opt_str(d, spec, "nodeName", true, &s->node_name)) ||
	    (rc = get_node_selector(d, spec, "nodeSelector", &s->node_selector)) ||
	    (rc = opt_bool(d, spec, "allNodes", &has, &s->all_nodes)) ||
	    (rc = opt_bool(d, spec, "perDeviceNodeSelection", &has, &s->per_device_node_selection)) ||
	    (rc = api__dec_get_array(d, spec, "devices", sizeof(*s->devices), &s->n_devices, (void **)&s->devices,
				     device_item)))
		return rc;
	return api__dec_get_array(d, spec, "sharedCounters", sizeof(*s->shared_counters), &s->n_shared_counters,
				  (void **)&s->shared_counters, counter_set_item);
}

static int slice_fill(struct dec *d, jv obj, void *out)
{
	struct api_resource_slice *s = out;
	s->arena = d->a;
	s->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &s->meta, &spec, &st)))
		return rc;
	return WITH_KEY(d, "spec", slice_spec(d, spec, s));
}

static const struct dec_kind slice_kind = { "resourceslice", false, sizeof(struct api_resource_slice), &slice_hint,
					    slice_fill };

struct api_resource_slice *api_resource_slice_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&slice_kind, obj, e);
}

struct api_resource_slice *api_resource_slice_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&slice_kind, json, len, e);
}

/* ---------- DeviceClass ---------- */

static struct arena_hint class_hint = { ARENA_HINT_START };

static int class_spec(struct dec *d, jv spec, struct api_device_class *c)
{
	int rc;
	if ((rc = get_selectors(d, spec, &c->n_selectors, &c->selectors)) ||
	    (rc = api__dec_get_array(d, spec, "config", sizeof(*c->config), &c->n_config, (void **)&c->config,
				     config_item)))
		return rc;
	return api__dec_get_opt_str(d, spec, "extendedResourceName", true, &c->extended_resource_name);
}

static int class_fill(struct dec *d, jv obj, void *out)
{
	struct api_device_class *c = out;
	c->arena = d->a;
	c->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &c->meta, &spec, &st)))
		return rc;
	return WITH_KEY(d, "spec", class_spec(d, spec, c));
}

static const struct dec_kind class_kind = { "deviceclass", false, sizeof(struct api_device_class), &class_hint,
					    class_fill };

struct api_device_class *api_device_class_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&class_kind, obj, e);
}

struct api_device_class *api_device_class_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&class_kind, json, len, e);
}

/* ---------- DeviceTaintRule ---------- */

static struct arena_hint rule_hint = { ARENA_HINT_START };

static int rule_spec(struct dec *d, jv spec, struct api_device_taint_rule *r)
{
	jv sel, taint;
	int rc;
	if ((rc = api__dec_get_obj(d, spec, "deviceSelector", &sel)) || (rc = api__dec_get_obj(d, spec, "taint", &taint)))
		return rc;
	if (sel) {
		size_t mark = api__dec_push_key(d, "deviceSelector");
		if ((rc = api__dec_get_opt_str(d, sel, "driver", true, &r->driver)) ||
		    (rc = api__dec_get_opt_str(d, sel, "pool", true, &r->pool)) ||
		    (rc = api__dec_get_opt_str(d, sel, "device", true, &r->device)))
			return rc;
		api__dec_pop(d, mark);
	}
	return WITH_KEY(d, "taint", taint_value(d, taint, &r->taint));
}

static int rule_fill(struct dec *d, jv obj, void *out)
{
	struct api_device_taint_rule *r = out;
	r->arena = d->a;
	r->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &r->meta, &spec, &st)))
		return rc;
	return WITH_KEY(d, "spec", rule_spec(d, spec, r));
}

static const struct dec_kind rule_kind = { "devicetaintrule", false, sizeof(struct api_device_taint_rule),
					   &rule_hint, rule_fill };

struct api_device_taint_rule *api_device_taint_rule_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&rule_kind, obj, e);
}

struct api_device_taint_rule *api_device_taint_rule_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&rule_kind, json, len, e);
}

/* ---------- ResourceClaim ---------- */

static struct arena_hint claim_hint = { ARENA_HINT_START };

/* The fields an ExactDeviceRequest and a DeviceSubRequest share (name set by the caller for
 * exactly). */
static int device_request_value(struct dec *d, jv v, struct api_dra_device_request *r)
{
	jv cap;
	int rc;
	if ((rc = api__dec_want_object(d, v)) ||
	    (rc = api__dec_get_str(d, v, "deviceClassName", true, "", &r->device_class_name)) ||
	    (rc = get_selectors(d, v, &r->n_selectors, &r->selectors)) ||
	    (rc = api__dec_get_str(d, v, "allocationMode", false, "", &r->allocation_mode_text)) ||
	    (rc = api__dec_get_i64(d, v, "count", INT64_MIN, INT64_MAX, NULL, &r->count)) ||
	    (rc = opt_bool(d, v, "adminAccess", &r->has_admin_access, &r->admin_access)) ||
	    (rc = api__dec_get_array(d, v, "tolerations", sizeof(*r->tolerations), &r->n_tolerations,
				     (void **)&r->tolerations, toleration_item)) ||
	    (rc = api__dec_get_obj(d, v, "capacity", &cap)))
		return rc;
	r->allocation_mode = !r->allocation_mode_text[0] || !strcmp(r->allocation_mode_text, "ExactCount")
				     ? API_DRA_MODE_EXACT_COUNT
			     : !strcmp(r->allocation_mode_text, "All") ? API_DRA_MODE_ALL
								       : API_DRA_MODE_OTHER;
	if (!(r->has_capacity = cap != NULL))
		return 0;
	return WITH_KEY(d, "capacity", get_map(d, cap, "requests", sizeof(*r->capacity_requests), &r->n_capacity_requests,
					       (void **)&r->capacity_requests, named_quantity_entry));
}

static int subrequest_item(struct dec *d, jv v, void *item)
{
	struct api_dra_device_request *r = item;
	int rc = api__dec_want_object(d, v);
	if (rc || (rc = api__dec_get_str(d, v, "name", true, "", &r->name)))
		return rc;
	return device_request_value(d, v, r);
}

static int request_item(struct dec *d, jv v, void *item)
{
	struct api_dra_request *r = item;
	jv ex;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", true, "", &r->name)) ||
	    (rc = api__dec_get_obj(d, v, "exactly", &ex)))
		return rc;
	if (ex) {
		struct api_dra_device_request *x = api__dec_alloc(d, sizeof(*x));
		if (!x)
			return api__dec_nomem(d);
		memset(x, 0, sizeof(*x));
		x->name = r->name;
		if ((rc = WITH_KEY(d, "exactly", device_request_value(d, ex, x))))
			return rc;
		r->exactly = x;
	}
	return api__dec_get_array(d, v, "firstAvailable", sizeof(*r->first_available), &r->n_first_available,
				  (void **)&r->first_available, subrequest_item);
}

static int constraint_item(struct dec *d, jv v, void *item)
{
	struct api_dra_constraint *c = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_istrs(d, v, "requests", &c->n_requests, &c->requests)) ||
	    (rc = api__dec_get_opt_str(d, v, "matchAttribute", true, &c->match_attribute)))
		return rc;
	return api__dec_get_opt_str(d, v, "distinctAttribute", true, &c->distinct_attribute);
}

static int result_item(struct dec *d, jv v, void *item)
{
	struct api_dra_device_result *r = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "request", true, "", &r->request)) ||
	    (rc = api__dec_get_str(d, v, "driver", true, "", &r->driver)) ||
	    (rc = api__dec_get_str(d, v, "pool", true, "", &r->pool)) ||
	    (rc = api__dec_get_str(d, v, "device", true, "", &r->device)) ||
	    (rc = opt_bool(d, v, "adminAccess", &r->has_admin_access, &r->admin_access)) ||
	    (rc = api__dec_get_array(d, v, "tolerations", sizeof(*r->tolerations), &r->n_tolerations,
				     (void **)&r->tolerations, toleration_item)) ||
	    (rc = get_strs(d, v, "bindingConditions", &r->n_binding_conditions, &r->binding_conditions)) ||
	    (rc = get_strs(d, v, "bindingFailureConditions", &r->n_binding_failure_conditions,
			   &r->binding_failure_conditions)) ||
	    (rc = api__dec_get_opt_str(d, v, "shareID", false, &r->share_id)))
		return rc;
	return get_map(d, v, "consumedCapacity", sizeof(*r->consumed_capacity), &r->n_consumed_capacity,
		       (void **)&r->consumed_capacity, named_quantity_entry);
}

static int allocation_value(struct dec *d, jv v, struct api_dra_allocation *a)
{
	jv devs;
	int rc;
	if ((rc = api__dec_get_obj(d, v, "devices", &devs)))
		return rc;
	if (devs) {
		size_t mark = api__dec_push_key(d, "devices");
		if ((rc = api__dec_get_array(d, devs, "results", sizeof(*a->results), &a->n_results, (void **)&a->results,
					     result_item)) ||
		    (rc = api__dec_get_array(d, devs, "config", sizeof(*a->config), &a->n_config, (void **)&a->config,
					     alloc_config_item)))
			return rc;
		api__dec_pop(d, mark);
	}
	if ((rc = get_node_selector(d, v, "nodeSelector", &a->node_selector)))
		return rc;
	return get_time_s(d, v, "allocationTimestamp", &a->has_allocation_timestamp, &a->allocation_timestamp);
}

static int consumer_item(struct dec *d, jv v, void *item)
{
	struct api_dra_consumer *c = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "apiGroup", false, "", &c->api_group)) ||
	    (rc = api__dec_get_str(d, v, "resource", false, "", &c->resource)) ||
	    (rc = api__dec_get_str(d, v, "name", false, "", &c->name)))
		return rc;
	return api__dec_get_str(d, v, "uid", true, "", &c->uid);
}

/* status.devices[] (AllocatedDeviceStatus): what binding conditions wait for. */
static int device_status_item(struct dec *d, jv v, void *item)
{
	struct api_dra_device_status *s = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "driver", true, "", &s->driver)) ||
	    (rc = api__dec_get_str(d, v, "pool", true, "", &s->pool)) ||
	    (rc = api__dec_get_str(d, v, "device", true, "", &s->device)) ||
	    (rc = api__dec_get_opt_str(d, v, "shareID", false, &s->share_id)))
		return rc;
	return api__dec_get_array(d, v, "conditions", sizeof(*s->conditions), &s->n_conditions,
				  (void **)&s->conditions, api__dec_condition_item);
}

static int claim_spec(struct dec *d, jv spec, struct api_resource_claim *c)
{
	jv devs;
	int rc = api__dec_get_obj(d, spec, "devices", &devs);
	if (rc || !devs)
		return rc;
	size_t mark = api__dec_push_key(d, "devices");
	if ((rc = api__dec_get_array(d, devs, "requests", sizeof(*c->requests), &c->n_requests, (void **)&c->requests,
				     request_item)) ||
	    (rc = api__dec_get_array(d, devs, "constraints", sizeof(*c->constraints), &c->n_constraints,
				     (void **)&c->constraints, constraint_item)) ||
	    (rc = api__dec_get_array(d, devs, "config", sizeof(*c->config), &c->n_config, (void **)&c->config,
				     config_item)))
		return rc;
	api__dec_pop(d, mark);
	return 0;
}

static int claim_status(struct dec *d, jv st, struct api_resource_claim *c)
{
	jv alloc;
	int rc = api__dec_get_obj(d, st, "allocation", &alloc);
	if (rc)
		return rc;
	if (alloc) {
		struct api_dra_allocation *a = api__dec_alloc(d, sizeof(*a));
		if (!a)
			return api__dec_nomem(d);
		memset(a, 0, sizeof(*a));
		if ((rc = WITH_KEY(d, "allocation", allocation_value(d, alloc, a))))
			return rc;
		c->allocation = a;
	}
	if ((rc = api__dec_get_array(d, st, "reservedFor", sizeof(*c->reserved_for), &c->n_reserved_for,
				     (void **)&c->reserved_for, consumer_item)))
		return rc;
	return api__dec_get_array(d, st, "devices", sizeof(*c->device_statuses), &c->n_device_statuses,
				  (void **)&c->device_statuses, device_status_item);
}

/* metadata.finalizers and the extended-resource-claim annotation (the generic metadata decoder
 * reads annotations only for nodes; a claim is decoded with the pod's metadata rules). */
static int claim_meta_extra(struct dec *d, jv obj, struct api_resource_claim *c)
{
	jv md = field(obj, "metadata"), ann;
	int rc;
	size_t mark = api__dec_push_key(d, "metadata");
	if ((rc = get_strs(d, md, "finalizers", &c->n_finalizers, &c->finalizers)) ||
	    (rc = api__dec_get_obj(d, md, "annotations", &ann)))
		return rc;
	if (ann) {
		const char *v;
		size_t m = api__dec_push_key(d, "annotations");
		if ((rc = api__dec_get_opt_str(d, ann, "resource.kubernetes.io/extended-resource-claim", false, &v)))
			return rc;
		c->extended_resource_claim = v && !strcmp(v, "true");
		api__dec_pop(d, m);
	}
	api__dec_pop(d, mark);
	return 0;
}

static int claim_fill(struct dec *d, jv obj, void *out)
{
	struct api_resource_claim *c = out;
	c->arena = d->a;
	c->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &c->meta, &spec, &st)) || (rc = claim_meta_extra(d, obj, c)) ||
	    (rc = WITH_KEY(d, "spec", claim_spec(d, spec, c))))
		return rc;
	return WITH_KEY(d, "status", claim_status(d, st, c));
}

/* pod = true: a claim's metadata is kept as a pod's (name in the arena, uid interned). */
static const struct dec_kind claim_kind = { "resourceclaim", true, sizeof(struct api_resource_claim), &claim_hint,
					    claim_fill };

struct api_resource_claim *api_resource_claim_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&claim_kind, obj, e);
}

struct api_resource_claim *api_resource_claim_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&claim_kind, json, len, e);
}
