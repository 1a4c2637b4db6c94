/* The protobuf wire format (apiclient/protobuf.c) against JSON: the same objects, captured from a
 * real kube-apiserver v1.37.2 in both formats from one server state
 * (tests/fixtures/api/protobuf/capture.sh), give the same trees (up to the zero values Go's
 * protobuf encoder writes and JSON's omitempty leaves out) and decode to the same api_pod /
 * api_node (a canonical dump of every decoded field compared). Lists (items, resourceVersion,
 * continue), a streaming list's watch frames (ADDED events and the initial-events-end bookmark),
 * a Status. Malformed input (truncated at every byte, bad magic, bad lengths, wrong wire types)
 * is an error with a message, never a crash (valgrind runs this program too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"
#include "apiclient/pb_internal.h"
#include "testutil.h"

#define FIX "tests/fixtures/api/protobuf/"

/* ---------- trees, up to zero values ---------- */

/* What Go's protobuf encoder writes for a non-pointer field that JSON's omitempty omits. */
static bool is_zero(yajl_val v)
{
	if (!v || YAJL_IS_NULL(v) || YAJL_IS_FALSE(v))
		return true;
	if (YAJL_IS_STRING(v))
		return !v->u.string[0];
	if (YAJL_IS_NUMBER(v))
		return !strcmp(v->u.number.r, "0");
	if (YAJL_IS_ARRAY(v))
		return v->u.array.len == 0;
	if (YAJL_IS_OBJECT(v)) {
		for (size_t i = 0; i < v->u.object.len; i++)
			if (!is_zero(v->u.object.values[i]))
				return false;
		return true;
	}
	return false;
}

static yajl_val member(yajl_val o, const char *k)
{
	for (size_t i = 0; i < o->u.object.len; i++)
		if (!strcmp(o->u.object.keys[i], k))
			return o->u.object.values[i];
	return NULL;
}

static void assert_same_tree(yajl_val a, yajl_val b, const char *where, bool top);

static void same_members(yajl_val a, yajl_val b, const char *where, bool top)
{
	char path[512];
	for (size_t i = 0; i < a->u.object.len; i++) {
		const char *k = a->u.object.keys[i];
		/* JSON objects carry their kind/apiVersion; protobuf ones have them in the envelope */
		if (top && (!strcmp(k, "kind") || !strcmp(k, "apiVersion")))
			continue;
		yajl_val bv = member(b, k);
		snprintf(path, sizeof(path), "%s.%s", where, k);
		if (!bv) {
			if (!is_zero(a->u.object.values[i]))
				fail_msg("%s: only on one side", path);
			continue;
		}
		assert_same_tree(a->u.object.values[i], bv, path, false);
	}
}

static void assert_same_tree(yajl_val a, yajl_val b, const char *where, bool top)
{
	if (is_zero(a) && is_zero(b))
		return;
	if (!a || !b || a->type != b->type)
		fail_msg("%s: type %d vs %d", where, a ? (int)a->type : -1, b ? (int)b->type : -1);
	switch (a->type) {
	case yajl_t_string:
		if (strcmp(a->u.string, b->u.string))
			fail_msg("%s: \"%s\" vs \"%s\"", where, a->u.string, b->u.string);
		break;
	case yajl_t_number:
		if (strcmp(a->u.number.r, b->u.number.r))
			fail_msg("%s: %s vs %s", where, a->u.number.r, b->u.number.r);
		assert_int_equal(a->u.number.flags, b->u.number.flags);
		break;
	case yajl_t_object:
		same_members(a, b, where, top);
		same_members(b, a, where, top);
		break;
	case yajl_t_array:
		if (a->u.array.len != b->u.array.len)
			fail_msg("%s: %zu vs %zu elements", where, a->u.array.len, b->u.array.len);
		for (size_t i = 0; i < a->u.array.len; i++) {
			char path[512];
			snprintf(path, sizeof(path), "%s[%zu]", where, i);
			assert_same_tree(a->u.array.values[i], b->u.array.values[i], path, false);
		}
		break;
	default:
		break;
	}
}

/* ---------- decoded objects, dumped ---------- */

static void dump_res(FILE *f, const char *what, const struct api_resources *r)
{
	fprintf(f, "%s cpu=%d:%lld mem=%d:%lld eph=%d:%lld pods=%d:%lld", what, r->has_cpu, (long long)r->cpu,
		r->has_memory, (long long)r->memory, r->has_ephemeral_storage, (long long)r->ephemeral_storage,
		r->has_pods, (long long)r->pods);
	for (uint32_t i = 0; i < r->n_scalar; i++)
		fprintf(f, " %s=%lld", r->scalar[i].name, (long long)r->scalar[i].value);
	fputc('\n', f);
}

static void dump_labels(FILE *f, const char *what, const struct api_labels *l)
{
	fprintf(f, "%s:", what);
	for (uint32_t i = 0; i < l->n; i++)
		fprintf(f, " %s=%s", l->items[i].key, l->items[i].value);
	fputc('\n', f);
}

static void dump_meta(FILE *f, const struct api_meta *m)
{
	fprintf(f, "meta %s/%s uid=%s rv=%s gen=%lld created=%lld deleting=%d:%lld\n", m->namespace, m->name, m->uid,
		m->resource_version, (long long)m->generation, (long long)m->creation_timestamp, m->being_deleted,
		(long long)m->deletion_timestamp);
	dump_labels(f, "labels", &m->labels);
	dump_labels(f, "annotations", &m->annotations);
	for (uint32_t i = 0; i < m->n_owner_refs; i++)
		fprintf(f, "owner %s %s %s %s %d\n", m->owner_refs[i].api_version, m->owner_refs[i].kind,
			m->owner_refs[i].name, m->owner_refs[i].uid, m->owner_refs[i].controller);
}

static void dump_conditions(FILE *f, uint32_t n, const struct api_condition *c)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "condition %s %s %s %s probe=%s transition=%s og=%lld\n", c[i].type, c[i].status,
			c[i].reason ? c[i].reason : "-", c[i].message ? c[i].message : "-",
			c[i].last_probe_time ? c[i].last_probe_time : "-",
			c[i].last_transition_time ? c[i].last_transition_time : "-", (long long)c[i].observed_generation);
}

static void dump_containers(FILE *f, const char *what, uint32_t n, const struct api_container *c)
{
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "%s %s %s always=%d rac=%d bmo=%d\n", what, c[i].name, c[i].image, c[i].restart_policy_always,
			c[i].restart_all_containers, c[i].bind_mount_options);
		for (uint32_t k = 0; k < c[i].n_ports; k++)
			fprintf(f, " port %d %d %s %s\n", c[i].ports[k].container_port, c[i].ports[k].host_port,
				c[i].ports[k].protocol, c[i].ports[k].host_ip);
		dump_res(f, " requests", &c[i].requests);
		dump_res(f, " limits", &c[i].limits);
	}
}

static char *dump_pod(const struct api_pod *p)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	dump_meta(f, &p->meta);
	fprintf(f, "node=%s scheduler=%s prio=%d:%d preempt=%d hostnet=%d hostusers_false=%d ebmo=%d phase=%s nominated=%s\n",
		p->node_name, p->scheduler_name, p->has_priority, p->priority, (int)p->preemption_policy, p->host_network,
		p->host_users_false, p->ephemeral_bind_mount_options, p->phase, p->nominated_node_name);
	dump_labels(f, "nodeSelector", &p->node_selector);
	for (uint32_t i = 0; i < p->n_tolerations; i++) {
		const struct api_toleration *t = &p->tolerations[i];
		fprintf(f, "toleration %s %d %d %s %d %d:%lld\n", t->key, (int)t->op, t->op_given, t->value, (int)t->effect,
			t->has_toleration_seconds, (long long)t->toleration_seconds);
	}
	fprintf(f, "spread %u affinity-node=%d\n", p->n_spread_constraints, p->affinity.node_affinity != NULL);
	dump_containers(f, "container", p->n_containers, p->containers);
	dump_containers(f, "init", p->n_init_containers, p->init_containers);
	dump_res(f, "overhead", &p->overhead);
	dump_res(f, "podRequests", &p->pod_requests);
	for (uint32_t i = 0; i < p->n_volumes; i++) {
		const struct api_volume *v = &p->volumes[i];
		fprintf(f, "volume %s %d cms=%d ro=%d claim=%s pd=%s ebs=%s mons=%u pool=%s image=%s portal=%s iqn=%s lun=%d ref=%s\n",
			v->name, (int)v->kind, v->config_map_or_secret, v->read_only, v->claim_name ? v->claim_name : "-",
			v->pd_name ? v->pd_name : "-", v->volume_id ? v->volume_id : "-", v->n_monitors,
			v->pool ? v->pool : "-", v->image ? v->image : "-", v->target_portal ? v->target_portal : "-",
			v->iqn ? v->iqn : "-", v->lun, v->reference ? v->reference : "-");
	}
	for (uint32_t i = 0; i < p->n_scheduling_gates; i++)
		fprintf(f, "gate %s\n", p->scheduling_gates[i]);
	dump_conditions(f, p->n_conditions, p->conditions);
	for (uint32_t i = 0; i < p->n_container_statuses; i++) {
		const struct api_container_status *c = &p->container_statuses[i];
		fprintf(f, "cstatus %s %d %d\n", c->name, c->has_allocated, c->has_actual);
		dump_res(f, " allocated", &c->allocated);
		dump_res(f, " actual", &c->actual);
	}
	fprintf(f, "status.resources %d\n", p->status_resources != NULL);
	fclose(f);
	return s;
}

static char *dump_node(const struct api_node *nd)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	dump_meta(f, &nd->meta);
	fprintf(f, "unschedulable=%d\n", nd->unschedulable);
	for (uint32_t i = 0; i < nd->n_taints; i++)
		fprintf(f, "taint %s %s %d\n", nd->taints[i].key, nd->taints[i].value, (int)nd->taints[i].effect);
	dump_res(f, "capacity", &nd->capacity);
	dump_res(f, "allocatable", &nd->allocatable);
	dump_conditions(f, nd->n_conditions, nd->conditions);
	for (uint32_t i = 0; i < nd->n_images; i++) {
		fprintf(f, "image %lld", (long long)nd->images[i].size_bytes);
		for (uint32_t k = 0; k < nd->images[i].n_names; k++)
			fprintf(f, " %s", nd->images[i].names[k]);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < nd->n_declared_features; i++)
		fprintf(f, "feature %s\n", nd->declared_features[i]);
	fclose(f);
	return s;
}

/* The decoded object of a tree, dumped (kind: API_KIND_POD or API_KIND_NODE). */
static char *decode_dump(enum api_kind kind, yajl_val v)
{
	struct err e = {0};
	char *s;
	if (kind == API_KIND_POD) {
		struct api_pod *p = api_pod_decode(v, &e);
		if (!p)
			fail_msg("api_pod_decode: %s", e.msg);
		s = dump_pod(p);
		api_pod_unref(p);
	} else {
		struct api_node *n = api_node_decode(v, &e);
		if (!n)
			fail_msg("api_node_decode: %s", e.msg);
		s = dump_node(n);
		api_node_unref(n);
	}
	return s;
}

/* ---------- single objects ---------- */

static void check_object(enum api_kind kind, const char *name)
{
	char path[256];
	size_t jl, pl;
	snprintf(path, sizeof(path), FIX "%s.json", name);
	char *json = testutil_read_source_file(path, &jl);
	snprintf(path, sizeof(path), FIX "%s.pb", name);
	char *pb = testutil_read_source_file(path, &pl);
	struct api__json *j = api__json_new();
	struct api__pb *p = api__pb_new();
	yajl_val a = NULL, b = NULL;
	char ebuf[256] = "";
	assert_int_equal(api__json_parse(j, json, jl, &a, ebuf, sizeof(ebuf)), 0);
	assert_true(api__pb_magic(pb, pl));
	if (api__pb_body(p, kind, pb, pl, NULL, NULL, &b, ebuf, sizeof(ebuf)))
		fail_msg("%s: %s", name, ebuf);
	assert_same_tree(a, b, name, true);
	char *da = decode_dump(kind, a), *db = decode_dump(kind, b);
	assert_string_equal(da, db);
	free(da);
	free(db);
	api__pb_free(p);
	api__json_free(j);
	free(json);
	free(pb);
}

static void test_pod_rich(void **state)
{
	(void)state;
	check_object(API_KIND_POD, "pod-rich");
}

static void test_pod_minimal(void **state)
{
	(void)state;
	check_object(API_KIND_POD, "pod-minimal");
}

static void test_pod_deleting(void **state)
{
	(void)state;
	check_object(API_KIND_POD, "pod-deleting");
}

static void test_node_rich(void **state)
{
	(void)state;
	check_object(API_KIND_NODE, "node-rich");
}

static void test_node_plain(void **state)
{
	(void)state;
	check_object(API_KIND_NODE, "node-plain");
}

/* The decoded pod keeps what protobuf says (not only "the same as JSON"): values from the fixture. */
static void test_pod_rich_values(void **state)
{
	(void)state;
	size_t pl;
	char *pb = testutil_read_source_file(FIX "pod-rich.pb", &pl);
	struct api__pb *p = api__pb_new();
	yajl_val b = NULL;
	char ebuf[256] = "";
	assert_int_equal(api__pb_body(p, API_KIND_POD, pb, pl, NULL, NULL, &b, ebuf, sizeof(ebuf)), 0);
	struct err e = {0};
	struct api_pod *pod = api_pod_decode(b, &e);
	assert_non_null(pod);
	assert_string_equal(pod->meta.name, "web-1");
	assert_string_equal(pod->meta.namespace, "default");
	assert_string_equal(pod->nominated_node_name, "node-rich");
	assert_true(pod->n_containers >= 1);
	assert_true(pod->n_volumes >= 5);
	assert_true(pod->meta.creation_timestamp > 1700000000); /* metav1.Time seconds -> RFC 3339 -> back */
	api_pod_unref(pod);
	api__pb_free(p);
	free(pb);
}

/* ---------- lists ---------- */

struct items {
	enum api_kind kind;
	char *dump[64];
	yajl_val tree[64]; /* JSON side only: valid during the item callback; so dumps only */
	size_t n;
};

static int on_item(void *ctx, yajl_val item)
{
	struct items *it = ctx;
	assert_true(it->n < 64);
	it->dump[it->n++] = decode_dump(it->kind, item);
	return 0;
}

static void check_list(enum api_kind kind, const char *name, size_t want)
{
	static const char *rv_path[] = {"metadata", "resourceVersion", NULL}, *cont_path[] = {"metadata", "continue", NULL};
	char path[256];
	size_t jl, pl;
	snprintf(path, sizeof(path), FIX "%s.json", name);
	char *json = testutil_read_source_file(path, &jl);
	snprintf(path, sizeof(path), FIX "%s.pb", name);
	char *pb = testutil_read_source_file(path, &pl);
	struct api__json *j = api__json_new();
	struct api__pb *p = api__pb_new();
	struct items a = {.kind = kind}, b = {.kind = kind};
	yajl_val ra = NULL, rb = NULL;
	char ebuf[256] = "";
	assert_int_equal(api__json_begin(j, on_item, &a), 0);
	assert_int_equal(api__json_feed(j, json, jl, ebuf, sizeof(ebuf)), 0);
	assert_int_equal(api__json_end(j, &ra, ebuf, sizeof(ebuf)), 0);
	if (api__pb_body(p, kind, pb, pl, on_item, &b, &rb, ebuf, sizeof(ebuf)))
		fail_msg("%s: %s", name, ebuf);
	assert_int_equal(a.n, want);
	assert_int_equal(b.n, want);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.dump[i], b.dump[i]);
		free(a.dump[i]);
		free(b.dump[i]);
	}
	yajl_val va = yajl_tree_get(ra, rv_path, yajl_t_string), vb = yajl_tree_get(rb, rv_path, yajl_t_string);
	assert_non_null(va);
	assert_non_null(vb);
	assert_string_equal(va->u.string, vb->u.string);
	va = yajl_tree_get(ra, cont_path, yajl_t_string);
	vb = yajl_tree_get(rb, cont_path, yajl_t_string);
	assert_string_equal(va ? va->u.string : "", vb ? vb->u.string : "");
	api__pb_free(p);
	api__json_free(j);
	free(json);
	free(pb);
}

static void test_podlist(void **state)
{
	(void)state;
	check_list(API_KIND_POD, "podlist", 3);
}

static void test_podlist_page(void **state)
{
	(void)state;
	check_list(API_KIND_POD, "podlist-page1", 2); /* with a continue token */
}

static void test_nodelist(void **state)
{
	(void)state;
	check_list(API_KIND_NODE, "nodelist", 2);
}

/* ---------- a streaming list's watch stream ---------- */

static void test_watch_stream(void **state)
{
	(void)state;
	static const char *type_path[] = {"type", NULL}, *obj_path[] = {"object", NULL},
			  *end_path[] = {"object", "metadata", "annotations", "k8s.io/initial-events-end", NULL},
			  *rv_path[] = {"object", "metadata", "resourceVersion", NULL};
	size_t jl, pl;
	char *json = testutil_read_source_file(FIX "watch-pods.jsonl", &jl);
	char *pb = testutil_read_source_file(FIX "watch-pods.pbstream", &pl);
	struct api__json *j = api__json_new();
	struct api__pb *p = api__pb_new();
	char ebuf[256] = "";
	size_t off = 0, events = 0;
	char *line = json;
	while (off + 4 <= pl) {
		const unsigned char *q = (const unsigned char *)pb + off;
		size_t n = (size_t)q[0] << 24 | (size_t)q[1] << 16 | (size_t)q[2] << 8 | q[3];
		assert_true(off + 4 + n <= pl);
		yajl_val b = NULL, a = NULL;
		if (api__pb_watch_event(p, API_KIND_POD, pb + off + 4, n, &b, ebuf, sizeof(ebuf)))
			fail_msg("frame %zu: %s", events, ebuf);
		off += 4 + n;
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_int_equal(api__json_parse(j, line, (size_t)(nl - line), &a, ebuf, sizeof(ebuf)), 0);
		line = nl + 1;
		const char *ta = yajl_tree_get(a, type_path, yajl_t_string)->u.string;
		assert_string_equal(ta, yajl_tree_get(b, type_path, yajl_t_string)->u.string);
		assert_same_tree(yajl_tree_get(a, obj_path, yajl_t_object), yajl_tree_get(b, obj_path, yajl_t_object),
				 ta, true);
		if (!strcmp(ta, "BOOKMARK")) {
			assert_string_equal(yajl_tree_get(b, end_path, yajl_t_string)->u.string, "true");
			assert_string_equal(yajl_tree_get(a, rv_path, yajl_t_string)->u.string,
					    yajl_tree_get(b, rv_path, yajl_t_string)->u.string);
		} else {
			char *da = decode_dump(API_KIND_POD, yajl_tree_get(a, obj_path, yajl_t_object));
			char *db = decode_dump(API_KIND_POD, yajl_tree_get(b, obj_path, yajl_t_object));
			assert_string_equal(da, db);
			free(da);
			free(db);
		}
		events++;
	}
	assert_int_equal(off, pl);
	assert_int_equal(events, 4); /* 3 pods, the bookmark */
	assert_int_equal(*line, '\0');
	api__pb_free(p);
	api__json_free(j);
	free(json);
	free(pb);
}

/* ---------- Status ---------- */

static void test_status(void **state)
{
	(void)state;
	static const char *code_path[] = {"code", NULL}, *reason_path[] = {"reason", NULL};
	size_t jl, pl;
	char *json = testutil_read_source_file(FIX "status-404.json", &jl);
	char *pb = testutil_read_source_file(FIX "status-404.pb", &pl);
	struct api__pb *p = api__pb_new();
	yajl_val b = NULL;
	char ebuf[256] = "", ma[256], mb[256];
	assert_int_equal(api__pb_body(p, API_KIND_POD, pb, pl, NULL, NULL, &b, ebuf, sizeof(ebuf)), 0);
	assert_int_equal(yajl_tree_get(b, code_path, yajl_t_number)->u.number.i, 404);
	assert_string_equal(yajl_tree_get(b, reason_path, yajl_t_string)->u.string, "NotFound");
	api__status_message(json, jl, 404, ma, sizeof(ma));
	api__status_message(pb, pl, 404, mb, sizeof(mb));
	assert_string_equal(ma, "pods \"nope\" not found");
	assert_string_equal(ma, mb);
	api__pb_free(p);
	free(json);
	free(pb);
}

/* ---------- malformed input ---------- */

static void expect_invalid(struct api__pb *p, const void *buf, size_t len, const char *want)
{
	yajl_val b = NULL;
	char ebuf[256] = "";
	int rc = api__pb_body(p, API_KIND_POD, buf, len, NULL, NULL, &b, ebuf, sizeof(ebuf));
	if (rc != ERR_INVALID)
		fail_msg("rc %d for %s (%s)", rc, want, ebuf);
	if (!strstr(ebuf, want))
		fail_msg("message \"%s\" lacks \"%s\"", ebuf, want);
	assert_null(b);
}

static void test_truncated(void **state)
{
	(void)state;
	size_t pl;
	char *pb = testutil_read_source_file(FIX "pod-rich.pb", &pl);
	struct api__pb *p = api__pb_new();
	/* the Unknown's raw field holds the Pod: any cut inside it breaks a length */
	for (size_t n = 0; n < pl; n++) {
		char *cut = malloc(n ? n : 1); /* exactly n bytes: valgrind sees any read past them */
		memcpy(cut, pb, n);
		yajl_val b = NULL;
		char ebuf[256] = "";
		int rc = api__pb_body(p, API_KIND_POD, cut, n, NULL, NULL, &b, ebuf, sizeof(ebuf));
		if (rc == 0) {
			/* only a cut after raw can still be whole: the trailing contentEncoding/contentType */
			assert_true(n > pl - 8);
		} else {
			assert_int_equal(rc, ERR_INVALID);
			assert_true(!strncmp(ebuf, "protobuf: ", 10));
		}
		free(cut);
	}
	/* and every cut of a watch frame */
	size_t wl;
	char *w = testutil_read_source_file(FIX "watch-pods.pbstream", &wl);
	const unsigned char *q = (const unsigned char *)w;
	size_t fl = (size_t)q[0] << 24 | (size_t)q[1] << 16 | (size_t)q[2] << 8 | q[3];
	for (size_t n = 0; n < fl; n++) {
		char *cut = malloc(n ? n : 1);
		memcpy(cut, w + 4, n);
		yajl_val b = NULL;
		char ebuf[256] = "";
		int rc = api__pb_watch_event(p, API_KIND_POD, cut, n, &b, ebuf, sizeof(ebuf));
		assert_int_equal(rc, ERR_INVALID);
		assert_true(!strncmp(ebuf, "protobuf: ", 10));
		free(cut);
	}
	api__pb_free(p);
	free(w);
	free(pb);
}

static void test_malformed(void **state)
{
	(void)state;
	struct api__pb *p = api__pb_new();
	/* bad magic: JSON, or a corrupted prefix */
	expect_invalid(p, "{\"kind\":\"Pod\"}", 14, "missing the k8s\\0 prefix");
	expect_invalid(p, "k8s", 3, "missing the k8s\\0 prefix");
	/* an Unknown without raw */
	expect_invalid(p, "k8s\0", 4, "runtime.Unknown without raw");
	/* raw's length beyond the body */
	expect_invalid(p, "k8s\0\x12\x7f\x0a", 7, "runtime.Unknown: truncated");
	/* a length varint of 11 bytes */
	expect_invalid(p, "k8s\0\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 16, "runtime.Unknown: truncated");
	/* a wire type protobuf has not (groups, 3) */
	expect_invalid(p, "k8s\0\x13", 5, "runtime.Unknown: truncated");
	/* a Pod whose metadata (field 1, a message) comes as a varint */
	expect_invalid(p, "k8s\0\x12\x02\x08\x01", 8, "Pod.metadata: wrong wire type 0");
	/* a Pod's metadata whose name (a string) comes as a fixed32 */
	expect_invalid(p, "k8s\0\x12\x07\x0a\x05\x0d\x01\x02\x03\x04", 13, "ObjectMeta.name: wrong wire type 5");
	/* a nested length past its parent's end */
	expect_invalid(p, "k8s\0\x12\x04\x0a\x02\x0a\x05", 10, "ObjectMeta: truncated");
	/* a content encoding (gzip: never sent by the apiserver) */
	expect_invalid(p, "k8s\0\x12\x00\x1a\x04gzip", 12, "contentEncoding gzip not supported");
	/* a Time out of range */
	expect_invalid(p, "k8s\0\x12\x0e\x0a\x0c\x42\x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 20, "Time out of range");
	/* a watch event: no object, a frame of garbage */
	yajl_val b = NULL;
	char ebuf[256] = "";
	assert_int_equal(api__pb_watch_event(p, API_KIND_POD, "\x0a\x05\x41\x44\x44\x45\x44", 7, &b, ebuf, sizeof(ebuf)),
			 ERR_INVALID);
	assert_string_equal(ebuf, "protobuf: WatchEvent without type or object");
	assert_int_equal(api__pb_watch_event(p, API_KIND_POD, "\xff\xff", 2, &b, ebuf, sizeof(ebuf)), ERR_INVALID);
	assert_string_equal(ebuf, "protobuf: WatchEvent: truncated or invalid field");
	/* still usable after errors */
	size_t pl;
	char *pb = testutil_read_source_file(FIX "pod-minimal.pb", &pl);
	assert_int_equal(api__pb_body(p, API_KIND_POD, pb, pl, NULL, NULL, &b, ebuf, sizeof(ebuf)), 0);
	free(pb);
	api__pb_free(p);
}

/* Fields this version does not know are skipped, as Go's decoder does (a newer server). */
static void test_unknown_field(void **state)
{
	(void)state;
	struct api__pb *p = api__pb_new();
	yajl_val b = NULL;
	char ebuf[256] = "";
	static const char *name_path[] = {"metadata", "name", NULL};
	/* Pod{metadata{name "a", field 999 varint 7}, field 1000 bytes "xy"} */
	static const char body[] = "k8s\0\x12\x0d\x0a\x06\x0a\x01\x61\xb8\x3e\x07\xc2\x3e\x02xy";
	assert_int_equal(api__pb_body(p, API_KIND_POD, body, sizeof(body) - 1, NULL, NULL, &b, ebuf, sizeof(ebuf)), 0);
	assert_string_equal(yajl_tree_get(b, name_path, yajl_t_string)->u.string, "a");
	api__pb_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_rich),      cmocka_unit_test(test_pod_minimal),
		cmocka_unit_test(test_pod_deleting),  cmocka_unit_test(test_node_rich),
		cmocka_unit_test(test_node_plain),    cmocka_unit_test(test_pod_rich_values),
		cmocka_unit_test(test_podlist),       cmocka_unit_test(test_podlist_page),
		cmocka_unit_test(test_nodelist),      cmocka_unit_test(test_watch_stream),
		cmocka_unit_test(test_status),        cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),     cmocka_unit_test(test_unknown_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
