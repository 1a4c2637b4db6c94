/* A no-op HTTP scheduler extender for benchmarks (issue 15): POST /filter keeps every node it is
 * given, POST /prioritize gives every node the same score. It speaks upstream's wire format
 * (k8s.io/kube-scheduler/extender/v1: ExtenderArgs in, ExtenderFilterResult / HostPriorityList
 * out) for a nodeCacheCapable extender (args carry NodeNames); with a full Nodes list instead it
 * answers the node names it found there (enough for a benchmark, whose extender is cache-capable).
 *
 * It is C (libmicrohttpd + yajl) so that a 5000-node request costs the extender well under a
 * millisecond; the python test extender (tests/extender) would be the bottleneck of both
 * schedulers and hide their difference.
 *
 * It counts the requests of each verb and the time it spends serving them, server side: from the
 * first callback of a request (its headers have arrived) to the response being queued, which
 * covers reading the body, parsing it, building and queueing the answer. GET /stats answers the
 * counters as JSON, {"filter": {"requests": N, "seconds": S, "bytes_in": B, "bytes_out": B},
 * "prioritize": {...}, "errors": N}; the same line is printed on stdout at exit (SIGTERM/SIGINT).
 *
 * Usage: bench_noop_extender [--port=0] [--port-file=FILE] [--score=0]
 *   --port       loopback port to listen on; 0 (default) lets the kernel pick a free one
 *   --port-file  write the port there (then the caller knows when the extender listens)
 *   --score      the score of every node in /prioritize answers (0..10, MaxExtenderPriority)
 *
 * DESIGN: MHD runs one thread per connection (each scheduler keeps one or a few keep-alive
 * connections, and both verbs of one pod can be in flight at once: upstream and csched run the
 * prioritize calls beside the in-tree scoring). A connection's request state (struct req) is
 * MHD's per-request pointer, touched only by that connection's thread. The counters are atomics
 * (nanoseconds and bytes as integers), read by GET /stats and at exit. The main thread waits for
 * a signal with sigwait, then stops the daemon. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

/* A request larger than this is refused (413): 5000 node names are about 100 KiB, a full
 * NodeList of 5000 nodes tens of MiB. */
#define MAX_BODY (256u << 20)

enum verb { V_FILTER, V_PRIORITIZE, V_COUNT };
static const char *const verb_names[V_COUNT] = { "filter", "prioritize" };

struct verb_stats {
	atomic_uint_fast64_t requests, ns, bytes_in, bytes_out;
};

static struct verb_stats stats[V_COUNT];
static atomic_uint_fast64_t n_errors; /* requests answered with 4xx/5xx */
static int score;

struct req {
	int verb; /* enum verb, or -1 for GET /stats and unknown paths */
	int64_t t0;
	char *body;
	size_t len, cap;
	bool too_big;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type, const void *body,
			       size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	if (status >= 400)
		atomic_fetch_add(&n_errors, 1);
	return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return respond(conn, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* The stats JSON (also printed at exit) into buf; returns its length. */
static size_t stats_json(char *buf, size_t cap)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, cap - n, "{");
	for (int v = 0; v < V_COUNT && n < cap; v++)
		n += (size_t)snprintf(buf + n, cap - n,
				      "\"%s\": {\"requests\": %" PRIuFAST64 ", \"seconds\": %.6f, \"bytes_in\": %" PRIuFAST64
				      ", \"bytes_out\": %" PRIuFAST64 "}, ",
				      verb_names[v], atomic_load(&stats[v].requests), (double)atomic_load(&stats[v].ns) / 1e9,
				      atomic_load(&stats[v].bytes_in), atomic_load(&stats[v].bytes_out));
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\"errors\": %" PRIuFAST64 "}", atomic_load(&n_errors));
	return n < cap ? n : cap - 1;
}

/* The candidate node names of ExtenderArgs: NodeNames, or else the metadata.name of each item of
 * Nodes. Returns the array node (its values are the names) or NULL with *why set. */
static yajl_val arg_nodes(yajl_val args, bool *from_list, const char **why)
{
	static const char *names_path[] = { "NodeNames", NULL };
	static const char *items_path[] = { "Nodes", "items", NULL };
	yajl_val v = yajl_tree_get(args, names_path, yajl_t_array);
	*from_list = false;
	if (v)
		return v;
	v = yajl_tree_get(args, items_path, yajl_t_array);
	if (v) {
		*from_list = true;
		return v;
	}
	*why = "ExtenderArgs has neither NodeNames nor Nodes.items";
	return NULL;
}

static const char *node_name(yajl_val item, bool from_list)
{
	static const char *name_path[] = { "metadata", "name", NULL };
	if (!from_list)
		return YAJL_IS_STRING(item) ? item->u.string : NULL;
	yajl_val n = yajl_tree_get(item, name_path, yajl_t_string);
	return n ? n->u.string : NULL;
}

#define G(call)                                                                                                      \
	do {                                                                                                         \
		if ((call) != yajl_gen_status_ok)                                                                    \
			goto out;                                                                                    \
	} while (0)
#define GSTR(g, s) G(yajl_gen_string((g), (const unsigned char *)(s), strlen(s)))

/* The answer of one verb into g; false when the args are malformed (*why says how). */
static bool build_answer(yajl_gen g, int verb, yajl_val args, const char **why)
{
	bool ok = false, from_list;
	yajl_val nodes = arg_nodes(args, &from_list, why);
	if (!nodes)
		return false;
	size_t n = nodes->u.array.len;
	if (verb == V_FILTER) {
		/* ExtenderFilterResult: NodeNames is the input, nothing failed. A Nodes-list request
		 * gets NodeNames back too, which upstream's client rejects for a non-cache-capable
		 * extender; benchmarks use nodeCacheCapable. */
		G(yajl_gen_map_open(g));
		GSTR(g, "NodeNames");
		G(yajl_gen_array_open(g));
		for (size_t i = 0; i < n; i++) {
			const char *name = node_name(nodes->u.array.values[i], from_list);
			if (!name) {
				*why = "a node without a name in ExtenderArgs";
				goto out;
			}
			GSTR(g, name);
		}
		G(yajl_gen_array_close(g));
		GSTR(g, "FailedNodes");
		G(yajl_gen_map_open(g));
		G(yajl_gen_map_close(g));
		GSTR(g, "FailedAndUnresolvableNodes");
		G(yajl_gen_map_open(g));
		G(yajl_gen_map_close(g));
		GSTR(g, "Error");
		GSTR(g, "");
		G(yajl_gen_map_close(g));
	} else {
		/* HostPriorityList: [{"Host": name, "Score": score}, ...] */
		G(yajl_gen_array_open(g));
		for (size_t i = 0; i < n; i++) {
			const char *name = node_name(nodes->u.array.values[i], from_list);
			if (!name) {
				*why = "a node without a name in ExtenderArgs";
				goto out;
			}
			G(yajl_gen_map_open(g));
			GSTR(g, "Host");
			GSTR(g, name);
			GSTR(g, "Score");
			G(yajl_gen_integer(g, score));
			G(yajl_gen_map_close(g));
		}
		G(yajl_gen_array_close(g));
	}
	ok = true;
out:
	if (!ok && !*why)
		*why = "could not build the JSON answer";
	return ok;
}

static enum MHD_Result serve_verb(struct MHD_Connection *conn, struct req *r)
{
	if (r->too_big)
		return respond_text(conn, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large\n");
	char err[256];
	yajl_val args = yajl_tree_parse(r->body ? r->body : "", err, sizeof(err));
	if (!args) {
		char msg[320];
		snprintf(msg, sizeof(msg), "malformed ExtenderArgs: %s\n", err);
		return respond_text(conn, MHD_HTTP_BAD_REQUEST, msg);
	}
	yajl_gen g = yajl_gen_alloc(NULL);
	const char *why = NULL;
	enum MHD_Result ret;
	if (!g) {
		ret = respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	} else if (!build_answer(g, r->verb, args, &why)) {
		char msg[320];
		snprintf(msg, sizeof(msg), "%s\n", why);
		ret = respond_text(conn, MHD_HTTP_BAD_REQUEST, msg);
	} else {
		const unsigned char *out;
		size_t len;
		yajl_gen_get_buf(g, &out, &len);
		ret = respond(conn, MHD_HTTP_OK, "application/json", out, len);
		atomic_fetch_add(&stats[r->verb].bytes_out, len);
	}
	if (g)
		yajl_gen_free(g);
	yajl_tree_free(args);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	struct req *r = *con_cls;
	if (!r) { /* first callback: headers only */
		r = calloc(1, sizeof(*r));
		if (!r)
			return MHD_NO;
		r->t0 = now_ns();
		r->verb = -1;
		if (strcmp(method, "POST") == 0) {
			for (int v = 0; v < V_COUNT; v++)
				if (url[0] == '/' && strcmp(url + 1, verb_names[v]) == 0)
					r->verb = v;
		}
		*con_cls = r;
		return MHD_YES;
	}
	if (*upload_size) { /* a piece of the body */
		size_t n = *upload_size;
		*upload_size = 0;
		if (r->too_big || r->len + n + 1 > MAX_BODY) {
			r->too_big = true;
			return MHD_YES;
		}
		if (r->len + n + 1 > r->cap) {
			size_t cap = r->cap ? r->cap : 65536;
			while (cap < r->len + n + 1)
				cap *= 2;
			char *b = realloc(r->body, cap);
			if (!b)
				return MHD_NO;
			r->body = b;
			r->cap = cap;
		}
		memcpy(r->body + r->len, upload, n);
		r->len += n;
		r->body[r->len] = 0;
		return MHD_YES;
	}
	/* the whole request has arrived */
	if (r->verb < 0) {
		if (strcmp(method, "GET") == 0 && strcmp(url, "/stats") == 0) {
			char buf[1024];
			size_t n = stats_json(buf, sizeof(buf));
			return respond(conn, MHD_HTTP_OK, "application/json", buf, n);
		}
		return respond_text(conn, MHD_HTTP_NOT_FOUND, "404 page not found: POST /filter, POST /prioritize, GET /stats\n");
	}
	enum MHD_Result ret = serve_verb(conn, r);
	struct verb_stats *s = &stats[r->verb];
	atomic_fetch_add(&s->requests, 1);
	atomic_fetch_add(&s->bytes_in, r->len);
	atomic_fetch_add(&s->ns, (uint_fast64_t)(now_ns() - r->t0));
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	struct req *r = *con_cls;
	if (r) {
		free(r->body);
		free(r);
		*con_cls = NULL;
	}
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	long port = 0, sc = 0;
	const char *port_file = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--port=", 7) == 0) {
			if (!parse_int(a + 7, 0, 65535, &port)) {
				fprintf(stderr, "bench_noop_extender: --port: '%s' is not a port (0..65535)\n", a + 7);
				return 2;
			}
		} else if (strncmp(a, "--port-file=", 12) == 0) {
			port_file = a + 12;
		} else if (strncmp(a, "--score=", 8) == 0) {
			if (!parse_int(a + 8, 0, 10, &sc)) {
				fprintf(stderr, "bench_noop_extender: --score: '%s' is not a score (0..10)\n", a + 8);
				return 2;
			}
		} else {
			fprintf(stderr, "bench_noop_extender: unknown argument '%s'\n"
					"usage: bench_noop_extender [--port=0] [--port-file=FILE] [--score=0]\n", a);
			return 2;
		}
	}
	score = (int)sc;

	/* SIGTERM/SIGINT are taken by sigwait below, in every thread (MHD's inherit the mask). */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
							MHD_USE_ERROR_LOG,
						0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &addr,
						MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
						MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "bench_noop_extender: cannot listen on 127.0.0.1:%ld\n", port);
		return 1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	unsigned bound = info ? info->port : 0;
	if (!bound) {
		fprintf(stderr, "bench_noop_extender: could not learn the listening port\n");
		MHD_stop_daemon(d);
		return 1;
	}
	printf("bench_noop_extender: listening on 127.0.0.1:%u\n", bound);
	fflush(stdout);
	if (port_file) {
		/* written to a temporary name and renamed, so a reader never sees a partial file */
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "%u\n", bound) < 0 || fclose(f) != 0 || rename(tmp, port_file) != 0) {
			fprintf(stderr, "bench_noop_extender: --port-file %s: %s\n", port_file, strerror(errno));
			MHD_stop_daemon(d);
			return 1;
		}
	}
	int sig;
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	char buf[1024];
	stats_json(buf, sizeof(buf));
	printf("%s\n", buf);
	return 0;
}
