/* KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): decoding, upstream's defaults
 * (apis/config/v1/defaults.go), validation (apis/config/validation/validation.go plus the
 * framework's and client-go's own checks) and the public entry points. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "common/strbuf.h"
#include "cfg_internal.h"

#define NS_PER_SEC 1000000000LL
/* client-go's leaderelection.JitterFactor: RenewDeadline must exceed RetryPeriod * 1.2. */
#define LEADER_JITTER_FACTOR 1.2

static int nomem(struct err *e)
{
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* ---------- defaults ---------- */

/* Defaults of fields upstream declares as pointers (an explicit zero stays zero). Fields whose
 * zero value upstream replaces (durations, lock names, qps, burst, contentType) are filled
 * after decoding by fill_zero_defaults. */
void cfg_set_defaults(struct config *cfg)
{
	cfg->parallelism = 16;
	cfg->percentage_of_nodes_to_score = 0;
	cfg->pod_initial_backoff_seconds = 1;
	cfg->pod_max_backoff_seconds = 10;
	cfg->delay_cache_until_active = false;
	cfg->enable_profiling = true;
	cfg->enable_contention_profiling = true;
	cfg->leader_election.leader_elect = true;
	cfg->leader_election.resource_lock = "";
	cfg->leader_election.resource_name = "";
	cfg->leader_election.resource_namespace = "";
	cfg->client_connection.kubeconfig = "";
	cfg->client_connection.accept_content_types = "";
	cfg->client_connection.content_type = "";
}

static void fill_zero_defaults(struct config *cfg)
{
	struct cfg_leader_election *le = &cfg->leader_election;
	if (le->lease_duration_ns == 0)
		le->lease_duration_ns = 15 * NS_PER_SEC;
	if (le->renew_deadline_ns == 0)
		le->renew_deadline_ns = 10 * NS_PER_SEC;
	if (le->retry_period_ns == 0)
		le->retry_period_ns = 2 * NS_PER_SEC;
	if (!le->resource_lock[0])
		le->resource_lock = "leases";
	if (!le->resource_name[0])
		le->resource_name = CFG_DEFAULT_LEASE_NAME;
	if (!le->resource_namespace[0])
		le->resource_namespace = "kube-system";
	struct cfg_client_connection *cc = &cfg->client_connection;
	/* as upstream (scheduler apis/config/v1 defaults.go): the informers read protobuf */
	if (!cc->content_type[0])
		cc->content_type = "application/vnd.kubernetes.protobuf";
	if (cc->qps == 0)
		cc->qps = 50;
	if (cc->burst == 0)
		cc->burst = 100;
	for (uint32_t i = 0; i < cfg->n_extenders; i++)
		if (cfg->extenders[i].http_timeout_ns == 0)
			cfg->extenders[i].http_timeout_ns = 5 * NS_PER_SEC; /* extender.go DefaultExtenderTimeout */
}

static void profile_init(struct cfg_profile *p)
{
	memset(p, 0, sizeof(*p));
	cfg_args_set_defaults(&p->args);
}

/* ---------- decoding: plugins ---------- */

struct set_ctx {
	struct cfg_plugin_set *set;
	bool enabled;
};

static int plugin_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_plugin *p = ctx;
	if (dec_key_is(d, key, "name"))
		return dec_istr(d, v, &p->name);
	if (dec_key_is(d, key, "weight")) {
		int32_t w;
		int rc = dec_i32(d, v, &w);
		if (rc)
			return rc;
		if (w < 1 || w > CFG_MAX_PLUGIN_WEIGHT)
			return dec_err(d, v, "must be in the range 1..%d, got %d", CFG_MAX_PLUGIN_WEIGHT, w);
		p->weight = w;
		return 0;
	}
	return dec_unknown(d, key, v);
}

static int plugin_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct set_ctx *c = ctx;
	struct cfg_plugin p = { .name = intern_str("") };
	int rc = dec_map(d, item, plugin_field, &p);
	if (rc)
		return rc;
	if (!p.name[0])
		return dec_err(d, item, "name: Required value");
	if (c->enabled)
		c->set->enabled[i] = p;
	else
		c->set->disabled[i] = p.name;
	return 0;
}

static int set_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_plugin_set *s = ctx;
	bool enabled = dec_key_is(d, key, "enabled");
	if (!enabled && !dec_key_is(d, key, "disabled"))
		return dec_unknown(d, key, v);
	size_t len;
	int rc = dec_seq_len(d, v, &len);
	if (rc)
		return rc;
	if (enabled) {
		s->enabled = len ? arena_alloc(d->arena, len * sizeof(*s->enabled)) : NULL;
		s->n_enabled = (uint32_t)len;
		if (len && !s->enabled)
			return nomem(d->e);
	} else {
		s->disabled = len ? arena_alloc(d->arena, len * sizeof(*s->disabled)) : NULL;
		s->n_disabled = (uint32_t)len;
		if (len && !s->disabled)
			return nomem(d->e);
	}
	struct set_ctx c = { .set = s, .enabled = enabled };
	return dec_seq(d, v, plugin_item, &c);
}

static int plugins_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_plugins *p = ctx;
	for (int ep = 0; ep <= CFG_EP_COUNT; ep++)
		if (dec_key_is(d, key, cfg_ext_point_key((enum cfg_ext_point)ep)))
			return dec_map(d, v, set_field, &p->sets[ep]);
	return dec_unknown(d, key, v);
}

/* ---------- decoding: pluginConfig ---------- */

struct pc_item {
	const char *name;
	yaml_node_t *name_node, *args;
};

static int pc_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pc_item *it = ctx;
	if (dec_key_is(d, key, "name")) {
		it->name_node = v;
		return dec_istr(d, v, &it->name);
	}
	if (dec_key_is(d, key, "args")) {
		it->args = v;
		return 0;
	}
	return dec_unknown(d, key, v);
}

struct pc_ctx {
	struct cfg_profile *prof;
	const char **seen;
};

static int pc_item_fn(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct pc_ctx *c = ctx;
	struct pc_item it = { .name = NULL };
	int rc = dec_map(d, item, pc_field, &it);
	if (rc)
		return rc;
	if (!it.name || !it.name[0])
		return dec_err(d, item, "name: Required value");
	for (size_t j = 0; j < i; j++)
		if (c->seen[j] == it.name)
			return dec_err(d, item, "Duplicate value: \"%s\"", it.name);
	c->seen[i] = it.name;
	const struct cfg_plugin_desc *info = cfg_registry_lookup(d->reg, it.name);
	if (!info) {
		if (cfg_plugin_removed(it.name))
			return dec_err(d, item, "Invalid value: \"%s\": was invalid in version \"%s\" (KubeSchedulerConfiguration is version \"%s\")",
				       it.name, CFG_API_VERSION, CFG_API_VERSION);
		return dec_err(d, it.name_node, "unknown plugin \"%s\"", it.name);
	}
	if (!info->args) {
		/* The plugin has no args type: accept nothing or an empty mapping only. */
		if (it.args && !dec_is_null(it.args) &&
		    !(it.args->type == YAML_MAPPING_NODE && it.args->data.mapping.pairs.top == it.args->data.mapping.pairs.start)) {
			size_t saved = dec_push_key(d, "args");
			rc = dec_err(d, it.args, "plugin %s takes no args", it.name);
			dec_pop(d, saved);
			return rc;
		}
		return 0;
	}
	size_t saved = dec_push_key(d, "args");
	enum cfg_args_kind kind = cfg_args_type_kind(info->args);
	/* validated with every other profile's args once the document is decoded (complete) */
	rc = cfg_args_decode(d, it.args, info->name, info->args, &c->prof->args);
	dec_pop(d, saved);
	if (!rc)
		c->prof->plugin_config[c->prof->n_plugin_config++] = kind;
	return rc;
}

/* ---------- decoding: profiles ---------- */

static int profile_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_profile *p = ctx;
	if (dec_key_is(d, key, "schedulerName"))
		return dec_str(d, v, &p->scheduler_name);
	if (dec_key_is(d, key, "percentageOfNodesToScore")) {
		p->has_percentage_of_nodes_to_score = true;
		return dec_i32(d, v, &p->percentage_of_nodes_to_score);
	}
	if (dec_key_is(d, key, "plugins"))
		return dec_map(d, v, plugins_field, &p->plugins);
	if (dec_key_is(d, key, "pluginConfig")) {
		size_t len;
		int rc = dec_seq_len(d, v, &len);
		if (rc)
			return rc;
		struct pc_ctx c = { .prof = p, .seen = len ? arena_alloc(d->arena, len * sizeof(char *)) : NULL };
		if (len && !c.seen)
			return nomem(d->e);
		return dec_seq(d, v, pc_item_fn, &c);
	}
	return dec_unknown(d, key, v);
}

static int profile_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct cfg_profile *profiles = ctx;
	profile_init(&profiles[i]);
	return dec_map(d, item, profile_field, &profiles[i]);
}

/* ---------- decoding: top level ---------- */

static int le_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_leader_election *le = ctx;
	if (dec_key_is(d, key, "leaderElect"))
		return dec_bool(d, v, &le->leader_elect);
	if (dec_key_is(d, key, "leaseDuration"))
		return dec_duration(d, v, &le->lease_duration_ns);
	if (dec_key_is(d, key, "renewDeadline"))
		return dec_duration(d, v, &le->renew_deadline_ns);
	if (dec_key_is(d, key, "retryPeriod"))
		return dec_duration(d, v, &le->retry_period_ns);
	if (dec_key_is(d, key, "resourceLock"))
		return dec_str(d, v, &le->resource_lock);
	if (dec_key_is(d, key, "resourceName"))
		return dec_str(d, v, &le->resource_name);
	if (dec_key_is(d, key, "resourceNamespace"))
		return dec_str(d, v, &le->resource_namespace);
	return dec_unknown(d, key, v);
}

static int cc_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_client_connection *cc = ctx;
	if (dec_key_is(d, key, "kubeconfig"))
		return dec_str(d, v, &cc->kubeconfig);
	if (dec_key_is(d, key, "acceptContentTypes"))
		return dec_str(d, v, &cc->accept_content_types);
	if (dec_key_is(d, key, "contentType"))
		return dec_str(d, v, &cc->content_type);
	if (dec_key_is(d, key, "qps")) {
		double q;
		int rc = dec_float(d, v, &q);
		if (!rc)
			cc->qps = (float)q;
		return rc;
	}
	if (dec_key_is(d, key, "burst"))
		return dec_i32(d, v, &cc->burst);
	return dec_unknown(d, key, v);
}

struct top_ctx {
	struct config *cfg;
	bool has_api_version, has_kind;
};

static int top_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct top_ctx *t = ctx;
	struct config *cfg = t->cfg;
	const char *s = NULL;
	int rc;
	if (dec_key_is(d, key, "apiVersion")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		t->has_api_version = true;
		if (strcmp(s, CFG_API_VERSION) != 0)
			return dec_err(d, v, "unsupported apiVersion \"%s\": csched reads %s only", s, CFG_API_VERSION);
		return 0;
	}
	if (dec_key_is(d, key, "kind")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		t->has_kind = true;
		if (strcmp(s, CFG_KIND) != 0)
			return dec_err(d, v, "unsupported kind \"%s\": want %s", s, CFG_KIND);
		return 0;
	}
	if (dec_key_is(d, key, "parallelism"))
		return dec_i32(d, v, &cfg->parallelism);
	if (dec_key_is(d, key, "leaderElection"))
		return dec_map(d, v, le_field, &cfg->leader_election);
	if (dec_key_is(d, key, "clientConnection"))
		return dec_map(d, v, cc_field, &cfg->client_connection);
	if (dec_key_is(d, key, "enableProfiling"))
		return dec_bool(d, v, &cfg->enable_profiling);
	if (dec_key_is(d, key, "enableContentionProfiling"))
		return dec_bool(d, v, &cfg->enable_contention_profiling);
	if (dec_key_is(d, key, "percentageOfNodesToScore"))
		return dec_i32(d, v, &cfg->percentage_of_nodes_to_score);
	if (dec_key_is(d, key, "podInitialBackoffSeconds"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &cfg->pod_initial_backoff_seconds);
	if (dec_key_is(d, key, "podMaxBackoffSeconds"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &cfg->pod_max_backoff_seconds);
	if (dec_key_is(d, key, "delayCacheUntilActive"))
		return dec_bool(d, v, &cfg->delay_cache_until_active);
	if (dec_key_is(d, key, "profiles")) {
		size_t len;
		if ((rc = dec_seq_len(d, v, &len)))
			return rc;
		cfg->profiles = len ? arena_alloc(d->arena, len * sizeof(*cfg->profiles)) : NULL;
		if (len && !cfg->profiles)
			return nomem(d->e);
		cfg->n_profiles = (uint32_t)len;
		return dec_seq(d, v, profile_item, cfg->profiles);
	}
	if (dec_key_is(d, key, "extenders"))
		return cfg_decode_extenders(d, v, false, cfg);
	return dec_unknown(d, key, v);
}

static int decode_config(struct cfg_dec *d, yaml_node_t *root, struct config *cfg)
{
	struct top_ctx t = { .cfg = cfg };
	if (root && root->type != YAML_MAPPING_NODE && !dec_is_null(root))
		return dec_err(d, root, "expected a mapping at the top level, got a %s",
			       root->type == YAML_SEQUENCE_NODE ? "sequence" : "scalar");
	int rc = root ? dec_map(d, root, top_field, &t) : 0;
	if (rc)
		return rc;
	if (!t.has_api_version)
		return dec_err(d, root, "apiVersion: Required value: want %s", CFG_API_VERSION);
	if (!t.has_kind)
		return dec_err(d, root, "kind: Required value: want %s", CFG_KIND);
	return 0;
}

/* ---------- validation ---------- */

static bool sets_equal(const struct cfg_plugin_set *a, const struct cfg_plugin_set *b)
{
	if (a->n_enabled != b->n_enabled || a->n_disabled != b->n_disabled)
		return false;
	for (uint32_t i = 0; i < a->n_enabled; i++)
		if (strcmp(a->enabled[i].name, b->enabled[i].name) || a->enabled[i].weight != b->enabled[i].weight)
			return false;
	for (uint32_t i = 0; i < a->n_disabled; i++)
		if (strcmp(a->disabled[i], b->disabled[i]))
			return false;
	return true;
}

static int validate_leader_election(const struct cfg_vctx *v, const struct cfg_leader_election *le)
{
	char b1[32], b2[32], b3[32];
	if (le->leader_elect) {
		if (le->lease_duration_ns <= 0)
			return cfg_verr(v, "leaderElection.leaseDuration", "Invalid value: \"%s\": must be greater than zero",
					cfg_duration_format(le->lease_duration_ns, b1, sizeof(b1)));
		if (le->renew_deadline_ns <= 0)
			return cfg_verr(v, "leaderElection.renewDeadline", "Invalid value: \"%s\": must be greater than zero",
					cfg_duration_format(le->renew_deadline_ns, b1, sizeof(b1)));
		if (le->retry_period_ns <= 0)
			return cfg_verr(v, "leaderElection.retryPeriod", "Invalid value: \"%s\": must be greater than zero",
					cfg_duration_format(le->retry_period_ns, b1, sizeof(b1)));
		if (le->lease_duration_ns <= le->renew_deadline_ns)
			return cfg_verr(v, "leaderElection.leaseDuration",
					"Invalid value: \"%s\": LeaseDuration must be greater than RenewDeadline (%s)",
					cfg_duration_format(le->lease_duration_ns, b1, sizeof(b1)),
					cfg_duration_format(le->renew_deadline_ns, b2, sizeof(b2)));
		if ((double)le->renew_deadline_ns <= LEADER_JITTER_FACTOR * (double)le->retry_period_ns)
			return cfg_verr(v, "leaderElection.renewDeadline",
					"Invalid value: \"%s\": renewDeadline must be greater than retryPeriod*JitterFactor (%s*1.2 = %s)",
					cfg_duration_format(le->renew_deadline_ns, b1, sizeof(b1)),
					cfg_duration_format(le->retry_period_ns, b2, sizeof(b2)),
					cfg_duration_format((int64_t)(LEADER_JITTER_FACTOR * (double)le->retry_period_ns), b3, sizeof(b3)));
		if (strcmp(le->resource_lock, "leases") != 0)
			return cfg_verr(v, "leaderElection.resourceLock", "Invalid value: \"%s\": resourceLock value must be \"leases\"",
					le->resource_lock);
	}
	return 0;
}

/* A plugin name as encoding/json writes it (quotes; <, > and & as \u00XX). */
static void json_name(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_add(sb, s, 1);
	}
	strbuf_puts(sb, "\"");
}

/* The bad value of upstream's queueSort error: the profile's internal config.PluginSet as
 * field.Error renders it (json.Marshal: exported field names, nil lists as null; a disabled
 * entry keeps only its name, as v1's mergePluginSet makes it). */
static void plugin_set_json(struct strbuf *sb, const struct cfg_plugin_set *s)
{
	strbuf_puts(sb, "{\"Enabled\":");
	if (!s->n_enabled)
		strbuf_puts(sb, "null");
	for (uint32_t i = 0; i < s->n_enabled; i++) {
		strbuf_puts(sb, i ? ",{\"Name\":" : "[{\"Name\":");
		json_name(sb, s->enabled[i].name);
		strbuf_addf(sb, ",\"Weight\":%d}%s", s->enabled[i].weight, i + 1 == s->n_enabled ? "]" : "");
	}
	strbuf_puts(sb, ",\"Disabled\":");
	if (!s->n_disabled)
		strbuf_puts(sb, "null");
	for (uint32_t i = 0; i < s->n_disabled; i++) {
		strbuf_puts(sb, i ? ",{\"Name\":" : "[{\"Name\":");
		json_name(sb, s->disabled[i]);
		strbuf_addf(sb, ",\"Weight\":0}%s", i + 1 == s->n_disabled ? "]" : "");
	}
	strbuf_puts(sb, "}");
}

/* upstream validateCommonQueueSort: the same queueSort set in every profile. (Its "only one
 * queue sort plugin can be enabled" cannot trip here: the one queue sort plugin twice is refused
 * while decoding, "already registered".) */
static int validate_common_queue_sort(const struct cfg_vctx *v, const struct config *cfg)
{
	char p[CFG_PATH_MAX];
	const struct cfg_plugin_set *canon = &cfg->profiles[0].plugins.sets[CFG_EP_QUEUE_SORT];
	for (uint32_t i = 1; i < cfg->n_profiles; i++) {
		const struct cfg_plugin_set *cur = &cfg->profiles[i].plugins.sets[CFG_EP_QUEUE_SORT];
		if (sets_equal(canon, cur))
			continue;
		struct strbuf sb = STRBUF_INIT;
		plugin_set_json(&sb, cur);
		cfg_pathf(p, sizeof(p), "profiles[%u].plugins.queueSort", i);
		int rc = sb.oom ? nomem(v->e)
				: cfg_verr(v, p, "Invalid value: %s: must be the same for all profiles", sb.data);
		strbuf_release(&sb);
		return rc;
	}
	return 0;
}

/* upstream ValidateKubeSchedulerConfiguration's profiles part, in its order: per profile the
 * name and percentageOfNodesToScore, then a name seen before; then the queue sort. */
static int validate_profiles(const struct cfg_vctx *v, const struct config *cfg)
{
	char p[CFG_PATH_MAX];
	if (cfg->n_profiles == 0)
		return cfg_verr(v, "profiles", "Required value");
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		const struct cfg_profile *prof = &cfg->profiles[i];
		if (!prof->scheduler_name || !prof->scheduler_name[0]) {
			cfg_pathf(p, sizeof(p), "profiles[%u].schedulerName", i);
			return cfg_verr(v, p, "Required value");
		}
		if (prof->has_percentage_of_nodes_to_score &&
		    (prof->percentage_of_nodes_to_score < 0 || prof->percentage_of_nodes_to_score > 100)) {
			cfg_pathf(p, sizeof(p), "profiles[%u].percentageOfNodesToScore", i);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0-100]", prof->percentage_of_nodes_to_score);
		}
		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(cfg->profiles[j].scheduler_name, prof->scheduler_name) == 0) {
				/* upstream passes the earlier profile's *field.Path as the value: it renders as
				 * the JSON of a struct without exported fields. */
				cfg_pathf(p, sizeof(p), "profiles[%u].schedulerName", i);
				return cfg_verr(v, p, "Duplicate value: {}");
			}
		}
	}
	return validate_common_queue_sort(v, cfg);
}

static int validate_config(const struct cfg_vctx *v, const struct config *cfg)
{
	const struct cfg_client_connection *cc = &cfg->client_connection;
	int rc;
	if (cc->burst < 0)
		return cfg_verr(v, "clientConnection.burst", "Invalid value: %d: must be non-negative", cc->burst);
	if (cc->qps > 0 && cc->burst == 0)
		return cfg_verr(v, "clientConnection.burst", "Invalid value: 0: must be positive when qps is positive");
	if ((rc = validate_leader_election(v, &cfg->leader_election)))
		return rc;
	if (cfg->parallelism <= 0)
		return cfg_verr(v, "parallelism", "Invalid value: %d: should be an integer value greater than zero",
				cfg->parallelism);
	if ((rc = validate_profiles(v, cfg)))
		return rc;
	if (cfg->percentage_of_nodes_to_score < 0 || cfg->percentage_of_nodes_to_score > 100)
		return cfg_verr(v, "percentageOfNodesToScore", "Invalid value: %d: not in valid range [0-100]",
				cfg->percentage_of_nodes_to_score);
	if (cfg->pod_initial_backoff_seconds <= 0)
		return cfg_verr(v, "podInitialBackoffSeconds", "Invalid value: %" PRId64 ": must be greater than 0",
				cfg->pod_initial_backoff_seconds);
	if (cfg->pod_max_backoff_seconds < cfg->pod_initial_backoff_seconds)
		return cfg_verr(v, "podMaxBackoffSeconds",
				"Invalid value: %" PRId64 ": must be greater than or equal to PodInitialBackoffSeconds",
				cfg->pod_max_backoff_seconds);
	return cfg_validate_extenders(v, cfg);
}

/* Extenders' ignoredByScheduler resources become NodeResourcesFit's ignoredResources in every
 * profile, replacing the configured list, as upstream's buildExtenders does at start-up. */
static int apply_extender_ignored_resources(struct config *cfg)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < cfg->n_extenders; i++)
		for (uint32_t j = 0; j < cfg->extenders[i].n_managed_resources; j++)
			n += cfg->extenders[i].managed_resources[j].ignored_by_scheduler;
	if (n == 0)
		return 0;
	const char **names = arena_alloc(cfg->arena, n * sizeof(char *));
	if (!names)
		return ERR_NOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < cfg->n_extenders; i++)
		for (uint32_t j = 0; j < cfg->extenders[i].n_managed_resources; j++)
			if (cfg->extenders[i].managed_resources[j].ignored_by_scheduler)
				names[k++] = cfg->extenders[i].managed_resources[j].name;
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		cfg->profiles[i].args.fit.ignored_resources = names;
		cfg->profiles[i].args.fit.n_ignored_resources = n;
	}
	return 0;
}

/* Checks the profiles' own plugin sets, applies every default, validates and expands.
 * raw: the sets are as written in the file (loading), so they are checked before the merge
 * with the defaults and their messages point into the file. */
/* NodeResourcesFitArgs are checked only for a profile that runs NodeResourcesFit: upstream's
 * validatePluginConfig lists them under "NodeResourcesFitArgs", a name no pluginConfig entry
 * has, so only NewFit checks them, when the plugin is built. */
static int validate_fit_args(const struct cfg_vctx *v, const struct cfg_profile *prof, uint32_t i)
{
	char p[CFG_PATH_MAX];
	bool runs = false;
	for (int ep = 0; ep < CFG_EP_COUNT && !runs; ep++)
		for (uint32_t k = 0; k < prof->effective[ep].n && !runs; k++)
			runs = strcmp(prof->effective[ep].items[k].name, "NodeResourcesFit") == 0;
	for (uint32_t j = 0; runs && j < prof->n_plugin_config; j++) {
		if (prof->plugin_config[j] != CFG_ARGS_FIT)
			continue;
		cfg_pathf(p, sizeof(p), "profiles[%u].pluginConfig[%u].args", i, j);
		return cfg_args_validate(v, p, CFG_ARGS_FIT, &prof->args);
	}
	return 0;
}

static int complete(struct config *cfg, const struct cfg_vctx *v, bool raw)
{
	char p[CFG_PATH_MAX];
	int rc;
	if (raw) {
		for (uint32_t i = 0; i < cfg->n_profiles; i++) {
			cfg_pathf(p, sizeof(p), "profiles[%u]", i);
			if ((rc = cfg_plugins_check_sets(v, cfg->registry, p, &cfg->profiles[i].plugins)))
				return rc;
		}
		if (cfg->n_profiles == 0) {
			cfg->profiles = arena_alloc(cfg->arena, sizeof(*cfg->profiles));
			if (!cfg->profiles)
				return nomem(v->e);
			profile_init(&cfg->profiles[0]);
			cfg->n_profiles = 1;
		}
		/* Only a single profile gets the default name; several must all be named. */
		if (cfg->n_profiles == 1 && !cfg->profiles[0].scheduler_name)
			cfg->profiles[0].scheduler_name = CFG_DEFAULT_SCHEDULER_NAME;
		for (uint32_t i = 0; i < cfg->n_profiles; i++) {
			if (cfg_plugins_merge_defaults(cfg->arena, cfg->registry, &cfg->profiles[i].plugins))
				return nomem(v->e);
			cfg_profile_default_plugin_config(cfg->registry, &cfg->profiles[i]);
		}
		fill_zero_defaults(cfg);
		if (apply_extender_ignored_resources(cfg))
			return nomem(v->e);
	} else {
		for (uint32_t i = 0; i < cfg->n_profiles; i++) {
			cfg_pathf(p, sizeof(p), "profiles[%u]", i);
			if ((rc = cfg_plugins_check_sets(v, cfg->registry, p, &cfg->profiles[i].plugins)))
				return rc;
		}
	}
	/* Whatever made them (a file's pluginConfig, validated as decoded; the Policy mapping; flags),
	 * the args a configuration runs with are valid: otherwise config_write would write a file
	 * that does not load (found by tests/fuzz/fuzz_config_load). */
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		const struct cfg_profile *prof = &cfg->profiles[i];
		for (uint32_t j = 0; j < prof->n_plugin_config; j++) {
			if (prof->plugin_config[j] == CFG_ARGS_FIT) /* below, once the plugins are known */
				continue;
			cfg_pathf(p, sizeof(p), "profiles[%u].pluginConfig[%u].args", i, j);
			if ((rc = cfg_args_validate(v, p, prof->plugin_config[j], &prof->args)))
				return rc;
		}
	}
	if ((rc = validate_config(v, cfg)))
		return rc;
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		cfg_pathf(p, sizeof(p), "profiles[%u]", i);
		if ((rc = cfg_profile_expand(cfg->arena, v, cfg->registry, p, &cfg->profiles[i])))
			return rc;
		/* profile.go's cfgValidator: every profile must run the same queue sort plugin. */
		const struct cfg_plugin_list *q0 = &cfg->profiles[0].effective[CFG_EP_QUEUE_SORT];
		const struct cfg_plugin_list *qi = &cfg->profiles[i].effective[CFG_EP_QUEUE_SORT];
		if (i > 0 && strcmp(q0->items[0].name, qi->items[0].name) != 0) {
			cfg_pathf(p, sizeof(p), "profiles[%u].plugins", i);
			return cfg_verr(v, p, "different queue sort plugins for profile \"%s\": \"%s\", first: \"%s\"",
					cfg->profiles[i].scheduler_name, qi->items[0].name, q0->items[0].name);
		}
		if ((rc = validate_fit_args(v, &cfg->profiles[i], i)))
			return rc;
	}
	return 0;
}

int cfg_finish(struct config *cfg, const struct cfg_vctx *v)
{
	return complete(cfg, v, true);
}

/* ---------- entry points ---------- */

static int load(struct config *cfg, const struct cfg_registry *reg, const char *name, const char *buf, size_t len,
		bool policy, struct err *e)
{
	yaml_document_t doc;
	struct cfg_marks marks = { 0 };
	bool have_doc = false;
	int rc;
	memset(cfg, 0, sizeof(*cfg));
	if (!reg)
		return err_set(e, ERR_INVALID, "%s: no plugin registry", name);
	cfg->registry = reg;
	cfg->arena = arena_new(16384);
	if (!cfg->arena)
		return nomem(e);
	cfg_set_defaults(cfg);
	if ((rc = cfg_yaml_parse(name, buf, len, &doc, e)))
		goto out;
	have_doc = true;
	struct cfg_dec d = { .file = name, .doc = &doc, .arena = cfg->arena, .e = e, .marks = &marks, .icase = policy,
			     .reg = reg };
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root && (rc = dec_mark(&d, root)))
		goto out;
	rc = policy ? cfg_policy_decode(&d, root, cfg) : decode_config(&d, root, cfg);
	if (rc)
		goto out;
	struct cfg_vctx v = { .file = name, .marks = &marks, .e = e };
	rc = cfg_finish(cfg, &v);
out:
	if (have_doc)
		yaml_document_delete(&doc);
	cfg_marks_release(&marks);
	if (rc)
		config_free(cfg);
	return rc;
}

static int load_file(struct config *cfg, const struct cfg_registry *reg, const char *path, bool policy, struct err *e)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	memset(cfg, 0, sizeof(*cfg));
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			if (ncap > (64u << 20)) {
				rc = err_set(e, ERR_INVALID, "%s: file larger than 64 MiB", path);
				goto out;
			}
			char *nb = realloc(buf, ncap);
			if (!nb) {
				rc = nomem(e);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = err_set(e, ERR_IO, "%s: read error", path);
			break;
		}
	}
	if (!rc)
		rc = load(cfg, reg, path, buf, len, policy, e);
out:
	fclose(f);
	free(buf);
	return rc;
}

int config_load_buffer(struct config *cfg, const struct cfg_registry *reg, const char *name, const char *buf,
		       size_t len, struct err *e)
{
	return load(cfg, reg, name, buf, len, false, e);
}

int config_load_file(struct config *cfg, const struct cfg_registry *reg, const char *path, struct err *e)
{
	return load_file(cfg, reg, path, false, e);
}

int config_load_policy_buffer(struct config *cfg, const struct cfg_registry *reg, const char *name, const char *buf,
			      size_t len, struct err *e)
{
	return load(cfg, reg, name, buf, len, true, e);
}

int config_load_policy_file(struct config *cfg, const struct cfg_registry *reg, const char *path, struct err *e)
{
	return load_file(cfg, reg, path, true, e);
}

int config_init_default(struct config *cfg, const struct cfg_registry *reg, struct err *e)
{
	static const char doc[] = "apiVersion: " CFG_API_VERSION "\nkind: " CFG_KIND "\n";
	return load(cfg, reg, "<defaults>", doc, sizeof(doc) - 1, false, e);
}

int config_validate(struct config *cfg, struct err *e)
{
	struct cfg_vctx v = { .file = NULL, .marks = NULL, .e = e };
	if (!cfg || !cfg->arena)
		return err_set(e, ERR_INVALID, "configuration not loaded");
	return complete(cfg, &v, false);
}

char *config_strdup(struct config *cfg, const char *s)
{
	return cfg && cfg->arena && s ? arena_strdup(cfg->arena, s) : NULL;
}

const struct cfg_profile *config_profile(const struct config *cfg, const char *scheduler_name)
{
	if (!cfg || !scheduler_name)
		return NULL;
	for (uint32_t i = 0; i < cfg->n_profiles; i++)
		if (strcmp(cfg->profiles[i].scheduler_name, scheduler_name) == 0)
			return &cfg->profiles[i];
	return NULL;
}

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	arena_free(cfg->arena);
	memset(cfg, 0, sizeof(*cfg));
}
