/* The structured device allocator (algorithm/plugins/dra_allocator.h), case by case from
 * k8s.io/dynamic-resource-allocation v0.37.2 structured/internal/allocatortesting/
 * allocator_testing.go TestAllocator: each case keeps upstream's name, features, objects and
 * expectation (the results, compared as upstream's ConsistOf does, i.e. in any order; the node
 * selector; or the error). Objects are written as the JSON the apiserver serves and decoded by
 * apiclient's decoders; in the tables a backquote stands for a JSON double quote so that CEL
 * strings can use single quotes. The allocated state is given as allocation results (upstream's
 * allocatedDevices: a result without shareID; allocatedSharedDeviceIDs and
 * allocatedCapacityDevices: results with shareID and consumedCapacity). Cases left out: those of
 * features csched does not have (compatibility groups, list-type attributes, derived attributes,
 * optional node operations). Upstream's test runs with a CEL cache of one entry; so does this. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/plugins/dra_allocator.h"
#include "apiclient/api_types.h"
#include "common/arena.h"
#include "common/clock.h"
#include "common/macros.h"

/* ---------- Object builders (upstream's helpers, as JSON) ---------- */

#define Q "`"
#define NODE(name, region) \
	"{`metadata`:{`name`:`" name "`,`labels`:{`region`:`" region "`,`planet`:`earth`}},`spec`:{},`status`:{}}"
#define CLASS_SEL(name, expr) "{`metadata`:{`name`:`" name "`},`spec`:{`selectors`:[{`cel`:{`expression`:`" expr "`}}]}}"
/* class(name, driver) */
#define CLASS(name, driver) CLASS_SEL(name, "device.driver == '" driver "'")
/* classWithConfig(name, driver, attribute) */
#define CLASS_CFG(name, driver, attr)                                                                              \
	"{`metadata`:{`name`:`" name "`},`spec`:{`selectors`:[{`cel`:{`expression`:`device.driver == '" driver       \
	"'`}}],`config`:[{`opaque`:{`driver`:`" driver "`,`parameters`:{`" attr "`:`" attr "Value`}}}]}}"
#define POOL(name, gen, count) "`pool`:{`name`:`" name "`,`generation`:" #gen ",`resourceSliceCount`:" #count "}"
#define ON(node) "`nodeName`:`" node "`"
#define ALL_NODES "`allNodes`:true"
#define PER_DEVICE "`perDeviceNodeSelection`:true"
#define NODE_SEL(key, value) \
	"`nodeSelector`:{`nodeSelectorTerms`:[{`matchExpressions`:[{`key`:`" key "`,`operator`:`In`,`values`:[`" value "`]}]}]}"
#define NODE_FIELD(node) \
	"`nodeSelector`:{`nodeSelectorTerms`:[{`matchFields`:[{`key`:`metadata.name`,`operator`:`In`,`values`:[`" node "`]}]}]}"
/* slice(name, nodeSelection, pool, driver) with devices */
#define SLICE(name, nodesel, pool, driver, devices) \
	"{`metadata`:{`name`:`" name "`},`spec`:{`driver`:`" driver "`," pool "," nodesel ",`devices`:[" devices "]}}"
#define SLICE_COUNTERS(name, nodesel, pool, driver, sets) \
	"{`metadata`:{`name`:`" name "`},`spec`:{`driver`:`" driver "`," pool "," nodesel ",`sharedCounters`:[" sets "]}}"
/* sliceWithOneDevice */
#define SLICE1(name, node, pool, driver) SLICE(name, ON(node), POOL(pool, 1, 1), driver, DEV("device-1"))
#define DEV(name) "{`name`:`" name "`}"
#define DEVX(name, extra) "{`name`:`" name "`," extra "}"
#define CAP(name, q) "`" name "`:{`value`:`" q "`}"
#define CAPS(...) "`capacity`:{" __VA_ARGS__ "}"
#define ATTRS(...) "`attributes`:{" __VA_ARGS__ "}"
#define A_INT(name, v) "`" name "`:{`int`:" #v "}"
#define A_STR(name, v) "`" name "`:{`string`:`" v "`}"
#define A_BOOL(name, v) "`" name "`:{`bool`:" #v "}"
#define A_VER(name, v) "`" name "`:{`version`:`" v "`}"
#define COUNTER_SET(name, counters) "{`name`:`" name "`,`counters`:{" counters "}}"
#define COUNTER(name, q) "`" name "`:{`value`:`" q "`}"
#define CONSUMES(set, counters) "`consumesCounters`:[{`counterSet`:`" set "`,`counters`:{" counters "}}]"
#define CONSUMES2(set1, counters1, set2, counters2) \
	"`consumesCounters`:[{`counterSet`:`" set1 "`,`counters`:{" counters1 "}},{`counterSet`:`" set2 "`,`counters`:{" counters2 "}}]"
#define BC(conds, failure) "`bindingConditions`:[" conds "],`bindingFailureConditions`:[" failure "]"
#define TAINTS(...) "`taints`:[" __VA_ARGS__ "]"
#define TAINT(key, value, effect) "{`key`:`" key "`,`value`:`" value "`,`effect`:`" effect "`}"
#define TOLS(...) "`tolerations`:[" __VA_ARGS__ "]"
#define TOL_EXISTS(key, effect) "{`operator`:`Exists`,`key`:`" key "`,`effect`:`" effect "`}"
#define TOL_EQUAL(key, value, effect) "{`operator`:`Equal`,`key`:`" key "`,`value`:`" value "`,`effect`:`" effect "`}"
#define SELECTORS(...) "`selectors`:[" __VA_ARGS__ "]"
#define SEL(expr) "{`cel`:{`expression`:`" expr "`}}"
/* claimWithRequests(name, constraints, requests...) */
#define CLAIM(name, requests) "{`metadata`:{`name`:`" name "`},`spec`:{`devices`:{`requests`:[" requests "]}}}"
#define CLAIM_CFG(requests, driver, attr) \
	"`config`:[{`requests`:[" requests "],`opaque`:{`driver`:`" driver "`,`parameters`:{`" attr "`:`" attr "Value`}}}]"
#define CLAIMX(name, requests, extra) \
	"{`metadata`:{`name`:`" name "`},`spec`:{`devices`:{`requests`:[" requests "]," extra "}}}"
#define CONSTRAINTS(...) "`constraints`:[" __VA_ARGS__ "]"
#define MATCH(attr) "{`matchAttribute`:`" attr "`}"
#define MATCH_FOR(reqs, attr) "{`requests`:[" reqs "],`matchAttribute`:`" attr "`}"
#define DISTINCT(attr) "{`distinctAttribute`:`" attr "`}"
/* request(name, class, count) */
#define REQ(name, class, count) \
	"{`name`:`" name "`,`exactly`:{`deviceClassName`:`" class "`,`allocationMode`:`ExactCount`,`count`:" #count "}}"
#define REQX(name, class, count, extra)                                                                     \
	"{`name`:`" name "`,`exactly`:{`deviceClassName`:`" class "`,`allocationMode`:`ExactCount`,`count`:" #count \
	"," extra "}}"
#define REQ_ALL(name, class) "{`name`:`" name "`,`exactly`:{`deviceClassName`:`" class "`,`allocationMode`:`All`}}"
#define REQ_ALLX(name, class, extra) \
	"{`name`:`" name "`,`exactly`:{`deviceClassName`:`" class "`,`allocationMode`:`All`," extra "}}"
/* claimWithRequest(name, req, class) */
#define CLAIM1(name, req, class) CLAIM(name, REQ(req, class, 1))
/* requestWithPrioritizedList(name, subRequest...) */
#define FIRST(name, subs) "{`name`:`" name "`,`firstAvailable`:[" subs "]}"
#define SUB(name, class, count) \
	"{`name`:`" name "`,`deviceClassName`:`" class "`,`allocationMode`:`ExactCount`,`count`:" #count "}"
#define SUBX(name, class, count, extra) \
	"{`name`:`" name "`,`deviceClassName`:`" class "`,`allocationMode`:`ExactCount`,`count`:" #count "," extra "}"
#define SUB_ALL(name, class) "{`name`:`" name "`,`deviceClassName`:`" class "`,`allocationMode`:`All`}"
#define CAP_REQ(q) "`capacity`:{`requests`:{`capacity-0`:`" q "`}}"
/* The allocated state: one claim whose allocation holds these results. */
#define ALLOCATED(results) \
	"{`metadata`:{`name`:`allocated`},`spec`:{},`status`:{`allocation`:{`devices`:{`results`:[" results "]}}}}"
#define RES(req, driver, pool, dev) "{`request`:`" req "`,`driver`:`" driver "`,`pool`:`" pool "`,`device`:`" dev "`}"
#define RES_SHARED(req, driver, pool, dev, caps)                                                   \
	"{`request`:`" req "`,`driver`:`" driver "`,`pool`:`" pool "`,`device`:`" dev                 \
	"`,`shareID`:`bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb`,`consumedCapacity`:{" caps "}}"

#define MEM_AT_LEAST(q) SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('" q "')) >= 0"))
#define MEM(q) CAPS(CAP("memory", q))
/* upstream's taints and tolerations (TestAllocator's locals) */
#define TAINT_NONE TAINT("taint-key", "taint-value", "None")
#define TAINT_NO_SCHEDULE TAINT("taint-key", "taint-value", "NoSchedule")
#define TAINT_NO_EXECUTE TAINT("taint-key", "taint-value-2", "NoExecute")
#define TOL_NO_SCHEDULE TOL_EXISTS("taint-key", "NoSchedule")
#define TOL_NO_EXECUTE TOL_EQUAL("taint-key", "taint-value-2", "NoExecute")
#define DA "driver-a"
#define DB "driver-b"
#define NODE1 NODE("node-1", "region-1")
#define NODE2 NODE("node-2", "region-2")
/* localNodeSelector(node) */
#define LOCAL(node) " @F:metadata.name In " node
#define ALL_FEATURES                                                                                          \
	{ true, true, true, true, true, true, true }

struct tcase {
	const char *name; /* upstream's */
	struct dra_features f;
	const char *node; /* NULL: node(node1, region1) */
	const char *classes[4];
	const char *slices[8];
	const char *claims[3];
	const char *allocated; /* a claim with an allocation, or NULL */
	/* Upstream's expectResults rendered (render()): one "{...}" per claim; NULL for no result. */
	const char *expect;
	const char *error; /* a substring of the expected error (upstream's ContainSubstring) */
};

#define F_NONE { 0 }
#define F(...) { __VA_ARGS__ }


/* ---------- Rendering results ---------- */

static int strptrcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cat(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

static void render_reqs(char *buf, size_t size, const struct api_requirement *r, uint32_t n)
{
	static const char *const ops[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };
	for (uint32_t i = 0; i < n; i++) {
		cat(buf, size, "%s%s %s ", i ? "," : "", r[i].key, (unsigned)r[i].op < ARRAY_SIZE(ops) ? ops[r[i].op] : "?");
		for (uint32_t j = 0; j < r[i].n_values; j++)
			cat(buf, size, "%s%s", j ? "|" : "", r[i].values[j]);
	}
}

/* One claim's allocation: {result;result... @F:fields E:exprs cfg=...}; results sorted. A
 * result: request=driver/pool/device, "+admin", " tol=N", " bc=a|b/c", " share", " cap=n:q". */
static void render(const struct api_dra_allocation *a, char *buf, size_t size)
{
	char *items[64];
	uint32_t n = a->n_results < 64 ? a->n_results : 64;
	for (uint32_t i = 0; i < n; i++) {
		const struct api_dra_device_result *r = &a->results[i];
		char b[512] = "";
		cat(b, sizeof(b), "%s=%s/%s/%s", r->request, r->driver, r->pool, r->device);
		if (r->has_admin_access && r->admin_access)
			cat(b, sizeof(b), "+admin");
		if (r->n_tolerations)
			cat(b, sizeof(b), " tol=%u", r->n_tolerations);
		if (r->n_binding_conditions || r->n_binding_failure_conditions) {
			cat(b, sizeof(b), " bc=");
			for (uint32_t j = 0; j < r->n_binding_conditions; j++)
				cat(b, sizeof(b), "%s%s", j ? "|" : "", r->binding_conditions[j]);
			cat(b, sizeof(b), "/");
			for (uint32_t j = 0; j < r->n_binding_failure_conditions; j++)
				cat(b, sizeof(b), "%s%s", j ? "|" : "", r->binding_failure_conditions[j]);
		}
		if (r->share_id)
			cat(b, sizeof(b), " share");
		for (uint32_t j = 0; j < r->n_consumed_capacity; j++)
			cat(b, sizeof(b), "%s%s:%s", j ? "," : " cap=", r->consumed_capacity[j].name,
			    r->consumed_capacity[j].value.s);
		items[i] = strdup(b);
		assert_non_null(items[i]);
	}
	qsort(items, n, sizeof(*items), strptrcmp);
	buf[0] = 0;
	cat(buf, size, "{");
	for (uint32_t i = 0; i < n; i++) {
		cat(buf, size, "%s%s", i ? ";" : "", items[i]);
		free(items[i]);
	}
	if (a->node_selector) {
		for (uint32_t t = 0; t < a->node_selector->n_terms; t++) {
			const struct api_node_selector_term *term = &a->node_selector->terms[t];
			if (term->n_fields) {
				cat(buf, size, " @F:");
				render_reqs(buf, size, term->fields, term->n_fields);
			}
			if (term->n_exprs) {
				cat(buf, size, " @E:");
				render_reqs(buf, size, term->exprs, term->n_exprs);
			}
		}
	}
	for (uint32_t i = 0; i < a->n_config; i++) {
		const struct api_dra_config *c = &a->config[i];
		cat(buf, size, " cfg=%s:%s:%.*s:", c->source == API_DRA_CONFIG_FROM_CLASS ? "class" : "claim",
		    c->driver ? c->driver : "", (int)c->parameters_len, c->parameters_json ? c->parameters_json : "");
		for (uint32_t j = 0; j < c->n_requests; j++)
			cat(buf, size, "%s%s", j ? "|" : "", c->requests[j]);
	}
	cat(buf, size, "}");
}

/* ---------- Running a case ---------- */

static char *unquote(const char *s)
{
	char *d = strdup(s);
	assert_non_null(d);
	for (char *p = d; *p; p++)
		if (*p == '`')
			*p = '"';
	return d;
}

struct classes {
	uint32_t n;
	struct api_device_class *v[4];
};

static struct api_device_class *class_get(void *ctx, const char *name)
{
	struct classes *c = ctx;
	for (uint32_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i]->meta.name, name) == 0)
			return api_device_class_ref(c->v[i]);
	return NULL;
}

#define DECODE(type, json, out)                                                    \
	do {                                                                       \
		char *j_ = unquote(json);                                          \
		struct err e_ = { 0 };                                             \
		(out) = api_##type##_decode_json(j_, strlen(j_), &e_);             \
		if (!(out))                                                        \
			print_error("%s: decode %s: %s\n%s\n", c->name, #type, e_.msg, j_); \
		free(j_);                                                          \
		assert_non_null(out);                                              \
	} while (0)

/* Runs c; returns the number of mismatches (printed). */
static int run_case(const struct tcase *c, struct dra_cel_cache *cc)
{
	struct classes cl = { 0 };
	struct api_resource_slice *slices[8];
	const struct api_resource_claim *claims[3];
	struct api_resource_claim *owned[3];
	uint32_t ns = 0, nc = 0;
	struct api_node *node;
	struct api_resource_claim *alloc_claim = NULL;
	struct dra_allocated_state *st = dra_allocated_state_new();
	struct err e = { 0 };
	int bad = 0;
	assert_non_null(st);
	DECODE(node, c->node ? c->node : NODE1, node);
	for (; cl.n < 4 && c->classes[cl.n]; cl.n++)
		DECODE(device_class, c->classes[cl.n], cl.v[cl.n]);
	for (; ns < 8 && c->slices[ns]; ns++)
		DECODE(resource_slice, c->slices[ns], slices[ns]);
	for (; nc < 3 && c->claims[nc]; nc++) {
		DECODE(resource_claim, c->claims[nc], owned[nc]);
		claims[nc] = owned[nc];
	}
	if (c->allocated) {
		DECODE(resource_claim, c->allocated, alloc_claim);
		assert_non_null(alloc_claim->allocation);
		assert_int_equal(dra_allocated_state_add(st, alloc_claim->allocation), 0);
	}
	struct dra_allocator *a = dra_allocator_new(&c->f, st, class_get, &cl, slices, ns, cc, &e);
	assert_non_null(a);
	struct arena *ar = arena_new(0);
	struct api_dra_allocation out[3];
	enum dra_result res = dra_allocator_allocate(a, node, claims, nc, 0, ar, out, &e);
	if (c->error) {
		if (res == DRA_ALLOCATED || !strstr(e.msg, c->error)) {
			print_error("%s: want error containing \"%s\", got %d \"%s\"\n", c->name, c->error, res, e.msg);
			bad++;
		}
	} else if (!c->expect) {
		if (res != DRA_UNSCHEDULABLE || e.msg[0]) {
			print_error("%s: want no result, got %d \"%s\"\n", c->name, res, e.msg);
			bad++;
		}
	} else if (res != DRA_ALLOCATED) {
		print_error("%s: want %s, got %d \"%s\"\n", c->name, c->expect, res, e.msg);
		bad++;
	} else {
		char got[4096] = "", one[2048];
		for (uint32_t i = 0; i < nc; i++) {
			render(&out[i], one, sizeof(one));
			cat(got, sizeof(got), "%s%s", i ? " " : "", one);
		}
		if (strcmp(got, c->expect) != 0) {
			print_error("%s:\n  want %s\n  got  %s\n", c->name, c->expect, got);
			bad++;
		}
	}
	arena_free(ar);
	dra_allocator_free(a);
	dra_allocated_state_free(st);
	api_resource_claim_unref(alloc_claim);
	for (uint32_t i = 0; i < nc; i++)
		api_resource_claim_unref(owned[i]);
	for (uint32_t i = 0; i < ns; i++)
		api_resource_slice_unref(slices[i]);
	for (uint32_t i = 0; i < cl.n; i++)
		api_device_class_unref(cl.v[i]);
	api_node_unref(node);
	return bad;
}

/* ---------- The cases ---------- */

#define PA "pool-1"
#define PB "pool-2"

static const struct tcase cases[] = {
	{ "empty", F_NONE, NULL, { 0 }, { 0 }, { 0 }, NULL, "", NULL },
	{ "simple", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "other-node", F_NONE, NODE2, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DB), SLICE1("slice-2", "node-2", PB, DA) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-2/device-1" LOCAL("node-2") "}", NULL },
	{ "small-and-large", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("memory", "1Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "2Gi")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('1Gi')) >= 0")))
		  "," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('2Gi')) >= 0")))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "small-and-large-backtrack-requests", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-2", CAPS(CAP("memory", "2Gi"))) "," DEVX("device-1", CAPS(CAP("memory", "1Gi")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('1Gi')) >= 0")))
		  "," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('2Gi')) >= 0")))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "small-and-large-backtrack-claims", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-2", CAPS(CAP("memory", "2Gi"))) "," DEVX("device-1", CAPS(CAP("memory", "1Gi")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('1Gi')) >= 0")))),
	    CLAIM("claim-1", REQX("req-1", "class-a", 1, SELECTORS(SEL("device.capacity['driver-a'].memory.compareTo(quantity('2Gi')) >= 0")))) },
	  NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "} {req-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "devices-split-across-different-slices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE1("slice-2", "node-1", PB, DA) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "obsolete-slice", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1-obsolete", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-1-obsolete", ON("node-1"), POOL(PA, 2, 2), DA, DEV("device-2")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "duplicate-slice", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-1-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, "invalid resource pools were encountered" },
	{ "no-slices", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL,
	  NULL },
	{ "not-enough-suitable-devices", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM1("claim-0", "req-0", "class-a"), CLAIM1("claim-0", "req-1", "class-a") }, NULL, NULL, NULL },
	{ "no-classes", F_NONE, NULL, { 0 }, { SLICE1("slice-1", "node-1", PA, DA) }, { CLAIM1("claim-0", "req-0", "class-a") },
	  NULL, NULL, "could not retrieve device class class-a" },
	{ "unknown-class", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM1("claim-0", "req-0", "unknown-class") }, NULL, NULL, "could not retrieve device class unknown-class" },
	{ "empty-class", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM1("claim-0", "req-0", "") }, NULL, NULL,
	  "claim claim-0, request req-0: missing device class name (unsupported request type?)" },
	{ "no-claims-to-allocate", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) }, { 0 },
	  NULL, "", NULL },
	{ "all-devices-single", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}",
	  NULL },
	{ "all-devices-with-consumed-counters", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}",
	  NULL },
	{ "all-devices-many", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE1("slice-1", "node-1", PB, DA) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "all-devices-of-the-incomplete-pool", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", "`count`:1")) }, NULL, NULL,
	  "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated" },
	{ "all-devices-plus-another", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE1("slice-1", "node-1", PA, DB) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")), CLAIM("claim-1", REQ("req-0", "class-b", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "} {req-0=driver-b/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "all-devices-plus-another-reversed", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE1("slice-1", "node-1", PA, DB) },
	  { CLAIM("claim-1", REQ("req-0", "class-b", 1)), CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL,
	  "{req-0=driver-b/pool-1/device-1" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "all-devices-many-plus-another", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")),
	    SLICE1("slice-1", "node-1", PA, DB) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")), CLAIM("claim-1", REQ("req-0", "class-b", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-2" LOCAL("node-1") "} {req-0=driver-b/pool-1/device-1" LOCAL("node-1") "}",
	  NULL },
	{ "all-devices-many-plus-another-reversed", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")),
	    SLICE1("slice-1", "node-1", PA, DB) },
	  { CLAIM("claim-1", REQ("req-0", "class-b", 1)), CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL,
	  "{req-0=driver-b/pool-1/device-1" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-2" LOCAL("node-1") "}",
	  NULL },
	{ "all-devices-no-solution", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-1", REQ("req-0", "class-a", 1)), CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, NULL, NULL },
	{ "all-devices-no-solution-reversed", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL, NULL, NULL },
	{ "all-devices-slice-without-devices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, "") }, { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL,
	  NULL, NULL },
	{ "all-devices-no-slices", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, NULL, NULL },
	{ "all-devices-some-allocated", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, ALLOCATED(RES("req-0", DA, PA, "device-1")), NULL, NULL },
	{ "all-devices-some-allocated-admin-access", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", "`adminAccess`:true")) }, ALLOCATED(RES("req-0", DA, PA, "device-1")),
	  "{req-0=driver-a/pool-1/device-1+admin;req-0=driver-a/pool-1/device-2+admin" LOCAL("node-1") "}", NULL },
	{ "all-devices-some-allocating-admin-access", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true") "," REQ_ALLX("req-1", "class-a", "`adminAccess`:true")) },
	  NULL, NULL, NULL },
	{ "count-devices-some-allocated-admin-access", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 2, "`adminAccess`:true")) }, ALLOCATED(RES("req-0", DA, PA, "device-1")),
	  "{req-0=driver-a/pool-1/device-1+admin;req-0=driver-a/pool-1/device-2+admin" LOCAL("node-1") "}", NULL },
	{ "separate-claims-share-device-admin-access", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true")),
	    CLAIM("claim-1", REQX("req-0", "class-a", 1, "`adminAccess`:true")) },
	  NULL, "{req-0=driver-a/pool-1/device-1+admin" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1+admin" LOCAL("node-1") "}",
	  NULL },
	{ "admin-access-claims-device-allocating-for-non-admin-access", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM1("claim-0", "req-0", "class-a"), CLAIM("claim-1", REQX("req-0", "class-a", 1, "`adminAccess`:true")) },
	  NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1+admin" LOCAL("node-1") "}",
	  NULL },
	{ "all-devices-slice-without-devices-prioritized-list", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, ""), SLICE1("slice-2", "node-1", PB, DB) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-b", 1))) }, NULL,
	  "{req-0/subReq-1=driver-b/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "all-devices-no-slices-prioritized-list", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) }, { SLICE1("slice-2", "node-1", PB, DB) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-b", 1))) }, NULL,
	  "{req-0/subReq-1=driver-b/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "all-devices-some-allocated-prioritized-list", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")),
	    SLICE1("slice-2", "node-1", PB, DB) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-b", 1))) },
	  ALLOCATED(RES("req-0", DA, PA, "device-1")), "{req-0/subReq-1=driver-b/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "network-attached-device", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", NODE_SEL("region", "region-1"), POOL(PA, 1, 1), DA, DEV("device-1")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-1/device-1 @E:region In region-1}", NULL },
	{ "unsuccessful-allocation-network-attached-device", F_NONE, NODE2, { CLASS("class-a", DA) },
	  { SLICE("slice-1", NODE_SEL("region", "region-1"), POOL(PA, 1, 1), DA, DEV("device-1")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "many-network-attached-devices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", NODE_SEL("region", "region-1"), POOL(PA, 1, 1), DA, DEV("device-1")),
	    SLICE("slice-1", ALL_NODES, POOL(PB, 1, 1), DA, DEV("device-1")),
	    SLICE("slice-1", NODE_SEL("planet", "earth"), POOL("pool-3", 1, 1), DA, DEV("device-1")),
	    SLICE("slice-1", NODE_FIELD("node-1"), POOL("pool-4", 1, 1), DA, DEV("device-1")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 4)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-2/device-1;req-0=driver-a/pool-3/device-1;req-0=driver-a/pool-4/device-1"
	  " @F:metadata.name In node-1 @E:region In region-1,planet In earth}", NULL },
	{ "local-and-network-attached-devices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", NODE_SEL("region", "region-1"), POOL(PA, 1, 1), DA, DEV("device-1")),
	    SLICE1("slice-1", "node-1", PB, DA) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "several-different-drivers", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")),
	    SLICE1("slice-1", "node-1", PA, DB) },
	  { CLAIM1("claim-0", "req-0", "class-a"), CLAIM1("claim-0", "req-0", "class-b") }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "} {req-0=driver-b/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "already-allocated-devices", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM1("claim-0", "req-0", "class-a") },
	  ALLOCATED(RES("req-0", DA, PA, "device-1") "," RES("req-0", DA, PA, "device-2")), NULL, NULL },
	{ "admin-access-disabled", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true")) }, NULL, NULL,
	  "claim claim-0, request req-0: admin access is requested, but the feature is disabled" },
	{ "admin-access-enabled", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA) }, { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true")) },
	  ALLOCATED(RES("req-0", DA, PA, "device-1") "," RES("req-0", DA, PA, "device-2")),
	  "{req-0=driver-a/pool-1/device-1+admin" LOCAL("node-1") "}", NULL },
	{ "with-constraint", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_VER("driverVersion", "1.0.0") "," A_INT("numa", 1) "," A_STR("stringAttribute", "stringAttributeValue") "," A_BOOL("boolAttribute", true))) "," DEVX("device-2", ATTRS(A_VER("driverVersion", "1.0.0") "," A_INT("numa", 1) "," A_STR("stringAttribute", "stringAttributeValue") "," A_BOOL("boolAttribute", true)))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1),
		   CONSTRAINTS(MATCH("driver-a/numa") "," MATCH("driver-a/driverVersion") "," MATCH("driver-a/stringAttribute") "," MATCH("driver-a/boolAttribute"))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "with-constraint-non-existent-attribute", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1), CONSTRAINTS(MATCH("driver-a/NonExistentAttribute"))) }, NULL, NULL,
	  NULL },
	{ "with-constraint-not-matching-int-attribute", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEVX("device-2", ATTRS(A_INT("numa", 2)))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2), CONSTRAINTS(MATCH("driver-a/numa"))) }, NULL, NULL, NULL },
	{ "with-constraint-not-matching-int-attribute-all-devices", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEVX("device-2", ATTRS(A_INT("numa", 2)))) },
	  { CLAIMX("claim-0", REQ_ALL("req-0", "class-a"), CONSTRAINTS(MATCH("driver-a/numa"))) }, NULL, NULL,
	  "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied" },
	{ "partitionable-all-mode-constraint-must-error-with-reserved-counter", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_INT("numa", 1))) ","
		  DEVX("device-2", ATTRS(A_INT("numa", 2)) "," CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))) },
	  { CLAIMX("claim-0", REQ_ALL("req-0", "class-a"), CONSTRAINTS(MATCH("driver-a/numa"))) }, NULL, NULL,
	  "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied" },
	{ "with-constraint-not-matching-string-attribute", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "stringAttributeValue"))) ","
		  DEVX("device-2", ATTRS(A_STR("stringAttribute", "stringAttributeValue2")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2), CONSTRAINTS(MATCH("driver-a/stringAttribute"))) }, NULL, NULL, NULL },
	{ "with-constraint-not-matching-bool-attribute", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_BOOL("boolAttribute", true))) "," DEVX("device-2", ATTRS(A_BOOL("boolAttribute", false)))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2), CONSTRAINTS(MATCH("driver-a/boolAttribute"))) }, NULL, NULL, NULL },
	{ "with-constraint-not-matching-version-attribute", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_VER("driverVersion", "1.0.0"))) "," DEVX("device-2", ATTRS(A_VER("driverVersion", "2.0.0")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2), CONSTRAINTS(MATCH("driver-a/driverVersion"))) }, NULL, NULL, NULL },
	{ "with-constraint-for-request", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_VER("driverVersion", "1.0.0"))) "," DEVX("device-2", ATTRS(A_VER("driverVersion", "2.0.0")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1),
		   CONSTRAINTS(MATCH_FOR("`req-0`", "driver-a/driverVersion"))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "with-constraint-for-request-retry", F_NONE, NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_VER("driverVersion", "1.0.0") "," A_STR("stringAttribute", "a"))) ","
		  DEVX("device-2", ATTRS(A_VER("driverVersion", "2.0.0") "," A_STR("stringAttribute", "b"))) ","
		  DEVX("device-3", ATTRS(A_VER("driverVersion", "3.0.0") "," A_STR("stringAttribute", "b")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1),
		   CONSTRAINTS(MATCH_FOR("`req-0`", "driver-a/driverVersion") "," MATCH("driver-a/stringAttribute"))) },
	  NULL, "{req-0=driver-a/pool-1/device-2;req-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "with-class-device-config", F_NONE, NULL, { CLASS_CFG("class-a", DA, "classAttribute") },
	  { SLICE1("slice-1", "node-1", PA, DA) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") " cfg=class:driver-a:{\"classAttribute\":\"classAttributeValue\"}:}", NULL },
	{ "with-class-device-config-with-multiple-request-and-configs", F_NONE, NULL,
	  { CLASS_CFG("class-a", DA, "classAttribute-A"), CLASS_CFG("class-b", DB, "classAttribute-B") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1")),
	    SLICE1("slice-2", "node-1", PA, DB) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1) "," REQ("req-2", "class-b", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-0;req-1=driver-a/pool-1/device-1;req-2=driver-b/pool-1/device-1" LOCAL("node-1")
	  " cfg=class:driver-a:{\"classAttribute-A\":\"classAttribute-AValue\"}:req-0|req-1"
	  " cfg=class:driver-b:{\"classAttribute-B\":\"classAttribute-BValue\"}:req-2}", NULL },
	{ "with-claim-config-for-two-requests", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2")) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1) "," REQ("req-2", "class-a", 1),
		   CLAIM_CFG("`req-0`,`req-1`", DA, "deviceAttribute")) }, NULL,
	  "{req-0=driver-a/pool-1/device-0;req-1=driver-a/pool-1/device-1;req-2=driver-a/pool-1/device-2" LOCAL("node-1")
	  " cfg=claim:driver-a:{\"deviceAttribute\":\"deviceAttributeValue\"}:req-0|req-1}", NULL },
	{ "claim-with-device-config", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1), CLAIM_CFG("", DA, "deviceAttribute")) }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") " cfg=claim:driver-a:{\"deviceAttribute\":\"deviceAttributeValue\"}:}", NULL },
	{ "unknown-selector", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS("{}"))) }, NULL, NULL,
	  "CEL expression empty (unsupported selector type?)" },
	{ "unknown-allocation-mode", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", "{`name`:`req-0`,`exactly`:{`deviceClassName`:`class-a`,`allocationMode`:`future-mode`,`count`:1}}") },
	  NULL, NULL, "unsupported count mode future-mode" },
	{ "unknown-constraint", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1), CONSTRAINTS("{}")) }, NULL, NULL,
	  "empty constraint (unsupported constraint type?)" },
	{ "invalid-CEL-one-device", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("noSuchVar")))) }, NULL, NULL, "undeclared reference" },
	{ "invalid-CEL-one-device-class", F_NONE, NULL, { CLASS_SEL("class-a", "noSuchVar") },
	  { SLICE1("slice-1", "node-1", PA, DA) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL,
	  "undeclared reference" },
	{ "invalid-CEL-all-devices", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", SELECTORS(SEL("noSuchVar")))) }, NULL, NULL, "undeclared reference" },
	{ "too-many-devices-single-request", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 500)) }, NULL, NULL, "exceeds the claim limit" },
	{ "many-devices-okay", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 }, { CLAIM("claim-0", REQ("req-0", "class-a", 32)) },
	  NULL, NULL, NULL },
	{ "too-many-devices-total", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV("device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8") "," DEV("device-9") "," DEV("device-10") "," DEV("device-11") "," DEV("device-12") "," DEV("device-13") "," DEV("device-14") "," DEV("device-15") "," DEV("device-16") "," DEV("device-17") "," DEV("device-18") "," DEV("device-19") "," DEV("device-20") "," DEV("device-21") "," DEV("device-22") "," DEV("device-23") "," DEV("device-24") "," DEV("device-25") "," DEV("device-26") "," DEV("device-27") "," DEV("device-28") "," DEV("device-29") "," DEV("device-30") "," DEV("device-31") "," DEV("device-32")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 32) "," REQ("req-1", "class-a", 1)) }, NULL, NULL,
	  "exceeds the claim limit" },
	{ "exact-count-total-overflows-claim-limit", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 4611686018427387904) "," REQ("req-1", "class-a", 4611686018427387904)) },
	  NULL, NULL, "exceeds the claim limit" },
	{ "exact-count-total-would-wrap-to-zero", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 4611686018427387904) "," REQ("req-1", "class-a", 4611686018427387904) ","
		  REQ("req-2", "class-a", 4611686018427387904) "," REQ("req-3", "class-a", 4611686018427387904)) },
	  NULL, NULL, "exceeds the claim limit" },
	{ "exact-count-sum-exceeds-claim-limit", F_NONE, NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 20) "," REQ("req-1", "class-a", 20)) }, NULL, NULL,
	  "claim claim-0, request req-1: adding 20 devices exceeds the claim limit of 32, with 20 already accounted for" },
	{ "exact-count-sum-exactly-fills-claim-limit", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV("device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8") "," DEV("device-9") "," DEV("device-10") "," DEV("device-11") "," DEV("device-12") "," DEV("device-13") "," DEV("device-14") "," DEV("device-15") "," DEV("device-16") "," DEV("device-17") "," DEV("device-18") "," DEV("device-19") "," DEV("device-20") "," DEV("device-21") "," DEV("device-22") "," DEV("device-23") "," DEV("device-24") "," DEV("device-25") "," DEV("device-26") "," DEV("device-27") "," DEV("device-28") "," DEV("device-29") "," DEV("device-30") "," DEV("device-31")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 16) "," REQ("req-1", "class-a", 16)) }, NULL,
	  "{req-0=driver-a/pool-1/device-0;req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-10;req-0=driver-a/pool-1/device-11;req-0=driver-a/pool-1/device-12;req-0=driver-a/pool-1/device-13;req-0=driver-a/pool-1/device-14;req-0=driver-a/pool-1/device-15;req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3;req-0=driver-a/pool-1/device-4;req-0=driver-a/pool-1/device-5;req-0=driver-a/pool-1/device-6;req-0=driver-a/pool-1/device-7;req-0=driver-a/pool-1/device-8;req-0=driver-a/pool-1/device-9;req-1=driver-a/pool-1/device-16;req-1=driver-a/pool-1/device-17;req-1=driver-a/pool-1/device-18;req-1=driver-a/pool-1/device-19;req-1=driver-a/pool-1/device-20;req-1=driver-a/pool-1/device-21;req-1=driver-a/pool-1/device-22;req-1=driver-a/pool-1/device-23;req-1=driver-a/pool-1/device-24;req-1=driver-a/pool-1/device-25;req-1=driver-a/pool-1/device-26;req-1=driver-a/pool-1/device-27;req-1=driver-a/pool-1/device-28;req-1=driver-a/pool-1/device-29;req-1=driver-a/pool-1/device-30;req-1=driver-a/pool-1/device-31" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-first-unavailable", F(.prioritized_list = true), NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-b", 1) "," SUB("subReq-1", "class-a", 1))) }, NULL,
	  "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-non-available", F(.prioritized_list = true), NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE1("slice-2", "node-1", PB, DB) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-b", 2) "," SUB("subReq-1", "class-a", 2))) }, NULL, NULL,
	  NULL },
	{ "prioritized-list-device-config", F(.prioritized_list = true), NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DB, DEV("device-1") "," DEV("device-2")) },
	  { CLAIMX("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 1) "," SUB("subReq-1", "class-b", 2)),
		   "`config`:[{`requests`:[`req-0/subReq-0`],`opaque`:{`driver`:`driver-a`,`parameters`:{`foo`:`fooValue`}}},"
		   "{`requests`:[`req-0/subReq-1`],`opaque`:{`driver`:`driver-b`,`parameters`:{`bar`:`barValue`}}}]") },
	  NULL,
	  "{req-0/subReq-1=driver-b/pool-1/device-1;req-0/subReq-1=driver-b/pool-1/device-2" LOCAL("node-1")
	  " cfg=claim:driver-b:{\"bar\":\"barValue\"}:}", NULL },
	{ "prioritized-list-class-config", F(.prioritized_list = true), NULL,
	  { CLASS_CFG("class-a", DA, "foo"), CLASS_CFG("class-b", DB, "bar") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DB, DEV("device-1") "," DEV("device-2")),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEV("device-3")) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 2) "," SUB("subReq-1", "class-b", 2))) }, NULL,
	  "{req-0/subReq-1=driver-b/pool-1/device-1;req-0/subReq-1=driver-b/pool-1/device-2" LOCAL("node-1")
	  " cfg=class:driver-b:{\"bar\":\"barValue\"}:}", NULL },
	{ "claim-config-scoped-to-subrequests-of-one-request", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1")) },
	  { CLAIMX("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 1) "," SUB("subReq-1", "class-b", 1)) "," REQ("req-1", "class-a", 1),
		   CLAIM_CFG("`req-0/subReq-0`,`req-0/subReq-1`", DA, "scoped")) },
	  NULL,
	  "{req-0/subReq-0=driver-a/pool-1/device-0;req-1=driver-a/pool-1/device-1" LOCAL("node-1")
	  " cfg=claim:driver-a:{\"scoped\":\"scopedValue\"}:req-0/subReq-0|req-0/subReq-1}", NULL },
	{ "claim-config-covering-all-requests-is-cleared", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1")) },
	  { CLAIMX("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 1) "," SUB("subReq-1", "class-b", 1)) "," REQ("req-1", "class-a", 1),
		   CLAIM_CFG("`req-0/subReq-0`,`req-1`", DA, "all")) },
	  NULL,
	  "{req-0/subReq-0=driver-a/pool-1/device-0;req-1=driver-a/pool-1/device-1" LOCAL("node-1")
	  " cfg=claim:driver-a:{\"all\":\"allValue\"}:}", NULL },
	{ "prioritized-list-subrequests-with-expressions", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", MEM("2Gi")) "," DEVX("device-2", MEM("2Gi")) "," DEVX("device-3", MEM("1Gi"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, MEM_AT_LEAST("1Gi")) ","
		  FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("4Gi")) "," SUBX("subReq-1", "class-a", 2, MEM_AT_LEAST("2Gi")))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-3;req-1/subReq-1=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}",
	  NULL },
	{ "prioritized-list-subrequests-with-constraints-ref-parent-request", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MEM("8Gi") "," ATTRS(A_VER("driverVersion", "1.0.0")))),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA,
		  DEVX("device-2", MEM("2Gi") "," ATTRS(A_VER("driverVersion", "2.0.0"))) ","
		  DEVX("device-3", MEM("1Gi") "," ATTRS(A_VER("driverVersion", "1.0.0")))) },
	  { CLAIMX("claim-0", REQX("req-0", "class-a", 1, MEM_AT_LEAST("8Gi")) ","
		   FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("2Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("1Gi"))),
		   CONSTRAINTS(MATCH_FOR("`req-0`,`req-1`", "driver-a/driverVersion"))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-2/device-3" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-subrequests-with-constraints-ref-sub-request", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MEM("8Gi") "," ATTRS(A_VER("driverVersion", "1.0.0")))),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEVX("device-2", MEM("2Gi") "," ATTRS(A_VER("driverVersion", "2.0.0")))) },
	  { CLAIMX("claim-0", REQX("req-0", "class-a", 1, MEM_AT_LEAST("8Gi")) ","
		   FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("2Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("1Gi"))),
		   CONSTRAINTS(MATCH_FOR("`req-0`,`req-1/subReq-0`", "driver-a/driverVersion"))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-2/device-2" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-subrequests-with-allocation-mode-all", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-a", 1))) },
	  ALLOCATED(RES("req-0", DA, PA, "device-1")), "{req-0/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all-multiple-requests", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," FIRST("req-1", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-a", 1))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-disabled", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 1))) }, NULL, NULL,
	  "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled" },
	{ "prioritized-list-multi-request", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MEM("8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEVX("device-2", MEM("4Gi"))) },
	  { CLAIM("claim-0", REQX("req-1", "class-a", 1, MEM_AT_LEAST("8Gi")) ","
		  FIRST("req-0", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("8Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-2/device-2;req-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-with-backtracking", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MEM("8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEVX("device-2", MEM("4Gi"))) },
	  { CLAIM("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("8Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))
		  "," REQX("req-1", "class-a", 1, MEM_AT_LEAST("8Gi"))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-2/device-2;req-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-too-many-in-first-subrequest", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-b", 500) "," SUB("subReq-1", "class-a", 1))) }, NULL,
	  "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-minimum-sum-exceeds-claim-limit", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) }, { 0 },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 20) "," FIRST("req-1", SUB("subReq-0", "class-a", 20) "," SUB("subReq-1", "class-a", 24))) },
	  NULL, NULL, "request req-1: adding 20 devices exceeds the claim limit" },
	{ "partitionable-devices-multiple-devices", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi"))) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-multiple-capacity-pools", F(.prioritized_list = true, .partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("cpus", "4") "," CAP("memory", "4Gi")) "," CONSUMES2("counter-set-1", COUNTER("memory", "4Gi"), "counter-set-2", COUNTER("cpus", "4"))) "," DEVX("device-2", CAPS(CAP("cpus", "6") "," CAP("memory", "6Gi")) "," CONSUMES2("counter-set-1", COUNTER("memory", "6Gi"), "counter-set-2", COUNTER("cpus", "6"))) "," DEVX("device-3", CAPS(CAP("cpus", "4") "," CAP("memory", "4Gi")) "," CONSUMES2("counter-set-1", COUNTER("memory", "4Gi"), "counter-set-2", COUNTER("cpus", "4")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA,
			   COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi")) "," COUNTER_SET("counter-set-2", COUNTER("cpus", "8"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) ","
		  FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("6Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-multiple-counters", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", CONSUMES2("counter-set-1", COUNTER("cpus", "6") "," COUNTER("memory", "4Gi"), "counter-set-2", COUNTER("cpus", "4") "," COUNTER("memory", "2Gi"))) ","
		  DEVX("device-2", CONSUMES2("counter-set-1", COUNTER("cpus", "4") "," COUNTER("memory", "6Gi"), "counter-set-2", COUNTER("cpus", "6") "," COUNTER("memory", "6Gi"))) ","
		  DEVX("device-3", CONSUMES2("counter-set-1", COUNTER("cpus", "4") "," COUNTER("memory", "4Gi"), "counter-set-2", COUNTER("cpus", "4") "," COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA,
			   COUNTER_SET("counter-set-1", COUNTER("cpus", "8") "," COUNTER("memory", "18Gi")) ","
			   COUNTER_SET("counter-set-2", COUNTER("cpus", "12") "," COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-2;req-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "tainted-two-devices", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE)) "," DEVX("device-2", TAINTS(TAINT_NO_EXECUTE))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "tainted-one-device-two-taints", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE "," TAINT_NO_EXECUTE))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "tainted-two-devices-tolerated", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE)) "," DEVX("device-2", TAINTS(TAINT_NO_EXECUTE))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, TOLS(TOL_NO_EXECUTE))) }, NULL,
	  "{req-0=driver-a/pool-1/device-2 tol=1" LOCAL("node-1") "}", NULL },
	{ "tainted-two-devices-prioritized-list-tolerated", F(.prioritized_list = true, .device_taints = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE)) "," DEVX("device-2", TAINTS(TAINT_NO_EXECUTE))) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 1) "," SUBX("subReq-1", "class-a", 1, TOLS(TOL_NO_EXECUTE)))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-1/device-2 tol=1" LOCAL("node-1") "}", NULL },
	{ "tainted-no-effect", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NONE))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "tainted-one-device-two-taints-both-tolerated", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE "," TAINT_NO_EXECUTE))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, TOLS(TOL_NO_SCHEDULE "," TOL_NO_EXECUTE))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 tol=2" LOCAL("node-1") "}", NULL },
	{ "tainted-disabled", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE "," TAINT_NO_EXECUTE))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "tainted-prioritized-list", F(.prioritized_list = true, .device_taints = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-b", 1) "," SUB("subReq-1", "class-a", 1))) }, NULL, NULL, NULL },
	{ "tainted-prioritized-list-disabled", F(.prioritized_list = true), NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-b", 1) "," SUB("subReq-1", "class-a", 1))) }, NULL,
	  "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "tainted-admin-access", F(.admin_access = true, .device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true")) },
	  ALLOCATED(RES("req-0", DA, PA, "device-1") "," RES("req-0", DA, PA, "device-2")), NULL, NULL },
	{ "tainted-admin-access-disabled", F(.admin_access = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, "`adminAccess`:true")) },
	  ALLOCATED(RES("req-0", DA, PA, "device-1") "," RES("req-0", DA, PA, "device-2")),
	  "{req-0=driver-a/pool-1/device-1+admin" LOCAL("node-1") "}", NULL },
	{ "tainted-all-devices-single", F(.device_taints = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, NULL, NULL },
	{ "tainted-all-devices-single-disabled", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE))) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-a", 1))) },
	  ALLOCATED(RES("req-0", DA, PA, "device-2")), "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "device-binding-conditions", F(.device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", BC("`IsPrepare`", "`BindingFailed`"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed" LOCAL("node-1") "}", NULL },
	{ "binding-conditions-multiple-devices", F(.device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", BC("`IsPrepare`", "`BindingFailed`")) "," DEVX("device-2", BC("`IsPrepare2`", "`BindingFailed2`")) ","
		  DEVX("device-3", BC("`IsPrepare3`", "`BindingFailed3`"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2) "," REQ("req-1", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed;req-0=driver-a/pool-1/device-2 bc=IsPrepare2/BindingFailed2;"
	  "req-1=driver-a/pool-1/device-3 bc=IsPrepare3/BindingFailed3" LOCAL("node-1") "}", NULL },
	{ "binding-conditions-with-and-without", F(.device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEVX("device-2", BC("`IsPrepare`", "`BindingFailed`"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-1=driver-a/pool-1/device-2 bc=IsPrepare/BindingFailed" LOCAL("node-1") "}", NULL },
	{ "binding-conditions-without-feature-gate", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", BC("`IsPrepare`", "`BindingFailed`"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, NULL, NULL },
	{ "node-restriction", F(.device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", NODE_SEL("planet", "earth"), POOL(PA, 1, 1), DA, DEVX("device-1", "`bindsToNode`:true")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-with-binding-conditions", F(.partitionable_devices = true, .device_binding_and_status = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare`", "`BindingFailed`"))), SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-with-binding-conditions-multiple", F(.partitionable_devices = true, .device_binding_and_status = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare`", "`BindingFailed`")) "," DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare2`", "`BindingFailed2`"))), SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed;req-0=driver-a/pool-1/device-2 bc=IsPrepare2/BindingFailed2" LOCAL("node-1") "}",
	  NULL },
	{ "partitionable-devices-with-binding-conditions-some-devices-no-conditions",
	  F(.partitionable_devices = true, .device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "2Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "2Gi")) "," BC("`IsPrepare`", "`BindingFailed`")) "," DEVX("device-2", CAPS(CAP("memory", "2Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "2Gi"))) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsReady`", "`BindingTimeout`"))), SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 3)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed;req-0=driver-a/pool-1/device-2;"
	  "req-0=driver-a/pool-1/device-3 bc=IsReady/BindingTimeout" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-with-binding-conditions-multi-slices",
	  F(.partitionable_devices = true, .device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-4", ON("node-1"), POOL(PA, 1, 4), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare`", "`BindingFailed`"))),
	    SLICE_COUNTERS("slice-3", ON("node-1"), POOL(PA, 1, 4), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 4), DA, DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-2", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-1", ON("node-1"), POOL(PA, 1, 4), DA, COUNTER_SET("counter-set-2", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 bc=IsPrepare/BindingFailed;req-0=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-with-binding-conditions-and-taints",
	  F(.partitionable_devices = true, .device_taints = true, .device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare`", "`BindingFailed`") "," TAINTS(TAINT("key1", "value1", "NoSchedule"))) "," DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 1), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL, NULL, NULL },
	{ "partitionable-devices-with-binding-conditions-and-taints-tolerated",
	  F(.partitionable_devices = true, .device_taints = true, .device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," BC("`IsPrepare`", "`BindingFailed`") "," TAINTS(TAINT("key1", "value1", "NoSchedule"))) "," DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))), SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 2, TOLS(TOL_EXISTS("key1", "NoSchedule")))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 tol=1 bc=IsPrepare/BindingFailed;req-0=driver-a/pool-1/device-2 tol=1" LOCAL("node-1") "}",
	  NULL },
};
static const size_t n_cases = ARRAY_SIZE(cases);

static void test_dra_allocator_table(void **state)
{
	(void)state;
	/* upstream: cel.NewCache(1, ...) */
	struct dra_cel_cache *cc = dra_cel_cache_new(1);
	assert_non_null(cc);
	int bad = 0;
	for (size_t i = 0; i < n_cases; i++)
		bad += run_case(&cases[i], cc);
	dra_cel_cache_free(cc);
	print_message("%zu cases, %d failed\n", n_cases, bad);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dra_allocator_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
