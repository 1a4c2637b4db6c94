/* The apiclient transport and writes against a real kube-apiserver + etcd (one cluster for the
 * program, started by tests/cluster/up through the harness):
 *  - TLS: a wrong CA fails with a clear TLS error; insecure-skip-tls-verify connects anyway;
 *  - authentication: bearer token, client certificate (embedded and from files), token file
 *    (rotation picked up), exec plugin (token and client certificate, cached, re-run on 401 and
 *    on expiry; also on connections of an api_mux, over HTTP/2); no credentials -> ERR_FORBIDDEN;
 *  - writes: Pod and Node created with api_request, api_bind_pod sets spec.nodeName and a second
 *    Binding is ERR_CONFLICT with the server's message; Event (with a series, note truncated);
 *    PodScheduled condition + nominatedNodeName patch; Lease create/get/update with a stale
 *    resourceVersion -> ERR_CONFLICT; 404 -> ERR_NOT_FOUND;
 *  - streams: lines delivered, the callback's value returned, the stop flag honoured within
 *    the 200 ms contract, HTTP errors mapped;
 *  - the client-side rate limit, and sequential request latency on one connection (printed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"
#include "apiclient/api_internal.h"
#include "harness.h"
#include "testutil.h"

static struct harness_cluster cluster;
static char admin_token[128];
static char tmpdir[320];

/* ---------- helpers ---------- */

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static struct api_config load_cfg(const char *context)
{
	struct api_config cfg;
	struct err e = {0};
	if (api_config_load_kubeconfig(&cfg, cluster.kubeconfig, context, &e))
		fail_msg("kubeconfig: %s", e.msg);
	return cfg;
}

static struct api_client *client_from(struct api_config *cfg)
{
	struct err e = {0};
	struct api_client *c = api_client_new(cfg, &e);
	if (!c)
		fail_msg("api_client_new: %s", e.msg);
	return c;
}

static struct api_conn *conn_of(struct api_client *c)
{
	struct err e = {0};
	struct api_conn *conn = api_conn_new(c, &e);
	if (!conn)
		fail_msg("api_conn_new: %s", e.msg);
	return conn;
}

static char *dup_str(const char *s)
{
	char *d = strdup(s);
	assert_non_null(d);
	return d;
}

/* GET path, parse JSON; fails the test on error. */
static yajl_val get_json(struct api_conn *conn, const char *path)
{
	struct api_response r = {0};
	struct err e = {0};
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e))
		fail_msg("GET %s: %s", path, e.msg);
	char ebuf[128];
	yajl_val v = yajl_tree_parse(r.body, ebuf, sizeof(ebuf));
	if (!v)
		fail_msg("GET %s: not JSON: %s", path, ebuf);
	api_response_release(&r);
	return v;
}

static const char *jget_str(yajl_val v, const char *const *path)
{
	yajl_val s = yajl_tree_get(v, (const char **)path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static int list_nodes(struct api_client *c, struct err *e)
{
	struct api_conn *conn = conn_of(c);
	struct api_response r = {0};
	int rc = api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, &r, e);
	if (rc == 0 && !strstr(r.body, "\"NodeList\""))
		rc = err_set(e, ERR_INVALID, "no NodeList in %.100s", r.body);
	api_response_release(&r);
	api_conn_free(conn);
	return rc;
}

static void create(struct api_conn *conn, const char *path, const char *json)
{
	struct err e = {0};
	if (api_request(conn, "POST", path, NULL, json, strlen(json), NULL, &e))
		fail_msg("POST %s: %s", path, e.msg);
}

static void create_node(struct api_conn *conn, const char *name)
{
	char body[512];
	snprintf(body, sizeof(body),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
		 "\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
		 name);
	create(conn, "/api/v1/nodes", body);
}

/* Creates a pod and returns its uid (malloc'd). */
static char *create_pod(struct api_conn *conn, const char *name)
{
	char body[512], path[256];
	snprintf(body, sizeof(body),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"},"
		 "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\"}]}}",
		 name);
	create(conn, "/api/v1/namespaces/default/pods", body);
	snprintf(path, sizeof(path), "/api/v1/namespaces/default/pods/%s", name);
	yajl_val v = get_json(conn, path);
	static const char *const uid_p[] = {"metadata", "uid", NULL};
	char *uid = dup_str(jget_str(v, uid_p));
	yajl_tree_free(v);
	return uid;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* ---------- setup ---------- */

static int group_setup(void **state)
{
	(void)state;
	struct err e = {0};
	if (harness_cluster_start(&cluster, 0, &e)) {
		fprintf(stderr, "cluster: %s\n", e.msg);
		return -1;
	}
	fprintf(stderr, "cluster up in %.2f s at %s\n", cluster.start_seconds, cluster.apiserver_url);
	/* The admin token, for the token-file and exec-plugin tests. */
	struct api_config cfg;
	if (api_config_load_kubeconfig(&cfg, cluster.kubeconfig, "token", &e)) {
		fprintf(stderr, "kubeconfig: %s\n", e.msg);
		return -1;
	}
	snprintf(admin_token, sizeof(admin_token), "%s", cfg.token);
	api_config_release(&cfg);
	snprintf(tmpdir, sizeof(tmpdir), "%s/transport-test", cluster.dir);
	mkdir(tmpdir, 0700);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	harness_cluster_stop(&cluster);
	return 0;
}

/* ---------- TLS ---------- */

static void test_wrong_ca(void **state)
{
	(void)state;
	struct api_config cfg = load_cfg("token");
	/* A CA that did not sign the apiserver's certificate. */
	free(cfg.ca_data);
	size_t len = 0;
	cfg.ca_data = testutil_read_source_file("tests/fixtures/kubeconfig/ca.crt", &len);
	cfg.ca_data_len = len;
	struct api_client *c = client_from(&cfg);
	struct err e = {0};
	int rc = list_nodes(c, &e);
	assert_int_equal(rc, ERR_TRANSPORT);
	assert_int_equal(e.http_status, 0);
	fprintf(stderr, "wrong CA: %s\n", e.msg);
	assert_non_null(strstr(e.msg, "TLS"));
	assert_non_null(strstr(e.msg, "not trusted"));
	assert_non_null(strstr(e.msg, "certificate-authority-data"));
	api_client_free(c);

	/* The system roots do not know the test CA either. */
	cfg = load_cfg("token");
	free(cfg.ca_data);
	cfg.ca_data = NULL;
	cfg.ca_data_len = 0;
	c = client_from(&cfg);
	assert_int_equal(list_nodes(c, &e), ERR_TRANSPORT);
	assert_non_null(strstr(e.msg, "system roots"));
	api_client_free(c);

	/* insecure-skip-tls-verify connects without verifying. */
	cfg = load_cfg("token");
	free(cfg.ca_data);
	cfg.ca_data = NULL;
	cfg.ca_data_len = 0;
	cfg.insecure_skip_tls_verify = true;
	c = client_from(&cfg);
	if (list_nodes(c, &e))
		fail_msg("insecure: %s", e.msg);
	api_client_free(c);

	/* Nothing listens: a transport error naming the URL. */
	cfg = load_cfg("token");
	free(cfg.server);
	cfg.server = dup_str("https://127.0.0.1:1");
	c = client_from(&cfg);
	assert_int_equal(list_nodes(c, &e), ERR_TRANSPORT);
	assert_non_null(strstr(e.msg, "https://127.0.0.1:1/api/v1/nodes"));
	api_client_free(c);
}

/* ---------- authentication ---------- */

static void test_token_and_cert_auth(void **state)
{
	(void)state;
	struct err e = {0};
	static const char *const contexts[] = {"token", "cert"};
	for (size_t i = 0; i < 2; i++) {
		struct api_config cfg = load_cfg(contexts[i]);
		struct api_client *c = client_from(&cfg);
		if (list_nodes(c, &e))
			fail_msg("context %s: %s", contexts[i], e.msg);
		assert_string_equal(api_client_namespace(c), "default");
		assert_string_equal(api_client_server(c), cluster.apiserver_url);
		api_client_free(c);
	}

	/* Client certificate and CA from files rather than embedded data. */
	struct api_config cfg = load_cfg("cert");
	free(cfg.cert_data);
	free(cfg.key_data);
	free(cfg.ca_data);
	cfg.cert_data = cfg.key_data = cfg.ca_data = NULL;
	cfg.cert_data_len = cfg.key_data_len = cfg.ca_data_len = 0;
	char p[512];
	snprintf(p, sizeof(p), "%s/pki/admin.crt", cluster.dir);
	cfg.cert_file = dup_str(p);
	snprintf(p, sizeof(p), "%s/pki/admin.key", cluster.dir);
	cfg.key_file = dup_str(p);
	cfg.ca_file = dup_str(cluster.ca_file);
	struct api_client *c = client_from(&cfg);
	if (list_nodes(c, &e))
		fail_msg("cert files: %s", e.msg);
	api_client_free(c);

	/* No credentials: anonymous, which RBAC refuses. */
	cfg = load_cfg("token");
	free(cfg.token);
	cfg.token = NULL;
	c = client_from(&cfg);
	assert_int_equal(list_nodes(c, &e), ERR_FORBIDDEN);
	assert_true(e.http_status == 401 || e.http_status == 403);
	assert_non_null(strstr(e.msg, "forbidden"));
	api_client_free(c);

	/* A wrong token: 401. */
	cfg = load_cfg("token");
	free(cfg.token);
	cfg.token = dup_str("not-a-valid-token");
	c = client_from(&cfg);
	assert_int_equal(list_nodes(c, &e), ERR_FORBIDDEN);
	assert_int_equal(e.http_status, 401);
	api_client_free(c);
}

static void test_token_file_rotation(void **state)
{
	(void)state;
	struct err e = {0};
	char path[512];
	snprintf(path, sizeof(path), "%s/token", tmpdir);
	write_text(path, "stale-token\n", 0600);
	struct api_config cfg = load_cfg("token");
	free(cfg.token);
	cfg.token = NULL;
	cfg.token_file = dup_str(path);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	assert_int_equal(api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e), ERR_FORBIDDEN);
	assert_int_equal(e.http_status, 401);
	/* The kubelet rotates by writing a new file: the next request uses it. */
	char tok[160];
	snprintf(tok, sizeof(tok), "%s\n", admin_token);
	snprintf(path, sizeof(path), "%s/token.new", tmpdir);
	write_text(path, tok, 0600);
	char dst[512];
	snprintf(dst, sizeof(dst), "%s/token", tmpdir);
	assert_int_equal(rename(path, dst), 0);
	if (api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e))
		fail_msg("after rotation: %s", e.msg);
	/* A file that vanishes keeps the last token. */
	unlink(dst);
	if (api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e))
		fail_msg("after removal: %s", e.msg);
	api_conn_free(conn);
	api_client_free(c);
}

/* An exec plugin that counts its runs; MODE file: "bad-then-good" (first run prints a token the
 * server refuses), "good", "expired" (a valid token that expired in 2001), "cert". */
static const char plugin_script[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"n=$(cat \"$d/runs\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$d/runs\"\n"
	"mode=$(cat \"$d/mode\")\n"
	"tok=$(cat \"$d/admin-token\")\n"
	"[ \"$mode\" = bad-then-good ] && [ $n -eq 1 ] && tok=refused-token\n"
	"case \"$mode\" in\n"
	"cert)\n"
	"  crt=$(awk '{printf \"%s\\\\n\", $0}' \"$PKI/admin.crt\")\n"
	"  key=$(awk '{printf \"%s\\\\n\", $0}' \"$PKI/admin.key\")\n"
	"  printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
	"\"status\":{\"clientCertificateData\":\"%s\",\"clientKeyData\":\"%s\"}}' \"$crt\" \"$key\" ;;\n"
	"expired)\n"
	"  printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
	"\"status\":{\"token\":\"%s\",\"expirationTimestamp\":\"2001-01-01T00:00:00Z\"}}' \"$tok\" ;;\n"
	"*)\n"
	"  printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
	"\"status\":{\"token\":\"%s\"}}' \"$tok\" ;;\n"
	"esac\n";

static int plugin_runs(void)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/plugin/runs", tmpdir);
	FILE *f = fopen(p, "r");
	int n = 0;
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static struct api_client *exec_client(const char *mode)
{
	char dir[512], p[600], env[600];
	snprintf(dir, sizeof(dir), "%s/plugin", tmpdir);
	mkdir(dir, 0700);
	snprintf(p, sizeof(p), "%s/plugin.sh", dir);
	write_text(p, plugin_script, 0700);
	snprintf(p, sizeof(p), "%s/mode", dir);
	write_text(p, mode, 0600);
	snprintf(p, sizeof(p), "%s/admin-token", dir);
	write_text(p, admin_token, 0600);
	snprintf(p, sizeof(p), "%s/runs", dir);
	unlink(p);
	struct api_config cfg = load_cfg("token");
	free(cfg.token);
	cfg.token = NULL;
	cfg.exec = calloc(1, sizeof(*cfg.exec));
	assert_non_null(cfg.exec);
	snprintf(p, sizeof(p), "%s/plugin.sh", dir);
	cfg.exec->command = dup_str(p);
	cfg.exec->api_version = dup_str("client.authentication.k8s.io/v1beta1");
	cfg.exec->args = calloc(1, sizeof(char *));
	cfg.exec->env = calloc(2, sizeof(char *));
	snprintf(env, sizeof(env), "PKI=%s/pki", cluster.dir);
	cfg.exec->env[0] = dup_str(env);
	return client_from(&cfg);
}

static void test_exec_plugin_auth(void **state)
{
	(void)state;
	struct err e = {0};
	/* First credential refused (401): dropped, the plugin runs again, the request succeeds; the
	 * next requests reuse the cached credential. */
	struct api_client *c = exec_client("bad-then-good");
	struct api_conn *conn = conn_of(c);
	if (api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e))
		fail_msg("exec: %s", e.msg);
	assert_int_equal(plugin_runs(), 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e), 0);
	assert_int_equal(plugin_runs(), 2);
	api_conn_free(conn);
	api_client_free(c);

	/* An expired credential is not reused. */
	c = exec_client("expired");
	conn = conn_of(c);
	for (int i = 0; i < 3; i++)
		assert_int_equal(api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e), 0);
	assert_int_equal(plugin_runs(), 3);
	api_conn_free(conn);
	api_client_free(c);

	/* A client certificate from the plugin. */
	c = exec_client("cert");
	if (list_nodes(c, &e))
		fail_msg("exec cert: %s", e.msg);
	assert_int_equal(plugin_runs(), 1);
	api_client_free(c);
}

/* The same credentials on connections of a muxer (the binders'): the plugin runs on the
 * submitting thread, a refused token is dropped and the request retried once, and a client
 * certificate from the plugin is the TLS identity of the muxer's (HTTP/2) connection. */
static void test_exec_plugin_auth_muxed(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_mux *mux = api_mux_new(4, &e);
	assert_non_null(mux);
	struct api_client *c = exec_client("bad-then-good");
	struct api_conn *conn = api_conn_new_mux(c, mux, &e);
	assert_non_null(conn);
	if (api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e))
		fail_msg("exec, muxed: %s", e.msg);
	assert_int_equal(plugin_runs(), 2);
	assert_int_equal(api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e), 0);
	assert_int_equal(plugin_runs(), 2);
	api_conn_free(conn);
	api_client_free(c);
	struct api_mux_stats before;
	api_mux_stats(mux, &before);

	c = exec_client("cert");
	conn = api_conn_new_mux(c, mux, &e);
	assert_non_null(conn);
	if (api_request(conn, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, NULL, &e))
		fail_msg("exec cert, muxed: %s", e.msg);
	assert_int_equal(plugin_runs(), 1);
	api_conn_free(conn);
	api_client_free(c);

	struct api_mux_stats st;
	api_mux_stats(mux, &st);
	assert_int_equal(st.requests, 4); /* the refused one, its retry, two more */
	assert_int_equal(st.http2, 4);
	/* the client certificate is part of a connection's identity: a connection of its own */
	assert_int_equal(st.connects, before.connects + 1);
	api_mux_free(mux);
}

/* Threads share one client (its limiter and credential cache), each with its own connection:
 * the plugin runs once for all of them. */
struct worker {
	struct api_client *c;
	int failures;
	char msg[ERR_MSG_MAX];
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new(w->c, &e);
	for (int i = 0; conn && i < 20; i++) {
		if (api_request(conn, "GET", "/api/v1/namespaces/default", NULL, NULL, 0, NULL, &e)) {
			w->failures++;
			snprintf(w->msg, sizeof(w->msg), "%s", e.msg);
		}
	}
	if (!conn)
		w->failures = -1;
	api_conn_free(conn);
	return NULL;
}

static void test_threads_shared_client(void **state)
{
	(void)state;
	struct api_client *c = exec_client("good");
	struct worker w[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.c = c};
		assert_int_equal(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		if (w[i].failures)
			fail_msg("worker %d: %d failures: %s", i, w[i].failures, w[i].msg);
	}
	assert_int_equal(plugin_runs(), 1);
	api_client_free(c);
}

/* ---------- writes ---------- */

static void test_bind_pod(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	create_node(conn, "bind-node-1");
	char *uid = create_pod(conn, "bind-pod-1");
	if (api_bind_pod(conn, "default", "bind-pod-1", uid, "bind-node-1", &e))
		fail_msg("bind: %s", e.msg);
	yajl_val v = get_json(conn, "/api/v1/namespaces/default/pods/bind-pod-1");
	static const char *const node_p[] = {"spec", "nodeName", NULL};
	assert_string_equal(jget_str(v, node_p), "bind-node-1");
	yajl_tree_free(v);

	/* A second binding: 409 with the server's reason. */
	assert_int_equal(api_bind_pod(conn, "default", "bind-pod-1", uid, "bind-node-1", &e), ERR_CONFLICT);
	assert_int_equal(e.http_status, 409);
	fprintf(stderr, "second binding: %s\n", e.msg);
	assert_non_null(strstr(e.msg, "already assigned"));

	/* The uid is a precondition: a binding for another incarnation of the pod fails. */
	char *uid2 = create_pod(conn, "bind-pod-2");
	int rc = api_bind_pod(conn, "default", "bind-pod-2", "00000000-0000-0000-0000-000000000000", "bind-node-1", &e);
	assert_int_equal(rc, ERR_CONFLICT);
	assert_non_null(strstr(e.msg, "UID"));
	v = get_json(conn, "/api/v1/namespaces/default/pods/bind-pod-2");
	assert_null(jget_str(v, node_p));
	yajl_tree_free(v);

	/* Binding a pod that does not exist. */
	assert_int_equal(api_bind_pod(conn, "default", "no-such-pod", NULL, "bind-node-1", &e), ERR_NOT_FOUND);
	/* A name that would change the path is refused before any request. */
	assert_int_equal(api_bind_pod(conn, "default", "a/../b", NULL, "bind-node-1", &e), ERR_INVALID);
	free(uid);
	free(uid2);
	api_conn_free(conn);
	api_client_free(c);
}

static void test_not_found(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	struct api_response r = {0};
	int rc = api_request(conn, "GET", "/api/v1/namespaces/default/pods/nope", NULL, NULL, 0, &r, &e);
	assert_int_equal(rc, ERR_NOT_FOUND);
	assert_int_equal(e.http_status, 404);
	assert_int_equal(r.status, 404);
	assert_non_null(strstr(e.msg, "pods \"nope\" not found"));
	assert_non_null(strstr(r.body, "\"NotFound\"")); /* the body is still there */
	api_response_release(&r);
	/* DELETE and PUT/409 through the raw request too. */
	assert_int_equal(api_request(conn, "DELETE", "/api/v1/nodes/nope", NULL, NULL, 0, NULL, &e), ERR_NOT_FOUND);
	create_node(conn, "dup-node");
	const char *dup = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"dup-node\"}}";
	assert_int_equal(api_request(conn, "POST", "/api/v1/nodes", NULL, dup, strlen(dup), NULL, &e), ERR_CONFLICT);
	assert_non_null(strstr(e.msg, "already exists"));
	assert_int_equal(api_request(conn, "DELETE", "/api/v1/nodes/dup-node", NULL, NULL, 0, NULL, &e), 0);
	/* Invalid object: 422 is ERR_HTTP with the status. */
	const char *bad = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"Not_Valid\"}}";
	assert_int_equal(api_request(conn, "POST", "/api/v1/nodes", NULL, bad, strlen(bad), NULL, &e), ERR_HTTP);
	assert_int_equal(e.http_status, 422);
	api_conn_free(conn);
	api_client_free(c);
}

static yajl_val find_event(struct api_conn *conn, const char *reason, yajl_val *root)
{
	*root = get_json(conn, "/apis/events.k8s.io/v1/namespaces/default/events");
	static const char *const items_p[] = {"items", NULL}, *const reason_p[] = {"reason", NULL};
	yajl_val items = yajl_tree_get(*root, (const char **)items_p, yajl_t_array);
	assert_non_null(items);
	for (size_t i = 0; i < YAJL_GET_ARRAY(items)->len; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		const char *r = jget_str(it, reason_p);
		if (r && !strcmp(r, reason))
			return it;
	}
	return NULL;
}

static void test_event(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	char *uid = create_pod(conn, "event-pod");
	char note[2000];
	memset(note, 'x', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	static const char head[] = "0/3 nodes are available: \"quoted\" \xc3\xa9 "; /* escaping and UTF-8 */
	memcpy(note, head, sizeof(head) - 1);
	int64_t t0 = 1795416576123456LL;
	struct api_event ev = {
		.namespace = "default",
		.regarding_kind = "Pod",
		.regarding_name = "event-pod",
		.regarding_uid = uid,
		.regarding_api_version = "v1",
		.type = "Warning",
		.reason = "FailedSchedulingTest",
		.action = "Scheduling",
		.note = note,
		.reporting_controller = "csched",
		.reporting_instance = "csched-test-host",
		.count = 3,
		.first_us = t0,
		.last_us = t0 + 2000000,
	};
	if (api_create_event(conn, &ev, &e))
		fail_msg("event: %s", e.msg);
	/* A two-byte character across the 1024-byte limit is dropped whole, not cut. */
	note[1023] = '\xc3';
	note[1024] = '\xa9';
	ev.reason = "FailedSchedulingUtf8";
	ev.count = 1;
	if (api_create_event(conn, &ev, &e))
		fail_msg("event utf8: %s", e.msg);
	note[1023] = note[1024] = 'x';
	ev.reason = "ScheduledTest";
	ev.type = "Normal";
	ev.action = "Binding";
	ev.note = "Successfully assigned default/event-pod to node-1";
	ev.count = 1;
	if (api_create_event(conn, &ev, &e))
		fail_msg("event 2: %s", e.msg);

	yajl_val root;
	yajl_val it = find_event(conn, "FailedSchedulingTest", &root);
	assert_non_null(it);
	static const char *const note_p[] = {"note", NULL}, *const type_p[] = {"type", NULL},
				 *const name_p[] = {"metadata", "name", NULL}, *const reg_uid_p[] = {"regarding", "uid", NULL},
				 *const reg_kind_p[] = {"regarding", "kind", NULL}, *const ctl_p[] = {"reportingController", NULL},
				 *const inst_p[] = {"reportingInstance", NULL}, *const et_p[] = {"eventTime", NULL},
				 *const count_p[] = {"series", "count", NULL}, *const last_p[] = {"series", "lastObservedTime", NULL};
	const char *n = jget_str(it, note_p);
	assert_non_null(n);
	assert_int_equal(strlen(n), 1024); /* truncated as upstream's validation requires */
	assert_memory_equal(n, note, 1024);
	assert_string_equal(jget_str(it, type_p), "Warning");
	assert_string_equal(jget_str(it, reg_uid_p), uid);
	assert_string_equal(jget_str(it, reg_kind_p), "Pod");
	assert_string_equal(jget_str(it, ctl_p), "csched");
	assert_string_equal(jget_str(it, inst_p), "csched-test-host");
	assert_string_equal(jget_str(it, et_p), "2026-11-23T06:49:36.123456Z");
	assert_string_equal(jget_str(it, last_p), "2026-11-23T06:49:38.123456Z");
	yajl_val cnt = yajl_tree_get(it, (const char **)count_p, yajl_t_number);
	assert_non_null(cnt);
	assert_int_equal(YAJL_GET_INTEGER(cnt), 3);
	const char *name = jget_str(it, name_p);
	assert_true(strncmp(name, "event-pod.", 10) == 0 && strlen(name) == 10 + 16);
	yajl_tree_free(root);

	it = find_event(conn, "FailedSchedulingUtf8", &root);
	assert_non_null(it);
	assert_int_equal(strlen(jget_str(it, note_p)), 1023);
	yajl_tree_free(root);

	it = find_event(conn, "ScheduledTest", &root);
	assert_non_null(it);
	assert_null(yajl_tree_get(it, (const char **)count_p, yajl_t_number)); /* no series for one */
	yajl_tree_free(root);

	/* Missing required fields are refused locally. */
	ev.reporting_instance = NULL;
	assert_int_equal(api_create_event(conn, &ev, &e), ERR_INVALID);
	free(uid);
	api_conn_free(conn);
	api_client_free(c);
}

/* The patch api_pod_status_patch makes against the pod as the server has it now, sent. */
static int patch_status(struct api_conn *conn, const char *name, const struct api_pod_scheduled *cond,
			const char *nominated, struct err *e)
{
	struct api_response r = {0};
	char path[256], *body = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "/api/v1/namespaces/default/pods/%s", name);
	int rc = api_request(conn, "GET", path, NULL, NULL, 0, &r, e);
	if (rc)
		return rc;
	struct api_pod *pod = api_pod_decode_json(r.body, r.len, e);
	api_response_release(&r);
	if (!pod)
		return ERR_INVALID;
	rc = api_pod_status_patch(pod, cond, nominated, api_wall_us(), &body, &len, e);
	if (!rc)
		rc = body ? api_patch_pod_status(conn, "default", name, body, len, e) : err_set(e, ERR_INVALID, "no change");
	free(body);
	api_pod_unref(pod);
	return rc;
}

static void test_patch_pod_status(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	char *uid = create_pod(conn, "status-pod");
	const char *msg = "0/2 nodes are available: 2 Insufficient cpu.";
	if (patch_status(conn, "status-pod", &(struct api_pod_scheduled){ "False", "Unschedulable", msg, 1 }, "node-7", &e))
		fail_msg("patch: %s", e.msg);
	yajl_val v = get_json(conn, "/api/v1/namespaces/default/pods/status-pod");
	static const char *const conds_p[] = {"status", "conditions", NULL},
				 *const nnn_p[] = {"status", "nominatedNodeName", NULL}, *const type_p[] = {"type", NULL},
				 *const st_p[] = {"status", NULL}, *const reason_p[] = {"reason", NULL},
				 *const msg_p[] = {"message", NULL}, *const ltt_p[] = {"lastTransitionTime", NULL};
	assert_string_equal(jget_str(v, nnn_p), "node-7");
	yajl_val conds = yajl_tree_get(v, (const char **)conds_p, yajl_t_array);
	assert_non_null(conds);
	bool found = false;
	for (size_t i = 0; i < YAJL_GET_ARRAY(conds)->len; i++) {
		yajl_val cd = YAJL_GET_ARRAY(conds)->values[i];
		if (strcmp(jget_str(cd, type_p), "PodScheduled"))
			continue;
		found = true;
		assert_string_equal(jget_str(cd, st_p), "False");
		assert_string_equal(jget_str(cd, reason_p), "Unschedulable");
		assert_string_equal(jget_str(cd, msg_p), msg);
		int64_t t;
		assert_int_equal(api_parse_time(jget_str(cd, ltt_p), &t), 0);
		assert_true(llabs(t - api_wall_us()) < 120LL * 1000000);
	}
	assert_true(found);
	yajl_tree_free(v);

	/* "" clears nominatedNodeName; no condition leaves the condition alone. */
	if (patch_status(conn, "status-pod", NULL, "", &e))
		fail_msg("patch 2: %s", e.msg);
	v = get_json(conn, "/api/v1/namespaces/default/pods/status-pod");
	assert_null(jget_str(v, nnn_p));
	conds = yajl_tree_get(v, (const char **)conds_p, yajl_t_array);
	assert_non_null(conds);
	assert_int_equal(YAJL_GET_ARRAY(conds)->len, 1);
	yajl_tree_free(v);
	assert_int_equal(api_patch_pod_status(conn, "default", "no-such-pod", "{}", 2, &e), ERR_NOT_FOUND);
	free(uid);
	api_conn_free(conn);
	api_client_free(c);
}

static void test_lease(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	struct api_lease got = {0}, created = {0}, updated = {0};
	assert_int_equal(api_lease_get(conn, "kube-system", "csched-test", &got, &e), ERR_NOT_FOUND);
	assert_int_equal(e.http_status, 404);

	int64_t now = 1795416576123456LL;
	struct api_lease l = {
		.name = "csched-test",
		.namespace = "kube-system",
		.holder_identity = "host-a_1234",
		.lease_duration_seconds = 15,
		.acquire_time_us = now,
		.renew_time_us = now + 1000,
		.lease_transitions = 0,
	};
	if (api_lease_create(conn, &l, &created, &e))
		fail_msg("create: %s", e.msg);
	assert_non_null(created.resource_version);
	assert_string_equal(created.holder_identity, "host-a_1234");
	assert_int_equal(created.lease_duration_seconds, 15);
	assert_int_equal(created.acquire_time_us, now);
	assert_int_equal(created.renew_time_us, now + 1000);
	/* Creating it again: someone holds it already. */
	assert_int_equal(api_lease_create(conn, &l, NULL, &e), ERR_CONFLICT);

	if (api_lease_get(conn, "kube-system", "csched-test", &got, &e))
		fail_msg("get: %s", e.msg);
	assert_string_equal(got.resource_version, created.resource_version);
	assert_string_equal(got.name, "csched-test");
	assert_string_equal(got.namespace, "kube-system");

	/* Renew with the current resourceVersion, taken over by host-b. */
	struct api_lease u = got;
	u.holder_identity = "host-b_5678";
	u.renew_time_us = now + 5000000;
	u.lease_transitions = 1;
	if (api_lease_update(conn, &u, &updated, &e))
		fail_msg("update: %s", e.msg);
	assert_string_equal(updated.holder_identity, "host-b_5678");
	assert_int_equal(updated.lease_transitions, 1);
	assert_int_equal(updated.renew_time_us, now + 5000000);
	assert_string_not_equal(updated.resource_version, got.resource_version);

	/* The stale resourceVersion loses. */
	u.holder_identity = "host-a_1234";
	assert_int_equal(api_lease_update(conn, &u, NULL, &e), ERR_CONFLICT);
	assert_int_equal(e.http_status, 409);
	fprintf(stderr, "stale lease update: %s\n", e.msg);
	assert_non_null(strstr(e.msg, "modified"));
	/* No resourceVersion at all is refused locally. */
	u.resource_version = NULL;
	assert_int_equal(api_lease_update(conn, &u, NULL, &e), ERR_INVALID);
	api_lease_release(&got);
	api_lease_release(&created);
	api_lease_release(&updated);
	api_conn_free(conn);
	api_client_free(c);
}

/* ---------- streams ---------- */

struct lines {
	int n, stop_after;
	char first_type[32];
	atomic_bool *stop_flag; /* set after stop_after lines instead of returning a value */
};

static int on_line(void *ctx, char *line, size_t len)
{
	struct lines *l = ctx;
	assert_int_equal(strlen(line), len);
	assert_null(memchr(line, '\n', len));
	if (l->n++ == 0) {
		char ebuf[64];
		yajl_val v = yajl_tree_parse(line, ebuf, sizeof(ebuf));
		assert_non_null(v);
		static const char *const type_p[] = {"type", NULL};
		snprintf(l->first_type, sizeof(l->first_type), "%s", jget_str(v, type_p));
		yajl_tree_free(v);
	}
	if (l->stop_after && l->n >= l->stop_after)
		return l->stop_flag ? (atomic_store(l->stop_flag, true), 0) : 7;
	return 0;
}

struct stopper {
	atomic_bool *flag;
	long after_ms;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	sleep_ms(s->after_ms);
	atomic_store(s->flag, true);
	return NULL;
}

static void test_stream(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c), *w = conn_of(c);
	for (int i = 0; i < 5; i++) {
		char name[32];
		snprintf(name, sizeof(name), "watch-node-%d", i);
		create_node(w, name);
	}
	atomic_bool stop = false;
	/* A watch from resourceVersion 0 replays the current nodes as ADDED; the callback's value
	 * ends it. */
	struct lines l = {.stop_after = 3};
	int rc = api_stream(conn, "/api/v1/nodes?watch=1&resourceVersion=0", on_line, &l, &stop, &e);
	assert_int_equal(rc, 7);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.first_type, "ADDED");

	/* The server ends the stream (timeoutSeconds): 0, every line delivered. */
	struct lines all = {0};
	int64_t t0 = api_now_ns();
	rc = api_stream(conn, "/api/v1/nodes?watch=1&resourceVersion=0&timeoutSeconds=1", on_line, &all, &stop, &e);
	if (rc)
		fail_msg("stream: %s", e.msg);
	assert_true(all.n >= 5);
	assert_true(api_now_ns() - t0 >= 900 * 1000000LL);

	/* The stop flag ends a quiet watch within the 200 ms poll. */
	struct lines quiet = {0};
	struct stopper s = {.flag = &stop, .after_ms = 300};
	pthread_t th;
	/* Current nodes first, then nothing: start from the list's resourceVersion. */
	yajl_val v = get_json(conn, "/api/v1/nodes?limit=1");
	static const char *const rv_p[] = {"metadata", "resourceVersion", NULL};
	char path[256];
	snprintf(path, sizeof(path), "/api/v1/nodes?watch=1&resourceVersion=%s", jget_str(v, rv_p));
	yajl_tree_free(v);
	assert_int_equal(pthread_create(&th, NULL, stop_later, &s), 0);
	t0 = api_now_ns();
	rc = api_stream(conn, path, on_line, &quiet, &stop, &e);
	int64_t stop_ms = (api_now_ns() - t0) / 1000000;
	pthread_join(th, NULL);
	assert_int_equal(rc, ERR_STOPPED);
	assert_int_equal(quiet.n, 0);
	fprintf(stderr, "stream stopped %lld ms after start (stop set at 300 ms)\n", (long long)stop_ms);
	assert_true(stop_ms >= 290 && stop_ms < 300 + 200 + 150);

	/* An event after the watch's resourceVersion is delivered, and the connection is reusable
	 * after a stop. */
	atomic_store(&stop, false);
	struct lines one = {.stop_after = 1, .stop_flag = &stop};
	create_node(w, "watch-node-late");
	rc = api_stream(conn, path, on_line, &one, &stop, &e);
	assert_int_equal(rc, ERR_STOPPED); /* the callback set the flag after the first line */
	assert_int_equal(one.n, 1);
	assert_string_equal(one.first_type, "ADDED");

	/* HTTP errors come back as from api_request. */
	atomic_store(&stop, false);
	rc = api_stream(conn, "/api/v1/nosuchresource?watch=1", on_line, &one, &stop, &e);
	assert_int_equal(rc, ERR_NOT_FOUND);
	assert_int_equal(e.http_status, 404);
	api_conn_free(w);
	api_conn_free(conn);
	api_client_free(c);
}

/* ---------- a scripted HTTP/1.1 peer on loopback ---------- */

/* What the real apiserver does not do on demand: lines split at arbitrary points across
 * writes, 429 with Retry-After, an error body that is not a Status. One request per connection;
 * the reply depends on the path. */
struct fake {
	int fd, port, served;
	int retry_hits;
	int patch_conflict_hits, patch_500_hits, patch_400_hits;
};

static void send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void send_str(int fd, const char *s)
{
	send_all(fd, s, strlen(s));
}

static void send_chunk(int fd, const char *s)
{
	char hdr[32];
	snprintf(hdr, sizeof(hdr), "%zx\r\n", strlen(s));
	send_str(fd, hdr);
	send_str(fd, s);
	send_str(fd, "\r\n");
	sleep_ms(30); /* a separate TCP segment, a separate write callback */
}

static void *fake_run(void *arg)
{
	struct fake *f = arg;
	for (;;) {
		int c = accept(f->fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char req[4096] = "";
		size_t n = 0;
		while (n < sizeof(req) - 1 && !strstr(req, "\r\n\r\n")) {
			ssize_t r = recv(c, req + n, sizeof(req) - 1 - n, 0);
			if (r <= 0)
				break;
			n += (size_t)r;
			req[n] = '\0';
		}
		req[n] = '\0';
		/* the rest of a body (PATCH) before replying */
		const char *cl = strstr(req, "Content-Length: "), *eoh = strstr(req, "\r\n\r\n");
		if (cl && eoh) {
			size_t want = (size_t)atol(cl + 16), have = n - (size_t)(eoh + 4 - req);
			char sink[4096];
			while (have < want) {
				ssize_t r = recv(c, sink, sizeof(sink), 0);
				if (r <= 0)
					break;
				have += (size_t)r;
			}
		}
		f->served++;
		if (strstr(req, "GET /quit ")) {
			close(c);
			return NULL;
		} else if (strstr(req, "GET /retry ")) {
			if (f->retry_hits++ % 2 == 0) /* every other request: 429 */
				send_str(c, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 2\r\n"
					    "Connection: close\r\n\r\n{}");
			else
				send_str(c, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\n{\"ok\":1}");
		} else if (strstr(req, "PATCH /api/v1/namespaces/ns/pods/conflict/status ")) {
			if (f->patch_conflict_hits++ < 2)
				send_str(c, "HTTP/1.1 409 Conflict\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
			else
				send_str(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
		} else if (strstr(req, "PATCH /api/v1/namespaces/ns/pods/broken/status ")) {
			f->patch_500_hits++;
			send_str(c, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
		} else if (strstr(req, "PATCH /api/v1/namespaces/ns/pods/invalid/status ")) {
			f->patch_400_hits++;
			send_str(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
		} else if (strstr(req, "GET /split ")) {
			send_str(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
			send_chunk(c, "{\"a\":");
			send_chunk(c, "1}\n{\"b\"");
			send_chunk(c, ":2}\n");
			send_chunk(c, "\n{\"c\":3}\n{\"partial\"");
			send_str(c, "0\r\n\r\n");
		} else if (strstr(req, "GET /html ")) {
			send_str(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 27\r\nConnection: close\r\n\r\n"
				    "<html>bad gateway</html>\r\n\r\n");
		} else {
			send_str(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		}
		close(c);
	}
}

struct collected {
	int n;
	char lines[8][64];
};

/* api__get_chunks' receiver: concatenates the pieces; fail_rc != 0 is returned at once. */
struct chunks {
	int calls, fail_rc;
	size_t len;
	char data[256];
};

static int collect_chunk(void *ctx, const char *buf, size_t len)
{
	struct chunks *c = ctx;
	c->calls++;
	if (c->fail_rc)
		return c->fail_rc;
	assert_true(c->len + len < sizeof(c->data));
	memcpy(c->data + c->len, buf, len);
	c->len += len;
	c->data[c->len] = '\0';
	return 0;
}

static int collect_line(void *ctx, char *line, size_t len)
{
	struct collected *c = ctx;
	assert_int_equal(strlen(line), len);
	if (c->n < 8)
		snprintf(c->lines[c->n], sizeof(c->lines[0]), "%s", line);
	c->n++;
	return 0;
}

static void test_fake_peer(void **state)
{
	(void)state;
	struct fake f = {0};
	f.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(f.fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	assert_int_equal(bind(f.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(f.fd, 8), 0);
	assert_int_equal(getsockname(f.fd, (struct sockaddr *)&a, &al), 0);
	f.port = ntohs(a.sin_port);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, fake_run, &f), 0);

	struct api_config cfg = {0};
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", f.port);
	cfg.server = dup_str(url);
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	struct err e = {0};

	/* Lines cut anywhere by the transport come out whole; an empty line is a line; the
	 * unterminated tail is not delivered. */
	struct collected got = {0};
	atomic_bool stop = false;
	if (api_stream(conn, "/split", collect_line, &got, &stop, &e))
		fail_msg("split: %s", e.msg);
	assert_int_equal(got.n, 4);
	assert_string_equal(got.lines[0], "{\"a\":1}");
	assert_string_equal(got.lines[1], "{\"b\":2}");
	assert_string_equal(got.lines[2], "");
	assert_string_equal(got.lines[3], "{\"c\":3}");

	/* 429 + Retry-After: waited out and retried, the caller sees the 200. */
	struct api_response r = {0};
	int64_t t0 = api_now_ns();
	if (api_request(conn, "GET", "/retry", NULL, NULL, 0, &r, &e))
		fail_msg("retry: %s", e.msg);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{\"ok\":1}");
	assert_int_equal(f.retry_hits, 2);
	assert_true(api_now_ns() - t0 >= 900 * 1000000LL);
	api_response_release(&r);

	/* A body that is not a Status: its printable start is the message. */
	assert_int_equal(api_request(conn, "GET", "/html", NULL, NULL, 0, &r, &e), ERR_HTTP);
	assert_int_equal(e.http_status, 503);
	assert_non_null(strstr(e.msg, "<html>bad gateway</html>"));
	assert_int_equal(r.status, 503);
	api_response_release(&r);
	/* An empty 404. */
	assert_int_equal(api_request(conn, "GET", "/nothing", NULL, NULL, 0, &r, &e), ERR_NOT_FOUND);
	assert_non_null(strstr(e.msg, "HTTP status 404 with no message"));
	assert_string_equal(r.body, "");
	api_response_release(&r);

	/* api__get_chunks (LIST pages): the body as it arrives, in several pieces, byte for byte. */
	struct chunks ch = {0};
	if (api__get_chunks(conn, "/split", collect_chunk, &ch, &e))
		fail_msg("chunks: %s", e.msg);
	assert_string_equal(ch.data, "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\n{\"partial\"");
	assert_true(ch.calls >= 2);
	/* 429 + Retry-After is retried; only the 200's body reaches the receiver. */
	memset(&ch, 0, sizeof(ch));
	if (api__get_chunks(conn, "/retry", collect_chunk, &ch, &e))
		fail_msg("chunks retry: %s", e.msg);
	assert_string_equal(ch.data, "{\"ok\":1}");
	assert_int_equal(f.retry_hits, 4);
	/* An HTTP error is mapped as by api_request and never reaches the receiver. */
	memset(&ch, 0, sizeof(ch));
	assert_int_equal(api__get_chunks(conn, "/html", collect_chunk, &ch, &e), ERR_HTTP);
	assert_int_equal(e.http_status, 503);
	assert_non_null(strstr(e.msg, "<html>bad gateway</html>"));
	assert_int_equal(ch.calls, 0);
	/* The receiver's code stops the transfer and is returned. */
	memset(&ch, 0, sizeof(ch));
	ch.fail_rc = -42;
	assert_int_equal(api__get_chunks(conn, "/split", collect_chunk, &ch, &e), -42);
	assert_int_equal(ch.calls, 1);

	/* upstream util.PatchPodStatus retries (retry.DefaultBackoff, RetriableWithConflict): a
	 * conflict or a 500 up to 4 tries in all, nothing else. */
	static const char patch[] = "{\"status\":{\"nominatedNodeName\":null}}";
	assert_int_equal(api_patch_pod_status(conn, "ns", "conflict", patch, strlen(patch), &e), 0);
	assert_int_equal(f.patch_conflict_hits, 3);
	assert_int_equal(api_patch_pod_status(conn, "ns", "broken", patch, strlen(patch), &e), ERR_HTTP);
	assert_int_equal(f.patch_500_hits, 4);
	assert_int_equal(api_patch_pod_status(conn, "ns", "invalid", patch, strlen(patch), &e), ERR_HTTP);
	assert_int_equal(f.patch_400_hits, 1);

	api_request(conn, "GET", "/quit", NULL, NULL, 0, NULL, &e);
	pthread_join(th, NULL);
	close(f.fd);
	api_conn_free(conn);
	api_client_free(c);
}

/* ---------- rate limit and latency ---------- */

static void test_rate_limit_and_latency(void **state)
{
	(void)state;
	struct err e = {0};
	struct api_config cfg = load_cfg(NULL);
	cfg.qps = 20;
	cfg.burst = 5;
	struct api_client *c = client_from(&cfg);
	struct api_conn *conn = conn_of(c);
	int64_t t0 = api_now_ns();
	for (int i = 0; i < 25; i++)
		if (api_request(conn, "GET", "/api/v1/namespaces/default", NULL, NULL, 0, NULL, &e))
			fail_msg("GET: %s", e.msg);
	double s = (double)(api_now_ns() - t0) / 1e9;
	fprintf(stderr, "25 GETs at qps 20 burst 5: %.3f s (limit: >= 1.0 s)\n", s);
	assert_true(s >= 0.95); /* 20 requests beyond the burst at 20/s */
	assert_true(s < 5);
	api_conn_free(conn);
	api_client_free(c);

	/* Unlimited: sequential latency on one kept-alive connection. */
	cfg = load_cfg(NULL);
	c = client_from(&cfg);
	conn = conn_of(c);
	api_request(conn, "GET", "/api/v1/namespaces/default", NULL, NULL, 0, NULL, &e);
	t0 = api_now_ns();
	for (int i = 0; i < 200; i++)
		if (api_request(conn, "GET", "/api/v1/namespaces/default", NULL, NULL, 0, NULL, &e))
			fail_msg("GET: %s", e.msg);
	double per = (double)(api_now_ns() - t0) / 1e6 / 200;
	fprintf(stderr, "sequential GET on one connection: %.2f ms per request\n", per);
	assert_true(per < 50);
	api_conn_free(conn);
	api_client_free(c);
}

int main(void)
{
	/* CSCHED_TEST_FILTER: run only the tests whose names match (cmocka's pattern). */
	if (getenv("CSCHED_TEST_FILTER"))
		cmocka_set_test_filter(getenv("CSCHED_TEST_FILTER"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrong_ca),
		cmocka_unit_test(test_token_and_cert_auth),
		cmocka_unit_test(test_token_file_rotation),
		cmocka_unit_test(test_exec_plugin_auth),
		cmocka_unit_test(test_exec_plugin_auth_muxed),
		cmocka_unit_test(test_threads_shared_client),
		cmocka_unit_test(test_bind_pod),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_patch_pod_status),
		cmocka_unit_test(test_lease),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_fake_peer),
		cmocka_unit_test(test_rate_limit_and_latency),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
