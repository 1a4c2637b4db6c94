/* HTTP scheduler extenders (upstream pkg/scheduler/extender.go HTTPExtender and the wire types of
 * k8s.io/kube-scheduler/extender/v1): the client, and the JSON encoders and decoders exposed for
 * the unit tests. Internal to scheduler/ (and its tests). */
#ifndef CSCHED_SCHEDULER_EXTENDER_INTERNAL_H
#define CSCHED_SCHEDULER_EXTENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithm/framework.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "config/config.h"

/* Responses larger than this are refused (a NodeList answer of 5,000 nodes is ~25 MB). */
#define SCHED_EXT_MAX_RESPONSE (64u << 20)
/* Responses nested deeper than this are refused before parsing (a Node is ~8 deep). */
#define SCHED_EXT_MAX_DEPTH 256

struct sched_extenders;
struct sched_metrics;

/* The configured extenders (cfg->extenders, which must outlive the result), one keep-alive
 * handle pool each. NULL on error (e: "extenders[i]: ..."). metrics may be NULL. */
struct sched_extenders *sched_extenders_new(const struct config *cfg, struct sched_metrics *metrics, struct err *e);
void sched_extenders_free(struct sched_extenders *x);
/* The framework's view (fw_profile_options.extenders), valid while x lives. */
const struct fw_extender *sched_extenders_fw(const struct sched_extenders *x, uint32_t *n);
/* Whether any extender is not nodeCacheCapable (it is then sent whole nodes). */
bool sched_extenders_need_node_json(const struct sched_extenders *x);
/* Whether a preempt extender is not nodeCacheCapable (it is then sent the victims whole). */
bool sched_extenders_need_victim_json(const struct sched_extenders *x);

/* fw_profile_options.ext_prioritize_all (ctx unused): the calls run at once, one thread each
 * but the first, as upstream's goroutines; answers are decoded on the calling thread. */
void sched_extenders_prioritize_all(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
				    const struct node_info *const *nodes, uint32_t n, const struct fw_extender *const *xs,
				    uint32_t nx, struct fw_ext_prio_result *out, int *rcs, struct err *errs);

/* upstream extendersBinding: the first bind extender interested in pod binds it. Returns 0 when
 * none did (*bound false) or it bound; a negative code with e filled when it failed (*bound true:
 * the pod must not be bound by the plugins). Thread-safe (binder threads). */
int sched_extenders_bind(struct sched_extenders *x, const struct api_pod *pod, const char *node, bool *bound,
			 struct err *e);

/* ---------- wire format (exposed for tests) ---------- */

/* upstream IsInterested: no managedResources, or a container or init container requests or limits
 * one of them. managed: interned names. */
bool sched_ext_interested(const char *const *managed, uint32_t n_managed, const struct api_pod *pod);

/* ExtenderArgs as json.Marshal writes it: {"Pod":...,"Nodes":...,"NodeNames":...}. With
 * node_names the nodes go as NodeNames (Nodes null), else as a v1.NodeList (NodeNames null). The
 * pod is its kept JSON (api_pod.json) or, without it, its metadata only. */
bool sched_ext_encode_args(struct strbuf *sb, const struct api_pod *pod, const struct node_info *const *nodes,
			   uint32_t n, bool node_names);
/* ExtenderBindingArgs. */
bool sched_ext_encode_binding(struct strbuf *sb, const struct api_pod *pod, const char *node);

/* Decoders: json[0..len) into out, strings and arrays allocated with alloc(ctx, size) (zeroed).
 * Field names match case-insensitively, unknown fields are ignored (Go's encoding/json).
 * Return 0 or ERR_INVALID / ERR_NOMEM with e filled. */
typedef void *(*sched_ext_alloc_fn)(void *ctx, size_t n);
/* ExtenderFilterResult; result.Error non-empty is returned as an error with that message.
 * node_cache_capable selects NodeNames over Nodes as upstream. */
int sched_ext_decode_filter(const char *json, size_t len, bool node_cache_capable, sched_ext_alloc_fn alloc,
			    void *ctx, struct fw_ext_filter_result *out, struct err *e);
int sched_ext_decode_prioritize(const char *json, size_t len, sched_ext_alloc_fn alloc, void *ctx,
				struct fw_ext_prio_result *out, struct err *e);
/* ExtenderBindingResult: 0, or its Error as an error. */
int sched_ext_decode_binding(const char *json, size_t len, struct err *e);

/* ---------- preemption wire format (upstream ProcessPreemption) ---------- */

struct sched_ext_victims {
	const char *node;
	uint32_t n_pods;
	const struct api_pod *const *pods; /* encode: the victims; decode: unused */
	const char **uids;                 /* decode: MetaPod UIDs; encode: unused */
	int64_t num_pdb_violations;
};
/* ExtenderPreemptionArgs: NodeNameToMetaVictims (UIDs) when node_cache_capable, else
 * NodeNameToVictims with the victims' JSON; the other map null. The map's keys in json.Marshal's
 * order (sorted); a node given twice is written once, with its last victims (a Go map's). */
bool sched_ext_encode_preemption(struct strbuf *sb, const struct api_pod *pod, const struct sched_ext_victims *v,
				 uint32_t n, bool node_cache_capable);
/* ExtenderPreemptionResult: NodeNameToMetaVictims, in the answer's order (repeats kept). A null
 * MetaVictims is no victims. */
int sched_ext_decode_preemption(const char *json, size_t len, sched_ext_alloc_fn alloc, void *ctx,
				struct sched_ext_victims **out, uint32_t *n, struct err *e);
/* upstream convertToVictims: the decoded v[0..n) as *out (alloc), victims being pods of the
 * node_infos of nodes, in node-name order (upstream: Go map order), a repeated node once (its last
 * answer). A node nodes lacks, and a UID not on its node, fail with upstream's error text (url: the
 * extender's urlPrefix, upstream's name for it). */
int sched_ext_convert_victims(const char *url, const struct sched_ext_victims *v, uint32_t n,
			      const struct fw_node_list *nodes, sched_ext_alloc_fn alloc, void *ctx,
			      struct fw_preemption **out, uint32_t *n_out, struct err *e);

#endif
