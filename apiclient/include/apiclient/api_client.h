/* Talking to the kube-apiserver: configuration, transport and the writes the scheduler makes.
 *
 * THREADS: a struct api_client is shared by all threads and is immutable after creation except
 * for its rate limiter and credential cache, which lock internally. Each thread that makes
 * requests uses its own struct api_conn (one long-lived libcurl easy handle: connection reuse,
 * HTTP/1.1), or one that shares a struct api_mux's connection (HTTP/2) with other threads'
 * connections (api_conn_new_mux: the binder threads). curl_global_init is called once by api_global_init before
 * any thread starts. */
#ifndef CSCHED_API_CLIENT_H
#define CSCHED_API_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiclient/api_types.h"
#include "common/err.h"

#define CSCHED_VERSION "0.1.0"

/* ---------- Configuration ---------- */

struct api_exec_config {
	char *command;
	char **args; /* NULL-terminated */
	char **env;  /* NULL-terminated "NAME=value" pairs added to the environment */
	char *api_version;
	int timeout_ms; /* how long the plugin may take to print and exit; 0 = 60 s */
};

/* Where and how to connect. Every string is malloc'd and owned by the struct. */
struct api_config {
	char *server;            /* https://127.0.0.1:6443 */
	char *ca_file;           /* PEM file, or NULL */
	char *ca_data;           /* PEM bytes (decoded from base64), or NULL */
	size_t ca_data_len;
	char *cert_file, *key_file; /* client certificate, or NULL */
	char *cert_data, *key_data; /* PEM bytes, or NULL */
	size_t cert_data_len, key_data_len;
	char *token;      /* bearer token, or NULL */
	char *token_file; /* re-read as it rotates (in-cluster), or NULL */
	struct api_exec_config *exec; /* client.authentication.k8s.io exec plugin, or NULL */
	bool insecure_skip_tls_verify;
	char *namespace;  /* in-cluster namespace or the context's namespace, or NULL */
	double qps;       /* client-side limit; <= 0 means no limit */
	int burst;
	long connect_timeout_ms; /* default 10000 */
	long request_timeout_ms; /* for non-watch requests; default 60000 */
	char *user_agent;        /* default "csched/" CSCHED_VERSION */
	/* Informers read application/vnd.kubernetes.protobuf (lists, watches, streaming lists) instead
	 * of JSON (clientConnection.contentType); writes stay JSON. */
	bool protobuf;
};

void api_config_release(struct api_config *c);

/* Loads a kubeconfig file. context NULL = current-context. Errors name the file and the field
 * ("/root/.kube/config: users[0].user.client-certificate-data: invalid base64"). */
int api_config_load_kubeconfig(struct api_config *out, const char *path, const char *context, struct err *e);
/* In-cluster: KUBERNETES_SERVICE_HOST/PORT, the service-account token (re-read as it rotates),
 * CA and namespace from dir (NULL = /var/run/secrets/kubernetes.io/serviceaccount). */
int api_config_in_cluster(struct api_config *out, const char *dir, struct err *e);
/* kubeconfig path if given, else $KUBECONFIG, else in-cluster, else ~/.kube/config. */
int api_config_load_default(struct api_config *out, const char *kubeconfig, const char *context, struct err *e);

/* ---------- Client and per-thread connections ---------- */

struct api_client;
struct api_conn;

int api_global_init(struct err *e); /* once, before threads */
void api_global_cleanup(void);
/* Appends "METHOD PATH" (query included) to the file at path for every request made from now on
 * by any client of the process, one line each (O_APPEND: processes may share the file). For the
 * test that derives the RBAC manifests from what csched calls (tests/rbac); cmd turns it on when
 * CSCHED_API_TRACE names a file. Call before threads start; the file stays open. */
int api_trace_requests(const char *path, struct err *e);

/* Takes ownership of *cfg (cfg is zeroed). NULL on error. */
struct api_client *api_client_new(struct api_config *cfg, struct err *e);
void api_client_free(struct api_client *c);
const char *api_client_server(const struct api_client *c);
const char *api_client_namespace(const struct api_client *c); /* may be NULL */

/* One per thread. */
struct api_conn *api_conn_new(struct api_client *c, struct err *e);
void api_conn_free(struct api_conn *conn);

/* A multiplexer: one thread that runs the transfers of many connections over one shared
 * HTTP/2 connection (ALPN over TLS), or, when the server does not negotiate h2, over at most
 * max_conns HTTP/1.1 connections. A connection made by api_conn_new_mux behaves as one of
 * api_conn_new (same requests, timeouts, retries, credentials, errors) but has no network
 * connection of its own: its thread blocks while the muxer runs the transfer. A stream
 * (api_stream) runs there too; it ends at the muxer's next round (within a second) once its
 * stop flag is set. Free the muxer
 * after every request on its connections has returned. */
struct api_mux;
struct api_mux *api_mux_new(int max_conns, struct err *e);
void api_mux_free(struct api_mux *mux);
struct api_conn *api_conn_new_mux(struct api_client *c, struct api_mux *mux, struct err *e);
/* Counts since api_mux_new: transfers completed, network connections they opened, transfers
 * that went over HTTP/2, the muxer's waits for the network, and how often its spin guard
 * throttled it (api_mux.c MUX_SPIN_ROUNDS). */
struct api_mux_stats {
	uint64_t requests, connects, http2, polls, throttles;
};
void api_mux_stats(struct api_mux *mux, struct api_mux_stats *out);
/* Bounds every later request on conn (not streams) by deadline_ns (CLOCK_MONOTONIC; 0 = none):
 * its timeout is cut to the time left, a Retry-After that would pass it is not waited for, and
 * once it has passed requests fail with ERR_TIMEOUT without being sent (client-go: a request's
 * context deadline, e.g. leader election's renewDeadline). */
void api_conn_set_deadline(struct api_conn *conn, int64_t deadline_ns);

/* The response of one request. body is malloc'd and NUL-terminated; api_response_release frees. */
struct api_response {
	long status;
	char *body;
	size_t len;
};
void api_response_release(struct api_response *r);

/* A raw request (method "GET", "POST", "PUT", "PATCH", "DELETE"). path is absolute
 * ("/api/v1/nodes?limit=500"). content_type may be NULL (JSON). On HTTP >= 400, returns the
 * matching ERR_* (ERR_NOT_FOUND, ERR_CONFLICT, ERR_GONE, ERR_FORBIDDEN, ERR_HTTP), sets
 * e->http_status and puts the server's Status message in e->msg; resp (if not NULL) still holds
 * the body. Transport failures return ERR_TRANSPORT with curl's message. Waits on the rate
 * limiter first. */
int api_request(struct api_conn *conn, const char *method, const char *path, const char *content_type,
		const char *body, size_t body_len, struct api_response *resp, struct err *e);

/* Streams a GET (a watch): calls on_line for every complete newline-terminated line of the
 * body (line is NUL-terminated in place, without the newline) until the server ends the
 * response (returns 0), on_line returns non-zero (that value is returned), or *stop becomes true
 * (ERR_STOPPED, checked at least every 200 ms through curl's progress callback). No overall
 * timeout applies; a low-speed limit (no byte for 90 s: longer than the apiserver's ~60 s
 * bookmark period, so a quiet watch with allowWatchBookmarks is not cut) ends dead connections
 * with ERR_TRANSPORT. HTTP errors are returned as by api_request, with the body's Status message. */
int api_stream(struct api_conn *conn, const char *path, int (*on_line)(void *ctx, char *line, size_t len),
	       void *ctx, const atomic_bool *stop, struct err *e);

/* ---------- Writes the scheduler makes ---------- */

/* VolumeBinding's PreBind writes (upstream bindAPIUpdate), JSON merge patches whose
 * metadata.resourceVersion is the precondition (ERR_CONFLICT when the object changed). Copy the
 * object's new resourceVersion into new_rv (size bytes).
 * api_pv_bind_claim: PATCH /api/v1/persistentvolumes/NAME setting spec.claimRef to the claim
 * (kind, apiVersion, namespace, name, uid, resourceVersion claim_rv) and, when
 * bound_by_controller, annotation pv.kubernetes.io/bound-by-controller: "yes".
 * api_pvc_select_node: PATCH of the claim's annotation volume.kubernetes.io/selected-node. */
int api_pv_bind_claim(struct api_conn *conn, const char *pv_name, const char *pv_rv, const struct api_pv_claim_ref *claim,
		      const char *claim_rv, bool bound_by_controller, char *new_rv, size_t size, struct err *e);
int api_pvc_select_node(struct api_conn *conn, const char *ns, const char *name, const char *rv, const char *node,
			char *new_rv, size_t size, struct err *e);

/* DynamicResources' ResourceClaim writes (upstream dynamicresources.go and
 * extendeddynamicresources.go; scheduler/dra_writes.c calls them). Writes that upstream makes
 * with a whole-object Update or UpdateStatus are JSON merge patches here whose
 * metadata.resourceVersion is the same precondition (ERR_CONFLICT when the claim changed): csched
 * does not keep the whole object, and a patch leaves the fields it does not name (status.devices,
 * what the server defaulted) as they are. *out (when not NULL): the claim the server answered, a
 * new reference. Messages name the call ("update resourceclaim NS/NAME: ...").
 * api_resource_claim_get: GET.
 * api_resource_claim_add_finalizer: metadata.finalizers + resource.kubernetes.io/delete-protection
 *   (kept once).
 * api_resource_claim_reserve: status.reservedFor = the claim's entries + consumer; with allocation,
 *   status.allocation = it (api_dra_allocation_json); now_s > 0 sets allocationTimestamp to now_s
 *   when the allocation written (or the claim's own, allocation NULL) has none.
 * api_resource_claim_deallocate: status.allocation, reservedFor and devices cleared.
 * api_resource_claim_unreserve: the strategic merge patch of status removing the reservedFor entry
 *   of uid, with the claim's uid as precondition (no resourceVersion: upstream's Unreserve).
 * api_resource_claim_create: POST of json to namespace ns.
 * api_resource_claim_delete: the delete-protection finalizer removed first (retried on conflict
 *   with a fresh GET, as upstream's deleteClaim), then DELETE; 404 counts as deleted. */
int api_resource_claim_get(struct api_conn *conn, const char *ns, const char *name, struct api_resource_claim **out,
			   struct err *e);
int api_resource_claim_add_finalizer(struct api_conn *conn, const struct api_resource_claim *claim,
				     struct api_resource_claim **out, struct err *e);
int api_resource_claim_reserve(struct api_conn *conn, const struct api_resource_claim *claim,
			       const struct api_dra_allocation *allocation, const struct api_dra_consumer *consumer,
			       int64_t now_s, struct api_resource_claim **out, struct err *e);
int api_resource_claim_deallocate(struct api_conn *conn, const struct api_resource_claim *claim, struct err *e);
int api_resource_claim_unreserve(struct api_conn *conn, const struct api_resource_claim *claim, const char *uid,
				 struct err *e);
int api_resource_claim_create(struct api_conn *conn, const char *ns, const char *json, size_t len,
			      struct api_resource_claim **out, struct err *e);
int api_resource_claim_delete(struct api_conn *conn, const struct api_resource_claim *claim, struct err *e);
/* An AllocationResult as k8s.io/api resource/v1 marshals it (field order and omitempty of its json
 * tags; devices always present; allocationTimestamp RFC 3339 in seconds, now_s when > 0 and a has
 * none), into a malloc'd *out. ERR_INVALID for what the API cannot carry (a config without
 * source, an unknown node selector operator, parameters that are not JSON). */
int api_dra_allocation_json(const struct api_dra_allocation *a, int64_t now_s, char **out, size_t *len, struct err *e);

/* POST /api/v1/namespaces/NS/pods/NAME/binding. ERR_CONFLICT when already bound. */
int api_bind_pod(struct api_conn *conn, const char *ns, const char *name, const char *uid, const char *node,
		 struct err *e);

struct api_event {
	const char *namespace;       /* of the regarding object */
	const char *regarding_kind;  /* "Pod" */
	const char *regarding_name, *regarding_uid, *regarding_api_version;
	const char *type;            /* "Normal" or "Warning" */
	const char *reason;          /* "Scheduled", "FailedScheduling" */
	const char *action;          /* "Binding", "Scheduling" */
	const char *note;            /* the message */
	const char *reporting_controller; /* "csched" (or the profile's scheduler name) */
	const char *reporting_instance;
	int32_t count;        /* > 1 for an aggregated series */
	int64_t first_us, last_us; /* event time and, for a series, last observed time */
};
/* POST events.k8s.io/v1 Event. */
int api_create_event(struct api_conn *conn, const struct api_event *ev, struct err *e);

/* A pod condition the scheduler writes: PodScheduled (upstream handleSchedulingFailure's
 * v1.PodCondition), or a preemption victim's DisruptionTarget (api_pod_condition_patch). */
struct api_pod_scheduled {
	const char *status; /* "False" */
	const char *reason, *message;
	int64_t observed_generation; /* the pod's metadata.generation (PodObservedGenerationTracking is GA) */
};

/* upstream updatePod (no API cacher): the strategic-merge patch util.PatchPodStatus sends, the
 * two-way diff between pod's status and that status with cond set as podutil.UpdatePodCondition
 * sets it (lastTransitionTime now_us only when the status changes; cond NULL: none) and
 * nominatedNodeName set to nominated when that differs (NULL: left alone, "": cleared).
 * *body (malloc'd, the caller frees it) is NULL when there is nothing to send: neither the
 * condition (its observedGeneration aside, as upstream) nor nominatedNodeName changes. */
int api_pod_status_patch(const struct api_pod *pod, const struct api_pod_scheduled *cond, const char *nominated,
			 int64_t now_us, char **body, size_t *len, struct err *e);
/* api_pod_status_patch for a condition of another type (upstream executor.go PreemptPod's
 * DisruptionTarget), nominatedNodeName left alone: *body NULL when UpdatePodCondition would
 * report no change. */
int api_pod_condition_patch(const struct api_pod *pod, const char *type, const struct api_pod_scheduled *cond,
			    int64_t now_us, char **body, size_t *len, struct err *e);
/* PATCH pods/status with a body from api_pod_status_patch or api_pod_condition_patch. */
int api_patch_pod_status(struct api_conn *conn, const char *ns, const char *name, const char *body, size_t len,
			 struct err *e);

/* DELETE pods/NAME with default options (upstream util.DeletePod: graceful, no preconditions).
 * ERR_NOT_FOUND when the pod is gone. */
int api_delete_pod(struct api_conn *conn, const char *ns, const char *name, struct err *e);

/* coordination.k8s.io/v1 Lease. get: ERR_NOT_FOUND when absent. update uses resourceVersion
 * (ERR_CONFLICT when someone else wrote first). */
int api_lease_get(struct api_conn *conn, const char *ns, const char *name, struct api_lease *out, struct err *e);
int api_lease_create(struct api_conn *conn, const struct api_lease *l, struct api_lease *out, struct err *e);
int api_lease_update(struct api_conn *conn, const struct api_lease *l, struct api_lease *out, struct err *e);

/* ---------- Rate limiter (token bucket), exposed for tests ---------- */

struct api_limiter;
struct api_limiter *api_limiter_new(double qps, int burst); /* qps <= 0: unlimited */
void api_limiter_free(struct api_limiter *l);
/* Takes one token at now_ns; returns how long the caller must wait (ns) before proceeding. */
int64_t api_limiter_reserve(struct api_limiter *l, int64_t now_ns);
void api_limiter_wait(struct api_limiter *l); /* reserve + sleep */

/* ---------- Manifest files ---------- */

/* A file as kubectl -f reads it, as JSON for the decoders. JSON (its first non-blank character is
 * '{') is returned unchanged. Anything else is YAML, converted as sigs.k8s.io/yaml's YAMLToJSON
 * does (go-yaml v2, YAML 1.1 scalars: yes/no/y/n/on/off are booleans; quoted scalars stay strings;
 * anchors, aliases and "<<" merges resolved; map keys sorted), one document after another ("---"),
 * into a v1 List whose items are the documents' objects (a *List document gives its items; empty
 * documents are skipped). kind, when not NULL, is the only kind accepted in YAML: another is an
 * error naming the document and the kind. name prefixes every message ("pods.yaml:3:7: ...").
 * *out (NUL-terminated, *out_len bytes) is the caller's to free. */
int api_manifest_to_json(const char *name, const char *text, size_t len, const char *kind, char **out, size_t *out_len,
			 struct err *e);

/* ---------- Small utilities ---------- */

int64_t api_now_ns(void); /* CLOCK_MONOTONIC */
int64_t api_wall_us(void); /* CLOCK_REALTIME, microseconds */
/* RFC 3339 -> Unix microseconds: 0 or ERR_INVALID (what is accepted: common/rfc3339.h). */
int api_parse_time(const char *s, int64_t *us);
/* Unix microseconds -> "2026-11-23T06:49:36.123456Z" (MicroTime) into buf of >= 32 bytes. */
void api_format_time(int64_t us, char *buf, size_t size);

#endif
