/* OpportunisticBatching's scheduling signature (upstream frameworkImpl.SignPod, framework/runtime/
 * framework.go, and the default plugins' SignPod with kube-scheduler framework/signers.go). csched
 * compares signatures only for equality, so it does not build upstream's JSON: it writes the same
 * fragments in an injective binary form (length-prefixed strings, every list upstream sorts sorted
 * by its elements' encodings, which orders equal multisets equally). Two pods get equal signatures
 * iff upstream's are equal (volume sources by the decoder's fingerprint of their JSON, equal iff
 * upstream's json.Marshal is; docs/config.md "OpportunisticBatching"). */
#include "framework_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cache/node_info.h"

/* Go's sort.Slice runs insertion sort (stable) up to 12 elements (sort/zsortfunc.go pdqsort_func). */
#define GO_INSERTION_SORT_MAX 12

static void put(struct fw_sig *s, const void *p, size_t n)
{
	if (s->oom)
		return;
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap < s->len + n)
			cap *= 2;
		char *b = realloc(s->buf, cap);
		if (!b) {
			s->oom = true;
			return;
		}
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_i64(struct fw_sig *s, int64_t v)
{
	put(s, &v, sizeof(v));
}

static void put_str(struct fw_sig *s, const char *str)
{
	uint32_t n = str ? (uint32_t)strlen(str) : 0;
	put(s, &n, sizeof(n));
	put(s, str, n);
}

/* Items written one after another from offset start: their starts are in s->items[first..]. */
static void item_begin(struct fw_sig *s)
{
	if (s->oom)
		return;
	if (s->n_items == s->items_cap) {
		size_t cap = s->items_cap ? s->items_cap * 2 : 64;
		size_t *it = realloc(s->items, cap * sizeof(*it));
		if (!it) {
			s->oom = true;
			return;
		}
		s->items = it;
		s->items_cap = cap;
	}
	s->items[s->n_items++] = s->len;
}

static _Thread_local const struct fw_sig *cmp_sig; /* qsort has no context argument */

static int item_cmp(const void *a, const void *b)
{
	/* (start, end) pairs of items in cmp_sig->buf: by bytes, then the shorter first */
	const size_t *x = a, *y = b;
	size_t xl = x[1] - x[0], yl = y[1] - y[0];
	int c = memcmp(cmp_sig->buf + x[0], cmp_sig->buf + y[0], xl < yl ? xl : yl);
	return c ? c : (xl > yl) - (xl < yl);
}

/* Sorts the items begun since s->items[first] (a list upstream sorts), then drops their starts. */
static void items_sort(struct fw_sig *s, size_t first)
{
	if (s->oom)
		return;
	size_t n = s->n_items - first;
	if (n < 2) { /* nothing to reorder */
		s->n_items = first;
		put_i64(s, (int64_t)n);
		return;
	}
	size_t start = s->items[first];
	/* pairs (start, end) in tmp, the bytes copied aside, then written back in order */
	size_t need_pairs = 2 * n, bytes = s->len - start;
	if (need_pairs > s->tmp_pairs_cap) {
		size_t *t = realloc(s->tmp_pairs, need_pairs * sizeof(*t));
		if (!t) {
			s->oom = true;
			return;
		}
		s->tmp_pairs = t;
		s->tmp_pairs_cap = need_pairs;
	}
	if (bytes > s->tmp_cap) {
		char *t = realloc(s->tmp, bytes);
		if (!t) {
			s->oom = true;
			return;
		}
		s->tmp = t;
		s->tmp_cap = bytes;
	}
	for (size_t i = 0; i < n; i++) {
		s->tmp_pairs[2 * i] = s->items[first + i];
		s->tmp_pairs[2 * i + 1] = i + 1 < n ? s->items[first + i + 1] : s->len;
	}
	cmp_sig = s;
	qsort(s->tmp_pairs, n, 2 * sizeof(size_t), item_cmp);
	memcpy(s->tmp, s->buf + start, bytes);
	size_t at = start;
	for (size_t i = 0; i < n; i++) {
		size_t l = s->tmp_pairs[2 * i + 1] - s->tmp_pairs[2 * i];
		memcpy(s->buf + at, s->tmp + (s->tmp_pairs[2 * i] - start), l);
		at += l;
	}
	s->n_items = first;
	put_i64(s, (int64_t)n); /* the list's length ends it: lists stay unambiguous */
}

/* Items whose content is a single string: sorted lists of strings (sets.List, slices.Sort). */
static void put_str_item(struct fw_sig *s, const char *str)
{
	item_begin(s);
	put_str(s, str);
}

static void put_labels(struct fw_sig *s, const struct api_labels *l)
{
	size_t first = s->n_items;
	for (uint32_t i = 0; i < l->n; i++) {
		item_begin(s);
		put_str(s, l->items[i].key);
		put_str(s, l->items[i].value);
	}
	items_sort(s, first);
}

/* NodeSelectorRequirementsSigner: each requirement with its values sorted, the list sorted. */
static void put_requirements(struct fw_sig *s, const struct api_requirement *r, uint32_t n)
{
	size_t first = s->n_items;
	for (uint32_t i = 0; i < n; i++) {
		item_begin(s);
		put_str(s, r[i].key);
		put_i64(s, r[i].op);
		size_t vfirst = s->n_items;
		for (uint32_t k = 0; k < r[i].n_values; k++)
			put_str_item(s, r[i].values[k]);
		items_sort(s, vfirst);
	}
	items_sort(s, first);
}

static void put_term(struct fw_sig *s, const struct api_node_selector_term *t)
{
	put_requirements(s, t->exprs, t->n_exprs);
	put_requirements(s, t->fields, t->n_fields);
}

/* NodeAffinitySigner: nil without nodeAffinity; else the sorted required and preferred terms. */
static void put_node_affinity(struct fw_sig *s, const struct api_node_affinity *na)
{
	put_i64(s, na != NULL);
	if (!na)
		return;
	size_t first = s->n_items;
	for (uint32_t i = 0; i < na->n_required; i++) {
		item_begin(s);
		put_term(s, &na->required[i]);
	}
	items_sort(s, first);
	first = s->n_items;
	for (uint32_t i = 0; i < na->n_preferred; i++) {
		item_begin(s);
		put_i64(s, na->preferred[i].weight);
		put_term(s, &na->preferred[i].term);
	}
	items_sort(s, first);
}

static bool tol_less(const struct api_toleration *a, const struct api_toleration *b)
{
	int c = strcmp(a->key, b->key);
	return c < 0 || (c == 0 && strcmp(a->value, b->value) < 0);
}

static void put_toleration(struct fw_sig *s, const struct api_toleration *t)
{
	put_str(s, t->key);
	put_i64(s, t->op_given ? (int64_t)t->op + 1 : 0); /* "", "Equal", "Exists" */
	put_str(s, t->value);
	put_i64(s, t->effect);
	put_i64(s, t->has_toleration_seconds);
	put_i64(s, t->toleration_seconds);
}

/* TolerationsSigner: the list in sort.Slice order by (key, value). Up to 12 that is a stable sort;
 * beyond, pdqsort may reorder tolerations with equal key and value, so such a list is written in
 * its given order (equal lists still sign equally; two orders upstream might equalise do not). */
static void put_tolerations(struct fw_sig *s, const struct api_pod *pod)
{
	uint32_t n = pod->n_tolerations;
	bool dup = false;
	for (uint32_t i = 0; i < n && !dup; i++)
		for (uint32_t j = i + 1; j < n && !dup; j++)
			dup = !tol_less(&pod->tolerations[i], &pod->tolerations[j]) &&
			      !tol_less(&pod->tolerations[j], &pod->tolerations[i]);
	bool stable = n <= GO_INSERTION_SORT_MAX || !dup;
	put_i64(s, stable);
	put_i64(s, n);
	bool *done = NULL;
	bool local[64];
	if (stable && n) {
		done = n <= 64 ? local : calloc(n, sizeof(*done));
		if (!done) {
			s->oom = true;
			return;
		}
		memset(done, 0, n * sizeof(*done));
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t pick = k;
		if (stable) { /* the first not yet written of the least (key, value): a stable order */
			pick = UINT32_MAX;
			for (uint32_t i = 0; i < n; i++)
				if (!done[i] && (pick == UINT32_MAX || tol_less(&pod->tolerations[i], &pod->tolerations[pick])))
					pick = i;
			done[pick] = true;
		}
		put_toleration(s, &pod->tolerations[pick]);
	}
	if (done && done != local)
		free(done);
}

/* HostPortsSigner: the set of non-zero host ports, sorted. */
static void put_host_ports(struct fw_sig *s, const struct api_pod *pod)
{
	size_t first = s->n_items;
	for (int init = 0; init < 2; init++) {
		const struct api_container *cs = init ? pod->init_containers : pod->containers;
		uint32_t nc = init ? pod->n_init_containers : pod->n_containers;
		for (uint32_t i = 0; i < nc; i++)
			for (uint32_t k = 0; k < cs[i].n_ports; k++) {
				int32_t hp = cs[i].ports[k].host_port;
				if (!hp)
					continue;
				bool seen = false; /* a set: each port once */
				for (size_t j = first; j < s->n_items && !seen; j++)
					seen = memcmp(s->buf + s->items[j], &(int64_t){ hp }, sizeof(int64_t)) == 0;
				if (!seen) {
					item_begin(s);
					put_i64(s, hp);
				}
			}
	}
	/* items of one int64 each: byte order sorts them consistently (a set; order only canonical) */
	items_sort(s, first);
}

/* upstream normalizedImageName into buf (":latest" added when the name has no tag); NULL when it
 * does not fit (the caller then refuses to sign). A plain string, not an interned one: two images
 * no node has must still sign apart. */
static const char *image_key(const char *image, char *buf, size_t size)
{
	const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
	bool tagged = colon && (!slash || colon > slash);
	int n = snprintf(buf, size, "%s%s", image, tagged ? "" : ":latest");
	return n >= 0 && (size_t)n < size ? buf : NULL;
}

/* ImageLocality's SignPod: the set of normalized image names, sorted. */
static void put_images(struct fw_sig *s, const struct api_pod *pod)
{
	size_t first = s->n_items;
	char buf[4096];
	for (int init = 0; init < 2; init++) {
		const struct api_container *cs = init ? pod->init_containers : pod->containers;
		uint32_t nc = init ? pod->n_init_containers : pod->n_containers;
		for (uint32_t i = 0; i < nc; i++) {
			const char *name = image_key(cs[i].image ? cs[i].image : "", buf, sizeof(buf));
			if (!name) {
				s->oom = true; /* a name past 4 KiB: unsigned, never batched */
				return;
			}
			bool seen = false;
			for (size_t j = first; j < s->n_items && !seen; j++) {
				size_t end = j + 1 < s->n_items ? s->items[j + 1] : s->len;
				uint32_t l = (uint32_t)strlen(name);
				seen = end - s->items[j] == sizeof(l) + l && memcmp(s->buf + s->items[j] + sizeof(l), name, l) == 0;
			}
			if (!seen)
				put_str_item(s, name);
		}
	}
	items_sort(s, first);
}

/* computePodResourceRequest (NodeResourcesFit and BalancedAllocation sign the same value).
 * False: a non-zero request is one a DeviceClass backs ("signature disabled when dra extended
 * resources are used in the cluster", shouldDelegateResourceToDRA without a node). */
static bool put_resources(struct fw_sig *s, const struct fw_listers *l, const struct api_pod *pod)
{
	struct node_res r;
	if (node_res_of_pod(pod, NODE_RES_SPEC, &r) < 0) {
		s->oom = true;
		return true;
	}
	for (uint32_t i = 0; l && i < r.n_scalar; i++) {
		struct api_device_class *dc = r.scalar[i].value ? fw_listers_extended_resource_class(l, r.scalar[i].name) : NULL;
		api_device_class_unref(dc);
		if (dc) {
			node_res_release(&r);
			return false;
		}
	}
	put_i64(s, r.cpu);
	put_i64(s, r.memory);
	put_i64(s, r.ephemeral_storage);
	size_t first = s->n_items;
	for (uint32_t i = 0; i < r.n_scalar; i++) {
		item_begin(s);
		put_str(s, r.scalar[i].name);
		put_i64(s, r.scalar[i].value);
	}
	items_sort(s, first);
	node_res_release(&r);
	return true;
}

/* VolumesSigner: the sorted JSON of every volume source but configMap and secret (duplicates
 * kept); the decoder's fingerprint of a source is equal iff that JSON is. */
static void put_volumes(struct fw_sig *s, const struct api_pod *pod)
{
	size_t first = s->n_items;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		if (pod->volumes[i].config_map_or_secret)
			continue;
		item_begin(s);
		put(s, pod->volumes[i].source_fp, sizeof(pod->volumes[i].source_fp));
	}
	items_sort(s, first);
}

bool fw_sign_pod(uint32_t mask, const struct fw_listers *l, const struct api_pod *pod, struct fw_sig *s)
{
	s->len = 0;
	s->n_items = 0;
	s->oom = false;
	if (!(mask & CFG_SIGN_ON))
		return false;
	const struct api_affinity *aff = &pod->affinity;
	if ((mask & CFG_SIGN_NO_POD_AFFINITY) && (aff->pod_affinity || aff->pod_anti_affinity))
		return false; /* "pods with InterPodAffinity are not signable" */
	if ((mask & CFG_SIGN_NO_SPREAD) && pod->n_spread_constraints)
		return false; /* "pods with topology constraints are not signable" */
	if ((mask & CFG_SIGN_NO_CLAIMS) && pod->n_resource_claims)
		return false; /* "pods with dra resource claims are not signable" */
	put_str(s, pod->scheduler_name);
	if (mask & CFG_SIGN_VOLUMES)
		put_volumes(s, pod);
	if ((mask & CFG_SIGN_RESOURCES) && !put_resources(s, l, pod))
		return false;
	if (mask & CFG_SIGN_NODE_NAME)
		put_str(s, pod->node_name);
	if (mask & CFG_SIGN_NODE_AFFINITY) {
		put_node_affinity(s, aff->node_affinity);
		put_labels(s, &pod->node_selector);
	}
	if (mask & CFG_SIGN_TOLERATIONS)
		put_tolerations(s, pod);
	if (mask & CFG_SIGN_HOST_PORTS)
		put_host_ports(s, pod);
	if (mask & CFG_SIGN_IMAGES)
		put_images(s, pod);
	if (mask & CFG_SIGN_LABELS)
		put_labels(s, &pod->meta.labels);
	if (mask & CFG_SIGN_FEATURES)
		put_i64(s, fw_ndf_pod_features(pod));
	return !s->oom;
}

bool fw_sig_equal(const struct fw_sig *a, const struct fw_sig *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->buf, b->buf, a->len) == 0);
}

void fw_sig_release(struct fw_sig *s)
{
	free(s->buf);
	free(s->items);
	free(s->tmp);
	free(s->tmp_pairs);
	memset(s, 0, sizeof(*s));
}
