/* Fuzz target for label selectors: the decoder of metav1.LabelSelector (in a pod's affinity
 * terms) and api_label_selector_matches. The input is SELECTOR '\n' LABELS (two JSON texts; no
 * newline: LABELS is {}), put into a pod as a required podAffinity term's labelSelector and
 * namespaceSelector and as metadata.labels. Every selector of the decoded pod is evaluated against
 * the pod's labels and compared with a reference written from upstream's semantics (abort on a
 * difference):
 *   k8s.io/apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector: matchLabels are
 *   "key In (value)"; In/NotIn need values, Exists/DoesNotExist none, any other operator is
 *   invalid, and an invalid requirement makes the whole selector an error (matches nothing here);
 *   pkg/labels/selector.go Requirement.Matches: In = present with a listed value, NotIn = absent
 *   or not listed, Exists = present, DoesNotExist = absent.
 * Values are compared as strings, so a decoder that interns wrongly differs. Built as
 * unit_fuzz_apiclient_selector (replay over tests/fuzz/corpus/apiclient_selector) and, with
 * libFuzzer, as the fuzzer fuzz_apiclient_selector. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *label(const struct api_labels *l, const char *key)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].key, key))
			return l->items[i].value;
	return NULL;
}

static bool listed(const struct api_requirement *r, const char *v)
{
	for (uint32_t i = 0; i < r->n_values; i++)
		if (!strcmp(r->values[i], v))
			return true;
	return false;
}

static bool ref_matches(const struct api_label_selector *s, const struct api_labels *l)
{
	if (!s)
		return false;
	for (uint32_t i = 0; i < s->n_exprs; i++) {
		const struct api_requirement *r = &s->exprs[i];
		bool has_values = r->n_values > 0;
		if ((r->op == API_OP_IN || r->op == API_OP_NOT_IN) ? !has_values
		    : (r->op == API_OP_EXISTS || r->op == API_OP_DOES_NOT_EXIST) ? has_values
										     : true)
			return false;
	}
	for (uint32_t i = 0; i < s->match_labels.n; i++) {
		const char *v = label(l, s->match_labels.items[i].key);
		if (!v || strcmp(v, s->match_labels.items[i].value))
			return false;
	}
	for (uint32_t i = 0; i < s->n_exprs; i++) {
		const struct api_requirement *r = &s->exprs[i];
		const char *v = label(l, r->key);
		bool ok = r->op == API_OP_IN	   ? v && listed(r, v)
			  : r->op == API_OP_NOT_IN ? !v || !listed(r, v)
			  : r->op == API_OP_EXISTS ? v != NULL
						   : v == NULL;
		if (!ok)
			return false;
	}
	return true;
}

static void check(const struct api_label_selector *s, const struct api_labels *l)
{
	bool got = api_label_selector_matches(s, l), want = ref_matches(s, l);
	if (got != want) {
		fprintf(stderr, "selector: api_label_selector_matches %d, upstream's semantics %d\n", got, want);
		abort();
	}
}

static void check_terms(const struct api_pod_affinity *a, const struct api_labels *l)
{
	static const struct api_labels none = { 0 };
	for (uint32_t i = 0; a && i < a->n_required; i++) {
		check(a->required[i].label_selector, l);
		check(a->required[i].namespace_selector, l);
		check(a->required[i].label_selector, &none);
	}
	for (uint32_t i = 0; a && i < a->n_preferred; i++) {
		check(a->preferred[i].term.label_selector, l);
		check(a->preferred[i].term.namespace_selector, l);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char a[] = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"labels\":";
	static const char b[] = "},\"spec\":{\"containers\":[],\"affinity\":{\"podAffinity\":"
				"{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"topologyKey\":\"k\","
				"\"labelSelector\":";
	static const char c[] = ",\"namespaceSelector\":";
	static const char d[] = "}]}}}}";
	const char *nl = memchr(data, '\n', size);
	size_t sel_len = nl ? (size_t)(nl - (const char *)data) : size;
	const char *labels = nl ? nl + 1 : "{}";
	size_t labels_len = nl ? size - sel_len - 1 : 2;
	size_t n = sizeof(a) + labels_len + sizeof(b) + 2 * sel_len + sizeof(c) + sizeof(d);
	char *json = malloc(n);
	if (!json)
		return 0;
	size_t off = 0;
#define PUT(p, len) (memcpy(json + off, (p), (len)), off += (len))
	PUT(a, sizeof(a) - 1);
	PUT(labels, labels_len);
	PUT(b, sizeof(b) - 1);
	PUT(data, sel_len);
	PUT(c, sizeof(c) - 1);
	PUT(data, sel_len);
	PUT(d, sizeof(d) - 1);
#undef PUT
	struct err e;
	struct api_pod *p = api_pod_decode_json(json, off, &e);
	if (p) {
		check_terms(p->affinity.pod_affinity, &p->meta.labels);
		check_terms(p->affinity.pod_anti_affinity, &p->meta.labels);
	}
	api_pod_unref(p);
	free(json);
	return 0;
}
