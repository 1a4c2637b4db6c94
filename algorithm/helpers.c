/* Matching helpers shared by several plugins: host ports, node selectors, tolerations. All are
 * pure functions of their arguments (safe on worker threads). */
#include "framework_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

void fw_pod_host_ports(const struct api_pod *pod,
		       bool (*fn)(void *ctx, const struct api_container_port *port), void *ctx)
{
	for (uint32_t i = 0; i < pod->n_containers; i++) {
		const struct api_container *c = &pod->containers[i];
		for (uint32_t k = 0; k < c->n_ports; k++)
			if (c->ports[k].host_port > 0 && !fn(ctx, &c->ports[k]))
				return;
	}
	/* restartable init containers (sidecars) hold their ports for the pod's lifetime */
	for (uint32_t i = 0; i < pod->n_init_containers; i++) {
		const struct api_container *c = &pod->init_containers[i];
		if (!c->restart_policy_always)
			continue;
		for (uint32_t k = 0; k < c->n_ports; k++)
			if (c->ports[k].host_port > 0 && !fn(ctx, &c->ports[k]))
				return;
	}
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool fw_ports_conflict(const struct node_info *ni, const char *ip, const char *protocol, int32_t port)
{
	const struct fw_names *nm = fw_names();
	if (port <= 0)
		return false;
	if (!ip || !ip[0])
		ip = nm->any_ip;
	if (!protocol || !protocol[0])
		protocol = nm->tcp;
	bool any = str_eq(ip, nm->any_ip);
	for (uint32_t i = 0; i < ni->n_ports; i++) {
		const struct node_port *u = &ni->ports[i];
		if (u->port != port || !str_eq(u->protocol, protocol))
			continue;
		/* 0.0.0.0 conflicts with every ip holding the port, and every ip with 0.0.0.0 */
		if (any || str_eq(u->ip, nm->any_ip) || str_eq(u->ip, ip))
			return true;
	}
	return false;
}

/* strconv.ParseInt(s, 10, 64) */
static bool parse_int64(const char *s, int64_t *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return false;
	/* Go rejects leading spaces, which strtoll would skip */
	if (s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
		return false;
	*out = v;
	return true;
}

static bool values_contain(const struct api_requirement *r, const char *v)
{
	for (uint32_t i = 0; i < r->n_values; i++)
		if (str_eq(r->values[i], v))
			return true;
	return false;
}

/* Whether a requirement is well-formed (labels.NewRequirement's checks on operator/values). */
static bool requirement_valid(const struct api_requirement *r)
{
	int64_t dummy;
	switch (r->op) {
	case API_OP_IN:
	case API_OP_NOT_IN:
		return r->n_values > 0;
	case API_OP_EXISTS:
	case API_OP_DOES_NOT_EXIST:
		return r->n_values == 0;
	case API_OP_GT:
	case API_OP_LT:
		return r->n_values == 1 && parse_int64(r->values[0], &dummy);
	default:
		return false;
	}
}

/* labels.Requirement.Matches; value NULL = the key is absent. */
static bool requirement_matches(const struct api_requirement *r, const char *value)
{
	int64_t lv, rv;
	switch (r->op) {
	case API_OP_IN:
		return value && values_contain(r, value);
	case API_OP_NOT_IN:
		return !value || !values_contain(r, value);
	case API_OP_EXISTS:
		return value != NULL;
	case API_OP_DOES_NOT_EXIST:
		return value == NULL;
	case API_OP_GT:
	case API_OP_LT:
		if (!value || !parse_int64(value, &lv) || !parse_int64(r->values[0], &rv))
			return false;
		return r->op == API_OP_GT ? lv > rv : lv < rv;
	default:
		return false;
	}
}

bool fw_node_selector_term_valid(const struct api_node_selector_term *t)
{
	for (uint32_t i = 0; i < t->n_exprs; i++)
		if (!requirement_valid(&t->exprs[i]))
			return false;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const struct api_requirement *r = &t->fields[i];
		/* field selectors: In/NotIn with exactly one value */
		if (r->n_values != 1 || (r->op != API_OP_IN && r->op != API_OP_NOT_IN))
			return false;
	}
	return true;
}

bool fw_node_selector_term_matches(const struct api_node_selector_term *t, const struct api_node *node)
{
	if (!fw_node_selector_term_valid(t))
		return false; /* a term with a parse error never matches */
	const struct fw_names *nm = fw_names();
	for (uint32_t i = 0; i < t->n_exprs; i++) {
		const struct api_requirement *r = &t->exprs[i];
		if (!requirement_matches(r, api_labels_get(&node->meta.labels, r->key)))
			return false;
	}
	/* upstream extractNodeFields sets metadata.name only when the node has a name, and
	 * nodeSelectorTerm.match skips matchFields when the node has no fields: a node of labels
	 * only (CheckNodeAffinity of a PV) passes every (valid) matchFields */
	if (!node->meta.name || !node->meta.name[0])
		return true;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const struct api_requirement *r = &t->fields[i];
		/* the only node field is metadata.name; any other key reads as "" */
		const char *v = str_eq(r->key, nm->metadata_name) ? node->meta.name : "";
		bool eq = str_eq(v, r->values[0]);
		if (r->op == API_OP_IN ? !eq : eq)
			return false;
	}
	return true;
}

bool fw_node_selector_matches(const struct api_node_selector_term *terms, uint32_t n, const struct api_node *node)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct api_node_selector_term *t = &terms[i];
		if (!t->n_exprs && !t->n_fields)
			continue; /* empty terms are dropped */
		if (fw_node_selector_term_matches(t, node))
			return true;
	}
	return false;
}

bool fw_pod_required_affinity_matches(const struct api_pod *pod, const struct api_node *node)
{
	for (uint32_t i = 0; i < pod->node_selector.n; i++) {
		const struct api_kv *kv = &pod->node_selector.items[i];
		if (!str_eq(api_labels_get(&node->meta.labels, kv->key), kv->value))
			return false;
	}
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	if (!na || !na->has_required)
		return true;
	return fw_node_selector_matches(na->required, na->n_required, node);
}

bool fw_tolerations_tolerate(const struct api_toleration *t, uint32_t n, const struct api_taint *taint)
{
	for (uint32_t i = 0; i < n; i++)
		if (api_toleration_tolerates(&t[i], taint))
			return true;
	return false;
}

/* ---------- Resources ---------- */

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

bool fw_is_extended_resource(const char *name)
{
	/* native: no "/" or a "kubernetes.io/" name; quota names ("requests.") are not extended */
	if (!strchr(name, '/') || strstr(name, "kubernetes.io/") || has_prefix(name, "requests."))
		return false;
	return true;
}

bool fw_is_scalar_resource(const char *name)
{
	return node_res_is_scalar_name(name); /* the cache's accounting decides what is scalar */
}

#define DEVICE_CLASS_PREFIX "deviceclass.resource.kubernetes.io/"

bool fw_is_dra_extended_resource(const char *name)
{
	return fw_is_extended_resource(name) || has_prefix(name, DEVICE_CLASS_PREFIX);
}

struct er_pick {
	const char *name; /* interned */
	const struct api_device_class *best;
};

static int er_visit(void *arg, const struct api_device_class *c)
{
	struct er_pick *k = arg;
	if (c->extended_resource_name != k->name)
		return 0;
	const struct api_device_class *b = k->best;
	if (!b || c->meta.creation_timestamp > b->meta.creation_timestamp ||
	    (c->meta.creation_timestamp == b->meta.creation_timestamp && strcmp(c->meta.name, b->meta.name) < 0))
		k->best = c;
	return 0;
}

struct api_device_class *fw_listers_extended_resource_class(const struct fw_listers *l, const char *name)
{
	if (!name || !l->device_class)
		return NULL;
	if (has_prefix(name, DEVICE_CLASS_PREFIX))
		return l->device_class(l->ctx, name + strlen(DEVICE_CLASS_PREFIX));
	struct er_pick k = { .name = intern_find(name) };
	if (!k.name || !l->device_class_each) /* never interned: no class names it */
		return NULL;
	l->device_class_each(l->ctx, er_visit, &k);
	/* the visit borrows; the winner is looked up again for a reference of the caller's own */
	return k.best ? l->device_class(l->ctx, k.best->meta.name) : NULL;
}

struct api_device_class *fw_extended_resource_class(const struct fw_pl *pl, const char *name)
{
	return fw_listers_extended_resource_class(&pl->profile->listers, name);
}

bool fw_delegate_resource_to_dra(const struct api_resources *alloc, const char *name, bool class_known)
{
	if (alloc && api_resources_scalar(alloc, name) > 0)
		return false;
	return class_known;
}

int64_t fw_res_get(const struct node_res *r, const char *name)
{
	const struct fw_names *nm = fw_names();
	if (name == nm->cpu)
		return r->cpu;
	if (name == nm->memory)
		return r->memory;
	if (name == nm->ephemeral_storage)
		return r->ephemeral_storage;
	return node_res_scalar(r, name);
}

void fw_resource_alloc_req(const struct node_info *ni, const char *name, int64_t pod_req, bool use_requested,
			   int64_t *alloc, int64_t *req)
{
	const struct fw_names *nm = fw_names();
	const struct api_resources *a = node_info_allocatable(ni);
	*alloc = 0;
	*req = 0;
	if (name == nm->cpu) {
		*alloc = a->cpu;
		*req = (use_requested ? ni->requested.cpu : ni->nonzero_cpu) + pod_req;
	} else if (name == nm->memory) {
		*alloc = a->memory;
		*req = (use_requested ? ni->requested.memory : ni->nonzero_memory) + pod_req;
	} else if (name == nm->ephemeral_storage) {
		*alloc = a->ephemeral_storage;
		*req = ni->requested.ephemeral_storage + pod_req;
	} else if (fw_is_scalar_resource(name)) {
		/* an extended resource the pod does not request is not scored */
		if (pod_req == 0)
			return;
		*alloc = api_resources_scalar(a, name);
		*req = node_res_scalar(&ni->requested, name) + pod_req;
	}
}

uint32_t fw_res_refs(const char *const *names, const int64_t *pod_req, const int64_t *weights, uint32_t n,
		     struct fw_res_ref *out)
{
	const struct fw_names *nm = fw_names();
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = names[i];
		enum fw_res_kind kind;
		if (name == nm->cpu)
			kind = FW_RES_CPU;
		else if (name == nm->memory)
			kind = FW_RES_MEMORY;
		else if (name == nm->ephemeral_storage)
			kind = FW_RES_EPHEMERAL_STORAGE;
		else if (fw_is_scalar_resource(name) && pod_req[i] != 0)
			kind = FW_RES_SCALAR;
		else
			continue; /* (0, 0) on every node: skipped by every scorer */
		out[k++] = (struct fw_res_ref){ kind, name, pod_req[i], weights ? weights[i] : 1, -1 };
	}
	return k;
}

fw_pre_score_fn fw_score_prepare_of(const struct fw_plugin *plugin)
{
	if (plugin == &fw_plugin_image_locality)
		return fw_image_locality_prepare;
	if (plugin == &fw_plugin_dynamic_resources)
		return fw_dynamic_resources_prepare;
	if (plugin == &fw_plugin_node_resources_fit || plugin == &fw_plugin_balanced_allocation)
		return fw_pre_score_if_not_configured;
	return NULL;
}

enum fw_code fw_pre_score_if_not_configured(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
					    const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	uint32_t n_pre;
	const struct fw_pl *const *pre = fw_profile_plugins(pl->profile, CFG_EP_PRE_SCORE, &n_pre);
	for (uint32_t i = 0; i < n_pre; i++)
		if (pre[i] == pl)
			return FW_SUCCESS; /* its PreScore ran (a Skip or an error never gets here) */
	/* the cycle state slot may hold the plugin's PreFilter state: PreScore overwrites it */
	return pl->plugin->pre_score(pl, c, pod, nodes, n, st);
}

int fw_pod_res_refs_new(const struct fw_pl *pl, struct dra_cel_cache *cc, struct fw_cycle *c, const struct api_pod *pod,
			enum node_res_kind kind, const char *const *names, const int64_t *weights, uint32_t n,
			const struct fw_pod_res_refs **out)
{
	struct fw_pod_res_refs *s = fw_cycle_alloc(c, sizeof(*s));
	int64_t *req = fw_cycle_alloc(c, n * sizeof(*req));
	struct node_res r;
	if (!s || !req || !(s->res = fw_cycle_alloc(c, n * sizeof(*s->res))))
		return ERR_NOMEM;
	if (node_res_of_pod(pod, kind, &r) < 0)
		return ERR_INVALID;
	s->requests_none = true;
	s->dra = NULL;
	for (uint32_t i = 0; i < n; i++) {
		req[i] = fw_res_get(&r, names[i]);
		s->requests_none &= req[i] == 0;
	}
	node_res_release(&r);
	s->n = fw_res_refs(names, req, weights, n, s->res);
	if (cc && fw_dra_scores_attach(pl, cc, c, s) < 0)
		return ERR_NOMEM;
	*out = s;
	return 0;
}
