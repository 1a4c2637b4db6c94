/* Integration-test harness: a real etcd + kube-apiserver per test, started by tests/cluster/up in a
 * fresh temporary directory, plus helpers to create and delete objects quickly and to wait for
 * conditions.
 *
 * Typical use:
 *
 *	struct harness_cluster c;
 *	struct err e = {0};
 *	if (harness_cluster_start(&c, 0, &e)) fail_msg("%s", e.msg);
 *	struct api_client *cl = harness_client_new(&c, "token", &e);
 *	harness_create_nodes(cl, "node-", 0, 100, &e);
 *	...
 *	api_client_free(cl);
 *	harness_cluster_stop(&c);   // tests/cluster/down, then rm -rf of the directory
 *
 * Set CSCHED_KEEP_CLUSTER=1 to keep the directory (logs, kubeconfig) after a test.
 * api_global_init must have been called (harness_cluster_start does it once).
 * Functions return 0 or a negative ERR_* code with a message in e, like the rest of csched. */
#ifndef CSCHED_HARNESS_H
#define CSCHED_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "apiclient/api_client.h"
#include "common/err.h"

struct yajl_val_s;

enum {
	HARNESS_CONTROLLER_MANAGER = 1 << 0, /* up --with-controller-manager */
	HARNESS_BENCH = 1 << 1,              /* up --bench: no inflight limits, no APF */
	HARNESS_NO_WATCH_CACHE = 1 << 2,     /* apiserver --watch-cache=false: watches go to etcd */
};

/* What tests/cluster/up wrote into DIR/env. */
struct harness_cluster {
	char dir[256];        /* the temporary directory, removed by harness_cluster_stop */
	char kubeconfig[320]; /* contexts "token" (current) and "cert" */
	char ca_file[320];
	char apiserver_url[64]; /* https://127.0.0.1:PORT */
	char etcd_url[64];      /* http://127.0.0.1:PORT */
	int apiserver_port, etcd_port;
	pid_t apiserver_pid, etcd_pid, kcm_pid; /* kcm_pid 0 without the controller manager */
	double start_seconds; /* wall time tests/cluster/up took */
	bool running;
};

/* Starts a cluster (flags: HARNESS_*) in a new directory under $TMPDIR (default /tmp). */
int harness_cluster_start(struct harness_cluster *c, unsigned flags, struct err *e);
/* Stops it and removes its directory (unless CSCHED_KEEP_CLUSTER=1). Safe to call twice. */
void harness_cluster_stop(struct harness_cluster *c);
/* Sends sig (e.g. SIGKILL) to the apiserver and waits until it has exited. */
int harness_apiserver_kill(struct harness_cluster *c, int sig, struct err *e);
/* Starts the apiserver again on the same port with the same flags (up --restart-apiserver) and
 * waits for /readyz; updates apiserver_pid. */
int harness_apiserver_restart(struct harness_cluster *c, struct err *e);
/* The same for etcd (its data kept: up --restart-etcd); updates etcd_pid. */
int harness_etcd_kill(struct harness_cluster *c, int sig, struct err *e);
int harness_etcd_restart(struct harness_cluster *c, struct err *e);

/* A client from the cluster's kubeconfig; context "token", "cert" or NULL (current = token). */
struct api_client *harness_client_new(const struct harness_cluster *c, const char *context, struct err *e);

/* Test setup (cmocka): starts a cluster (flags: HARNESS_*), then a client (current context) and a
 * connection on it. Returns -1 with "cluster: ..." or "client: ..." on stderr when one fails. */
int harness_setup(struct harness_cluster *c, unsigned flags, struct api_client **cl, struct api_conn **conn);
/* Its teardown: frees *conn and *cl (either may be NULL; both set to NULL) and stops the cluster. */
void harness_teardown(struct harness_cluster *c, struct api_client **cl, struct api_conn **conn);
/* Creates the namespace name (no labels). */
int harness_create_namespace(struct api_conn *conn, const char *name, struct err *e);

/* Runs a shell command; *out (if not NULL) receives its stdout+stderr (malloc'd, NUL-terminated).
 * Returns the exit status (0..255), or -1 when it could not run or was killed by a signal. */
int harness_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the pinned kubectl with --kubeconfig=kubeconfig [--context=context] and the arguments
 * (passed through the shell: quote them), like harness_run. */
int harness_kubectl(const char *kubeconfig, const char *context, char **out, const char *args_fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Creates nodes PREFIX<first>..PREFIX<first+n-1> like upstream scheduler_perf's default node:
 * capacity = allocatable = {pods 110, cpu 4, memory 32Gi}, condition Ready=True, label
 * kubernetes.io/hostname. Uses several connections in parallel. */
int harness_create_nodes(struct api_client *cl, const char *prefix, int first, int n, struct err *e);
/* Creates pods PREFIX<first>.. in namespace ns: one pause container requesting cpu 100m and
 * memory 500Mi, unassigned. */
int harness_create_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n,
			struct err *e);
/* Deletes them with gracePeriodSeconds=0 (a missing object is not an error). */
int harness_delete_nodes(struct api_client *cl, const char *prefix, int first, int n, struct err *e);
int harness_delete_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n,
			struct err *e);
/* Merge-patches the label csched-test=VALUE onto each object: one MODIFIED event each. */
int harness_label_nodes(struct api_client *cl, const char *prefix, int first, int n, const char *value,
			struct err *e);
int harness_label_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n,
		       const char *value, struct err *e);

/* Reads a collection page by page (path like "/api/v1/pods"; limit/continue are added) and calls
 * fn for every item (a yajl object, valid during the call); fn returning non-zero stops.
 * *resource_version (if not NULL, of size >= 32) receives the list's resourceVersion. */
int harness_list(struct api_conn *conn, const char *path, int (*fn)(void *ctx, struct yajl_val_s *item),
		 void *ctx, char *resource_version, struct err *e);
/* Number of items in a collection. */
int harness_count(struct api_conn *conn, const char *path, long *count, struct err *e);

/* etcd's current revision, and a physical compaction up to rev (etcd's HTTP/JSON gateway). */
int harness_etcd_revision(const struct harness_cluster *c, int64_t *rev, struct err *e);
int harness_etcd_compact(const struct harness_cluster *c, int64_t rev, struct err *e);

/* Polls pred every poll_ms (0 = 20) until it returns true (returns true) or timeout_ms passes
 * (returns false). */
bool harness_wait_until(bool (*pred)(void *ctx), void *ctx, long timeout_ms, long poll_ms);
int64_t harness_now_ms(void); /* CLOCK_MONOTONIC */

/* ---------- Processes, HTTP and credentials (tests that run the csched binary) ---------- */

/* A TCP port on 127.0.0.1 that was free a moment ago (bound, then released), or 0. */
int harness_free_port(void);
/* Starts argv[0] (a path) with argv (NULL-terminated), stdout and stderr appended to log_path.
 * With hostname not NULL the child gets its own UTS namespace with that hostname, as each pod
 * of a Deployment has (needs CAP_SYS_ADMIN). Returns the child's pid (> 0) once exec has
 * succeeded, or a negative ERR_* with the reason in e. */
pid_t harness_spawn(char *const argv[], const char *log_path, const char *hostname, struct err *e);
/* Waits up to timeout_ms for the child pid to end; *status (if not NULL) as from waitpid.
 * ERR_TIMEOUT when it is still running. */
int harness_wait_child(pid_t pid, long timeout_ms, int *status, struct err *e);
/* GET url (plain HTTP, 5 s timeout) with libcurl: *status the HTTP status; *body (if not NULL)
 * malloc'd and NUL-terminated. ERR_TRANSPORT when there is no answer. */
int harness_http_get(const char *url, long *status, char **body, struct err *e);
/* The same with "Authorization: Bearer token" (NULL: none). https:// URLs are not verified
 * (csched's health server has a self-signed certificate). */
int harness_http_get_auth(const char *url, const char *token, long *status, char **body, struct err *e);
/* Writes a kubeconfig (mode 0600) at path for the cluster c that authenticates as the
 * ServiceAccount ns/name, with a token from the TokenRequest API (POST
 * /api/v1/namespaces/NS/serviceaccounts/NAME/token) valid for expiration_s seconds. */
int harness_sa_kubeconfig(const struct harness_cluster *c, const char *ns, const char *name, long expiration_s,
			  const char *path, struct err *e);

#endif
