/* config_write: the effective configuration as KubeSchedulerConfiguration YAML, in upstream's
 * defaulted shape (profiles' plugins merged with the defaults, pluginConfig completed with
 * default args), so that config_load_* reads it back to the same configuration. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfg_internal.h"

static void w_kv_str(FILE *f, int ind, const char *key, const char *val)
{
	cfg_write_indent(f, ind);
	fprintf(f, "%s: ", key);
	cfg_write_str(f, val ? val : "");
	fputc('\n', f);
}

static void w_kv_bool(FILE *f, int ind, const char *key, bool val)
{
	cfg_write_indent(f, ind);
	fprintf(f, "%s: %s\n", key, val ? "true" : "false");
}

static void w_kv_int(FILE *f, int ind, const char *key, int64_t val)
{
	cfg_write_indent(f, ind);
	fprintf(f, "%s: %" PRId64 "\n", key, val);
}

static void w_kv_dur(FILE *f, int ind, const char *key, int64_t ns)
{
	char buf[48];
	w_kv_str(f, ind, key, cfg_duration_format(ns, buf, sizeof(buf)));
}

static void w_base64(FILE *f, int ind, const char *key, const unsigned char *p, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (!n)
		return;
	cfg_write_indent(f, ind);
	fprintf(f, "%s: \"", key);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			w |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			w |= p[i + 2];
		fputc(tbl[w >> 18 & 63], f);
		fputc(tbl[w >> 12 & 63], f);
		fputc(i + 1 < n ? tbl[w >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? tbl[w & 63] : '=', f);
	}
	fputs("\"\n", f);
}

static void w_plugins(FILE *f, int ind, const struct cfg_plugins *p)
{
	bool any = false;
	for (int ep = 0; ep <= CFG_EP_COUNT; ep++)
		any = any || p->sets[ep].n_enabled || p->sets[ep].n_disabled;
	cfg_write_indent(f, ind);
	fputs(any ? "plugins:\n" : "plugins: {}\n", f);
	/* MultiPoint first, as upstream's defaulted output reads most naturally. */
	static const int order[] = { CFG_EP_MULTI_POINT, CFG_EP_PRE_ENQUEUE, CFG_EP_QUEUE_SORT, CFG_EP_PRE_FILTER,
				     CFG_EP_FILTER, CFG_EP_POST_FILTER, CFG_EP_PRE_SCORE, CFG_EP_SCORE, CFG_EP_RESERVE,
				     CFG_EP_PERMIT, CFG_EP_PRE_BIND, CFG_EP_BIND, CFG_EP_POST_BIND };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		const struct cfg_plugin_set *s = &p->sets[order[k]];
		if (!s->n_enabled && !s->n_disabled)
			continue;
		cfg_write_indent(f, ind + 2);
		fprintf(f, "%s:\n", cfg_ext_point_key((enum cfg_ext_point)order[k]));
		if (s->n_enabled) {
			cfg_write_indent(f, ind + 4);
			fputs("enabled:\n", f);
		}
		for (uint32_t i = 0; i < s->n_enabled; i++) {
			cfg_write_item(f, ind + 4, "- name: ", s->enabled[i].name);
			if (s->enabled[i].weight)
				w_kv_int(f, ind + 6, "weight", s->enabled[i].weight);
		}
		if (s->n_disabled) {
			cfg_write_indent(f, ind + 4);
			fputs("disabled:\n", f);
		}
		for (uint32_t i = 0; i < s->n_disabled; i++)
			cfg_write_item(f, ind + 4, "- name: ", s->disabled[i]);
	}
}

static void w_extender(FILE *f, const struct cfg_extender *x)
{
	fputs("- urlPrefix: ", f);
	cfg_write_str(f, x->url_prefix);
	fputc('\n', f);
	if (x->filter_verb[0])
		w_kv_str(f, 2, "filterVerb", x->filter_verb);
	if (x->preempt_verb[0])
		w_kv_str(f, 2, "preemptVerb", x->preempt_verb);
	if (x->prioritize_verb[0])
		w_kv_str(f, 2, "prioritizeVerb", x->prioritize_verb);
	if (x->weight)
		w_kv_int(f, 2, "weight", x->weight);
	if (x->bind_verb[0])
		w_kv_str(f, 2, "bindVerb", x->bind_verb);
	w_kv_bool(f, 2, "enableHTTPS", x->enable_https);
	if (x->has_tls) {
		cfg_write_indent(f, 2);
		fputs("tlsConfig:\n", f);
		w_kv_bool(f, 4, "insecure", x->tls.insecure);
		if (x->tls.server_name[0])
			w_kv_str(f, 4, "serverName", x->tls.server_name);
		if (x->tls.cert_file[0])
			w_kv_str(f, 4, "certFile", x->tls.cert_file);
		if (x->tls.key_file[0])
			w_kv_str(f, 4, "keyFile", x->tls.key_file);
		if (x->tls.ca_file[0])
			w_kv_str(f, 4, "caFile", x->tls.ca_file);
		w_base64(f, 4, "certData", x->tls.cert_data, x->tls.cert_data_len);
		w_base64(f, 4, "keyData", x->tls.key_data, x->tls.key_data_len);
		w_base64(f, 4, "caData", x->tls.ca_data, x->tls.ca_data_len);
	}
	w_kv_dur(f, 2, "httpTimeout", x->http_timeout_ns);
	w_kv_bool(f, 2, "nodeCacheCapable", x->node_cache_capable);
	cfg_write_list_key(f, 2, "managedResources", x->n_managed_resources);
	for (uint32_t i = 0; i < x->n_managed_resources; i++) {
		cfg_write_item(f, 2, "- name: ", x->managed_resources[i].name);
		w_kv_bool(f, 4, "ignoredByScheduler", x->managed_resources[i].ignored_by_scheduler);
	}
	w_kv_bool(f, 2, "ignorable", x->ignorable);
}

int config_write(const struct config *cfg, FILE *f, struct err *e)
{
	char qps[32];
	fprintf(f, "apiVersion: %s\nkind: %s\n", CFG_API_VERSION, CFG_KIND);
	w_kv_int(f, 0, "parallelism", cfg->parallelism);
	const struct cfg_leader_election *le = &cfg->leader_election;
	fputs("leaderElection:\n", f);
	w_kv_bool(f, 2, "leaderElect", le->leader_elect);
	w_kv_dur(f, 2, "leaseDuration", le->lease_duration_ns);
	w_kv_dur(f, 2, "renewDeadline", le->renew_deadline_ns);
	w_kv_dur(f, 2, "retryPeriod", le->retry_period_ns);
	w_kv_str(f, 2, "resourceLock", le->resource_lock);
	w_kv_str(f, 2, "resourceName", le->resource_name);
	w_kv_str(f, 2, "resourceNamespace", le->resource_namespace);
	const struct cfg_client_connection *cc = &cfg->client_connection;
	fputs("clientConnection:\n", f);
	w_kv_str(f, 2, "kubeconfig", cc->kubeconfig);
	w_kv_str(f, 2, "acceptContentTypes", cc->accept_content_types);
	w_kv_str(f, 2, "contentType", cc->content_type);
	snprintf(qps, sizeof(qps), "%.9g", (double)cc->qps);
	fprintf(f, "  qps: %s\n", qps);
	w_kv_int(f, 2, "burst", cc->burst);
	w_kv_bool(f, 0, "enableProfiling", cfg->enable_profiling);
	w_kv_bool(f, 0, "enableContentionProfiling", cfg->enable_contention_profiling);
	w_kv_int(f, 0, "percentageOfNodesToScore", cfg->percentage_of_nodes_to_score);
	w_kv_int(f, 0, "podInitialBackoffSeconds", cfg->pod_initial_backoff_seconds);
	w_kv_int(f, 0, "podMaxBackoffSeconds", cfg->pod_max_backoff_seconds);
	fputs(cfg->n_profiles ? "profiles:\n" : "profiles: []\n", f);
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		const struct cfg_profile *p = &cfg->profiles[i];
		fputs("- schedulerName: ", f);
		cfg_write_str(f, p->scheduler_name);
		fputc('\n', f);
		if (p->has_percentage_of_nodes_to_score)
			w_kv_int(f, 2, "percentageOfNodesToScore", p->percentage_of_nodes_to_score);
		w_plugins(f, 2, &p->plugins);
		if (p->n_plugin_config)
			fputs("  pluginConfig:\n", f);
		for (uint32_t j = 0; j < p->n_plugin_config; j++) {
			fprintf(f, "  - name: %s\n    args:\n", cfg_registry_args_plugin(cfg->registry, p->plugin_config[j]));
			cfg_args_write(f, 6, p->plugin_config[j], &p->args);
		}
	}
	if (cfg->n_extenders)
		fputs("extenders:\n", f);
	for (uint32_t i = 0; i < cfg->n_extenders; i++)
		w_extender(f, &cfg->extenders[i]);
	w_kv_bool(f, 0, "delayCacheUntilActive", cfg->delay_cache_until_active);
	if (fflush(f) || ferror(f))
		return err_set(e, ERR_IO, "writing the configuration failed");
	return 0;
}
