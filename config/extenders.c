/* Extenders: decoding (shared by the v1 decoder and the legacy Policy decoder) and upstream's
 * validation (validation.go validateExtenders). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "cfg_internal.h"

static int nomem(struct err *e)
{
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* ---------- decoding ---------- */

struct ext_ctx {
	struct cfg_extender *x;
	bool legacy;
};

static int tls_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_extender_tls *t = ctx;
	if (dec_key_is(d, key, "insecure"))
		return dec_bool(d, v, &t->insecure);
	if (dec_key_is(d, key, "serverName"))
		return dec_str(d, v, &t->server_name);
	if (dec_key_is(d, key, "certFile"))
		return dec_str(d, v, &t->cert_file);
	if (dec_key_is(d, key, "keyFile"))
		return dec_str(d, v, &t->key_file);
	if (dec_key_is(d, key, "caFile"))
		return dec_str(d, v, &t->ca_file);
	if (dec_key_is(d, key, "certData"))
		return dec_base64(d, v, &t->cert_data, &t->cert_data_len);
	if (dec_key_is(d, key, "keyData"))
		return dec_base64(d, v, &t->key_data, &t->key_data_len);
	if (dec_key_is(d, key, "caData"))
		return dec_base64(d, v, &t->ca_data, &t->ca_data_len);
	return dec_unknown(d, key, v);
}

static int mr_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_managed_resource *m = ctx;
	if (dec_key_is(d, key, "name"))
		return dec_istr(d, v, &m->name);
	if (dec_key_is(d, key, "ignoredByScheduler"))
		return dec_bool(d, v, &m->ignored_by_scheduler);
	return dec_unknown(d, key, v);
}

static int mr_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct cfg_managed_resource *m = ctx;
	m[i].name = intern_str("");
	return dec_map(d, item, mr_field, &m[i]);
}

static int ext_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct ext_ctx *c = ctx;
	struct cfg_extender *x = c->x;
	if (dec_key_is(d, key, "urlPrefix"))
		return dec_str(d, v, &x->url_prefix);
	if (dec_key_is(d, key, "filterVerb"))
		return dec_str(d, v, &x->filter_verb);
	if (dec_key_is(d, key, "preemptVerb"))
		return dec_str(d, v, &x->preempt_verb);
	if (dec_key_is(d, key, "prioritizeVerb"))
		return dec_str(d, v, &x->prioritize_verb);
	if (dec_key_is(d, key, "bindVerb"))
		return dec_str(d, v, &x->bind_verb);
	if (dec_key_is(d, key, "weight"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &x->weight);
	/* v1 spells enableHTTPS, the legacy Policy enableHttps (matched case-insensitively). */
	if (dec_key_is(d, key, c->legacy ? "enableHttps" : "enableHTTPS"))
		return dec_bool(d, v, &x->enable_https);
	if (dec_key_is(d, key, "tlsConfig")) {
		x->has_tls = true;
		return dec_map(d, v, tls_field, &x->tls);
	}
	if (dec_key_is(d, key, "httpTimeout")) {
		if (c->legacy) /* time.Duration: integer nanoseconds */
			return dec_int(d, v, 0, INT64_MAX, &x->http_timeout_ns);
		return dec_duration(d, v, &x->http_timeout_ns);
	}
	if (dec_key_is(d, key, "nodeCacheCapable"))
		return dec_bool(d, v, &x->node_cache_capable);
	if (dec_key_is(d, key, "managedResources")) {
		int rc;
		x->managed_resources = cfg_dec_array(d, v, sizeof(*x->managed_resources), mr_item, &x->n_managed_resources,
						     &rc);
		return rc == ERR_NOMEM ? nomem(d->e) : rc; /* this file's message */
	}
	if (dec_key_is(d, key, "ignorable"))
		return dec_bool(d, v, &x->ignorable);
	return dec_unknown(d, key, v);
}

struct exts_ctx {
	struct cfg_extender *items;
	bool legacy;
};

static int ext_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct exts_ctx *c = ctx;
	struct cfg_extender *x = &c->items[i];
	x->url_prefix = x->filter_verb = x->preempt_verb = x->prioritize_verb = x->bind_verb = "";
	x->tls.server_name = x->tls.cert_file = x->tls.key_file = x->tls.ca_file = "";
	struct ext_ctx ec = { .x = x, .legacy = c->legacy };
	return dec_map(d, item, ext_field, &ec);
}

int cfg_decode_extenders(struct cfg_dec *d, yaml_node_t *n, bool legacy, struct config *cfg)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc)
		return rc;
	struct exts_ctx c = { .items = len ? arena_alloc(d->arena, len * sizeof(*c.items)) : NULL, .legacy = legacy };
	if (len && !c.items)
		return nomem(d->e);
	cfg->extenders = c.items;
	cfg->n_extenders = (uint32_t)len;
	return dec_seq(d, n, ext_item, &c);
}

/* ---------- validation ---------- */

static bool is_extended_resource_name(const char *name)
{
	/* v1helper.IsExtendedResourceName: not native (has a '/' and no "kubernetes.io/"), not
	 * "requests."-prefixed, and "requests.<name>" must be a qualified name. */
	if (!strchr(name, '/') || strstr(name, "kubernetes.io/"))
		return false;
	if (strncmp(name, "requests.", 9) == 0)
		return false;
	char buf[320];
	cfg_pathf(buf, sizeof(buf), "requests.%s", name);
	return cfg_check_qualified_name(buf) == NULL;
}

int cfg_validate_extenders(const struct cfg_vctx *v, const struct config *cfg)
{
	char p[CFG_PATH_MAX];
	uint32_t binders = 0;
	for (uint32_t i = 0; i < cfg->n_extenders; i++) {
		const struct cfg_extender *x = &cfg->extenders[i];
		if (!x->url_prefix[0]) {
			cfg_pathf(p, sizeof(p), "extenders[%u].urlPrefix", i);
			return cfg_verr(v, p, "Required value");
		}
		if (x->prioritize_verb[0] && x->weight <= 0) {
			cfg_pathf(p, sizeof(p), "extenders[%u].weight", i);
			return cfg_verr(v, p, "Invalid value: %" PRId64 ": must have a positive weight applied to it", x->weight);
		}
		if (x->bind_verb[0])
			binders++;
		if (x->http_timeout_ns < 0) {
			cfg_pathf(p, sizeof(p), "extenders[%u].httpTimeout", i);
			return cfg_verr(v, p, "Invalid value: must not be negative");
		}
		for (uint32_t j = 0; j < x->n_managed_resources; j++) {
			const char *name = x->managed_resources[j].name;
			cfg_pathf(p, sizeof(p), "extenders[%u].managedResources[%u].name", i, j);
			const char *m = cfg_check_qualified_name(name);
			if (m)
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", name, m);
			if (!is_extended_resource_name(name))
				return cfg_verr(v, p, "Invalid value: \"%s\": is an invalid extended resource name", name);
			for (uint32_t k = 0; k < i; k++)
				for (uint32_t l = 0; l < cfg->extenders[k].n_managed_resources; l++)
					if (cfg->extenders[k].managed_resources[l].name == name)
						return cfg_verr(v, p, "Invalid value: \"%s\": duplicate extender managed resource name", name);
			for (uint32_t l = 0; l < j; l++)
				if (x->managed_resources[l].name == name)
					return cfg_verr(v, p, "Invalid value: \"%s\": duplicate extender managed resource name", name);
		}
	}
	if (binders > 1)
		return cfg_verr(v, "extenders", "Invalid value: \"found %u extenders implementing bind\": only one extender can implement bind",
				binders);
	return 0;
}
