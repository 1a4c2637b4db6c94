/* DynamicResources' ResourceClaim writes (api_client.h): the AllocationResult encoding and the
 * claim GET, finalizer, status, create and delete calls of upstream's dynamicresources.go and
 * extendeddynamicresources.go. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "jb_internal.h"
#include "common/rfc3339.h"

#define CLAIMS "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims"
#define DELETE_PROTECTION "resource.kubernetes.io/delete-protection" /* resourceapi.Finalizer */
#define DELETE_RETRIES 5                                              /* retry.DefaultRetry.Steps */

/* ---------- AllocationResult ---------- */

static void jb_arr(struct jb *b, const char *k)
{
	if (k)
		jb_key(b, k);
	jb_check(b, yajl_gen_array_open(b->g));
}

static void jb_arr_end(struct jb *b)
{
	jb_check(b, yajl_gen_array_close(b->g));
}

static void jb_val_str(struct jb *b, const char *v)
{
	jb_check(b, yajl_gen_string(b->g, (const unsigned char *)v, strlen(v)));
}

static void jb_bool(struct jb *b, const char *k, bool v)
{
	jb_key(b, k);
	jb_check(b, yajl_gen_bool(b->g, v));
}

/* A []string with omitempty. */
static void jb_strs(struct jb *b, const char *k, uint32_t n, const char *const *v)
{
	if (!n)
		return;
	jb_arr(b, k);
	for (uint32_t i = 0; i < n; i++)
		jb_val_str(b, v[i]);
	jb_arr_end(b);
}

/* metav1.Time: RFC 3339 in seconds, UTC. */
static void jb_time_s(struct jb *b, const char *k, int64_t s)
{
	char t[40];
	rfc3339_format_micro(s * 1000000, t, sizeof(t));
	char *dot = strchr(t, '.');
	if (dot)
		strcpy(dot, "Z");
	jb_str(b, k, t);
}

static const char *op_text(enum api_op op)
{
	switch (op) {
	case API_OP_IN:
		return "In";
	case API_OP_NOT_IN:
		return "NotIn";
	case API_OP_EXISTS:
		return "Exists";
	case API_OP_DOES_NOT_EXIST:
		return "DoesNotExist";
	case API_OP_GT:
		return "Gt";
	case API_OP_LT:
		return "Lt";
	default:
		return NULL;
	}
}

static int requirements(struct jb *b, const char *k, uint32_t n, const struct api_requirement *r, struct err *e)
{
	if (!n)
		return 0;
	jb_arr(b, k);
	for (uint32_t i = 0; i < n; i++) {
		const char *op = op_text(r[i].op);
		if (!op)
			return err_set(e, ERR_INVALID, "allocation: nodeSelector: %s: operator not known", r[i].key);
		jb_open(b, NULL);
		jb_str(b, "key", r[i].key);
		jb_str(b, "operator", op);
		jb_strs(b, "values", r[i].n_values, r[i].values);
		jb_close(b);
	}
	jb_arr_end(b);
	return 0;
}

static int node_selector(struct jb *b, const struct api_node_selector *ns, struct err *e)
{
	int rc;
	jb_open(b, "nodeSelector");
	jb_arr(b, "nodeSelectorTerms");
	for (uint32_t i = 0; i < ns->n_terms; i++) {
		jb_open(b, NULL);
		if ((rc = requirements(b, "matchExpressions", ns->terms[i].n_exprs, ns->terms[i].exprs, e)) ||
		    (rc = requirements(b, "matchFields", ns->terms[i].n_fields, ns->terms[i].fields, e)))
			return rc;
		jb_close(b);
	}
	jb_arr_end(b);
	jb_close(b);
	return 0;
}

/* []DeviceToleration, every field omitempty; the operator as it was read. */
static void tolerations(struct jb *b, uint32_t n, const struct api_dra_toleration *t)
{
	if (!n)
		return;
	jb_arr(b, "tolerations");
	for (uint32_t i = 0; i < n; i++) {
		jb_open(b, NULL);
		jb_opt(b, "key", t[i].key);
		jb_opt(b, "operator", t[i].op_text);
		jb_opt(b, "value", t[i].value);
		jb_opt(b, "effect", t[i].effect);
		if (t[i].has_toleration_seconds)
			jb_int(b, "tolerationSeconds", t[i].toleration_seconds);
		jb_close(b);
	}
	jb_arr_end(b);
}

static void result(struct jb *b, const struct api_dra_device_result *r)
{
	jb_open(b, NULL);
	jb_str(b, "request", r->request);
	jb_str(b, "driver", r->driver);
	jb_str(b, "pool", r->pool);
	jb_str(b, "device", r->device);
	if (r->has_admin_access)
		jb_bool(b, "adminAccess", r->admin_access);
	tolerations(b, r->n_tolerations, r->tolerations);
	jb_strs(b, "bindingConditions", r->n_binding_conditions, r->binding_conditions);
	jb_strs(b, "bindingFailureConditions", r->n_binding_failure_conditions, r->binding_failure_conditions);
	if (r->share_id)
		jb_str(b, "shareID", r->share_id);
	if (r->n_consumed_capacity) {
		jb_open(b, "consumedCapacity");
		for (uint32_t i = 0; i < r->n_consumed_capacity; i++)
			jb_str(b, r->consumed_capacity[i].name, r->consumed_capacity[i].value.s);
		jb_close(b);
	}
	jb_close(b);
}

static int config(struct jb *b, const struct api_dra_config *c, struct err *e)
{
	const char *src = c->source == API_DRA_CONFIG_FROM_CLASS ? "FromClass"
			  : c->source == API_DRA_CONFIG_FROM_CLAIM ? "FromClaim"
								   : NULL;
	if (!src)
		return err_set(e, ERR_INVALID, "allocation: devices.config: a configuration without source");
	jb_open(b, NULL);
	jb_str(b, "source", src);
	jb_strs(b, "requests", c->n_requests, c->requests);
	if (c->driver) {
		jb_open(b, "opaque");
		jb_str(b, "driver", c->driver);
		jb_key(b, "parameters");
		if (c->parameters_json) {
			char ebuf[128];
			yajl_val v = yajl_tree_parse(c->parameters_json, ebuf, sizeof(ebuf));
			if (!v)
				return err_set(e, ERR_INVALID, "allocation: devices.config: opaque parameters: %s", ebuf);
			int grc = api__gen_value(b->g, v);
			yajl_tree_free(v);
			if (grc < 0)
				return err_set(e, ERR_INVALID, "allocation: devices.config: opaque parameters: not valid JSON");
		} else {
			jb_check(b, yajl_gen_null(b->g)); /* runtime.RawExtension without Raw marshals as null */
		}
		jb_close(b);
	}
	jb_close(b);
	return 0;
}

/* The allocation as the value of the current key (or the document when none). */
static int allocation(struct jb *b, const struct api_dra_allocation *a, int64_t now_s, struct err *e)
{
	int rc;
	jb_open(b, NULL);
	jb_open(b, "devices");
	if (a->n_results) {
		jb_arr(b, "results");
		for (uint32_t i = 0; i < a->n_results; i++)
			result(b, &a->results[i]);
		jb_arr_end(b);
	}
	if (a->n_config) {
		jb_arr(b, "config");
		for (uint32_t i = 0; i < a->n_config; i++)
			if ((rc = config(b, &a->config[i], e)))
				return rc;
		jb_arr_end(b);
	}
	jb_close(b);
	if (a->node_selector && (rc = node_selector(b, a->node_selector, e)))
		return rc;
	if (a->has_allocation_timestamp)
		jb_time_s(b, "allocationTimestamp", a->allocation_timestamp);
	else if (now_s > 0)
		jb_time_s(b, "allocationTimestamp", now_s);
	jb_close(b);
	return 0;
}

int api_dra_allocation_json(const struct api_dra_allocation *a, int64_t now_s, char **out, size_t *len, struct err *e)
{
	struct jb b;
	*out = NULL;
	*len = 0;
	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "allocation: out of memory");
	int rc = allocation(&b, a, now_s, e);
	if (rc) {
		yajl_gen_free(b.g);
		return rc;
	}
	return jb_finish(&b, "allocation", out, len, e);
}

/* ---------- the calls ---------- */

/* "VERB resourceclaim NS/NAME" for messages; 0, or ERR_INVALID when a name cannot be a path segment. */
static int what_of(char *what, size_t size, const char *verb, const char *ns, const char *name, struct err *e)
{
	int rc;
	snprintf(what, size, "%s resourceclaim %s/%s", verb, ns ? ns : "", name ? name : "");
	if ((rc = check_segment(what, "namespace", ns, e)) || (rc = check_segment(what, "name", name, e)))
		return rc;
	return 0;
}

/* Sends body (consumed) to path; the answer decoded into *out when out is set. */
static int claim_call(struct api_conn *conn, const char *what, const char *method, const char *ctype,
		      const char *path, char *body, size_t len, struct api_resource_claim **out, struct err *e)
{
	struct api_response resp = { 0 };
	if (out)
		*out = NULL;
	int rc = api_request(conn, method, path, ctype, body, len, out ? &resp : NULL, e);
	free(body);
	if (rc) {
		api_response_release(&resp);
		return err_prefix(e, "%s", what);
	}
	if (out && !(*out = api_resource_claim_decode_json(resp.body ? resp.body : "", resp.len, e)))
		rc = err_prefix(e, "%s: the answer", what);
	api_response_release(&resp);
	return rc;
}

static int finish_send(struct api_conn *conn, struct jb *b, const char *what, const char *method, const char *ctype,
		       const char *path, struct api_resource_claim **out, struct err *e)
{
	char *body = NULL;
	size_t len = 0;
	int rc = jb_finish(b, what, &body, &len, e);
	return rc ? rc : claim_call(conn, what, method, ctype, path, body, len, out, e);
}

static int claim_path(char *path, size_t size, const struct api_resource_claim *c, const char *sub)
{
	int n = snprintf(path, size, CLAIMS "/%s%s", c->meta.namespace, c->meta.name, sub);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int api_resource_claim_get(struct api_conn *conn, const char *ns, const char *name, struct api_resource_claim **out,
			   struct err *e)
{
	char what[320], path[600];
	int rc = what_of(what, sizeof(what), "get", ns, name, e);
	*out = NULL;
	if (rc)
		return rc;
	snprintf(path, sizeof(path), CLAIMS "/%s", ns, name);
	return claim_call(conn, what, "GET", NULL, path, NULL, 0, out, e);
}

static bool has_finalizer(const struct api_resource_claim *c)
{
	for (uint32_t i = 0; i < c->n_finalizers; i++)
		if (!strcmp(c->finalizers[i], DELETE_PROTECTION))
			return true;
	return false;
}

/* A merge patch of metadata.finalizers (the claim's, with or without delete-protection), the
 * claim's resourceVersion as precondition. */
static int finalizers_patch(struct api_conn *conn, const struct api_resource_claim *c, bool with, const char *what,
			    struct api_resource_claim **out, struct err *e)
{
	char path[600];
	struct jb b;
	if (!c->meta.resource_version || !*c->meta.resource_version)
		return err_set(e, ERR_INVALID, "%s: resourceVersion: required", what);
	if (claim_path(path, sizeof(path), c, "") || !jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "resourceVersion", c->meta.resource_version);
	jb_arr(&b, "finalizers");
	for (uint32_t i = 0; i < c->n_finalizers; i++)
		if (strcmp(c->finalizers[i], DELETE_PROTECTION))
			jb_val_str(&b, c->finalizers[i]);
	if (with)
		jb_val_str(&b, DELETE_PROTECTION);
	jb_arr_end(&b);
	jb_close(&b);
	jb_close(&b);
	return finish_send(conn, &b, what, "PATCH", "application/merge-patch+json", path, out, e);
}

int api_resource_claim_add_finalizer(struct api_conn *conn, const struct api_resource_claim *claim,
				     struct api_resource_claim **out, struct err *e)
{
	char what[320];
	int rc = what_of(what, sizeof(what), "update", claim->meta.namespace, claim->meta.name, e);
	if (out)
		*out = NULL;
	return rc ? rc : finalizers_patch(conn, claim, true, what, out, e);
}

static void consumer(struct jb *b, const struct api_dra_consumer *c)
{
	jb_open(b, NULL);
	jb_opt(b, "apiGroup", c->api_group);
	jb_str(b, "resource", c->resource);
	jb_str(b, "name", c->name);
	jb_str(b, "uid", c->uid);
	jb_close(b);
}

int api_resource_claim_reserve(struct api_conn *conn, const struct api_resource_claim *claim,
			       const struct api_dra_allocation *alloc, const struct api_dra_consumer *cons,
			       int64_t now_s, struct api_resource_claim **out, struct err *e)
{
	char what[320], path[600];
	struct jb b;
	int rc = what_of(what, sizeof(what), "update status of", claim->meta.namespace, claim->meta.name, e);
	if (out)
		*out = NULL;
	if (rc)
		return rc;
	if (!claim->meta.resource_version || !*claim->meta.resource_version)
		return err_set(e, ERR_INVALID, "%s: resourceVersion: required", what);
	if (claim_path(path, sizeof(path), claim, "/status") || !jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "resourceVersion", claim->meta.resource_version);
	jb_close(&b);
	jb_open(&b, "status");
	if (alloc) {
		jb_key(&b, "allocation");
		if ((rc = allocation(&b, alloc, now_s, e))) {
			yajl_gen_free(b.g);
			return err_prefix(e, "%s", what);
		}
	} else if (now_s > 0 && claim->allocation && !claim->allocation->has_allocation_timestamp) {
		/* merged into the claim's own allocation */
		jb_open(&b, "allocation");
		jb_time_s(&b, "allocationTimestamp", now_s);
		jb_close(&b);
	}
	jb_arr(&b, "reservedFor");
	for (uint32_t i = 0; i < claim->n_reserved_for; i++)
		consumer(&b, &claim->reserved_for[i]);
	if (cons)
		consumer(&b, cons);
	jb_arr_end(&b);
	jb_close(&b);
	jb_close(&b);
	return finish_send(conn, &b, what, "PATCH", "application/merge-patch+json", path, out, e);
}

int api_resource_claim_deallocate(struct api_conn *conn, const struct api_resource_claim *claim, struct err *e)
{
	char what[320], path[600];
	struct jb b;
	int rc = what_of(what, sizeof(what), "update status of", claim->meta.namespace, claim->meta.name, e);
	if (rc)
		return rc;
	if (!claim->meta.resource_version || !*claim->meta.resource_version)
		return err_set(e, ERR_INVALID, "%s: resourceVersion: required", what);
	if (claim_path(path, sizeof(path), claim, "/status") || !jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	/* upstream PostFilter: ReservedFor, Allocation and Devices set to nil, UpdateStatus */
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "resourceVersion", claim->meta.resource_version);
	jb_close(&b);
	jb_open(&b, "status");
	jb_null(&b, "allocation");
	jb_null(&b, "reservedFor");
	jb_null(&b, "devices");
	jb_close(&b);
	jb_close(&b);
	return finish_send(conn, &b, what, "PATCH", "application/merge-patch+json", path, NULL, e);
}

int api_resource_claim_unreserve(struct api_conn *conn, const struct api_resource_claim *claim, const char *uid,
				 struct err *e)
{
	char what[320], path[600];
	struct jb b;
	int rc = what_of(what, sizeof(what), "patch status of", claim->meta.namespace, claim->meta.name, e);
	if (rc)
		return rc;
	if (!uid || !*uid)
		return err_set(e, ERR_INVALID, "%s: uid: required", what);
	if (claim_path(path, sizeof(path), claim, "/status") || !jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	/* upstream: {"metadata": {"uid": %q}, "status": { "reservedFor": [ {"$patch": "delete", "uid": %q} ] }} */
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "uid", claim->meta.uid);
	jb_close(&b);
	jb_open(&b, "status");
	jb_arr(&b, "reservedFor");
	jb_open(&b, NULL);
	jb_str(&b, "$patch", "delete");
	jb_str(&b, "uid", uid);
	jb_close(&b);
	jb_arr_end(&b);
	jb_close(&b);
	jb_close(&b);
	return finish_send(conn, &b, what, "PATCH", "application/strategic-merge-patch+json", path, NULL, e);
}

int api_resource_claim_create(struct api_conn *conn, const char *ns, const char *json, size_t len,
			      struct api_resource_claim **out, struct err *e)
{
	char what[320], path[600];
	int rc;
	if (out)
		*out = NULL;
	snprintf(what, sizeof(what), "create resourceclaim in %s", ns ? ns : "");
	if ((rc = check_segment(what, "namespace", ns, e)))
		return rc;
	if (!json || !len)
		return err_set(e, ERR_INVALID, "%s: no body", what);
	char *body = malloc(len + 1);
	if (!body)
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	memcpy(body, json, len);
	body[len] = '\0';
	snprintf(path, sizeof(path), CLAIMS, ns);
	return claim_call(conn, what, "POST", NULL, path, body, len, out, e);
}

int api_resource_claim_delete(struct api_conn *conn, const struct api_resource_claim *claim, struct err *e)
{
	char what[320], path[600];
	int rc = what_of(what, sizeof(what), "delete", claim->meta.namespace, claim->meta.name, e);
	if (rc)
		return rc;
	/* upstream deleteClaim: the finalizer goes first (retry.RetryOnConflict with a fresh GET) */
	struct api_resource_claim *cur = api_resource_claim_ref((struct api_resource_claim *)claim);
	for (int attempt = 1; has_finalizer(cur); attempt++) {
		char uwhat[320];
		snprintf(uwhat, sizeof(uwhat), "update resourceclaim %s/%s", claim->meta.namespace, claim->meta.name);
		rc = finalizers_patch(conn, cur, false, uwhat, NULL, e);
		if (rc != ERR_CONFLICT || attempt == DELETE_RETRIES)
			break;
		api_resource_claim_unref(cur);
		if ((rc = api_resource_claim_get(conn, claim->meta.namespace, claim->meta.name, &cur, e)))
			break;
	}
	api_resource_claim_unref(cur);
	if (rc == ERR_NOT_FOUND)
		return 0;
	if (rc)
		return rc;
	claim_path(path, sizeof(path), claim, "");
	rc = api_request(conn, "DELETE", path, NULL, NULL, 0, NULL, e);
	if (rc == ERR_NOT_FOUND)
		return 0;
	return rc ? err_prefix(e, "%s", what) : 0;
}
