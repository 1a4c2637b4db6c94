/* Fuzz target for the resource.k8s.io/v1 JSON decoders (what their informers decode every LIST
 * item and watch event with): byte 0 picks the kind (modulo 5: ResourceClaim, ResourceSlice,
 * DeviceClass, DeviceTaintRule, and a Pod for its DRA fields), the rest is the object. What
 * decodes must have every field it promises readable (ASan/valgrind check the reads), maps sorted
 * by name; an error must name the kind. Built as unit_fuzz_apiclient_dra (replay over
 * tests/fuzz/corpus/apiclient_dra) and, with libFuzzer, as the fuzzer fuzz_apiclient_dra. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t strs_len(uint32_t n, const char *const *s)
{
	size_t t = 0;
	for (uint32_t i = 0; i < n; i++)
		t += strlen(s[i]);
	return t;
}

static size_t meta_len(const struct api_meta *m)
{
	size_t n = strlen(m->name) + strlen(m->namespace) + strlen(m->uid) + len0(m->resource_version);
	for (uint32_t i = 0; i < m->labels.n; i++)
		n += strlen(m->labels.items[i].key) + strlen(m->labels.items[i].value);
	return n;
}

static size_t q_len(const struct api_dra_quantity *q)
{
	return strlen(q->s) + (size_t)(q->milli & 1);
}

static size_t reqs_len(uint32_t n, const struct api_requirement *r)
{
	size_t t = 0;
	for (uint32_t i = 0; i < n; i++)
		t += strlen(r[i].key) + strs_len(r[i].n_values, r[i].values);
	return t;
}

static size_t selector_len(const struct api_node_selector *s)
{
	size_t n = 0;
	for (uint32_t i = 0; s && i < s->n_terms; i++)
		n += reqs_len(s->terms[i].n_exprs, s->terms[i].exprs) + reqs_len(s->terms[i].n_fields, s->terms[i].fields);
	return n;
}

/* A map's entries: sorted by name (strcmp), no name twice. */
#define CHECK_SORTED(n, arr)                                                  \
	do {                                                                  \
		for (uint32_t k_ = 1; k_ < (n); k_++)                         \
			if (strcmp((arr)[k_ - 1].name, (arr)[k_].name) >= 0)  \
				abort();                                      \
	} while (0)

static size_t taint_len(const struct api_dra_taint *t)
{
	return strlen(t->key) + strlen(t->value) + strlen(t->effect_text) + (size_t)t->effect;
}

static size_t tolerations_len(uint32_t n, const struct api_dra_toleration *t)
{
	size_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += strlen(t[i].key) + strlen(t[i].op_text) + strlen(t[i].value) + strlen(t[i].effect) + (size_t)t[i].op;
	return s;
}

static size_t counters_len(uint32_t n, const struct api_dra_counter_set *cs)
{
	size_t s = 0;
	for (uint32_t i = 0; i < n; i++) {
		s += strlen(cs[i].name);
		CHECK_SORTED(cs[i].n_counters, cs[i].counters);
		for (uint32_t k = 0; k < cs[i].n_counters; k++)
			s += q_len(&cs[i].counters[k].value);
	}
	return s;
}

static size_t configs_len(uint32_t n, const struct api_dra_config *c)
{
	size_t s = 0;
	for (uint32_t i = 0; i < n; i++) {
		s += strs_len(c[i].n_requests, c[i].requests) + len0(c[i].driver);
		if (c[i].parameters_json && strlen(c[i].parameters_json) != c[i].parameters_len)
			abort();
	}
	return s;
}

static size_t named_len(uint32_t n, const struct api_dra_named_quantity *q)
{
	size_t s = 0;
	CHECK_SORTED(n, q);
	for (uint32_t i = 0; i < n; i++)
		s += q_len(&q[i].value);
	return s;
}

static size_t device_request_len(const struct api_dra_device_request *r)
{
	return strlen(r->name) + strlen(r->device_class_name) + strs_len(r->n_selectors, r->selectors) +
	       strlen(r->allocation_mode_text) + tolerations_len(r->n_tolerations, r->tolerations) +
	       named_len(r->n_capacity_requests, r->capacity_requests);
}

static size_t claim_len(const struct api_resource_claim *c)
{
	size_t n = meta_len(&c->meta) + strs_len(c->n_finalizers, c->finalizers) + configs_len(c->n_config, c->config);
	for (uint32_t i = 0; i < c->n_requests; i++) {
		n += strlen(c->requests[i].name);
		if (c->requests[i].exactly)
			n += device_request_len(c->requests[i].exactly);
		for (uint32_t k = 0; k < c->requests[i].n_first_available; k++)
			n += device_request_len(&c->requests[i].first_available[k]);
	}
	for (uint32_t i = 0; i < c->n_constraints; i++)
		n += strs_len(c->constraints[i].n_requests, c->constraints[i].requests) +
		     len0(c->constraints[i].match_attribute) + len0(c->constraints[i].distinct_attribute);
	const struct api_dra_allocation *a = c->allocation;
	if (a) {
		n += configs_len(a->n_config, a->config) + selector_len(a->node_selector);
		for (uint32_t i = 0; i < a->n_results; i++) {
			const struct api_dra_device_result *r = &a->results[i];
			n += strlen(r->request) + strlen(r->driver) + strlen(r->pool) + strlen(r->device) +
			     tolerations_len(r->n_tolerations, r->tolerations) +
			     strs_len(r->n_binding_conditions, r->binding_conditions) +
			     strs_len(r->n_binding_failure_conditions, r->binding_failure_conditions) + len0(r->share_id) +
			     named_len(r->n_consumed_capacity, r->consumed_capacity);
		}
	}
	for (uint32_t i = 0; i < c->n_reserved_for; i++)
		n += strlen(c->reserved_for[i].api_group) + strlen(c->reserved_for[i].resource) +
		     strlen(c->reserved_for[i].name) + strlen(c->reserved_for[i].uid);
	for (uint32_t i = 0; i < c->n_device_statuses; i++) {
		const struct api_dra_device_status *s = &c->device_statuses[i];
		n += strlen(s->driver) + strlen(s->pool) + strlen(s->device) + len0(s->share_id);
		for (uint32_t k = 0; k < s->n_conditions; k++)
			n += strlen(s->conditions[k].type) + strlen(s->conditions[k].status) +
			     strlen(s->conditions[k].reason) + strlen(s->conditions[k].message);
	}
	return n;
}

static size_t slice_len(const struct api_resource_slice *s)
{
	size_t n = meta_len(&s->meta) + strlen(s->driver) + strlen(s->pool_name) + len0(s->node_name) +
		   selector_len(s->node_selector) + counters_len(s->n_shared_counters, s->shared_counters);
	for (uint32_t i = 0; i < s->n_devices; i++) {
		const struct api_dra_device *d = &s->devices[i];
		n += strlen(d->name) + len0(d->node_name) + selector_len(d->node_selector) +
		     counters_len(d->n_consumes_counters, d->consumes_counters) +
		     strs_len(d->n_binding_conditions, d->binding_conditions) +
		     strs_len(d->n_binding_failure_conditions, d->binding_failure_conditions);
		CHECK_SORTED(d->n_attributes, d->attributes);
		for (uint32_t k = 0; k < d->n_attributes; k++)
			n += d->attributes[k].type == API_DRA_ATTR_STRING || d->attributes[k].type == API_DRA_ATTR_VERSION
				     ? strlen(d->attributes[k].s)
				     : (size_t)(d->attributes[k].i & 1) + d->attributes[k].b;
		CHECK_SORTED(d->n_capacity, d->capacity);
		for (uint32_t k = 0; k < d->n_capacity; k++) {
			const struct api_dra_request_policy *p = d->capacity[k].request_policy;
			n += q_len(&d->capacity[k].value);
			if (p) {
				n += q_len(&p->def) + q_len(&p->min) + q_len(&p->max) + q_len(&p->step);
				for (uint32_t v = 0; v < p->n_valid_values; v++)
					n += q_len(&p->valid_values[v]);
			}
		}
		for (uint32_t k = 0; k < d->n_taints; k++)
			n += taint_len(&d->taints[k]);
	}
	return n;
}

static size_t pod_len(const struct api_pod *p)
{
	size_t n = meta_len(&p->meta);
	for (uint32_t i = 0; i < p->n_resource_claims; i++)
		n += strlen(p->resource_claims[i].name) + len0(p->resource_claims[i].resource_claim_name) +
		     len0(p->resource_claims[i].resource_claim_template_name);
	for (uint32_t i = 0; i < p->n_resource_claim_statuses; i++)
		n += strlen(p->resource_claim_statuses[i].name) + len0(p->resource_claim_statuses[i].resource_claim_name);
	const struct api_pod_extended_claim_status *x = p->extended_claim_status;
	for (uint32_t i = 0; x && i < x->n_mappings; i++)
		n += strlen(x->mappings[i].container_name) + strlen(x->mappings[i].resource_name) +
		     strlen(x->mappings[i].request_name);
	return n + (x ? strlen(x->resource_claim_name) : 0);
}

static const char *const kind_names[] = { "resourceclaim", "resourceslice", "deviceclass", "devicetaintrule", "pod" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *json = (const char *)data + 1;
	size_t len = size - 1;
	struct err e = { 0 };
	size_t n = 0;
	int kind = data[0] % 5;
	bool ok = true;
	switch (kind) {
	case 0: {
		struct api_resource_claim *c = api_resource_claim_decode_json(json, len, &e);
		if ((ok = c))
			n = claim_len(c);
		api_resource_claim_unref(c);
		break;
	}
	case 1: {
		struct api_resource_slice *s = api_resource_slice_decode_json(json, len, &e);
		if ((ok = s))
			n = slice_len(s);
		api_resource_slice_unref(s);
		break;
	}
	case 2: {
		struct api_device_class *c = api_device_class_decode_json(json, len, &e);
		if ((ok = c))
			n = meta_len(&c->meta) + strs_len(c->n_selectors, c->selectors) + configs_len(c->n_config, c->config) +
			    len0(c->extended_resource_name);
		api_device_class_unref(c);
		break;
	}
	case 3: {
		struct api_device_taint_rule *r = api_device_taint_rule_decode_json(json, len, &e);
		if ((ok = r))
			n = meta_len(&r->meta) + len0(r->driver) + len0(r->pool) + len0(r->device) + taint_len(&r->taint);
		api_device_taint_rule_unref(r);
		break;
	}
	default: {
		struct api_pod *p = api_pod_decode_json(json, len, &e);
		if ((ok = p))
			n = pod_len(p);
		api_pod_unref(p);
		break;
	}
	}
	if (n == SIZE_MAX)
		abort();
	/* every error names the kind it decoded */
	if (!ok && strncmp(e.msg, kind_names[kind], strlen(kind_names[kind])))
		abort();
	return 0;
}
