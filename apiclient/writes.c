/* The writes the scheduler makes: Binding, events.k8s.io/v1 Event, PodScheduled (or a preemption
 * victim's DisruptionTarget) condition and nominatedNodeName (strategic-merge patch of
 * pods/status), a preemption victim's deletion, and the leader-election Lease.
 * Every body is built with yajl_gen, which escapes strings and (with validation on) refuses
 * text that is not UTF-8. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "jb_internal.h"
#include "common/macros.h"

#define PATCH_POD_STATUS_TRIES 4 /* retry.DefaultBackoff.Steps */
#define EVENT_NOTE_MAX 1024 /* events.k8s.io/v1 validation: note must be at most 1 kB */

int api__gen_finish(yajl_gen g, const char *what, char **out, size_t *len, struct err *e)
{
	const unsigned char *buf = NULL;
	size_t n = 0;
	*out = NULL;
	if (yajl_gen_get_buf(g, &buf, &n) != yajl_gen_status_ok)
		return err_set(e, ERR_INVALID, "%s: incomplete JSON document", what);
	if (!(*out = malloc(n + 1)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	memcpy(*out, buf, n);
	(*out)[n] = '\0';
	*len = n;
	return 0;
}

/* ---------- Binding ---------- */

int api_bind_pod(struct api_conn *conn, const char *ns, const char *name, const char *uid, const char *node,
		 struct err *e)
{
	int rc;
	struct jb b;
	if ((rc = check_segment("bind", "namespace", ns, e)) || (rc = check_segment("bind", "pod name", name, e)))
		return rc;
	if (!node || !*node)
		return err_set(e, ERR_INVALID, "bind %s/%s: node: required", ns, name);
	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "bind %s/%s: out of memory", ns, name);
	/* As upstream's DefaultBinder: metadata {namespace, name, uid} (the uid is a precondition: a
	 * pod deleted and re-created under the same name is not bound), target a Node. */
	jb_open(&b, NULL);
	jb_str(&b, "apiVersion", "v1");
	jb_str(&b, "kind", "Binding");
	jb_open(&b, "metadata");
	jb_str(&b, "name", name);
	jb_str(&b, "namespace", ns);
	jb_opt(&b, "uid", uid);
	jb_close(&b);
	jb_open(&b, "target");
	jb_str(&b, "apiVersion", "v1");
	jb_str(&b, "kind", "Node");
	jb_str(&b, "name", node);
	jb_close(&b);
	jb_close(&b);
	return jb_send(conn, &b, e, "bind", ns, name, "POST", NULL, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
}

/* ---------- Event ---------- */

/* The longest prefix of s of at most max bytes that does not split a UTF-8 sequence. */
static size_t utf8_prefix(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* Event names must be unique per namespace: "<regarding>.<hex nanoseconds>" as upstream's
 * recorder, made strictly increasing so that two events in the same nanosecond differ. */
static uint64_t event_name_ns(void)
{
	static _Atomic uint64_t last;
	uint64_t now = (uint64_t)api_wall_us() * 1000u, prev = atomic_load(&last), next;
	do {
		next = now > prev ? now : prev + 1;
	} while (!atomic_compare_exchange_weak(&last, &prev, next));
	return next;
}

static int event_check(const struct api_event *ev, struct err *e)
{
	int rc;
	if (!ev)
		return err_set(e, ERR_INVALID, "event: missing");
	if ((rc = check_segment("event", "namespace", ev->namespace, e)) ||
	    (rc = check_segment("event", "regarding name", ev->regarding_name, e)))
		return rc;
	const char *required[] = {ev->reason, ev->action, ev->reporting_controller, ev->reporting_instance};
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		if (!required[i] || !*required[i])
			return err_set(e, ERR_INVALID,
				       "event for %s/%s: reason, action, reportingController and reportingInstance are required",
				       ev->namespace, ev->regarding_name);
	}
	return 0;
}

/* s, or dflt when s is NULL or "". */
static const char *or_default(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* An events.k8s.io/v1 Event named name into b. */
static void event_body(struct jb *b, const struct api_event *ev, const char *name)
{
	int64_t first = ev->first_us ? ev->first_us : api_wall_us();
	jb_open(b, NULL);
	jb_str(b, "apiVersion", "events.k8s.io/v1");
	jb_str(b, "kind", "Event");
	jb_open(b, "metadata");
	jb_str(b, "name", name);
	jb_str(b, "namespace", ev->namespace);
	jb_close(b);
	jb_time(b, "eventTime", first);
	if (ev->count > 1) {
		jb_open(b, "series");
		jb_int(b, "count", ev->count);
		jb_time(b, "lastObservedTime", ev->last_us ? ev->last_us : first);
		jb_close(b);
	}
	jb_str(b, "reportingController", ev->reporting_controller);
	jb_str(b, "reportingInstance", ev->reporting_instance);
	jb_str(b, "action", ev->action);
	jb_str(b, "reason", ev->reason);
	if (ev->note)
		jb_strn(b, "note", ev->note, utf8_prefix(ev->note, EVENT_NOTE_MAX));
	jb_str(b, "type", or_default(ev->type, "Normal"));
	jb_open(b, "regarding");
	jb_str(b, "kind", or_default(ev->regarding_kind, "Pod"));
	jb_str(b, "namespace", ev->namespace);
	jb_str(b, "name", ev->regarding_name);
	jb_opt(b, "uid", ev->regarding_uid);
	jb_str(b, "apiVersion", or_default(ev->regarding_api_version, "v1"));
	jb_close(b);
	jb_close(b);
}

int api_create_event(struct api_conn *conn, const struct api_event *ev, struct err *e)
{
	int rc;
	char *name = NULL;
	struct jb b;
	if ((rc = event_check(ev, e)))
		return rc;
	size_t nn = strlen(ev->regarding_name) + 24;
	if (!(name = malloc(nn)) || !jb_init(&b)) {
		free(name);
		return err_set(e, ERR_NOMEM, "event for %s/%s: out of memory", ev->namespace, ev->regarding_name);
	}
	snprintf(name, nn, "%s.%016" PRIx64, ev->regarding_name, event_name_ns());
	event_body(&b, ev, name);
	rc = jb_send(conn, &b, e, "event", ev->namespace, NULL, "POST", NULL, "/apis/events.k8s.io/v1/namespaces/%s/events",
		     ev->namespace);
	free(name);
	return rc;
}

/* ---------- pods/status ---------- */

/* metav1.Time as it marshals: RFC 3339, UTC, whole seconds. */
static void format_time_s(int64_t us, char *t, size_t size)
{
	api_format_time(us, t, size);
	char *dot = strchr(t, '.');
	if (dot)
		strcpy(dot, "Z");
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static bool str_eq(const char *a, const char *b)
{
	return strcmp(str_or_empty(a), str_or_empty(b)) == 0;
}

/* A string field of the diff: the new value, or null when it is now empty (omitempty). */
static void jb_str_or_null(struct jb *b, const char *k, const char *v)
{
	if (v && *v)
		jb_str(b, k, v);
	else
		jb_null(b, k);
}

/* Which fields of the condition of type type differ from the pod's (all of them for a new condition),
 * and whether they make a request. */
struct cond_diff {
	const struct api_condition *old; /* the pod's condition of that type, NULL if none */
	const char *ltt;                 /* the lastTransitionTime to write */
	bool probe, ltt_changed, status, reason, message, gen;
	bool update; /* a change that makes a request (upstream's isEqual) */
	bool any;    /* anything to write (update, or the generation riding along) */
};

static void cond_diff(const struct api_pod *pod, const char *type, const struct api_pod_scheduled *cond,
		      const char *now, struct cond_diff *d)
{
	*d = (struct cond_diff){ 0 };
	if (!cond)
		return;
	for (uint32_t i = 0; !d->old && i < pod->n_conditions; i++)
		if (str_eq(pod->conditions[i].type, type))
			d->old = &pod->conditions[i];
	const struct api_condition *old = d->old;
	/* upstream podutil.UpdatePodCondition: the transition time moves only with the status. */
	d->ltt = old && str_eq(old->status, cond->status) ? str_or_empty(old->last_transition_time) : now;
	/* the new condition never has a lastProbeTime */
	d->probe = !old || *str_or_empty(old->last_probe_time);
	d->ltt_changed = !old || !str_eq(old->last_transition_time, d->ltt);
	d->status = !old || !str_eq(old->status, cond->status);
	d->reason = old ? !str_eq(old->reason, cond->reason) : *str_or_empty(cond->reason);
	d->message = old ? !str_eq(old->message, cond->message) : *str_or_empty(cond->message);
	d->gen = old ? old->observed_generation != cond->observed_generation : cond->observed_generation != 0;
	/* upstream's isEqual leaves observedGeneration out: it alone does not make a request, but is
	 * in the diff when something else does. */
	d->update = d->probe || d->ltt_changed || d->status || d->reason || d->message;
	d->any = d->update || d->gen;
}

/* The conditions part of the patch, as strategicpatch.CreateTwoWayMergePatch writes it: keys
 * sorted, conditions merged by type with the list's order as a directive when the pod had
 * conditions already. */
static void jb_cond_diff(struct jb *b, const struct api_pod *pod, const char *type,
			 const struct api_pod_scheduled *cond, const struct cond_diff *d)
{
	if (pod->n_conditions) {
		jb_key(b, "$setElementOrder/conditions");
		jb_check(b, yajl_gen_array_open(b->g));
		for (uint32_t i = 0; i < pod->n_conditions; i++) {
			jb_open(b, NULL);
			jb_str(b, "type", pod->conditions[i].type);
			jb_close(b);
		}
		if (!d->old) {
			jb_open(b, NULL);
			jb_str(b, "type", type);
			jb_close(b);
		}
		jb_check(b, yajl_gen_array_close(b->g));
	}
	jb_key(b, "conditions");
	jb_check(b, yajl_gen_array_open(b->g));
	jb_open(b, NULL);
	if (d->probe)
		jb_null(b, "lastProbeTime");
	if (d->ltt_changed)
		jb_str_or_null(b, "lastTransitionTime", d->ltt);
	if (d->message)
		jb_str_or_null(b, "message", cond->message);
	if (d->gen) {
		if (cond->observed_generation)
			jb_int(b, "observedGeneration", cond->observed_generation);
		else
			jb_null(b, "observedGeneration");
	}
	if (d->reason)
		jb_str_or_null(b, "reason", cond->reason);
	if (d->status)
		jb_str_or_null(b, "status", cond->status);
	jb_str(b, "type", type);
	jb_close(b);
	jb_check(b, yajl_gen_array_close(b->g));
}

static int status_patch(const struct api_pod *pod, const char *type, const struct api_pod_scheduled *cond,
			const char *nominated, int64_t now_us, char **body, size_t *len, struct err *e)
{
	char now[40];
	struct cond_diff d;
	struct jb b;

	*body = NULL;
	*len = 0;
	format_time_s(now_us, now, sizeof(now));
	cond_diff(pod, type, cond, now, &d);
	/* upstream updatePod: nominatedNodeName only when overridden and different */
	bool nnn_update = nominated && !str_eq(pod->nominated_node_name, nominated);
	if (!d.update && !nnn_update)
		return 0;

	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "patch pod status %s/%s: out of memory", pod->meta.namespace, pod->meta.name);
	jb_open(&b, NULL);
	jb_open(&b, "status");
	if (d.any)
		jb_cond_diff(&b, pod, type, cond, &d);
	if (nnn_update)
		jb_str_or_null(&b, "nominatedNodeName", nominated); /* null deletes the field */
	jb_close(&b);
	jb_close(&b);
	return jb_finish(&b, "patch pod status", body, len, e);
}

int api_pod_status_patch(const struct api_pod *pod, const struct api_pod_scheduled *cond, const char *nominated,
			 int64_t now_us, char **body, size_t *len, struct err *e)
{
	return status_patch(pod, "PodScheduled", cond, nominated, now_us, body, len, e);
}

int api_pod_condition_patch(const struct api_pod *pod, const char *type, const struct api_pod_scheduled *cond,
			    int64_t now_us, char **body, size_t *len, struct err *e)
{
	if (!type || !cond)
		return err_set(e, ERR_INVALID, "patch pod status %s/%s: a condition is required", pod->meta.namespace,
			       pod->meta.name);
	return status_patch(pod, type, cond, NULL, now_us, body, len, e);
}

int api_patch_pod_status(struct api_conn *conn, const char *ns, const char *name, const char *body, size_t len,
			 struct err *e)
{
	int rc;
	char *path = NULL;
	if ((rc = check_segment("patch pod status", "namespace", ns, e)) ||
	    (rc = check_segment("patch pod status", "pod name", name, e)))
		return rc;
	if (!body || !len)
		return err_set(e, ERR_INVALID, "patch pod status %s/%s: nothing to patch", ns, name);
	if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s/status", ns, name) < 0)
		return err_set(e, ERR_NOMEM, "patch pod status %s/%s: out of memory", ns, name);
	/* upstream util.PatchPodStatus: retry.OnError(retry.DefaultBackoff, RetriableWithConflict):
	 * at most 4 tries, 10 ms apart then 5 times longer each, after a conflict, an HTTP 500 or 503.
	 * (Upstream also retries a refused connection; ERR_TRANSPORT does not tell one from a
	 * timeout or a TLS failure, which upstream does not retry, so none is.) */
	for (int attempt = 1, delay_ms = 10;; attempt++, delay_ms *= 5) {
		rc = api_request(conn, "PATCH", path, "application/strategic-merge-patch+json", body, len, NULL, e);
		bool retriable = rc == ERR_CONFLICT || (rc == ERR_HTTP && (e->http_status == 500 || e->http_status == 503));
		if (!retriable || attempt == PATCH_POD_STATUS_TRIES)
			break;
		struct timespec ts = { 0, (long)delay_ms * 1000000L };
		nanosleep(&ts, NULL);
	}
	free(path);
	return rc;
}

/* ---------- Pod deletion ---------- */

int api_delete_pod(struct api_conn *conn, const char *ns, const char *name, struct err *e)
{
	int rc;
	char *path = NULL;
	if ((rc = check_segment("delete pod", "namespace", ns, e)) || (rc = check_segment("delete pod", "pod name", name, e)))
		return rc;
	if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s", ns, name) < 0)
		return err_set(e, ERR_NOMEM, "delete pod %s/%s: out of memory", ns, name);
	rc = api_request(conn, "DELETE", path, NULL, NULL, 0, NULL, e);
	free(path);
	return rc;
}

/* ---------- Lease ---------- */

static int lease_body(const struct api_lease *l, bool with_rv, char **body, size_t *len, struct err *e)
{
	struct jb b;
	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "lease %s/%s: out of memory", l->namespace, l->name);
	jb_open(&b, NULL);
	jb_str(&b, "apiVersion", "coordination.k8s.io/v1");
	jb_str(&b, "kind", "Lease");
	jb_open(&b, "metadata");
	jb_str(&b, "name", l->name);
	jb_str(&b, "namespace", l->namespace);
	if (with_rv)
		jb_str(&b, "resourceVersion", l->resource_version);
	jb_close(&b);
	jb_open(&b, "spec");
	jb_opt(&b, "holderIdentity", l->holder_identity);
	if (l->lease_duration_seconds > 0)
		jb_int(&b, "leaseDurationSeconds", l->lease_duration_seconds);
	if (l->acquire_time_us)
		jb_time(&b, "acquireTime", l->acquire_time_us);
	if (l->renew_time_us)
		jb_time(&b, "renewTime", l->renew_time_us);
	if (l->lease_transitions > 0)
		jb_int(&b, "leaseTransitions", l->lease_transitions);
	jb_close(&b);
	jb_close(&b);
	return jb_finish(&b, "lease", body, len, e);
}

/* Decodes a Lease response body into out (api_lease_decode does the fields). */
static int lease_decode_body(const struct api_response *r, const char *what, struct api_lease *out, struct err *e)
{
	char ebuf[256];
	yajl_val root = yajl_tree_parse(r->body ? r->body : "", ebuf, sizeof(ebuf));
	if (!root)
		return err_set(e, ERR_INVALID, "%s: response is not JSON: %s", what, ebuf);
	int rc = api_lease_decode(root, out, e);
	yajl_tree_free(root);
	if (rc)
		err_prefix(e, "%s", what);
	return rc;
}

static int lease_call(struct api_conn *conn, const char *method, const char *ns, const char *name, const char *body,
		      size_t len, struct api_lease *out, struct err *e)
{
	int rc;
	struct api_response r = {0};
	char *path = NULL, what[320];
	size_t n = strlen(ns) + (name ? strlen(name) : 0) + 64;
	snprintf(what, sizeof(what), "%s lease %s/%s", method, ns, name ? name : "");
	if (!(path = malloc(n)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	snprintf(path, n, "/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s", ns, name ? "/" : "", name ? name : "");
	rc = api_request(conn, method, path, NULL, body, len, &r, e);
	if (rc == 0 && out)
		rc = lease_decode_body(&r, what, out, e);
	api_response_release(&r);
	free(path);
	return rc;
}

int api_lease_get(struct api_conn *conn, const char *ns, const char *name, struct api_lease *out, struct err *e)
{
	int rc;
	if ((rc = check_segment("get lease", "namespace", ns, e)) || (rc = check_segment("get lease", "name", name, e)))
		return rc;
	return lease_call(conn, "GET", ns, name, NULL, 0, out, e);
}

int api_lease_create(struct api_conn *conn, const struct api_lease *l, struct api_lease *out, struct err *e)
{
	int rc;
	char *body = NULL;
	size_t len = 0;
	if (!l)
		return err_set(e, ERR_INVALID, "create lease: missing");
	if ((rc = check_segment("create lease", "namespace", l->namespace, e)) ||
	    (rc = check_segment("create lease", "name", l->name, e)))
		return rc;
	if ((rc = lease_body(l, false, &body, &len, e)))
		return rc;
	rc = lease_call(conn, "POST", l->namespace, NULL, body, len, out, e);
	free(body);
	return rc;
}

int api_lease_update(struct api_conn *conn, const struct api_lease *l, struct api_lease *out, struct err *e)
{
	int rc;
	char *body = NULL;
	size_t len = 0;
	if (!l)
		return err_set(e, ERR_INVALID, "update lease: missing");
	if ((rc = check_segment("update lease", "namespace", l->namespace, e)) ||
	    (rc = check_segment("update lease", "name", l->name, e)))
		return rc;
	/* Without a resourceVersion a PUT overwrites whoever wrote last: refuse it. */
	if (!l->resource_version || !*l->resource_version)
		return err_set(e, ERR_INVALID, "update lease %s/%s: resourceVersion: required", l->namespace, l->name);
	if ((rc = lease_body(l, true, &body, &len, e)))
		return rc;
	rc = lease_call(conn, "PUT", l->namespace, l->name, body, len, out, e);
	free(body);
	return rc;
}

/* ---------- Volume binding (VolumeBinding's PreBind) ---------- */

/* Sends a JSON merge patch b to path and copies the object's new metadata.resourceVersion from
 * the answer into new_rv. */
static int merge_patch_rv(struct api_conn *conn, struct jb *b, const char *what, const char *path, char *new_rv,
			  size_t size, struct err *e)
{
	char *body = NULL;
	size_t len = 0;
	struct api_response resp = { 0 };
	yajl_val tree = NULL;
	int rc = jb_finish(b, what, &body, &len, e);
	if (rc)
		return rc;
	rc = api_request(conn, "PATCH", path, "application/merge-patch+json", body, len, &resp, e);
	if (rc)
		goto out;
	char errbuf[128];
	tree = resp.body ? yajl_tree_parse(resp.body, errbuf, sizeof(errbuf)) : NULL;
	static const char *const rv_path[] = { "metadata", "resourceVersion", NULL };
	yajl_val rv = tree ? yajl_tree_get(tree, (const char **)rv_path, yajl_t_string) : NULL;
	if (!rv) {
		rc = err_set(e, ERR_INVALID, "%s: the answer has no metadata.resourceVersion", what);
		goto out;
	}
	snprintf(new_rv, size, "%s", YAJL_GET_STRING(rv));
out:
	yajl_tree_free(tree);
	api_response_release(&resp);
	free(body);
	return rc;
}

int api_pv_bind_claim(struct api_conn *conn, const char *pv_name, const char *pv_rv, const struct api_pv_claim_ref *claim,
		      const char *claim_rv, bool bound_by_controller, char *new_rv, size_t size, struct err *e)
{
	int rc;
	struct jb b;
	char what[300], *path = NULL;
	snprintf(what, sizeof(what), "update persistentvolume %s", pv_name ? pv_name : "");
	if ((rc = check_segment(what, "name", pv_name, e)))
		return rc;
	if (!pv_rv || !*pv_rv)
		return err_set(e, ERR_INVALID, "%s: resourceVersion: required", what);
	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	/* upstream sends the whole PV with claimRef = reference.GetReference(claim) and its own
	 * resourceVersion; a merge patch carrying metadata.resourceVersion has the same
	 * optimistic-concurrency precondition (409 Conflict when the PV changed meanwhile) */
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "resourceVersion", pv_rv);
	if (bound_by_controller) {
		jb_open(&b, "annotations");
		jb_str(&b, "pv.kubernetes.io/bound-by-controller", "yes");
		jb_close(&b);
	}
	jb_close(&b);
	jb_open(&b, "spec");
	jb_open(&b, "claimRef");
	jb_str(&b, "kind", "PersistentVolumeClaim");
	jb_str(&b, "namespace", claim->namespace);
	jb_str(&b, "name", claim->name);
	jb_opt(&b, "uid", claim->uid);
	jb_str(&b, "apiVersion", "v1");
	jb_opt(&b, "resourceVersion", claim_rv);
	jb_close(&b);
	jb_close(&b);
	jb_close(&b);
	if (asprintf(&path, "/api/v1/persistentvolumes/%s", pv_name) < 0) {
		yajl_gen_free(b.g);
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	}
	rc = merge_patch_rv(conn, &b, what, path, new_rv, size, e);
	free(path);
	return rc;
}

int api_pvc_select_node(struct api_conn *conn, const char *ns, const char *name, const char *rv, const char *node,
			char *new_rv, size_t size, struct err *e)
{
	int rc;
	struct jb b;
	char what[300], *path = NULL;
	snprintf(what, sizeof(what), "update persistentvolumeclaim %s/%s", ns ? ns : "", name ? name : "");
	if ((rc = check_segment(what, "namespace", ns, e)) || (rc = check_segment(what, "name", name, e)))
		return rc;
	if (!rv || !*rv)
		return err_set(e, ERR_INVALID, "%s: resourceVersion: required", what);
	if (!node || !*node)
		return err_set(e, ERR_INVALID, "%s: node: required", what);
	if (!jb_init(&b))
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	jb_open(&b, NULL);
	jb_open(&b, "metadata");
	jb_str(&b, "resourceVersion", rv);
	jb_open(&b, "annotations");
	jb_str(&b, "volume.kubernetes.io/selected-node", node);
	jb_close(&b);
	jb_close(&b);
	jb_close(&b);
	if (asprintf(&path, "/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, name) < 0) {
		yajl_gen_free(b.g);
		return err_set(e, ERR_NOMEM, "%s: out of memory", what);
	}
	rc = merge_patch_rv(conn, &b, what, path, new_rv, size, e);
	free(path);
	return rc;
}
