/* HTTP extenders (scheduler/extender.c): the wire format against upstream's
 * k8s.io/kube-scheduler/extender/v1 types (Go field names, no JSON tags; encoding/json matches
 * keys case-insensitively), IsInterested (extender_test.go TestIsInterested), and the client
 * against an in-process HTTP server (libmicrohttpd): verbs, upstream's error text for a non-200
 * answer (extender.go send), the per-call timeout, malformed answers and connection reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "apiclient/api_client.h"
#include "cache/node_info.h"
#include "common/clock.h"
#include "common/intern.h"
#include "scheduler/extender_internal.h"
#include "scheduler/metrics.h"
#include "testobj.h"

static void *heap_alloc(void *ctx, size_t n)
{
	/* the test frees everything at once: a list of blocks */
	void ***list = ctx;
	void **b = calloc(1, sizeof(void *) + n);
	b[0] = *list;
	*list = (void **)b;
	return b + 1;
}

static void heap_free(void **list)
{
	while (list) {
		void **next = list[0];
		free(list);
		list = next;
	}
}

/* ---------- encoding ---------- */

#define POD_JSON "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"env\":[{\"name\":\"A\",\"value\":\"1\"}]}]}}"
/* as served: with managedFields, which upstream's informers drop (scheduler.go) */
#define POD_SERVED "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\",\"managedFields\":[{\"manager\":\"kubectl\"}]},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"env\":[{\"name\":\"A\",\"value\":\"1\"}]}]}}"

static void test_encode_args(void **state)
{
	(void)state;
	api_keep_json(true, true);
	struct api_pod *pod = tobj_pod_json("%s", POD_SERVED);
	struct api_node *na = tobj_node_json("{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"}},\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"}]}}");
	api_keep_json(false, false);
	struct api_node *nb = TOBJ_NODE(.name = "b");
	assert_non_null(pod->json);
	/* the pod goes whole, env included (a field csched's parser otherwise skips), without
	 * managedFields */
	assert_string_equal(pod->json, POD_JSON);
	struct node_info a, b;
	node_info_init(&a, na->meta.name);
	a.node = na;
	node_info_init(&b, nb->meta.name);
	b.node = nb;
	const struct node_info *nodes[] = { &a, &b };
	struct strbuf sb = STRBUF_INIT;
	/* nodeCacheCapable: NodeNames, Nodes null (ExtenderArgs *NodeList nil) */
	assert_true(sched_ext_encode_args(&sb, pod, nodes, 2, true));
	assert_string_equal(sb.data, "{\"Pod\":" POD_JSON ",\"Nodes\":null,\"NodeNames\":[\"a\",\"b\"]}");
	strbuf_release(&sb);
	/* not: a v1.NodeList of whole nodes (b was built without its JSON: its name only) */
	assert_true(sched_ext_encode_args(&sb, pod, nodes, 2, false));
	assert_string_equal(sb.data, "{\"Pod\":" POD_JSON ",\"Nodes\":{\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"a\","
				     "\"labels\":{\"x\":\"1\"}},\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":"
				     "\"10.0.0.1\"}]}},{\"metadata\":{\"name\":\"b\"}}]},\"NodeNames\":null}");
	strbuf_release(&sb);
	/* ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node} */
	assert_true(sched_ext_encode_binding(&sb, pod, "a"));
	assert_string_equal(sb.data, "{\"PodName\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\"u1\",\"Node\":\"a\"}");
	strbuf_release(&sb);
	a.node = b.node = NULL;
	node_info_release(&a);
	node_info_release(&b);
	api_node_unref(na);
	api_node_unref(nb);
	api_pod_unref(pod);
}

/* upstream ProcessPreemption sends an extender that is not nodeCacheCapable the victims (bound
 * pods) whole as the informer holds them: with a preempt extender of that kind, bound pods keep
 * their JSON too. */
static void test_keep_victim_json(void **state)
{
	(void)state;
#define BOUND_JSON "{\"metadata\":{\"name\":\"v\",\"namespace\":\"ns\",\"uid\":\"uv\"},\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"
	api_keep_json(true, false);
	struct api_pod *plain = tobj_pod_json("%s", BOUND_JSON);
	api_keep_assigned_pod_json(true);
	struct api_pod *kept = tobj_pod_json("%s", BOUND_JSON);
	api_keep_assigned_pod_json(false);
	api_keep_json(false, false);
	assert_null(plain->json);
	assert_non_null(kept->json);
	assert_string_equal(kept->json, BOUND_JSON);
	api_pod_unref(plain);
	api_pod_unref(kept);
#undef BOUND_JSON
	/* which configurations need it */
	static const struct {
		const char *preempt_verb;
		bool cache_capable, want;
	} cases[] = { { "", false, false }, { "preempt", true, false }, { "preempt", false, true } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct cfg_extender x = { .url_prefix = "http://127.0.0.1:1/", .filter_verb = "", .prioritize_verb = "",
					  .bind_verb = "", .preempt_verb = cases[i].preempt_verb,
					  .node_cache_capable = cases[i].cache_capable };
		x.tls = (struct cfg_extender_tls){ .server_name = "", .cert_file = "", .key_file = "", .ca_file = "" };
		struct config cfg = { .n_extenders = 1, .extenders = &x };
		struct err e = { 0 };
		struct sched_extenders *xs = sched_extenders_new(&cfg, NULL, &e);
		assert_non_null(xs);
		assert_int_equal(sched_extenders_need_victim_json(xs), cases[i].want);
		sched_extenders_free(xs);
	}
}

/* ExtenderPreemptionArgs: NodeNameToMetaVictims (MetaPod UIDs) when nodeCacheCapable (upstream
 * ProcessPreemption, convertToMetaVictims), else NodeNameToVictims with whole pods. */
static void test_encode_preemption(void **state)
{
	(void)state;
	struct api_pod *pod = TOBJ_POD(.name = "p", .uid = "u1");
	struct api_pod *v1 = TOBJ_POD(.name = "v1", .uid = "uv1");
	const struct api_pod *pods[] = { v1 };
	struct sched_ext_victims v = { .node = "a", .n_pods = 1, .pods = pods, .num_pdb_violations = 2 };
	struct strbuf sb = STRBUF_INIT;
	assert_true(sched_ext_encode_preemption(&sb, pod, &v, 1, true));
	assert_string_equal(sb.data, "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
				     "\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":\"uv1\"}],"
				     "\"NumPDBViolations\":2}}}");
	strbuf_release(&sb);
	assert_true(sched_ext_encode_preemption(&sb, pod, &v, 1, false));
	assert_string_equal(sb.data, "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
				     "\"NodeNameToVictims\":{\"a\":{\"Pods\":[{\"metadata\":{\"name\":\"v1\",\"namespace\":"
				     "\"default\",\"uid\":\"uv1\"}}],\"NumPDBViolations\":2}},\"NodeNameToMetaVictims\":null}");
	strbuf_release(&sb);
	/* the maps are Go maps: json.Marshal writes their keys sorted, a key once (its last value) */
	struct api_pod *v2 = TOBJ_POD(.name = "v2", .uid = "uv2");
	const struct api_pod *pods2[] = { v2 };
	struct sched_ext_victims vs[] = {
		{ .node = "b", .n_pods = 1, .pods = pods },
		{ .node = "a", .n_pods = 1, .pods = pods },
		{ .node = "b", .n_pods = 1, .pods = pods2, .num_pdb_violations = 1 },
	};
	assert_true(sched_ext_encode_preemption(&sb, pod, vs, 3, true));
	assert_string_equal(sb.data, "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
				     "\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":\"uv1\"}],"
				     "\"NumPDBViolations\":0},\"b\":{\"Pods\":[{\"UID\":\"uv2\"}],\"NumPDBViolations\":1}}}");
	strbuf_release(&sb);
	api_pod_unref(v2);
	api_pod_unref(v1);
	api_pod_unref(pod);
}

/* ---------- decoding ---------- */

static void test_decode_filter(void **state)
{
	(void)state;
	void **heap = NULL;
	struct fw_ext_filter_result r;
	struct err e = { 0 };
	/* keys in any case, as encoding/json; FailedAndUnresolvableNodes wins for a node in both maps is
	 * the cycle's business: both are returned */
	const char *j = "{\"nodenames\":[\"a\"],\"FailedNodes\":{\"b\":\"no label\"},\"failedAndUnresolvableNodes\":"
			"{\"c\":\"gone\"},\"Error\":\"\"}";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), 0);
	assert_true(r.has_kept);
	assert_int_equal(r.n_kept, 1);
	assert_string_equal(r.kept[0], "a");
	assert_int_equal(r.n_failed, 2);
	assert_string_equal(r.failed[0].node, "c");
	assert_true(r.failed[0].unresolvable);
	assert_string_equal(r.failed[0].reason, "gone");
	assert_string_equal(r.failed[1].node, "b");
	assert_false(r.failed[1].unresolvable);
	assert_string_equal(r.failed[1].reason, "no label");
	/* upstream Filter: NodeNames only when nodeCacheCapable; otherwise Nodes, else no node */
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), false, heap_alloc, &heap, &r, &e), 0);
	assert_false(r.has_kept);
	j = "{\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"x\"}},{\"metadata\":{\"name\":\"y\"}}]},\"NodeNames\":null}";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), 0);
	assert_true(r.has_kept);
	assert_int_equal(r.n_kept, 2);
	assert_string_equal(r.kept[1], "y");
	/* result.Error is the call's error (upstream: errors.New(result.Error)) */
	j = "{\"Error\":\"extender is sad\"}";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), ERR_INVALID);
	assert_string_equal(e.msg, "extender is sad");
	/* malformed, wrong types, too deep */
	j = "{\"NodeNames\":";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), ERR_INVALID);
	j = "{\"NodeNames\":\"a\"}";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), ERR_INVALID);
	j = "{\"FailedNodes\":{\"a\":1}}";
	assert_int_equal(sched_ext_decode_filter(j, strlen(j), true, heap_alloc, &heap, &r, &e), ERR_INVALID);
	char deep[2 * SCHED_EXT_MAX_DEPTH + 8];
	memset(deep, '[', SCHED_EXT_MAX_DEPTH + 1);
	memset(deep + SCHED_EXT_MAX_DEPTH + 1, ']', SCHED_EXT_MAX_DEPTH + 1);
	deep[2 * SCHED_EXT_MAX_DEPTH + 2] = '\0';
	assert_int_equal(sched_ext_decode_filter(deep, strlen(deep), true, heap_alloc, &heap, &r, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "exceeded max depth"));
	heap_free(heap);
}

static void test_decode_prioritize_bind_preempt(void **state)
{
	(void)state;
	void **heap = NULL;
	struct fw_ext_prio_result r;
	struct err e = { 0 };
	const char *j = "[{\"Host\":\"a\",\"Score\":3},{\"host\":\"b\",\"score\":10}]";
	assert_int_equal(sched_ext_decode_prioritize(j, strlen(j), heap_alloc, &heap, &r, &e), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.scores[0].host, "a");
	assert_int_equal(r.scores[0].score, 3);
	assert_string_equal(r.scores[1].host, "b");
	assert_int_equal(r.scores[1].score, 10);
	/* Score is an int64: 1.5 does not decode (json: cannot unmarshal number 1.5 into ... int64) */
	j = "[{\"Host\":\"a\",\"Score\":1.5}]";
	assert_int_equal(sched_ext_decode_prioritize(j, strlen(j), heap_alloc, &heap, &r, &e), ERR_INVALID);
	j = "null";
	assert_int_equal(sched_ext_decode_prioritize(j, strlen(j), heap_alloc, &heap, &r, &e), 0);
	assert_int_equal(r.n, 0);
	/* ExtenderBindingResult */
	j = "{\"Error\":\"\"}";
	assert_int_equal(sched_ext_decode_binding(j, strlen(j), &e), 0);
	j = "{\"Error\":\"no such node\"}";
	assert_int_equal(sched_ext_decode_binding(j, strlen(j), &e), ERR_INVALID);
	assert_string_equal(e.msg, "no such node");
	/* ExtenderPreemptionResult: NodeNameToMetaVictims */
	struct sched_ext_victims *v;
	uint32_t n;
	j = "{\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":\"u1\"},{\"UID\":\"u2\"}],\"NumPDBViolations\":1}}}";
	assert_int_equal(sched_ext_decode_preemption(j, strlen(j), heap_alloc, &heap, &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].node, "a");
	assert_int_equal(v[0].n_pods, 2);
	assert_string_equal(v[0].uids[1], "u2");
	assert_int_equal(v[0].num_pdb_violations, 1);
	/* encoding/json: null leaves the result empty; a null *MetaVictims or Pods is no victims */
	j = "null";
	assert_int_equal(sched_ext_decode_preemption(j, strlen(j), heap_alloc, &heap, &v, &n, &e), 0);
	assert_int_equal(n, 0);
	j = "{\"NodeNameToMetaVictims\":{\"a\":null,\"b\":{\"Pods\":null}}}";
	assert_int_equal(sched_ext_decode_preemption(j, strlen(j), heap_alloc, &heap, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].n_pods, 0);
	assert_int_equal(v[1].n_pods, 0);
	/* type mismatches are decoding errors (json: cannot unmarshal ...) */
	const char *bad_results[] = {
		"[]",
		"{\"NodeNameToMetaVictims\":[]}",
		"{\"NodeNameToMetaVictims\":{\"a\":5}}",
		"{\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[\"u1\"]}}}",
		"{\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":1}]}}}",
		"{\"NodeNameToMetaVictims\":{\"a\":{\"NumPDBViolations\":1.5}}}",
	};
	for (size_t i = 0; i < sizeof(bad_results) / sizeof(*bad_results); i++) {
		j = bad_results[i];
		assert_int_equal(sched_ext_decode_preemption(j, strlen(j), heap_alloc, &heap, &v, &n, &e), ERR_INVALID);
		assert_non_null(strstr(e.msg, "decoding preemption result: json: cannot unmarshal"));
	}
	heap_free(heap);
}

static const struct node_info *list_get(const void *ctx, const char *interned_name)
{
	const struct fw_node_list *l = ctx;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->nodes[i]->name == interned_name)
			return l->nodes[i];
	return NULL;
}

/* upstream extender.go convertToVictims / convertPodUIDToPod: meta victims become the node's pods
 * (in the extender's order, with its NumPDBViolations); an unknown node fails as Snapshot.Get
 * ("nodeinfo not found for node name %q", also for a node_info without its node), a UID not on
 * that node as convertPodUIDToPod ("extender: %v claims to preempt pod (UID: %v) on node: %v, but
 * the pod is not found on that node", %v of a *MetaPod being &{UID}). */
static void test_convert_victims(void **state)
{
	(void)state;
	void **heap = NULL;
	struct err e = { 0 };
	struct api_node *na = TOBJ_NODE(.name = "a"), *nb = TOBJ_NODE(.name = "b");
	struct api_pod *pa1 = TOBJ_POD(.name = "pa1", .uid = "ua1"), *pa2 = TOBJ_POD(.name = "pa2", .uid = "ua2");
	struct api_pod *pb1 = TOBJ_POD(.name = "pb1", .uid = "ub1");
	struct node_info a, b, g;
	node_info_init(&a, na->meta.name);
	a.node = na;
	node_info_init(&b, nb->meta.name);
	b.node = nb;
	node_info_init(&g, intern_str("ghost")); /* pods assumed onto a node the cache lacks */
	assert_int_equal(node_info_add_pod(&a, pa1, &e), 0);
	assert_int_equal(node_info_add_pod(&a, pa2, &e), 0);
	assert_int_equal(node_info_add_pod(&b, pb1, &e), 0);
	assert_int_equal(node_info_add_pod(&g, pb1, &e), 0);
	const struct node_info *all[] = { &a, &b, &g };
	struct fw_node_list searched = { .n = 3, .nodes = all }, indexed = searched;
	indexed.get = list_get;
	indexed.get_ctx = &searched;
	const struct fw_node_list *lists[] = { &searched, &indexed };
	const char *ua[] = { "ua2", "ua1" }, *ub[] = { "ub1" }, *ua1[] = { "ua1" }, *ua2[] = { "ua2" };
	for (int li = 0; li < 2; li++) {
		const struct fw_node_list *l = lists[li];
		struct fw_preemption *out;
		uint32_t n;
		struct sched_ext_victims ok[] = {
			{ .node = "b", .n_pods = 1, .uids = ub, .num_pdb_violations = 1 },
			{ .node = "a", .n_pods = 2, .uids = ua },
		};
		assert_int_equal(sched_ext_convert_victims("http://ext", ok, 2, l, heap_alloc, &heap, &out, &n, &e), 0);
		assert_int_equal(n, 2);
		assert_ptr_equal(out[0].node_name, a.name);
		assert_int_equal(out[0].n_victims, 2);
		assert_ptr_equal(out[0].victims[0], pa2);
		assert_ptr_equal(out[0].victims[1], pa1);
		assert_int_equal(out[0].num_pdb_violations, 0);
		assert_ptr_equal(out[1].node_name, b.name);
		assert_int_equal(out[1].n_victims, 1);
		assert_ptr_equal(out[1].victims[0], pb1);
		assert_int_equal(out[1].num_pdb_violations, 1);
		/* a node answered twice: its last answer, as decoding into a Go map */
		struct sched_ext_victims twice[] = {
			{ .node = "a", .n_pods = 1, .uids = ua1 },
			{ .node = "a", .n_pods = 1, .uids = ua2 },
		};
		assert_int_equal(sched_ext_convert_victims("http://ext", twice, 2, l, heap_alloc, &heap, &out, &n, &e), 0);
		assert_int_equal(n, 1);
		assert_ptr_equal(out[0].victims[0], pa2);
		/* no victims on a node is the caller's business (callExtenders) */
		struct sched_ext_victims none[] = { { .node = "a" } };
		assert_int_equal(sched_ext_convert_victims("http://ext", none, 1, l, heap_alloc, &heap, &out, &n, &e), 0);
		assert_int_equal(n, 1);
		assert_int_equal(out[0].n_victims, 0);
		static const struct {
			const char *node, *uid, *want;
		} errs[] = {
			{ "zz", "ua1", "nodeinfo not found for node name \"zz\"" },
			{ "z\"\n", "ua1", "nodeinfo not found for node name \"z\\\"\\n\"" },
			{ "ghost", "ub1", "nodeinfo not found for node name \"ghost\"" },
			{ "a", "nope", "extender: http://ext claims to preempt pod (UID: &{nope}) on node: a, but the pod is not "
				       "found on that node" },
			{ "a", "ub1", "extender: http://ext claims to preempt pod (UID: &{ub1}) on node: a, but the pod is not "
				      "found on that node" },
		};
		for (size_t i = 0; i < sizeof(errs) / sizeof(*errs); i++) {
			const char *uids[] = { "ua1", errs[i].uid };
			struct sched_ext_victims v[] = { { .node = errs[i].node, .n_pods = 2, .uids = uids } };
			e = (struct err){ 0 };
			assert_true(sched_ext_convert_victims("http://ext", v, 1, l, heap_alloc, &heap, &out, &n, &e) < 0);
			assert_string_equal(e.msg, errs[i].want);
			assert_null(out);
			assert_int_equal(n, 0);
		}
	}
	a.node = b.node = NULL;
	node_info_release(&a);
	node_info_release(&b);
	node_info_release(&g);
	api_node_unref(na);
	api_node_unref(nb);
	api_pod_unref(pa1);
	api_pod_unref(pa2);
	api_pod_unref(pb1);
	heap_free(heap);
}

/* upstream extender_test.go TestIsInterested: no managed resources -> interested; a managed
 * resource in a container's requests, limits, or an init container's -> interested; otherwise
 * not. */
static void test_is_interested(void **state)
{
	(void)state;
	const char *managed[] = { intern_str("example.com/foo") };
	struct api_pod *none = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	struct api_pod *req = TOBJ_POD(.containers = { { .req = "example.com/foo=1" } });
	struct api_pod *lim = TOBJ_POD(.containers = { { .lim = "example.com/foo=1" } });
	struct api_pod *init = TOBJ_POD(.inits = { { .req = "example.com/foo=1" } });
	struct api_pod *other = TOBJ_POD(.containers = { { .req = "example.com/bar=1" } });
	assert_true(sched_ext_interested(managed, 0, none));
	assert_false(sched_ext_interested(managed, 1, none));
	assert_true(sched_ext_interested(managed, 1, req));
	assert_true(sched_ext_interested(managed, 1, lim));
	assert_true(sched_ext_interested(managed, 1, init));
	assert_false(sched_ext_interested(managed, 1, other));
	api_pod_unref(none);
	api_pod_unref(req);
	api_pod_unref(lim);
	api_pod_unref(init);
	api_pod_unref(other);
}

/* ---------- the client against a server ---------- */

struct server {
	struct MHD_Daemon *d;
	int port;
	pthread_mutex_t lock;
	int connections;
	char last_url[256];
	char last_body[4096];
};
static struct server srv;

struct req {
	char body[4096];
	size_t len;
};

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
	(void)cls;
	(void)c;
	(void)socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		pthread_mutex_lock(&srv.lock);
		srv.connections++;
		pthread_mutex_unlock(&srv.lock);
	}
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, "Content-Type", "application/json");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* /<mode>/<verb>: ok answers each verb, fail 500, slow sleeps 1 s, bad sends malformed JSON,
 * err answers with an Error, gone names a victim no node has. */
static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)method;
	(void)version;
	struct req *rq = *con_cls;
	if (!rq) {
		*con_cls = calloc(1, sizeof(*rq));
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		if (rq->len + n < sizeof(rq->body) - 1) {
			memcpy(rq->body + rq->len, upload, n);
			rq->len += n;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&srv.lock);
	snprintf(srv.last_url, sizeof(srv.last_url), "%s", url);
	snprintf(srv.last_body, sizeof(srv.last_body), "%s", rq->body);
	pthread_mutex_unlock(&srv.lock);
	enum MHD_Result ret;
	if (strncmp(url, "/fail/", 6) == 0) {
		ret = reply(c, 500, "boom");
	} else if (strncmp(url, "/slowp/", 7) == 0) {
		usleep(400 * 1000);
		ret = reply(c, 200, "[{\"Host\":\"a\",\"Score\":4}]");
	} else if (strncmp(url, "/slow/", 6) == 0) {
		usleep(1000 * 1000);
		ret = reply(c, 200, "{}");
	} else if (strncmp(url, "/bad/", 5) == 0) {
		ret = reply(c, 200, "{\"NodeNames\":[");
	} else if (strncmp(url, "/err/", 5) == 0) {
		ret = reply(c, 200, "{\"Error\":\"bind refused\"}");
	} else if (strncmp(url, "/gone/", 6) == 0) {
		ret = reply(c, 200, "{\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":\"uid-gone\"}]}}}");
	} else if (strstr(url, "/preempt")) {
		ret = reply(c, 200, "{\"NodeNameToMetaVictims\":{\"b\":{\"Pods\":[{\"UID\":\"uv\"}],\"NumPDBViolations\":1}}}");
	} else if (strstr(url, "/filter")) {
		ret = reply(c, 200, "{\"NodeNames\":[\"a\"],\"FailedNodes\":{\"b\":\"node(s) didn't have label x\"},\"Error\":\"\"}");
	} else if (strstr(url, "/prioritize")) {
		ret = reply(c, 200, "[{\"Host\":\"a\",\"Score\":2},{\"Host\":\"b\",\"Score\":9}]");
	} else {
		ret = reply(c, 200, "{\"Error\":\"\"}");
	}
	return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

static int server_up(void **state)
{
	(void)state;
	struct err e = { 0 };
	assert_int_equal(api_global_init(&e), 0);
	pthread_mutex_init(&srv.lock, NULL);
	srv.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, handler,
				 NULL, MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_NOTIFY_COMPLETED,
				 on_done, NULL, MHD_OPTION_END);
	assert_non_null(srv.d);
	srv.port = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT)->port;
	return 0;
}

static int server_down(void **state)
{
	(void)state;
	MHD_stop_daemon(srv.d);
	pthread_mutex_destroy(&srv.lock);
	return 0;
}

struct client {
	char url[128];
	struct cfg_extender x;
	struct config cfg;
	struct sched_extenders *xs;
	struct sched_metrics *metrics;
	const struct fw_extender *fw;
	struct fw_profile *p;
	struct fw_cycle *c;
	struct api_node *nodes[2];
	struct node_info nis[2];
	const struct node_info *ptrs[2];
	struct api_pod *pod;
};

static void client_init(struct client *k, const char *mode, bool cache_capable, int64_t timeout_ms, bool ignorable)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->url, sizeof(k->url), "http://127.0.0.1:%d/%s/", srv.port, mode); /* trailing '/' trimmed */
	k->x = (struct cfg_extender){ .url_prefix = k->url, .filter_verb = "filter", .prioritize_verb = "prioritize",
				      .bind_verb = "bind", .preempt_verb = "preempt", .weight = 1,
				      .http_timeout_ns = timeout_ms * 1000000, .node_cache_capable = cache_capable,
				      .ignorable = ignorable };
	k->x.tls = (struct cfg_extender_tls){ .server_name = "", .cert_file = "", .key_file = "", .ca_file = "" };
	k->cfg.n_extenders = 1;
	k->cfg.extenders = &k->x;
	struct err e = { 0 };
	k->metrics = sched_metrics_new();
	k->xs = sched_extenders_new(&k->cfg, k->metrics, &e);
	if (!k->xs)
		fail_msg("sched_extenders_new: %s", e.msg);
	uint32_t n;
	k->fw = sched_extenders_fw(k->xs, &n);
	assert_int_equal(n, 1);
	struct fw_profile_config pc;
	fw_default_profile_config("test", &pc);
	k->p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(k->p);
	k->c = fw_cycle_new(k->p);
	const char *names[] = { "a", "b" };
	for (int i = 0; i < 2; i++) {
		k->nodes[i] = TOBJ_NODE(.name = names[i]);
		node_info_init(&k->nis[i], k->nodes[i]->meta.name);
		k->nis[i].node = k->nodes[i];
		k->ptrs[i] = &k->nis[i];
	}
	k->pod = TOBJ_POD(.name = "p", .uid = "u1");
}

static void client_release(struct client *k)
{
	for (int i = 0; i < 2; i++) {
		k->nis[i].node = NULL;
		node_info_release(&k->nis[i]);
		api_node_unref(k->nodes[i]);
	}
	api_pod_unref(k->pod);
	fw_cycle_free(k->c);
	fw_profile_free(k->p);
	sched_extenders_free(k->xs);
	sched_metrics_free(k->metrics);
}

static void test_client_verbs(void **state)
{
	(void)state;
	struct client k;
	client_init(&k, "ok", true, 5000, false);
	pthread_mutex_lock(&srv.lock);
	int conns0 = srv.connections;
	pthread_mutex_unlock(&srv.lock);
	struct err e = { 0 };
	struct fw_ext_filter_result fr;
	assert_int_equal(k.fw->filter(k.fw->ctx, k.c, k.pod, k.ptrs, 2, &fr, &e), 0);
	assert_string_equal(srv.last_url, "/ok/filter");
	assert_string_equal(srv.last_body, "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
					   "\"Nodes\":null,\"NodeNames\":[\"a\",\"b\"]}");
	assert_int_equal(fr.n_kept, 1);
	assert_string_equal(fr.kept[0], "a");
	assert_int_equal(fr.n_failed, 1);
	assert_string_equal(fr.failed[0].reason, "node(s) didn't have label x");
	struct fw_ext_prio_result pr;
	assert_int_equal(k.fw->prioritize(k.fw->ctx, k.c, k.pod, k.ptrs, 2, &pr, &e), 0);
	assert_string_equal(srv.last_url, "/ok/prioritize");
	assert_int_equal(pr.n, 2);
	assert_int_equal(pr.scores[1].score, 9);
	bool bound = false;
	assert_int_equal(sched_extenders_bind(k.xs, k.pod, "a", &bound, &e), 0);
	assert_true(bound);
	assert_string_equal(srv.last_url, "/ok/bind");
	assert_string_equal(srv.last_body, "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"u1\",\"Node\":\"a\"}");
	/* csched_extender_duration_seconds{extender,verb,result}: one observation per call */
	double v = 0;
	const char *l_filter[] = { k.url, "filter", "success" }, *l_bind[] = { k.url, "bind", "success" };
	assert_true(sched_metrics_read(k.metrics, "csched_extender_duration_seconds", l_filter, 3, &v));
	assert_true(v == 1);
	assert_true(sched_metrics_read(k.metrics, "csched_extender_duration_seconds", l_bind, 3, &v));
	assert_true(v == 1);
	/* three calls, one connection: the handle and its connection are reused */
	pthread_mutex_lock(&srv.lock);
	assert_int_equal(srv.connections - conns0, 1);
	pthread_mutex_unlock(&srv.lock);
	client_release(&k);
}

static void test_client_errors(void **state)
{
	(void)state;
	struct client k;
	struct err e = { 0 };
	struct fw_ext_filter_result fr;
	/* upstream send: "failed %v with extender at URL %v, code %v" */
	client_init(&k, "fail", true, 5000, false);
	assert_true(k.fw->filter(k.fw->ctx, k.c, k.pod, k.ptrs, 2, &fr, &e) < 0);
	char want[256];
	snprintf(want, sizeof(want), "failed filter with extender at URL http://127.0.0.1:%d/fail/filter, code 500", srv.port);
	assert_string_equal(e.msg, want);
	double v = 0;
	const char *l_err[] = { k.url, "filter", "error" };
	assert_true(sched_metrics_read(k.metrics, "csched_extender_duration_seconds", l_err, 3, &v));
	assert_true(v == 1);
	client_release(&k);
	/* malformed JSON */
	client_init(&k, "bad", true, 5000, false);
	assert_int_equal(k.fw->filter(k.fw->ctx, k.c, k.pod, k.ptrs, 2, &fr, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "invalid JSON"));
	client_release(&k);
	/* httpTimeout is enforced per call: a 1 s answer with a 200 ms timeout fails in ~200 ms */
	client_init(&k, "slow", true, 200, false);
	int64_t t0 = mono_ns();
	assert_int_equal(k.fw->filter(k.fw->ctx, k.c, k.pod, k.ptrs, 2, &fr, &e), ERR_TIMEOUT);
	int64_t took = mono_ns() - t0;
	assert_true(took < 900 * 1000000LL);
	assert_non_null(strstr(e.msg, "Post \"http://127.0.0.1:"));
	client_release(&k);
	/* bind: the result's Error fails the binding; an ignorable binder's failure passes it on */
	client_init(&k, "err", true, 5000, false);
	bool bound = false;
	assert_int_equal(sched_extenders_bind(k.xs, k.pod, "a", &bound, &e), ERR_INVALID);
	assert_true(bound);
	assert_string_equal(e.msg, "bind refused");
	client_release(&k);
	client_init(&k, "err", true, 5000, true);
	assert_int_equal(sched_extenders_bind(k.xs, k.pod, "a", &bound, &e), 0);
	assert_false(bound);
	client_release(&k);
	usleep(1100 * 1000); /* the slow handler's thread finishes before the server stops */
}

/* upstream ProcessPreemption against a server: the candidates go as NodeNameToMetaVictims to a
 * nodeCacheCapable extender (convertToMetaVictims), else as NodeNameToVictims with whole pods; the
 * answer's UIDs become the node's pods (convertToVictims); send's errors; no preemptVerb, no call
 * (SupportsPreemption false). */
static void test_client_preempt(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct fw_preemption *out;
	uint32_t n;
	for (int cache_capable = 1; cache_capable >= 0; cache_capable--) {
		struct client k;
		client_init(&k, "ok", cache_capable, 5000, false);
		struct api_pod *va = TOBJ_POD(.name = "va", .uid = "ua"), *vb = TOBJ_POD(.name = "vb", .uid = "uv");
		assert_int_equal(node_info_add_pod(&k.nis[0], va, &e), 0);
		assert_int_equal(node_info_add_pod(&k.nis[1], vb, &e), 0);
		struct api_pod *const ca[] = { va }, *const cb[] = { vb };
		struct fw_preemption in[] = {
			{ .node_name = k.nis[1].name, .n_victims = 1, .victims = cb, .num_pdb_violations = 1 },
			{ .node_name = k.nis[0].name, .n_victims = 1, .victims = ca },
		};
		struct fw_node_list nodes = { .n = 2, .nodes = k.ptrs };
		assert_non_null(k.fw->preempt);
		assert_int_equal(k.fw->preempt(k.fw->ctx, k.c, k.pod, in, 2, &nodes, &out, &n, &e), 0);
		assert_string_equal(srv.last_url, "/ok/preempt");
		if (cache_capable)
			assert_string_equal(srv.last_body,
					    "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
					    "\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{\"a\":{\"Pods\":[{\"UID\":\"ua\"}],"
					    "\"NumPDBViolations\":0},\"b\":{\"Pods\":[{\"UID\":\"uv\"}],\"NumPDBViolations\":1}}}");
		else
			assert_string_equal(srv.last_body,
					    "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\"}},"
					    "\"NodeNameToVictims\":{\"a\":{\"Pods\":[{\"metadata\":{\"name\":\"va\",\"namespace\":"
					    "\"default\",\"uid\":\"ua\"}}],\"NumPDBViolations\":0},\"b\":{\"Pods\":[{\"metadata\":"
					    "{\"name\":\"vb\",\"namespace\":\"default\",\"uid\":\"uv\"}}],\"NumPDBViolations\":1}},"
					    "\"NodeNameToMetaVictims\":null}");
		/* the answer: b only, its pod uv */
		assert_int_equal(n, 1);
		assert_ptr_equal(out[0].node_name, k.nis[1].name);
		assert_int_equal(out[0].n_victims, 1);
		assert_ptr_equal(out[0].victims[0], vb);
		assert_int_equal(out[0].num_pdb_violations, 1);
		double v = 0;
		const char *l_pre[] = { k.url, "preempt", "success" };
		assert_true(sched_metrics_read(k.metrics, "csched_extender_duration_seconds", l_pre, 3, &v));
		assert_true(v == 1);
		api_pod_unref(va);
		api_pod_unref(vb);
		client_release(&k);
	}
	struct client k;
	struct fw_node_list nodes;
	/* a UID the node lacks */
	client_init(&k, "gone", true, 5000, false);
	nodes = (struct fw_node_list){ .n = 2, .nodes = k.ptrs };
	assert_true(k.fw->preempt(k.fw->ctx, k.c, k.pod, NULL, 0, &nodes, &out, &n, &e) < 0);
	char want[256];
	snprintf(want, sizeof(want),
		 "extender: %s claims to preempt pod (UID: &{uid-gone}) on node: a, but the pod is not found on that node",
		 k.url);
	assert_string_equal(e.msg, want);
	assert_string_equal(srv.last_body, "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":"
					   "\"u1\"}},\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{}}");
	client_release(&k);
	/* upstream send: "failed %v with extender at URL %v, code %v"; malformed JSON */
	client_init(&k, "fail", false, 5000, false);
	nodes = (struct fw_node_list){ .n = 2, .nodes = k.ptrs };
	assert_true(k.fw->preempt(k.fw->ctx, k.c, k.pod, NULL, 0, &nodes, &out, &n, &e) < 0);
	snprintf(want, sizeof(want), "failed preempt with extender at URL http://127.0.0.1:%d/fail/preempt, code 500",
		 srv.port);
	assert_string_equal(e.msg, want);
	client_release(&k);
	client_init(&k, "bad", false, 5000, false);
	nodes = (struct fw_node_list){ .n = 2, .nodes = k.ptrs };
	assert_int_equal(k.fw->preempt(k.fw->ctx, k.c, k.pod, NULL, 0, &nodes, &out, &n, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "invalid JSON"));
	client_release(&k);
	/* no preemptVerb: SupportsPreemption false */
	client_init(&k, "ok", true, 5000, false);
	k.x.preempt_verb = "";
	struct sched_extenders *xs = sched_extenders_new(&k.cfg, NULL, &e);
	assert_non_null(xs);
	assert_null(sched_extenders_fw(xs, &n)[0].preempt);
	sched_extenders_free(xs);
	client_release(&k);
}

/* upstream prioritizeNodes calls the interested prioritizers in goroutines: two extenders that
 * each answer in 400 ms take ~400 ms together, not 800; answers and failures stay per extender. */
static void test_prioritize_all_concurrent(void **state)
{
	(void)state;
	struct client k;
	client_init(&k, "slowp", false, 5000, false);
	struct cfg_extender xs2[3] = { k.x, k.x, k.x };
	char url_fail[128];
	snprintf(url_fail, sizeof(url_fail), "http://127.0.0.1:%d/fail/", srv.port);
	xs2[1].node_cache_capable = true;
	xs2[2].url_prefix = url_fail;
	struct config cfg = { .n_extenders = 3, .extenders = xs2 };
	struct err e = { 0 };
	struct sched_extenders *xs = sched_extenders_new(&cfg, NULL, &e);
	assert_non_null(xs);
	uint32_t n;
	const struct fw_extender *fw = sched_extenders_fw(xs, &n);
	const struct fw_extender *which[] = { &fw[0], &fw[1], &fw[2] };
	struct fw_ext_prio_result out[3] = { { 0 } };
	int rcs[3] = { 1, 1, 1 };
	struct err errs[3] = { { 0 } };
	int64_t t0 = mono_ns();
	sched_extenders_prioritize_all(NULL, k.c, k.pod, k.ptrs, 2, which, 3, out, rcs, errs);
	int64_t took = mono_ns() - t0;
	assert_true(took < 750 * 1000000LL);
	assert_int_equal(rcs[0], 0);
	assert_int_equal(rcs[1], 0);
	assert_int_equal(out[0].n, 1);
	assert_string_equal(out[1].scores[0].host, "a");
	assert_int_equal(out[1].scores[0].score, 4);
	assert_true(rcs[2] < 0);
	assert_non_null(strstr(errs[2].msg, "failed prioritize with extender at URL"));
	sched_extenders_free(xs);
	client_release(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_args),
		cmocka_unit_test(test_encode_preemption),
		cmocka_unit_test(test_keep_victim_json),
		cmocka_unit_test(test_decode_filter),
		cmocka_unit_test(test_decode_prioritize_bind_preempt),
		cmocka_unit_test(test_convert_victims),
		cmocka_unit_test(test_is_interested),
		cmocka_unit_test(test_client_verbs),
		cmocka_unit_test(test_client_errors),
		cmocka_unit_test(test_client_preempt),
		cmocka_unit_test(test_prioritize_all_concurrent),
	};
	return cmocka_run_group_tests(tests, server_up, server_down);
}
