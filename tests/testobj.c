#include "testobj.h"

#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- a growable JSON text ---------- */

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_vadd(struct buf *b, const char *fmt, va_list ap)
{
	for (;;) {
		va_list cp;
		va_copy(cp, ap);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, cp);
		va_end(cp);
		if (n < 0)
			abort();
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		b->cap = 2 * (b->len + (size_t)n + 1) + 256;
		if (!(b->s = realloc(b->s, b->cap)))
			abort();
		if (b->len == 0)
			b->s[0] = '\0';
	}
}

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vadd(b, fmt, ap);
	va_end(ap);
}

static _Noreturn void bad_spec(const char *what, const char *item)
{
	fprintf(stderr, "testobj: bad %s \"%s\"\n", what, item);
	abort();
}

/* Calls fn on each item of list separated by one of seps, spaces around it trimmed (list is
 * copied, so fn may cut the item). */
static void each_sep(struct buf *b, const char *list, const char *seps, void (*fn)(struct buf *b, char *item, int i))
{
	char *copy = strdup(list), *save = NULL;
	int i = 0;
	if (!copy)
		abort();
	for (char *it = strtok_r(copy, seps, &save); it; it = strtok_r(NULL, seps, &save)) {
		while (*it == ' ')
			it++;
		for (char *end = it + strlen(it); end > it && end[-1] == ' ';)
			*--end = '\0';
		fn(b, it, i++);
	}
	free(copy);
}

static void each_item(struct buf *b, const char *list, void (*fn)(struct buf *b, char *item, int i))
{
	each_sep(b, list, ",", fn);
}

static void sep(struct buf *b, int i)
{
	if (i)
		add(b, ",");
}

/* "k=v" -> "k":"v" */
static void kv_item(struct buf *b, char *item, int i)
{
	char *eq = strchr(item, '=');
	if (!eq)
		bad_spec("key=value", item);
	*eq = '\0';
	sep(b, i);
	add(b, "\"%s\":\"%s\"", item, eq + 1);
}

/* "key":{"k":"v",...}, with a leading comma when not first */
static void kv_object(struct buf *b, bool *first, const char *key, const char *list)
{
	if (!list)
		return;
	add(b, "%s\"%s\":{", *first ? "" : ",", key);
	each_item(b, list, kv_item);
	add(b, "}");
	*first = false;
}

static void member(struct buf *b, bool *first, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void member(struct buf *b, bool *first, const char *fmt, ...)
{
	if (!*first)
		add(b, ",");
	va_list ap;
	va_start(ap, fmt);
	buf_vadd(b, fmt, ap);
	va_end(ap);
	*first = false;
}

/* ---------- pods ---------- */

/* "[PROTO/[IP/]]HOST[:CONTAINER]" */
static void port_item(struct buf *b, char *item, int i)
{
	char *parts[3] = { NULL, NULL, NULL }, *save = NULL;
	int n = 0;
	for (char *p = strtok_r(item, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (n == 3)
			bad_spec("port", item);
		parts[n++] = p;
	}
	if (n == 0)
		bad_spec("port", item);
	char *ports = parts[n - 1], *colon = strchr(ports, ':');
	int host = atoi(ports), cport = colon ? atoi(colon + 1) : host;
	sep(b, i);
	add(b, "{\"containerPort\":%d", cport);
	if (host)
		add(b, ",\"hostPort\":%d", host);
	if (n >= 2)
		add(b, ",\"protocol\":\"%s\"", parts[0]);
	if (n == 3)
		add(b, ",\"hostIP\":\"%s\"", parts[1]);
	add(b, "}");
}

static void container(struct buf *b, const struct tobj_container *c, int i)
{
	sep(b, i);
	add(b, "{\"name\":\"%s\",\"image\":\"%s\"", c->name ? c->name : "c", c->image ? c->image : "i");
	if (c->sidecar)
		add(b, ",\"restartPolicy\":\"Always\"");
	if (c->ports) {
		add(b, ",\"ports\":[");
		each_item(b, c->ports, port_item);
		add(b, "]");
	}
	if (c->req || c->lim) {
		bool first = true;
		add(b, ",\"resources\":{");
		kv_object(b, &first, "requests", c->req);
		kv_object(b, &first, "limits", c->lim);
		add(b, "}");
	}
	add(b, "}");
}

static bool container_empty(const struct tobj_container *c)
{
	return !c->name && !c->image && !c->req && !c->lim && !c->ports && !c->sidecar;
}

static uint32_t count_containers(const struct tobj_container *cs, uint32_t n)
{
	if (n)
		return n;
	while (n < TOBJ_MAX_CONTAINERS && !container_empty(&cs[n]))
		n++;
	return n;
}

static void containers(struct buf *b, bool *first, const char *key, const char *json,
		       const struct tobj_container *cs, uint32_t n, bool dflt)
{
	if (json) {
		member(b, first, "\"%s\":%s", key, json);
		return;
	}
	n = count_containers(cs, n);
	if (!n && !dflt)
		return;
	member(b, first, "\"%s\":[", key);
	if (!n)
		add(b, "{\"name\":\"c\",\"image\":\"i\"}");
	for (uint32_t i = 0; i < n; i++)
		container(b, &cs[i], (int)i);
	add(b, "]");
}

/* "key=value:Effect" / "key:Effect" / ":Effect", effect optional */
static void toleration_item(struct buf *b, char *item, int i)
{
	char *colon = strrchr(item, ':'), *eq = strchr(item, '=');
	if (colon)
		*colon = '\0';
	if (eq)
		*eq = '\0';
	sep(b, i);
	if (item[0])
		add(b, "{\"key\":\"%s\",", item);
	else
		add(b, "{");
	if (eq)
		add(b, "\"operator\":\"Equal\",\"value\":\"%s\"", eq + 1);
	else
		add(b, "\"operator\":\"Exists\"");
	if (colon && colon[1])
		add(b, ",\"effect\":\"%s\"", colon + 1);
	add(b, "}");
}

static void gate_item(struct buf *b, char *item, int i)
{
	sep(b, i);
	add(b, "{\"name\":\"%s\"}", item);
}

static void pvc_item(struct buf *b, char *item, int i)
{
	sep(b, i);
	add(b, "{\"name\":\"v%d\",\"persistentVolumeClaim\":{\"claimName\":\"%s\"}}", i, item);
}

/* Node affinity: "key Op v1,v2" requirements, ";" between those of one term, "|" between terms. */

static void value_item(struct buf *b, char *item, int i)
{
	sep(b, i);
	add(b, "\"%s\"", item);
}

static void requirement(struct buf *b, char *req, int i)
{
	char *save = NULL, *key = strtok_r(req, " ", &save), *op = strtok_r(NULL, " ", &save);
	char *values = strtok_r(NULL, "", &save);
	if (!key || !op)
		bad_spec("node selector requirement", req);
	sep(b, i);
	add(b, "{\"key\":\"%s\",\"operator\":\"%s\"", key, op);
	if (strcmp(op, "Exists") != 0 && strcmp(op, "DoesNotExist") != 0) {
		add(b, ",\"values\":[");
		if (values)
			each_item(b, values, value_item);
		add(b, "]");
	}
	add(b, "}");
}

/* One nodeSelectorTerm: requirements on metadata.name (the one field upstream defines) go to
 * matchFields, the others to matchExpressions. */
static void term_item(struct buf *b, char *term, int i)
{
	struct buf exprs = { 0 }, fields = { 0 };
	char *save = NULL;
	int n_exprs = 0, n_fields = 0;
	for (char *r = strtok_r(term, ";", &save); r; r = strtok_r(NULL, ";", &save)) {
		while (*r == ' ')
			r++;
		if (strncmp(r, "metadata.name ", 14) == 0)
			requirement(&fields, r, n_fields++);
		else
			requirement(&exprs, r, n_exprs++);
	}
	sep(b, i);
	add(b, "{");
	if (n_exprs)
		add(b, "\"matchExpressions\":[%s]", exprs.s);
	if (n_fields)
		add(b, "%s\"matchFields\":[%s]", n_exprs ? "," : "", fields.s);
	add(b, "}");
	free(exprs.s);
	free(fields.s);
}

static void node_affinity(struct buf *b, bool *first, const char *terms)
{
	member(b, first, "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
			 "{\"nodeSelectorTerms\":[");
	each_sep(b, terms, "|", term_item);
	add(b, "]}}}");
}

static void list_member(struct buf *b, bool *first, const char *key, const char *list,
			void (*fn)(struct buf *b, char *item, int i))
{
	if (!list)
		return;
	member(b, first, "\"%s\":[", key);
	each_item(b, list, fn);
	add(b, "]");
}

static void pod_spec(struct buf *b, const struct tobj_pod *s)
{
	bool first = true;
	add(b, ",\"spec\":{");
	if (s->node)
		member(b, &first, "\"nodeName\":\"%s\"", s->node);
	if (s->scheduler)
		member(b, &first, "\"schedulerName\":\"%s\"", s->scheduler);
	if (s->priority)
		member(b, &first, "\"priority\":%s", s->priority);
	containers(b, &first, "initContainers", s->inits_json, s->inits, s->n_inits, false);
	containers(b, &first, "containers", s->containers_json, s->containers, s->n_containers, true);
	kv_object(b, &first, "overhead", s->overhead);
	if (s->pod_req) {
		member(b, &first, "\"resources\":{");
		bool inner = true;
		kv_object(b, &inner, "requests", s->pod_req);
		add(b, "}");
	}
	kv_object(b, &first, "nodeSelector", s->node_selector);
	list_member(b, &first, "tolerations", s->tolerations, toleration_item);
	if (s->affinity && s->node_affinity)
		bad_spec("pod: both affinity and node_affinity", s->node_affinity);
	if (s->affinity)
		member(b, &first, "\"affinity\":%s", s->affinity);
	if (s->node_affinity)
		node_affinity(b, &first, s->node_affinity);
	list_member(b, &first, "schedulingGates", s->gates, gate_item);
	list_member(b, &first, "volumes", s->pvcs, pvc_item);
	if (s->spec && s->spec[0])
		member(b, &first, "%s", s->spec);
	add(b, "}");
}

static int pod_seq;

char *tobj_pod_manifest(const struct tobj_pod *s)
{
	static const struct tobj_pod dflt;
	struct buf b = { 0 };
	if (!s)
		s = &dflt;
	char name[32];
	const char *nm = s->name;
	if (!nm) {
		snprintf(name, sizeof(name), "p%d", ++pod_seq);
		nm = name;
	}
	add(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\",", nm,
	    s->ns ? s->ns : "default");
	if (s->uid)
		add(&b, "\"uid\":\"%s\"", s->uid);
	else
		add(&b, "\"uid\":\"uid-%s\"", nm);
	if (s->rv)
		add(&b, ",\"resourceVersion\":\"%s\"", s->rv);
	bool first = false;
	kv_object(&b, &first, "labels", s->labels);
	add(&b, "}");
	pod_spec(&b, s);
	if (s->nominated || s->status) {
		first = true;
		add(&b, ",\"status\":{");
		if (s->nominated)
			member(&b, &first, "\"nominatedNodeName\":\"%s\"", s->nominated);
		if (s->status && s->status[0])
			member(&b, &first, "%s", s->status);
		add(&b, "}");
	}
	add(&b, "}");
	return b.s;
}

/* ---------- nodes ---------- */

/* "key=value:Effect" / "key:Effect" */
static void taint_item(struct buf *b, char *item, int i)
{
	char *colon = strrchr(item, ':'), *eq = strchr(item, '=');
	if (!colon)
		bad_spec("taint", item);
	*colon = '\0';
	if (eq)
		*eq = '\0';
	sep(b, i);
	add(b, "{\"key\":\"%s\",", item);
	if (eq)
		add(b, "\"value\":\"%s\",", eq + 1);
	add(b, "\"effect\":\"%s\"}", colon + 1);
}

/* "name|alias=size" */
static void image_item(struct buf *b, char *item, int i)
{
	char *eq = strrchr(item, '='), *save = NULL;
	if (!eq)
		bad_spec("image", item);
	*eq = '\0';
	sep(b, i);
	add(b, "{\"names\":[");
	int k = 0;
	for (char *n = strtok_r(item, "|", &save); n; n = strtok_r(NULL, "|", &save))
		add(b, "%s\"%s\"", k++ ? "," : "", n);
	add(b, "],\"sizeBytes\":%s}", eq + 1);
}

static void node_spec(struct buf *b, const struct tobj_node *s)
{
	bool first = true;
	if (!s->unschedulable && !s->taints && !s->spec)
		return;
	add(b, ",\"spec\":{");
	if (s->unschedulable)
		member(b, &first, "\"unschedulable\":true");
	list_member(b, &first, "taints", s->taints, taint_item);
	if (s->spec && s->spec[0])
		member(b, &first, "%s", s->spec);
	add(b, "}");
}

static void node_status(struct buf *b, const struct tobj_node *s)
{
	bool first = true;
	if (!s->cap && !s->alloc && !s->images && !s->ready && !s->status)
		return;
	add(b, ",\"status\":{");
	kv_object(b, &first, "capacity", s->cap);
	kv_object(b, &first, "allocatable", s->alloc);
	if (s->ready)
		member(b, &first, "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]");
	list_member(b, &first, "images", s->images, image_item);
	if (s->status && s->status[0])
		member(b, &first, "%s", s->status);
	add(b, "}");
}

static int node_seq;

char *tobj_node_manifest(const struct tobj_node *s)
{
	static const struct tobj_node dflt;
	struct buf b = { 0 };
	if (!s)
		s = &dflt;
	add(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{");
	if (s->name)
		add(&b, "\"name\":\"%s\"", s->name);
	else
		add(&b, "\"name\":\"n%d\"", ++node_seq);
	if (s->uid)
		add(&b, ",\"uid\":\"%s\"", s->uid);
	bool first = false;
	kv_object(&b, &first, "labels", s->labels);
	add(&b, "}");
	node_spec(&b, s);
	node_status(&b, s);
	add(&b, "}");
	return b.s;
}

/* ---------- decoding ---------- */

/* obj, decoded from json (freed here) as what; aborts with e's message when obj is NULL. */
static void *decoded(void *obj, const char *what, char *json, const struct err *e)
{
	if (!obj) {
		fprintf(stderr, "testobj: %s decode: %s\n%s\n", what, e->msg, json);
		abort();
	}
	free(json);
	return obj;
}

struct api_pod *tobj_pod(const struct tobj_pod *s)
{
	struct err e = { 0 };
	char *json = tobj_pod_manifest(s);
	return decoded(api_pod_decode_json(json, strlen(json), &e), "pod", json, &e);
}

struct api_node *tobj_node(const struct tobj_node *s)
{
	struct err e = { 0 };
	char *json = tobj_node_manifest(s);
	return decoded(api_node_decode_json(json, strlen(json), &e), "node", json, &e);
}

static char *vformat(const char *fmt, va_list ap)
{
	struct buf b = { 0 };
	buf_vadd(&b, fmt, ap);
	return b.s;
}

struct api_pod *tobj_pod_json(const char *fmt, ...)
{
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	char *json = vformat(fmt, ap);
	va_end(ap);
	return decoded(api_pod_decode_json(json, strlen(json), &e), "pod", json, &e);
}

struct api_node *tobj_node_json(const char *fmt, ...)
{
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	char *json = vformat(fmt, ap);
	va_end(ap);
	return decoded(api_node_decode_json(json, strlen(json), &e), "node", json, &e);
}

static char *fixture(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/fixtures/api/%s", name);
	return testutil_read_source_file(path, len);
}

struct api_pod *tobj_pod_fixture(const char *name)
{
	struct err e = { 0 };
	size_t len;
	char *json = fixture(name, &len);
	return decoded(api_pod_decode_json(json, len, &e), name, json, &e);
}

struct api_node *tobj_node_fixture(const char *name)
{
	struct err e = { 0 };
	size_t len;
	char *json = fixture(name, &len);
	return decoded(api_node_decode_json(json, len, &e), name, json, &e);
}
