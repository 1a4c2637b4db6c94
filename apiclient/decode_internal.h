/* Internals shared by the decoders of apiclient: decode.c (field access, labels, resources,
 * metadata, Node, Lease, JSON text) and decode_pod.c (selectors, affinity, tolerations, topology
 * spread, containers, volumes, Pod). */
#ifndef CSCHED_API_DECODE_INTERNAL_H
#define CSCHED_API_DECODE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "apiclient/api_types.h"
#include "common/err.h"

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
static inline size_t hint_get(struct arena_hint *h)
{
	size_t b = __atomic_load_n(&h->bytes, __ATOMIC_RELAXED);
	return b < ARENA_HINT_MIN ? ARENA_HINT_MIN : b;
}

/* Half way up to a larger object, 1/32 of the way down to a smaller one. */
static inline void hint_learn(struct arena_hint *h, size_t need)
{
	size_t cur = __atomic_load_n(&h->bytes, __ATOMIC_RELAXED);
	size_t next = need > cur ? cur + (need - cur + 1) / 2 : cur - (cur - need) / 32;
	__atomic_store_n(&h->bytes, next, __ATOMIC_RELAXED);
}

/* One decode: the object's arena, the error, and the field path for messages. */
struct dec {
	struct arena *a;
	struct err *e;
	const char *kind; /* "pod", "node", "lease" */
	bool pod;
	const char *ns;   /* for messages; NULL when unknown */
	const char *name;
	char path[400];
	size_t plen;
	/* Counted intern references taken so far (duplicates included), malloc'd; moved into
	 * meta->interned when the object is complete, given back when it fails. */
	const char **held;
	uint32_t n_held, cap_held;
	struct api_meta *meta; /* the object's metadata, once decoded */
};

/* Interns s with a reference the object being decoded holds; NULL on out of memory. */
const char *api__dec_intern(struct dec *d, const char *s);

typedef struct yajl_val_s *jv;
/* Decodes one element of an array into item. */
typedef int (*item_fn)(struct dec *d, jv v, void *item);

size_t api__dec_push_key(struct dec *d, const char *key);
void api__dec_pop(struct dec *d, size_t mark);
int api__dec_fail_code(struct dec *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int api__dec_nomem(struct dec *d);
/* keep_json.c: api_keep_json's switches, and obj re-encoded into the object's arena. */
extern bool api__keep_json, api__keep_node_json, api__keep_assigned_json;
int api__dec_keep_json(struct dec *d, const struct yajl_val_s *obj, const char **out, size_t *len);
const char *api__dec_jtype(jv v);
void *api__dec_alloc(struct dec *d, size_t n);
int api__dec_want_object(struct dec *d, jv v);
int api__dec_get_str(struct dec *d, jv obj, const char *key, bool interned, const char *dflt, const char **out);
/* An RFC 3339 time in microseconds since the epoch; absent or "" leaves *has false (has may be NULL). */
int api__dec_get_time_us(struct dec *d, jv obj, const char *key, bool *has, int64_t *us);
int api__dec_get_bool(struct dec *d, jv obj, const char *key, bool *out);
int api__dec_get_i64(struct dec *d, jv obj, const char *key, int64_t min, int64_t max, bool *has, int64_t *out);
int api__dec_get_i32(struct dec *d, jv obj, const char *key, bool *has, int32_t *out);
int api__dec_get_obj(struct dec *d, jv obj, const char *key, jv *out);
int api__dec_get_array(struct dec *d, jv obj, const char *key, size_t item_size, uint32_t *n_out, void **out,
		       item_fn fn);
int api__dec_str_item(struct dec *d, jv v, void *item);
int api__dec_get_istrs(struct dec *d, jv obj, const char *key, uint32_t *n, const char ***out);
int api__dec_get_labels(struct dec *d, jv obj, const char *key, struct api_labels *l);
int api__dec_get_resources(struct dec *d, jv obj, const char *key, struct api_resources *r);
/* A quantity's Value() (bytes, counts) at obj[key]. *has: the key is present; a null value counts
 * as present (zero) when null_present (a ResourceList entry, Quantity.UnmarshalJSON), as absent
 * otherwise (a *Quantity field: Go leaves it nil). */
int api__dec_get_quantity(struct dec *d, jv obj, const char *key, bool null_present, bool *has, int64_t *out);
int api__dec_condition_item(struct dec *d, jv v, void *item);
int api__dec_meta_value(struct dec *d, jv obj, struct api_meta *m);
/* metadata, spec and status of an object (spec/status NULL when absent) */
int api__dec_object_parts(struct dec *d, jv obj, struct api_meta *m, jv *spec, jv *status);
int api__dec_taint_item(struct dec *d, jv v, void *item);
/* A metav1.LabelSelector, NULL in *out when absent or null (decode_pod.c). */
int api__dec_get_selector(struct dec *d, jv obj, const char *key, struct api_label_selector **out);

/* decode_pvc.c: one spec.accessModes entry as an API_ACCESS_* bit (unknown modes: 0), and the
 * whole list ORed into *out. */
int api__dec_access_mode_item(struct dec *d, jv v, void *item);
int api__dec_get_access_modes(struct dec *d, jv spec, unsigned *out);
/* A string field that may be absent: *out NULL when absent or null (a Go *string left nil). */
int api__dec_get_opt_str(struct dec *d, jv obj, const char *key, bool interned, const char **out);

/* decode_pod.c: one NodeSelectorTerm (struct api_node_selector_term) and one matchExpressions
 * entry (struct api_requirement), as array items. */
int api__dec_node_term_item(struct dec *d, jv v, void *item);
int api__dec_requirement_item(struct dec *d, jv v, void *item);

/* One kind of refcounted object that lives in its own arena (api_pod, api_node). fill decodes
 * obj into out (size bytes, zeroed, in d->a) and sets its arena and first reference. */
struct dec_kind {
	const char *kind; /* "pod", "node": for messages */
	bool pod;
	size_t size;
	struct arena_hint *hint; /* first block size, learnt from recent objects of the kind */
	int (*fill)(struct dec *d, jv obj, void *out);
};
/* obj -> a new object of kind k (NULL with e set on error); an object that outgrew the hinted
 * first block is decoded again into one block of its exact size. */
void *api__dec_object(const struct dec_kind *k, const struct yajl_val_s *obj, struct err *e);
/* JSON text -> object, through the informers' parser. */
void *api__dec_json(const struct dec_kind *k, const char *json, size_t len, struct err *e);

#define fail(d, ...) api__dec_fail_code((d), ERR_INVALID, __VA_ARGS__)

/* Runs with the path extended by key. */
#define WITH_KEY(d, key, expr)                                \
	({                                                    \
		size_t mark_ = api__dec_push_key((d), (key)); \
		int rc_ = (expr);                             \
		if (!rc_)                                     \
			api__dec_pop((d), mark_);             \
		rc_;                                          \
	})

#endif
