/* InterPodAffinityArgs, PodTopologySpreadArgs, DefaultPreemptionArgs, VolumeBindingArgs and DynamicResourcesArgs:
 * decoding, upstream's v1 defaults, validation and writing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "common/macros.h"
#include "cfg_internal.h"

/* ---------- InterPodAffinityArgs ---------- */

static void inter_pod_defaults(void *args)
{
	((struct cfg_inter_pod_affinity_args *)args)->hard_pod_affinity_weight = 1;
}

static int inter_pod_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_inter_pod_affinity_args *a = c->args;
	if (dec_key_is(d, key, "hardPodAffinityWeight"))
		return dec_i32(d, v, &a->hard_pod_affinity_weight);
	if (dec_key_is(d, key, "ignorePreferredTermsOfExistingPods"))
		return dec_bool(d, v, &a->ignore_preferred_terms_of_existing_pods);
	return dec_unknown(d, key, v);
}

static int inter_pod_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_inter_pod_affinity_args *a = args;
	char p[CFG_PATH_MAX];
	if (a->hard_pod_affinity_weight < 0 || a->hard_pod_affinity_weight > 100) {
		cfg_pathf(p, sizeof(p), "%s.hardPodAffinityWeight", path);
		return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]", a->hard_pod_affinity_weight);
	}
	return 0;
}

static void inter_pod_write(FILE *f, int ind, const void *args)
{
	const struct cfg_inter_pod_affinity_args *a = args;
	cfg_write_key(f, ind, "hardPodAffinityWeight");
	fprintf(f, " %d\n", a->hard_pod_affinity_weight);
	if (a->ignore_preferred_terms_of_existing_pods) {
		cfg_write_key(f, ind, "ignorePreferredTermsOfExistingPods");
		fputs(" true\n", f);
	}
}

const struct cfg_args_type cfg_args_inter_pod_affinity = {
	.kind = CFG_ARGS_INTER_POD_AFFINITY,
	.name = "InterPodAffinityArgs",
	CFG_ARGS_MEMBER(inter_pod_affinity),
	.set_defaults = inter_pod_defaults,
	.field = inter_pod_field,
	.validate = inter_pod_validate,
	.write = inter_pod_write,
};

/* ---------- PodTopologySpreadArgs ---------- */

static void topology_defaults(void *args)
{
	((struct cfg_topology_spread_args *)args)->defaulting_type = CFG_DEFAULTING_SYSTEM;
}

static int constraint_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_topology_spread_constraint *t = ctx;
	const char *s = NULL;
	int rc;
	if (dec_key_is(d, key, "maxSkew"))
		return dec_i32(d, v, &t->max_skew);
	if (dec_key_is(d, key, "topologyKey"))
		return dec_istr(d, v, &t->topology_key);
	if (dec_key_is(d, key, "whenUnsatisfiable")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		if (strcmp(s, "DoNotSchedule") == 0)
			t->when_unsatisfiable = API_DO_NOT_SCHEDULE;
		else if (strcmp(s, "ScheduleAnyway") == 0)
			t->when_unsatisfiable = API_SCHEDULE_ANYWAY;
		else if (s[0] == '\0')
			return dec_err(d, v, "Required value: can not be empty");
		else
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"", s);
		return 0;
	}
	if (dec_key_is(d, key, "labelSelector"))
		return dec_err(d, v, "Forbidden: constraint must not define a selector, as they deduced for each pod");
	if (dec_key_is(d, key, "minDomains")) {
		t->has_min_domains = true;
		return dec_i32(d, v, &t->min_domains);
	}
	if (dec_key_is(d, key, "nodeAffinityPolicy") || dec_key_is(d, key, "nodeTaintsPolicy")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		enum api_inclusion_policy pol;
		if (strcmp(s, "Honor") == 0)
			pol = API_POLICY_HONOR;
		else if (strcmp(s, "Ignore") == 0)
			pol = API_POLICY_IGNORE;
		else
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"Honor\", \"Ignore\"", s);
		if (dec_key_is(d, key, "nodeAffinityPolicy"))
			t->node_affinity_policy = pol;
		else
			t->node_taints_policy = pol;
		return 0;
	}
	if (dec_key_is(d, key, "matchLabelKeys"))
		return dec_istr_list(d, v, &t->n_match_label_keys, &t->match_label_keys);
	return dec_unknown(d, key, v);
}

static int constraint_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct api_topology_spread_constraint *t = (struct api_topology_spread_constraint *)ctx + i;
	t->topology_key = intern_str("");
	t->when_unsatisfiable = (enum api_unsatisfiable)-1;
	int rc = dec_map(d, item, constraint_field, t);
	if (!rc && t->when_unsatisfiable == (enum api_unsatisfiable)-1)
		rc = dec_err(d, item, "whenUnsatisfiable: Required value: can not be empty");
	return rc;
}

static int topology_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_topology_spread_args *t = c->args;
	if (dec_key_is(d, key, "defaultConstraints")) {
		int rc;
		t->default_constraints = cfg_dec_array(d, v, sizeof(*t->default_constraints), constraint_item,
						       &t->n_default_constraints, &rc);
		return rc;
	}
	if (dec_key_is(d, key, "defaultingType")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		if (strcmp(s, "System") == 0)
			t->defaulting_type = CFG_DEFAULTING_SYSTEM;
		else if (strcmp(s, "List") == 0)
			t->defaulting_type = CFG_DEFAULTING_LIST;
		else if (s[0])
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"System\", \"List\"", s);
		return 0;
	}
	return dec_unknown(d, key, v);
}

static const char *unsatisfiable_name(enum api_unsatisfiable u)
{
	return u == API_DO_NOT_SCHEDULE ? "DoNotSchedule" : "ScheduleAnyway";
}

static int check_constraint(const struct cfg_vctx *v, const char *path, const struct cfg_topology_spread_args *t,
			    uint32_t i)
{
	const struct api_topology_spread_constraint *c = &t->default_constraints[i];
	char p[CFG_PATH_MAX];
	if (c->max_skew <= 0) {
		cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u].maxSkew", path, i);
		return cfg_verr(v, p, "Invalid value: %d: not in valid range (0, inf)", c->max_skew);
	}
	cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u].topologyKey", path, i);
	if (!c->topology_key || !c->topology_key[0])
		return cfg_verr(v, p, "Required value: can not be empty");
	const char *m = cfg_check_qualified_name(c->topology_key);
	if (m)
		return cfg_verr(v, p, "Invalid value: \"%s\": %s", c->topology_key, m);
	for (uint32_t j = 0; j < i; j++) {
		const struct api_topology_spread_constraint *o = &t->default_constraints[j];
		if (o->topology_key == c->topology_key && o->when_unsatisfiable == c->when_unsatisfiable) {
			cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u]", path, i);
			return cfg_verr(v, p, "Duplicate value: \"{%s, %s}\"", c->topology_key,
					unsatisfiable_name(c->when_unsatisfiable));
		}
	}
	return 0;
}

static int topology_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_topology_spread_args *t = args;
	char p[CFG_PATH_MAX];
	int rc;
	if (t->defaulting_type == CFG_DEFAULTING_SYSTEM && t->n_default_constraints > 0) {
		cfg_pathf(p, sizeof(p), "%s.defaultingType", path);
		return cfg_verr(v, p, "Invalid value: \"System\": when .defaultConstraints are not empty");
	}
	for (uint32_t i = 0; i < t->n_default_constraints; i++)
		if ((rc = check_constraint(v, path, t, i)))
			return rc;
	return 0;
}

static void write_policy(FILE *f, int ind, const char *key, enum api_inclusion_policy pol)
{
	if (pol == API_POLICY_UNSET)
		return;
	cfg_write_key(f, ind, key);
	fprintf(f, " %s\n", pol == API_POLICY_HONOR ? "Honor" : "Ignore");
}

static void topology_write(FILE *f, int ind, const void *args)
{
	const struct cfg_topology_spread_args *t = args;
	if (t->n_default_constraints) {
		cfg_write_key(f, ind, "defaultConstraints");
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < t->n_default_constraints; i++) {
		const struct api_topology_spread_constraint *c = &t->default_constraints[i];
		cfg_write_indent(f, ind);
		fprintf(f, "- maxSkew: %d\n", c->max_skew);
		cfg_write_key(f, ind + 2, "topologyKey");
		fputc(' ', f);
		cfg_write_str(f, c->topology_key);
		fputc('\n', f);
		cfg_write_key(f, ind + 2, "whenUnsatisfiable");
		fprintf(f, " %s\n", unsatisfiable_name(c->when_unsatisfiable));
		if (c->has_min_domains) {
			cfg_write_key(f, ind + 2, "minDomains");
			fprintf(f, " %d\n", c->min_domains);
		}
		write_policy(f, ind + 2, "nodeAffinityPolicy", c->node_affinity_policy);
		write_policy(f, ind + 2, "nodeTaintsPolicy", c->node_taints_policy);
		cfg_write_strs(f, ind + 2, "matchLabelKeys", c->match_label_keys, c->n_match_label_keys);
	}
	cfg_write_key(f, ind, "defaultingType");
	fprintf(f, " %s\n", t->defaulting_type == CFG_DEFAULTING_LIST ? "List" : "System");
}

const struct cfg_args_type cfg_args_topology_spread = {
	.kind = CFG_ARGS_TOPOLOGY_SPREAD,
	.name = "PodTopologySpreadArgs",
	CFG_ARGS_MEMBER(topology_spread),
	.set_defaults = topology_defaults,
	.field = topology_field,
	.validate = topology_validate,
	.write = topology_write,
};

/* ---------- DefaultPreemptionArgs ---------- */

static void preemption_defaults(void *args)
{
	struct cfg_preemption_args *a = args;
	a->min_candidate_nodes_percentage = 10;
	a->min_candidate_nodes_absolute = 100;
}

static int preemption_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_preemption_args *a = c->args;
	if (dec_key_is(d, key, "minCandidateNodesPercentage"))
		return dec_i32(d, v, &a->min_candidate_nodes_percentage);
	if (dec_key_is(d, key, "minCandidateNodesAbsolute"))
		return dec_i32(d, v, &a->min_candidate_nodes_absolute);
	return dec_unknown(d, key, v);
}

static int preemption_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_preemption_args *pa = args;
	char p[CFG_PATH_MAX];
	if (pa->min_candidate_nodes_percentage < 0 || pa->min_candidate_nodes_percentage > 100) {
		cfg_pathf(p, sizeof(p), "%s.minCandidateNodesPercentage", path);
		return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]", pa->min_candidate_nodes_percentage);
	}
	if (pa->min_candidate_nodes_absolute < 0) {
		cfg_pathf(p, sizeof(p), "%s.minCandidateNodesAbsolute", path);
		return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, inf)", pa->min_candidate_nodes_absolute);
	}
	if (pa->min_candidate_nodes_percentage == 0 && pa->min_candidate_nodes_absolute == 0) {
		cfg_pathf(p, sizeof(p), "%s.minCandidateNodesPercentage", path);
		return cfg_verr(v, p, "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute");
	}
	return 0;
}

static void preemption_write(FILE *f, int ind, const void *args)
{
	const struct cfg_preemption_args *a = args;
	cfg_write_key(f, ind, "minCandidateNodesPercentage");
	fprintf(f, " %d\n", a->min_candidate_nodes_percentage);
	cfg_write_key(f, ind, "minCandidateNodesAbsolute");
	fprintf(f, " %d\n", a->min_candidate_nodes_absolute);
}

const struct cfg_args_type cfg_args_preemption = {
	.kind = CFG_ARGS_PREEMPTION,
	.name = "DefaultPreemptionArgs",
	CFG_ARGS_MEMBER(preemption),
	.set_defaults = preemption_defaults,
	.field = preemption_field,
	.validate = preemption_validate,
	.write = preemption_write,
};

/* ---------- VolumeBindingArgs ---------- */

static const struct cfg_shape_point volume_binding_default_shape[] = { { 0, 10 }, { 100, 0 } };

static void volume_binding_defaults(void *args)
{
	struct cfg_volume_binding_args *a = args;
	a->bind_timeout_seconds = 600;
	a->n_shape = ARRAY_SIZE(volume_binding_default_shape);
	a->shape = volume_binding_default_shape;
}

static int volume_binding_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_volume_binding_args *a = c->args;
	if (dec_key_is(d, key, "bindTimeoutSeconds"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &a->bind_timeout_seconds);
	if (dec_key_is(d, key, "shape")) {
		struct cfg_shape_point *pts = NULL;
		int rc = cfg_dec_shape(d, v, &a->n_shape, &pts);
		a->shape = pts;
		return rc;
	}
	return dec_unknown(d, key, v);
}

/* upstream defaults an empty shape (len(obj.Shape) == 0), not only an absent one */
static int volume_binding_finish(struct cfg_dec *d, struct cfg_args_ctx *c)
{
	(void)d;
	struct cfg_volume_binding_args *a = c->args;
	if (a->n_shape == 0) {
		a->n_shape = ARRAY_SIZE(volume_binding_default_shape);
		a->shape = volume_binding_default_shape;
	}
	return 0;
}

static int volume_binding_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_volume_binding_args *a = args;
	char p[CFG_PATH_MAX];
	if (a->bind_timeout_seconds < 0) {
		cfg_pathf(p, sizeof(p), "%s.bindTimeoutSeconds", path);
		return cfg_verr(v, p, "Invalid value: %" PRId64 ": invalid BindTimeoutSeconds, should not be a negative value",
				a->bind_timeout_seconds);
	}
	cfg_pathf(p, sizeof(p), "%s.shape", path);
	return cfg_check_shape(v, p, a->shape, a->n_shape);
}

static void volume_binding_write(FILE *f, int ind, const void *args)
{
	const struct cfg_volume_binding_args *a = args;
	cfg_write_key(f, ind, "bindTimeoutSeconds");
	fprintf(f, " %" PRId64 "\n", a->bind_timeout_seconds);
	cfg_write_key(f, ind, "shape");
	fputc('\n', f);
	for (uint32_t i = 0; i < a->n_shape; i++) {
		cfg_write_indent(f, ind);
		fprintf(f, "- utilization: %d\n", a->shape[i].utilization);
		cfg_write_indent(f, ind + 2);
		fprintf(f, "score: %d\n", a->shape[i].score);
	}
}

const struct cfg_args_type cfg_args_volume_binding = {
	.kind = CFG_ARGS_VOLUME_BINDING,
	.name = "VolumeBindingArgs",
	CFG_ARGS_MEMBER(volume_binding),
	.set_defaults = volume_binding_defaults,
	.field = volume_binding_field,
	.finish = volume_binding_finish,
	.validate = volume_binding_validate,
	.write = volume_binding_write,
};

/* ---------- DynamicResourcesArgs ---------- */

/* SetDefaults_DynamicResourcesArgs with v1.37's gates (DRASchedulerFilterTimeout,
 * DRADeviceBindingConditions and DRAResourceClaimDeviceStatus on): filterTimeout 10s,
 * bindingTimeout 600s. */
static void dynamic_resources_defaults(void *args)
{
	struct cfg_dynamic_resources_args *a = args;
	a->filter_timeout_ns = 10 * 1000000000LL;
	a->binding_timeout_ns = 600 * 1000000000LL;
}

static int dynamic_resources_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_dynamic_resources_args *a = c->args;
	if (dec_key_is(d, key, "filterTimeout"))
		return dec_duration(d, v, &a->filter_timeout_ns);
	if (dec_key_is(d, key, "bindingTimeout"))
		return dec_duration(d, v, &a->binding_timeout_ns);
	return dec_unknown(d, key, v);
}

/* ValidateDynamicResourcesArgs with the gates above on (so both fields are allowed). */
static int dynamic_resources_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_dynamic_resources_args *a = args;
	char p[CFG_PATH_MAX], b[48];
	if (a->filter_timeout_ns < 0) {
		cfg_pathf(p, sizeof(p), "%s.filterTimeout", path);
		return cfg_verr(v, p, "Invalid value: \"%s\": must be zero or positive",
				cfg_duration_format(a->filter_timeout_ns, b, sizeof(b)));
	}
	if (a->binding_timeout_ns < 1000000000LL) {
		cfg_pathf(p, sizeof(p), "%s.bindingTimeout", path);
		return cfg_verr(v, p, "Invalid value: \"%s\": must be at least 1 second",
				cfg_duration_format(a->binding_timeout_ns, b, sizeof(b)));
	}
	return 0;
}

static void dynamic_resources_write(FILE *f, int ind, const void *args)
{
	const struct cfg_dynamic_resources_args *a = args;
	char b[48];
	cfg_write_key(f, ind, "bindingTimeout");
	fprintf(f, " %s\n", cfg_duration_format(a->binding_timeout_ns, b, sizeof(b)));
	cfg_write_key(f, ind, "filterTimeout");
	fprintf(f, " %s\n", cfg_duration_format(a->filter_timeout_ns, b, sizeof(b)));
}

const struct cfg_args_type cfg_args_dynamic_resources = {
	.kind = CFG_ARGS_DYNAMIC_RESOURCES,
	.name = "DynamicResourcesArgs",
	CFG_ARGS_MEMBER(dynamic_resources),
	.set_defaults = dynamic_resources_defaults,
	.field = dynamic_resources_field,
	.validate = dynamic_resources_validate,
	.write = dynamic_resources_write,
};
