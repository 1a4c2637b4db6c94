/* The structured device allocator (algorithm/plugins/dra_allocator.h), case by case from
 * k8s.io/dynamic-resource-allocation v0.37.2 structured/internal/allocatortesting/
 * allocator_testing.go TestAllocator: each case keeps upstream's name, features, objects and
 * expectation (the results, compared as upstream's ConsistOf does, i.e. in any order; the node
 * selector; or the error). Objects are written as the JSON the apiserver serves and decoded by
 * apiclient's decoders; in the tables a backquote stands for a JSON double quote so that CEL
 * strings can use single quotes. The allocated state is given as allocation results (upstream's
 * allocatedDevices: a result without shareID; allocatedSharedDeviceIDs and
 * allocatedCapacityDevices: results with shareID and consumedCapacity); upstream's
 * expectNumAllocateOneInvocations is checked through dra_allocator_invocations. Cases left out:
 * those of features csched does not have (compatibility groups, list-type attributes, derived
 * attributes, optional node operations); those whose quantities exceed the int64 milli range the
 * allocator computes in (consumable-capacity-range-policy-request-above-int64-rejected,
 * -rounded-value-overflow-rejected, -overflow-aborts-not-skip, -allocation-mode-all-overflow-aborts,
 * partitionable-devices-counter-quantities-are-not-modified,
 * consumable-capacity-requests-are-not-modified: see docs/config.md); and
 * with-distinct-constraints-unknown-type-attribute (the decoder drops an attribute of no known
 * type). Upstream's test runs with a CEL cache of one entry; so does this. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/plugins/dra_allocator.h"
#include "algorithm/plugins/dra_internal.h"
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
/* classWithAllowMultipleAllocations(name, driver, true) */
#define CLASS_MULTI(name, driver) CLASS_SEL(name, "device.driver == '" driver "' && device.allowMultipleAllocations == true")
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
#define MULTI "`allowMultipleAllocations`:true"
/* withCapacityRequestPolicyRange: default 2, range 2..4 step 2 */
#define CAP_RANGE(name, q) \
	"`" name "`:{`value`:`" q "`,`requestPolicy`:{`default`:`2`,`validRange`:{`min`:`2`,`step`:`2`,`max`:`4`}}}"
/* withFractionalCapacityRequestPolicyRange: default 200m, range 200m..1 step 100m */
#define CAP_FRANGE(name, q) \
	"`" name "`:{`value`:`" q "`,`requestPolicy`:{`default`:`200m`,`validRange`:{`min`:`200m`,`step`:`100m`,`max`:`1`}}}"
/* withCapacityRequestPolicyValidValues(default, capacity, additional) */
#define CAP_VALUES(name, q, def, values) \
	"`" name "`:{`value`:`" q "`,`requestPolicy`:{`default`:`" def "`,`validValues`:[" values "]}}"
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
#define RES_SHARE_ONLY(req, driver, pool, dev) \
	"{`request`:`" req "`,`driver`:`" driver "`,`pool`:`" pool "`,`device`:`" dev "`,`shareID`:`bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb`}"
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

/* upstream's expectNumAllocateOneInvocations, for the cases that have it */
static const struct {
	const char *name;
	int64_t n;
} invocations[] = {
	{ "check-combinations-within-single-request-single-pool-single-slice", 16 },
	{ "check-combinations-within-single-request-single-pool-multiple-slices", 16 },
	{ "check-combinations-within-single-request-multiple-pools-multiple-slices", 16 },
	{ "check-combinations-within-single-request-many-pools", 16 },
	{ "check-combinations-with-backtracking", 12 },
	{ "check-combinations-with-backtracking-across-slices-and-pools", 12 },
	{ "check-combinations-with-prioritized-list", 26 },
	{ "prioritized-list-max-allocation-limit-request", 75 },
	{ "prioritized-list-max-allocation-allocation-mode-all", 42 },
	{ "prioritized-list-overflowing-first-subrequest-is-pruned", 8 },
};

static int64_t want_invocations(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(invocations); i++)
		if (strcmp(invocations[i].name, name) == 0)
			return invocations[i].n;
	return 0;
}

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
	int64_t want = want_invocations(c->name);
	if (want && dra_allocator_invocations(a) != want) {
		print_error("%s: want %lld allocateOne invocations, got %lld\n", c->name, (long long)want,
			    (long long)dra_allocator_invocations(a));
		bad++;
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
	{ "consumable-capacity-disabled-feature", F(.device_binding_and_status = true), NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA) }, { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, NULL, NULL,
	  "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled" },
	{ "consumable-capacity-disabled-feature-with-prioritized-list", F(.prioritized_list = true, .device_binding_and_status = true),
	  NULL, { CLASS("class-a", DA) }, { SLICE1("slice-1", "node-1", PA, DA) },
	  { CLAIM("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, CAP_REQ("1")) "," SUBX("subReq-1", "class-a", 1, CAP_REQ("1")))) },
	  NULL, NULL, "claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled" },
	{ "consumable-capacity-multi-allocatable-device-with-missing-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-1", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request",
	  F(.consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-1", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", CAP_REQ("1"))) }, NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request", F(.consumable_capacity = true),
	  NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI)) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1 share" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request", F(.consumable_capacity = true),
	  NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "1")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-2 share cap=capacity-0:1" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block", F(.consumable_capacity = true),
	  NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI)) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))), CLAIM("claim-1", REQX("req-0", "class-a", 1, CAP_REQ("1"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1 share cap=capacity-0:1" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-with-zero-request-policy", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_VALUES("capacity-0", "1", "0", "`0`")))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-0", "class-a", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:0" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1 share cap=capacity-0:0" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-violates-zero-request-policy", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_VALUES("capacity-0", "1", "0", "`0`")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))), CLAIM("claim-1", REQX("req-0", "class-a", 1, CAP_REQ("1"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "} {req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-with-range-policy-step", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("3"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:4" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-negative-request-aborts", F(.consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "10")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("-5"))) }, NULL, NULL, "negative" },
	{ "consumable-capacity-multi-allocatable-device-with-valid-values-policy", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_VALUES("capacity-0", "4", "1", "`1`,`2`")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_VALUES("capacity-0", "3", "1", "`1`,`3`")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:3" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))), CLAIM("claim-1", REQX("req-0", "class-a", 1, CAP_REQ("2"))) },
	  NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "10")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("6"))) }, NULL, NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`2`")),
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "2"))) "," DEVX("device-2", MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`2`")),
	  "{req-0=driver-a/pool-1/device-2 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-with-multi-allocatable-device-backtrack", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-2", ATTRS(A_STR("stringAttribute", "stringAttributeValue1")) "," MULTI "," CAPS(CAP_RANGE("capacity-0", "2"))) ","
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "stringAttributeValue2")) "," MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIMX("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2")) "," REQX("req-1", "class-a", 1, CAP_REQ("2")),
		   CONSTRAINTS(MATCH("driver-a/stringAttribute"))),
	    CLAIM("claim-1", REQX("req-0", "class-a", 1, CAP_REQ("2"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2;req-1=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1")
	  "} {req-0=driver-a/pool-1/device-2 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-with-subrequest", F(.prioritized_list = true, .consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, CAP_REQ("4")) "," SUBX("subReq-1", "class-a", 1, CAP_REQ("2"))
		  "," SUB("subReq-1", "class-a", 1))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`2`")), NULL, NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity", F(.consumable_capacity = true),
	  NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI) "," DEVX("device-2", MULTI)) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", CAP_REQ("2"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity",
	  F(.consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", CAP_REQ("2"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient", F(.consumable_capacity = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1")) "," REQ_ALLX("req-1", "class-a", CAP_REQ("1"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1;req-1=driver-a/pool-1/device-1 share cap=capacity-0:1;"
	  "req-1=driver-a/pool-1/device-2 share cap=capacity-0:1" LOCAL("node-1") "}", NULL },
	{ "with-distinct-constraints", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_VER("driverVersion", "1.0.0") "," A_INT("numa", 0) "," A_BOOL("boolAttribute", true)) "," MULTI) "," DEVX("device-2", ATTRS(A_VER("driverVersion", "1.0.1") "," A_INT("numa", 1) "," A_BOOL("boolAttribute", false)) "," MULTI) "," DEVX("device-3", ATTRS(A_VER("driverVersion", "1.0.2") "," A_INT("numa", 2) "," A_BOOL("boolAttribute", true)) "," MULTI) "," DEVX("device-4", ATTRS(A_VER("driverVersion", "1.0.0") "," A_INT("numa", 3) "," A_BOOL("boolAttribute", true)) "," MULTI)) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1) "," REQ("req-2", "class-a", 1) "," REQ("req-3", "class-a", 1),
		   CONSTRAINTS("{`distinctAttribute`:`driver-a/boolAttribute`,`requests`:[`req-0`,`req-1`]},"
			       "{`distinctAttribute`:`driver-a/driverVersion`,`requests`:[`req-0`,`req-1`,`req-2`]},"
			       "{`distinctAttribute`:`driver-a/numa`,`requests`:[`req-0`,`req-1`,`req-2`,`req-3`]}")) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share;req-1=driver-a/pool-1/device-2 share;req-2=driver-a/pool-1/device-3 share;"
	  "req-3=driver-a/pool-1/device-4 share" LOCAL("node-1") "}", NULL },
	{ "distinct-constraint-single-request-count-3-not-distinct", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "value1"))) "," DEVX("device-2", ATTRS(A_STR("stringAttribute", "value2"))) ","
		  DEVX("device-3", ATTRS(A_STR("stringAttribute", "value1")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 3), CONSTRAINTS(DISTINCT("driver-a/stringAttribute"))) }, NULL, NULL, NULL },
	{ "distinct-constraint-single-request-count-3-all-distinct", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "value1"))) "," DEVX("device-2", ATTRS(A_STR("stringAttribute", "value2"))) ","
		  DEVX("device-3", ATTRS(A_STR("stringAttribute", "value3")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 3), CONSTRAINTS(DISTINCT("driver-a/stringAttribute"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "distinct-constraint-two-requests-with-count-not-distinct", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "value1"))) "," DEVX("device-2", ATTRS(A_STR("stringAttribute", "value2"))) ","
		  DEVX("device-3", ATTRS(A_STR("stringAttribute", "value1")))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2) "," REQ("req-1", "class-a", 1),
		   CONSTRAINTS("{`distinctAttribute`:`driver-a/stringAttribute`,`requests`:[`req-0`,`req-1`]}")) },
	  NULL, NULL, NULL },
	{ "with-distinct-constraints-attribute-not-set", F(.consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI)) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 1), CONSTRAINTS("{`distinctAttribute`:`driver-a/boolAttribute`,`requests`:[`req-0`]}")) },
	  NULL, NULL, NULL },
	{ "with-distinct-constraints-with-subrequests", F(.prioritized_list = true, .consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_BOOL("boolAttribute", true)) "," MULTI) "," DEVX("device-2", ATTRS(A_BOOL("boolAttribute", false)) "," MULTI)) },
	  { CLAIMX("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].boolAttribute"))) "," SUB("subReq-1", "class-a", 1)) "," FIRST("req-1", SUBX("subReq-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].boolAttribute"))) "," SUB("subReq-1", "class-a", 1)) "," FIRST("req-2", SUBX("subReq-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].boolAttribute"))) "," SUB("subReq-1", "class-a", 1)),
		   CONSTRAINTS("{`distinctAttribute`:`driver-a/boolAttribute`,`requests`:[`req-0`,`req-1`]}")) },
	  NULL,
	  "{req-0/subReq-0=driver-a/pool-1/device-1 share;req-1/subReq-1=driver-a/pool-1/device-2 share;"
	  "req-2/subReq-0=driver-a/pool-1/device-1 share" LOCAL("node-1") "}", NULL },
	{ "distinct-constraint-single-request-multiple-devices-attribute-not-set", F(.consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2") "," DEV("device-3")) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 3), CONSTRAINTS(DISTINCT("driver-a/numa"))) }, NULL, NULL, NULL },
	{ "distinct-constraint-single-request-not-enough-distinct-values", F(.consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEVX("device-2", ATTRS(A_INT("numa", 2))) ","
		  DEVX("device-3", ATTRS(A_INT("numa", 2))) "," DEVX("device-4", ATTRS(A_INT("numa", 2)))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 3), CONSTRAINTS(DISTINCT("driver-a/numa"))) }, NULL, NULL, NULL },
	{ "distinct-constraint-single-request-multiple-devices-attribute-set", F(.consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEVX("device-2", ATTRS(A_INT("numa", 2))) ","
		  DEVX("device-3", ATTRS(A_INT("numa", 1))) "," DEVX("device-4", ATTRS(A_INT("numa", 3)))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 3), CONSTRAINTS(DISTINCT("driver-a/numa"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-4" LOCAL("node-1") "}", NULL },
	{ "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "stringAttributeValue")) "," MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIMX("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1")) "," REQX("req-1", "class-a", 1, CAP_REQ("1")),
		   CONSTRAINTS(DISTINCT("driver-a/stringAttribute"))) },
	  NULL, NULL, NULL },
	{ "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint", F(.consumable_capacity = true), NULL,
	  { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "stringAttributeValue1")) "," MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))),
	    SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-2", ATTRS(A_STR("stringAttribute", "stringAttributeValue2")) "," MULTI "," CAPS(CAP_RANGE("capacity-0", "4")))) },
	  { CLAIMX("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2")) "," REQX("req-1", "class-a", 1, CAP_REQ("2")),
		   CONSTRAINTS(DISTINCT("driver-a/stringAttribute"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2;req-1=driver-a/pool-1/device-2 share cap=capacity-0:2" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-fractional-range-gate-disabled", F(.consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_FRANGE("capacity-0", "1")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("200m"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-fractional-range-gate-enabled-round-up",
	  F(.consumable_capacity = true, .fractional_capacity_range = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_FRANGE("capacity-0", "1")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("250m"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:300m" LOCAL("node-1") "}", NULL },
	{ "allocation-mode-all-with-multi-host-resource-pool", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-2", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-2")) },
	  { CLAIM("claim-0", REQ_ALL("req-0", "class-a")) }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "multi-host-resource-pool-with-stale-slice-for-current-node", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")), SLICE("slice-2", ON("node-2"), POOL(PA, 2, 2), DA, DEV("device-2")) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "multi-host-resource-pool-complete-update-from-node-1-to-node-2", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")), SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-2")), SLICE("slice-2", ON("node-2"), POOL(PA, 2, 2), DA, DEV("device-1")), SLICE("slice-2", ON("node-2"), POOL(PA, 2, 2), DA, DEV("device-2")) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "multi-host-resource-pool-complete-update-from-node-2-to-node-1", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-1")), SLICE("slice-1", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-2")), SLICE("slice-2", ON("node-1"), POOL(PA, 2, 2), DA, DEV("device-1")), SLICE("slice-2", ON("node-1"), POOL(PA, 2, 2), DA, DEV("device-2")) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")), SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-2")), SLICE("slice-2", ON("node-2"), POOL(PA, 2, 2), DA, DEV("device-1")) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-1")), SLICE("slice-1", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-2")), SLICE("slice-2", ON("node-1"), POOL(PA, 2, 2), DA, DEV("device-1")) }, { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, NULL },
	{ "partitionable-devices-same-counter-set-name-in-different-resource-slices", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 4), DA, DEV("device-1")),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 4), DA, COUNTER_SET("counter-set-1", "")),
	    SLICE("slice-3", ON("node-1"), POOL(PA, 1, 4), DA, DEV("device-2")),
	    SLICE_COUNTERS("slice-4", ON("node-1"), POOL(PA, 1, 4), DA, COUNTER_SET("counter-set-1", "")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, "invalid resource pools were encountered" },
	{ "partitionable-devices-device-counter-consumption-references-unknown-counter-set", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-2", ""))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", "")) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, "invalid resource pools were encountered" },
	{ "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set",
	  F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "8Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("other-memory", "8Gi"))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, "invalid resource pools were encountered" },
	{ "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool",
	  F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "8Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM1("claim-0", "req-0", "class-a") }, NULL, NULL, "invalid resource pools were encountered" },
	{ "partitionable-devices-devices-on-different-nodes-consume-same-counter-set",
	  F(.prioritized_list = true, .partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE_COUNTERS("slice-1", ON("node-1"), POOL(PA, 1, 3), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 3), DA, DEVX("device-1", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "2Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "2Gi")))),
	    SLICE("slice-3", ON("node-2"), POOL(PA, 1, 3), DA, DEVX("device-3", CONSUMES("counter-set-1", COUNTER("memory", "6Gi")))) },
	  { CLAIM("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("6Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("2Gi")))) },
	  ALLOCATED(RES("req-0", DA, PA, "device-3")), "{req-0/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-devices-consume-counter-set-in-different-nodes", F(.partitionable_devices = true),
	  NODE("node-2", "region-1"), { CLASS("class-a", DA) },
	  { SLICE_COUNTERS("slice-1", ON("node-1"), POOL(PA, 1, 3), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 3), DA, DEVX("device-1", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi")))),
	    SLICE("slice-3", ON("node-2"), POOL(PA, 1, 3), DA, DEVX("device-2", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi"))) "," DEVX("device-3", CAPS(CAP("memory", "2Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "2Gi")))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, ALLOCATED(RES("req-0", DA, PA, "device-1")),
	  "{req-0=driver-a/pool-1/device-3" LOCAL("node-2") "}", NULL },
	{ "partitionable-devices-validation-error-on-non-targeting-slice", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE_COUNTERS("slice-1", ON("node-1"), POOL(PA, 1, 3), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 3), DA, DEVX("device-1", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi")))),
	    SLICE("slice-3", ON("node-2"), POOL(PA, 1, 3), DA, DEVX("device-3", CONSUMES("counter-set-2", COUNTER("memory", "6Gi")))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, NULL, "invalid resource pools were encountered" },
	{ "different-resourceslices-in-pool-can-target-different-nodes", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-2"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-2")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "invalid-pool-is-ok-if-devices-can-be-allocated-from-other", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 1), DA, DEV("device-2")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-2/device-2" LOCAL("node-1") "}", NULL },
	{ "invalid-pool-is-error-if-no-other-device-can-be-allocated", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 1), DA, DEV("device-2")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, ALLOCATED(RES("req-0", DA, PB, "device-2")), NULL,
	  "invalid resource pools were encountered" },
	{ "no-allocation-from-incomplete-pools", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")) }, { CLAIM("claim-0", REQ("req-0", "class-a", 1)) },
	  NULL, NULL, NULL },
	{ "check-combinations-within-single-request-single-pool-single-slice", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 5)) }, NULL, NULL, NULL },
	{ "check-combinations-within-single-request-single-pool-multiple-slices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1") "," DEV("device-2")),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-3") "," DEV("device-4")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 5)) }, NULL, NULL, NULL },
	{ "check-combinations-within-single-request-multiple-pools-multiple-slices", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-1")),
	    SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEV("device-2")),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 1), DA, DEV("device-3") "," DEV("device-4")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 5)) }, NULL, NULL, NULL },
	{ "check-combinations-within-single-request-many-pools", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE1("slice-1", "node-1", PA, DA), SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEV("device-2")),
	    SLICE("slice-3", ON("node-1"), POOL("pool-3", 1, 1), DA, DEV("device-3")),
	    SLICE("slice-4", ON("node-1"), POOL("pool-4", 1, 1), DA, DEV("device-4")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 5)) }, NULL, NULL, NULL },
	{ "check-combinations-with-backtracking", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("type", "X"))) "," DEVX("device-2", ATTRS(A_STR("type", "Y"))) "," DEVX("device-3", ATTRS(A_STR("type", "Y")))) },
	  { CLAIM("claim-0", REQ("req-1", "class-a", 2) "," REQX("req-2", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].type == 'X'")))) }, NULL,
	  "{req-1=driver-a/pool-1/device-2;req-1=driver-a/pool-1/device-3;req-2=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "check-combinations-with-backtracking-across-slices-and-pools", F(.device_binding_and_status = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", ATTRS(A_STR("type", "X")))), SLICE("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-2", ATTRS(A_STR("type", "Y")))),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 1), DA, DEVX("device-3", ATTRS(A_STR("type", "Y")) "," BC("`IsPrepare`", ""))) },
	  { CLAIM("claim-0", REQ("req-1", "class-a", 2) "," REQX("req-2", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].type == 'X'")))) }, NULL,
	  "{req-1=driver-a/pool-1/device-2;req-1=driver-a/pool-2/device-3 bc=IsPrepare/;req-2=driver-a/pool-1/device-1" LOCAL("node-1") "}",
	  NULL },
	{ "check-combinations-with-prioritized-list", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("type", "X"))) "," DEVX("device-2", ATTRS(A_STR("type", "Y"))) "," DEVX("device-3", ATTRS(A_STR("type", "Y")))) },
	  { CLAIM("claim-0", FIRST("req-1", SUBX("subReq-0", "class-a", 3, SELECTORS(SEL("device.attributes['driver-a'].type == 'Y'"))) "," SUB("subReq-1", "class-a", 2)) ","
		  FIRST("req-2", SUB("subReq-0", "class-a", 2) "," SUBX("subReq-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].type == 'X'"))))) },
	  NULL,
	  "{req-1/subReq-1=driver-a/pool-1/device-2;req-1/subReq-1=driver-a/pool-1/device-3;req-2/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}",
	  NULL },
	{ "partitionable-devices-disabled-per-device-node-selection", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", PER_DEVICE, POOL(PA, 1, 1), DA, DEVX("device-2", ON("node-1"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, NULL, NULL },
	{ "partitionable-devices-per-device-node-selection-nodename", F(.prioritized_list = true, .partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", PER_DEVICE, POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," ON("node-1")) "," DEVX("device-2", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi")) "," ON("node-2"))),
	    SLICE_COUNTERS("slice-2", PER_DEVICE, POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", FIRST("req-0", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("6Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-per-device-node-selection-node-selector", F(.prioritized_list = true, .partitionable_devices = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", PER_DEVICE, POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," NODE_SEL("region", "region-1"))),
	    SLICE_COUNTERS("slice-2", PER_DEVICE, POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-1/device-1 @E:region In region-1}", NULL },
	{ "partitionable-devices-per-device-node-selection-node-selector-multiple-devices",
	  F(.prioritized_list = true, .partitionable_devices = true), NULL, { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", PER_DEVICE, POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," NODE_SEL("region", "region-1")) "," DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," ON("node-1")) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," ALL_NODES)),
	    SLICE_COUNTERS("slice-2", PER_DEVICE, POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 2), DB, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-2", COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-2", COUNTER("memory", "4Gi"))) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-2", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-4", ON("node-1"), POOL(PB, 1, 2), DB, COUNTER_SET("counter-set-2", COUNTER("memory", "12Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 3) "," REQ("req-1", "class-b", 3)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3;"
	  "req-1=driver-b/pool-2/device-1;req-1=driver-b/pool-2/device-2;req-1=driver-b/pool-2/device-3" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient", F(.consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", CAP_REQ("1"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`1`")),
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1;req-0=driver-a/pool-1/device-2 share cap=capacity-0:1" LOCAL("node-1") "}",
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient", F(.consumable_capacity = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "1")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1")) "," REQ_ALLX("req-1", "class-a", CAP_REQ("1"))) }, NULL, NULL,
	  NULL },
	{ "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient", F(.consumable_capacity = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "1")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQ_ALLX("req-0", "class-a", CAP_REQ("1"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`1`")), NULL, NULL },
	{ "consumable-capacity-dedicated-device-with-consumable-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_SEL("class-a", "device.driver == 'driver-a' && device.allowMultipleAllocations == false") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "1")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request", F(.consumable_capacity = true), NULL,
	  { CLASS_SEL("class-a", "device.driver == 'driver-a' && device.allowMultipleAllocations == false") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))), CLAIM("claim-1", REQX("req-0", "class-a", 1, CAP_REQ("1"))) },
	  NULL, NULL, NULL },
	{ "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector", F(.consumable_capacity = true), NULL,
	  { CLASS_SEL("class-a", "device.driver == 'driver-a' && device.allowMultipleAllocations == false") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("capacity-0", "1")) "," MULTI)) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, NULL, NULL, NULL },
	{ "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated", F(.consumable_capacity = true),
	  NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", MULTI "," CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) }, ALLOCATED(RES("req-0", DA, PA, "device-1")), NULL, NULL },
	{ "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable",
	  F(.consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP_RANGE("capacity-0", "2")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1"))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`1`")), NULL, NULL },
	{ "allow-multiple-allocations-with-partitionable-device",
	  F(.prioritized_list = true, .partitionable_devices = true, .consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," MULTI) "," DEVX("device-2", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi")) "," MULTI) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")) "," MULTI)),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) ","
		  FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("6Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=memory:4Gi;req-1/subReq-1=driver-a/pool-1/device-3 share cap=memory:4Gi" LOCAL("node-1") "}",
	  NULL },
	{ "allow-multiple-allocations-with-shared-device-counter-cross-cycle",
	  F(.partitionable_devices = true, .consumable_capacity = true), NULL, { CLASS_MULTI("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_STR("mode", "a")) "," CAPS(CAP("capacity-0", "1")) "," CONSUMES("counter-set-1", COUNTER("capacity-0", "1")) "," MULTI) ","
		  DEVX("device-2", ATTRS(A_STR("mode", "b")) "," CAPS(CAP("capacity-0", "1")) "," CONSUMES("counter-set-1", COUNTER("capacity-0", "1")) "," MULTI)),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("capacity-0", "1"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1") "," SELECTORS(SEL("device.attributes['driver-a'].mode == 'b'")))) },
	  ALLOCATED(RES_SHARED("req-0", DA, PA, "device-1", "`capacity-0`:`1`")), NULL, NULL },
	{ "partitionable-consumable-capacity-shared-device-counter-not-recharged",
	  F(.partitionable_devices = true, .consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", MULTI "," CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, ALLOCATED(RES_SHARE_ONLY("req-0", DA, PA, "device-1")),
	  "{req-0=driver-a/pool-1/device-1 share" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-with-partitionable-device-multiple-capacity-pools",
	  F(.prioritized_list = true, .partitionable_devices = true, .consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("capacity-0", "2") "," CAP_RANGE("capacity-1", "4")) "," CONSUMES2("counter-set-1", COUNTER("capacity-0", "2"), "counter-set-2", COUNTER("capacity-1", "4")) "," MULTI) "," DEVX("device-2", CAPS(CAP("capacity-0", "4") "," CAP_RANGE("capacity-1", "4")) "," CONSUMES2("counter-set-1", COUNTER("capacity-0", "4"), "counter-set-2", COUNTER("capacity-1", "4")) "," MULTI) "," DEVX("device-3", CAPS(CAP("capacity-0", "2") "," CAP_RANGE("capacity-1", "4")) "," CONSUMES2("counter-set-1", COUNTER("capacity-0", "2"), "counter-set-2", COUNTER("capacity-1", "4")) "," MULTI)),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA,
			   COUNTER_SET("counter-set-1", COUNTER("capacity-0", "4")) "," COUNTER_SET("counter-set-2", COUNTER("capacity-1", "8"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("1")) "," REQX("req-2", "class-a", 1, CAP_REQ("2")) ","
		  FIRST("req-1", SUBX("subReq-0", "class-a", 1, CAP_REQ("1") "," SELECTORS(SEL("device.capacity['driver-a']['capacity-0'].compareTo(quantity('4')) >= 0")))
			"," SUBX("subReq-1", "class-a", 1, CAP_REQ("1") "," SELECTORS(SEL("device.capacity['driver-a']['capacity-0'].compareTo(quantity('2')) >= 0"))))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:1,capacity-1:2;req-1/subReq-1=driver-a/pool-1/device-1 share cap=capacity-0:1,capacity-1:2;"
	  "req-2=driver-a/pool-1/device-3 share cap=capacity-0:2,capacity-1:2" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-single-device", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-counter-cache-scoped-by-pool-ID", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))),
	    SLICE("slice-3", ON("node-1"), POOL(PA, 1, 2), DB, DEVX("device-2", CONSUMES("counter-set-1", COUNTER("c", "2")))),
	    SLICE_COUNTERS("slice-4", ON("node-1"), POOL(PA, 1, 2), DB, COUNTER_SET("counter-set-1", COUNTER("c", "2"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-1", "class-b", 1)) }, NULL,
	  "{req-0=driver-a/pool-1/device-1" LOCAL("node-1") "} {req-1=driver-b/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-counter-cache-not-crossed-between-driver-schemas", F(.partitionable_devices = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))),
	    SLICE("slice-3", ON("node-1"), POOL(PA, 1, 2), DB, DEVX("device-2", CONSUMES("counter-set-2", COUNTER("d", "2")))),
	    SLICE_COUNTERS("slice-4", ON("node-1"), POOL(PA, 1, 2), DB, COUNTER_SET("counter-set-2", COUNTER("d", "1"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)), CLAIM("claim-1", REQ("req-1", "class-b", 1)) }, NULL, NULL, NULL },
	{ "partitionable-devices-taint-releases-counter", F(.partitionable_devices = true, .device_taints = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", TAINTS(TAINT_NO_SCHEDULE) "," CONSUMES("counter-set-1", COUNTER("c", "1"))) ","
		  DEVX("device-2", CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-constraint-releases-counter", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_STR("stringAttribute", "red")) "," CONSUMES("counter-set-1", COUNTER("c", "1"))) ","
		  DEVX("device-2", ATTRS(A_STR("stringAttribute", "blue")) "," CONSUMES("counter-set-1", COUNTER("c", "1"))) ","
		  DEVX("device-3", ATTRS(A_STR("stringAttribute", "blue")) "," CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "2"))) },
	  { CLAIMX("claim-0", REQ("req-0", "class-a", 2), CONSTRAINTS(MATCH("driver-a/stringAttribute"))) }, NULL,
	  "{req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-consumable-capacity-backtrack-releases-counter", F(.partitionable_devices = true, .consumable_capacity = true),
	  NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_STR("kind", "shared")) "," MULTI "," CONSUMES("counter-set-1", COUNTER("c", "1"))) ","
		  DEVX("device-2", ATTRS(A_STR("kind", "shared"))) ","
		  DEVX("device-3", ATTRS(A_STR("kind", "counteronly")) "," CONSUMES("counter-set-1", COUNTER("c", "1")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'shared'"))) "," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'counteronly'")))) }, NULL,
	  "{req-0=driver-a/pool-1/device-2;req-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "consumable-capacity-rejection-rolls-back-constraints", F(.prioritized_list = true, .consumable_capacity = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", CAPS(CAP("capacity-0", "2")) "," ATTRS(A_STR("stringAttribute", "cap")) "," MULTI) ","
		  DEVX("device-2", ATTRS(A_STR("stringAttribute", "fb")))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, CAP_REQ("2") "," SELECTORS(SEL("device.attributes['driver-a'].stringAttribute == 'cap'")))),
	    CLAIMX("claim-1", FIRST("req-0",
		  "{`name`:`subReq-0`,`deviceClassName`:`class-a`,`allocationMode`:`All`,`count`:1," CAP_REQ("2") ","
		  SELECTORS(SEL("device.attributes['driver-a'].stringAttribute == 'cap'")) "}" ","
		  SUBX("subReq-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].stringAttribute == 'fb'")))),
		   CONSTRAINTS(MATCH("driver-a/stringAttribute"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share cap=capacity-0:2" LOCAL("node-1") "} {req-0/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}",
	  NULL },
	{ "partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership",
	  F(.partitionable_devices = true, .consumable_capacity = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_STR("kind", "shared") "," A_STR("stringAttribute", "red")) "," MULTI "," CONSUMES("counter-set-1", COUNTER("c", "1"))) ","
		  DEVX("device-2", ATTRS(A_STR("kind", "fallback") "," A_STR("stringAttribute", "blue"))) ","
		  DEVX("device-3", ATTRS(A_STR("kind", "gate") "," A_STR("stringAttribute", "blue")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("c", "1"))) },
	  { CLAIM("claim-0", REQX("req-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'shared'")))),
	    CLAIMX("claim-1", REQX("req-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'shared' || device.attributes['driver-a'].kind == 'fallback'")))
		   "," REQX("req-2", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'gate'"))) "," REQX("req-3", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].kind == 'shared'"))),
		   CONSTRAINTS(MATCH_FOR("`req-1`,`req-2`", "driver-a/stringAttribute"))) },
	  NULL,
	  "{req-0=driver-a/pool-1/device-1 share" LOCAL("node-1") "} {req-1=driver-a/pool-1/device-2;req-2=driver-a/pool-1/device-3;"
	  "req-3=driver-a/pool-1/device-1 share" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-prioritized-list", F(.prioritized_list = true, .partitionable_devices = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "6Gi"))) "," DEVX("device-3", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) ","
		  FIRST("req-1", SUBX("subReq-0", "class-a", 1, MEM_AT_LEAST("6Gi")) "," SUBX("subReq-1", "class-a", 1, MEM_AT_LEAST("4Gi")))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "max-number-devices", F_NONE, NULL, { CLASS("class-a", DA) }, { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV("device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8") "," DEV("device-9") "," DEV("device-10") "," DEV("device-11") "," DEV("device-12") "," DEV("device-13") "," DEV("device-14") "," DEV("device-15") "," DEV("device-16") "," DEV("device-17") "," DEV("device-18") "," DEV("device-19") "," DEV("device-20") "," DEV("device-21") "," DEV("device-22") "," DEV("device-23") "," DEV("device-24") "," DEV("device-25") "," DEV("device-26") "," DEV("device-27") "," DEV("device-28") "," DEV("device-29") "," DEV("device-30") "," DEV("device-31")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 32)) }, NULL, "{req-0=driver-a/pool-1/device-0;req-0=driver-a/pool-1/device-1;req-0=driver-a/pool-1/device-10;req-0=driver-a/pool-1/device-11;req-0=driver-a/pool-1/device-12;req-0=driver-a/pool-1/device-13;req-0=driver-a/pool-1/device-14;req-0=driver-a/pool-1/device-15;req-0=driver-a/pool-1/device-16;req-0=driver-a/pool-1/device-17;req-0=driver-a/pool-1/device-18;req-0=driver-a/pool-1/device-19;req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-20;req-0=driver-a/pool-1/device-21;req-0=driver-a/pool-1/device-22;req-0=driver-a/pool-1/device-23;req-0=driver-a/pool-1/device-24;req-0=driver-a/pool-1/device-25;req-0=driver-a/pool-1/device-26;req-0=driver-a/pool-1/device-27;req-0=driver-a/pool-1/device-28;req-0=driver-a/pool-1/device-29;req-0=driver-a/pool-1/device-3;req-0=driver-a/pool-1/device-30;req-0=driver-a/pool-1/device-31;req-0=driver-a/pool-1/device-4;req-0=driver-a/pool-1/device-5;req-0=driver-a/pool-1/device-6;req-0=driver-a/pool-1/device-7;req-0=driver-a/pool-1/device-8;req-0=driver-a/pool-1/device-9" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-with-attribute-selector", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", ATTRS(A_BOOL("special", true)) "," CONSUMES2("counter-set-1", COUNTER("cpu1", "1"), "counter-set-2", COUNTER("mem", "10Gi"))) ","
		  DEVX("device-2", ATTRS(A_BOOL("special", false)) "," CONSUMES2("counter-set-1", COUNTER("cpu2", "1"), "counter-set-2", COUNTER("mem", "10Gi"))) ","
		  DEVX("device-3", ATTRS(A_BOOL("special", false)) "," CONSUMES2("counter-set-1", COUNTER("cpu3", "1"), "counter-set-2", COUNTER("mem", "10Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA,
			   COUNTER_SET("counter-set-1", COUNTER("cpu1", "1") "," COUNTER("cpu2", "1") "," COUNTER("cpu3", "1")) ","
			   COUNTER_SET("counter-set-2", COUNTER("mem", "30Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2) "," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].special")))) },
	  NULL, "{req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3;req-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-max-allocation-limit-request", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV("device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8") "," DEV("device-9") "," DEV("device-10") "," DEV("device-11") "," DEV("device-12") "," DEV("device-13") "," DEV("device-14") "," DEV("device-15") "," DEV("device-16") "," DEV("device-17") "," DEV("device-18") "," DEV("device-19") "," DEV("device-20") "," DEV("device-21") "," DEV("device-22") "," DEV("device-23") "," DEV("device-24") "," DEV("device-25") "," DEV("device-26") "," DEV("device-27") "," DEV("device-28") "," DEV("device-29") "," DEV("device-30") "," DEV("device-31") "," DEV("device-32") "," DEV("device-33") "," DEV("device-34") "," DEV("device-35") "," DEV("device-36") "," DEV("device-37") "," DEV("device-38") "," DEV("device-39") "," DEV("device-40") "," DEV("device-41") "," DEV("device-42") "," DEV("device-43") "," DEV("device-44") "," DEV("device-45") "," DEV("device-46") "," DEV("device-47") "," DEV("device-48") "," DEV("device-49") "," DEV("device-50") "," DEV("device-51") "," DEV("device-52") "," DEV("device-53") "," DEV("device-54") "," DEV("device-55") "," DEV("device-56") "," DEV("device-57") "," DEV("device-58") "," DEV("device-59") "," DEV("device-60") "," DEV("device-61") "," DEV("device-62") "," DEV("device-63")) },
	  { CLAIM("claim-0", FIRST("req-0", SUB("subReq-0", "class-a", 32) "," SUB("subReq-1", "class-a", 16)) ","
		  FIRST("req-1", SUB("subReq-0", "class-a", 32) "," SUB("subReq-1", "class-a", 16))) },
	  NULL, "{req-0/subReq-1=driver-a/pool-1/device-0;req-0/subReq-1=driver-a/pool-1/device-1;req-0/subReq-1=driver-a/pool-1/device-10;req-0/subReq-1=driver-a/pool-1/device-11;req-0/subReq-1=driver-a/pool-1/device-12;req-0/subReq-1=driver-a/pool-1/device-13;req-0/subReq-1=driver-a/pool-1/device-14;req-0/subReq-1=driver-a/pool-1/device-15;req-0/subReq-1=driver-a/pool-1/device-2;req-0/subReq-1=driver-a/pool-1/device-3;req-0/subReq-1=driver-a/pool-1/device-4;req-0/subReq-1=driver-a/pool-1/device-5;req-0/subReq-1=driver-a/pool-1/device-6;req-0/subReq-1=driver-a/pool-1/device-7;req-0/subReq-1=driver-a/pool-1/device-8;req-0/subReq-1=driver-a/pool-1/device-9;req-1/subReq-1=driver-a/pool-1/device-16;req-1/subReq-1=driver-a/pool-1/device-17;req-1/subReq-1=driver-a/pool-1/device-18;req-1/subReq-1=driver-a/pool-1/device-19;req-1/subReq-1=driver-a/pool-1/device-20;req-1/subReq-1=driver-a/pool-1/device-21;req-1/subReq-1=driver-a/pool-1/device-22;req-1/subReq-1=driver-a/pool-1/device-23;req-1/subReq-1=driver-a/pool-1/device-24;req-1/subReq-1=driver-a/pool-1/device-25;req-1/subReq-1=driver-a/pool-1/device-26;req-1/subReq-1=driver-a/pool-1/device-27;req-1/subReq-1=driver-a/pool-1/device-28;req-1/subReq-1=driver-a/pool-1/device-29;req-1/subReq-1=driver-a/pool-1/device-30;req-1/subReq-1=driver-a/pool-1/device-31" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-max-allocation-allocation-mode-all", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA), CLASS("class-b", DB) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-0") "," DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV("device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8") "," DEV("device-9") "," DEV("device-10") "," DEV("device-11") "," DEV("device-12") "," DEV("device-13") "," DEV("device-14") "," DEV("device-15") "," DEV("device-16") "," DEV("device-17") "," DEV("device-18") "," DEV("device-19") "," DEV("device-20") "," DEV("device-21") "," DEV("device-22") "," DEV("device-23") "," DEV("device-24") "," DEV("device-25") "," DEV("device-26") "," DEV("device-27") "," DEV("device-28") "," DEV("device-29") "," DEV("device-30")), SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DB, DEV("device-0") "," DEV("device-1")) },
	  { CLAIM("claim-0", FIRST("req-0", SUB_ALL("subReq-0", "class-a") "," SUB("subReq-1", "class-a", 2)) "," REQ("req-1", "class-b", 2)) },
	  NULL,
	  "{req-0/subReq-1=driver-a/pool-1/device-0;req-0/subReq-1=driver-a/pool-1/device-1;req-1=driver-b/pool-2/device-0;"
	  "req-1=driver-b/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-overflowing-first-subrequest-is-pruned", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEV("device-1") "," DEV("device-2")) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," FIRST("req-1", SUB("subReq-0", "class-a", 9223372036854775807) "," SUB("subReq-1", "class-a", 1))) },
	  NULL, "{req-0=driver-a/pool-1/device-1;req-1/subReq-1=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all-with-selectors", F(.prioritized_list = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("generation", "v5")))) },
	  { CLAIM("claim-0", FIRST("req-0", "{`name`:`subReq-0`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v6'")) "}" "," "{`name`:`subReq-1`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v5'")) "}")) }, NULL, "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all-with-selectors-multiple-pools", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("generation", "v5")))),
	    SLICE("slice-2", ON("node-1"), POOL(PB, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("generation", "v5")))) },
	  { CLAIM("claim-0", FIRST("req-0", "{`name`:`subReq-0`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v6'")) "}" "," "{`name`:`subReq-1`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v5'")) "}")) }, NULL,
	  "{req-0/subReq-1=driver-a/pool-1/device-1;req-0/subReq-1=driver-a/pool-2/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes", F(.prioritized_list = true), NULL,
	  { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", ATTRS(A_STR("generation", "v5")))),
	    SLICE("slice-2", ON("node-2"), POOL(PB, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("generation", "v5"))) "," DEVX("device-2", ATTRS(A_STR("generation", "v6")))) },
	  { CLAIM("claim-0", FIRST("req-0", "{`name`:`subReq-0`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v6'")) "}" "," "{`name`:`subReq-1`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v5'")) "}")) }, NULL, "{req-0/subReq-1=driver-a/pool-1/device-1" LOCAL("node-1") "}", NULL },
	{ "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset", F(.prioritized_list = true), NULL,
	  { CLASS_SEL("class-a", "device.driver == 'driver-a' && device.attributes['driver-a'].selected") },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		  DEVX("device-1", ATTRS(A_STR("generation", "v6") "," A_BOOL("selected", false))) ","
		  DEVX("device-2", ATTRS(A_STR("generation", "v5") "," A_BOOL("selected", false))) ","
		  DEVX("device-3", ATTRS(A_STR("generation", "v5") "," A_BOOL("selected", true)))) },
	  { CLAIM("claim-0", FIRST("req-0", "{`name`:`subReq-0`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v6'")) "}" "," "{`name`:`subReq-1`,`deviceClassName`:`class-a`,`allocationMode`:`All`," SELECTORS(SEL("device.attributes['driver-a'].generation == 'v5'")) "}")) }, NULL, "{req-0/subReq-1=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-multiple-pools", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CAPS(CAP("cpus", "6") "," CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "6") "," COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("cpus", "4") "," CAP("memory", "6Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "4") "," COUNTER("memory", "6Gi"))) "," DEVX("device-3", CAPS(CAP("cpus", "4") "," CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "4") "," COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("cpus", "8") "," COUNTER("memory", "18Gi"))),
	    SLICE("slice-3", ON("node-1"), POOL(PB, 1, 2), DA, DEVX("device-1", CAPS(CAP("cpus", "6") "," CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "6") "," COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("cpus", "1") "," CAP("memory", "7Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "1") "," COUNTER("memory", "7Gi"))) "," DEVX("device-3", CAPS(CAP("cpus", "1") "," CAP("memory", "7Gi")) "," CONSUMES("counter-set-1", COUNTER("cpus", "1") "," COUNTER("memory", "7Gi")))),
	    SLICE_COUNTERS("slice-4", ON("node-1"), POOL(PB, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("cpus", "8") "," COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1) "," REQ("req-1", "class-a", 1)) },
	  ALLOCATED(RES("req-0", DA, PA, "device-2") "," RES("req-0", DA, PA, "device-3") "," RES("req-0", DA, PB, "device-1")),
	  "{req-0=driver-a/pool-2/device-2;req-1=driver-a/pool-2/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-unused-counters-in-counter-set", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "5Gi"))) "," DEVX("device-2", CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEVX("device-3", CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "8Gi") "," COUNTER("unused", "1Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 2)) }, NULL,
	  "{req-0=driver-a/pool-1/device-2;req-0=driver-a/pool-1/device-3" LOCAL("node-1") "}", NULL },
	{ "partitionable-devices-no-capacity-available", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "16Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "16Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 1), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, ALLOCATED(RES("req-0", DA, PA, "device-2")), NULL, NULL },
	{ "partitionable-devices-overallocated-capacity-pool", F(.partitionable_devices = true), NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CAPS(CAP("memory", "4Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEVX("device-2", CAPS(CAP("memory", "20Gi")) "," CONSUMES("counter-set-1", COUNTER("memory", "20Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 1), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, ALLOCATED(RES("req-0", DA, PA, "device-2")), NULL, NULL },
	{ "partitionable-devices-disabled-device-consumes-counters", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA, DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "4Gi")))),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 1), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, NULL, NULL },
	{ "partitionable-devices-disabled-other-device-do-not-consume-counters", F_NONE, NULL, { CLASS("class-a", DA) },
	  { SLICE("slice-1", ON("node-1"), POOL(PA, 1, 2), DA,
		  DEVX("device-1", CONSUMES("counter-set-1", COUNTER("memory", "4Gi"))) "," DEV("device-2")),
	    SLICE_COUNTERS("slice-2", ON("node-1"), POOL(PA, 1, 2), DA, COUNTER_SET("counter-set-1", COUNTER("memory", "18Gi"))) },
	  { CLAIM("claim-0", REQ("req-0", "class-a", 1)) }, NULL, "{req-0=driver-a/pool-1/device-2" LOCAL("node-1") "}", NULL },
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


/* ---------- Beyond the table ---------- */

static struct api_resource_slice *slice_json(const char *json)
{
	char *j = unquote(json);
	struct err e = { 0 };
	struct api_resource_slice *s = api_resource_slice_decode_json(j, strlen(j), &e);
	free(j);
	assert_non_null(s);
	return s;
}

static struct api_resource_claim *claim_json(const char *json)
{
	char *j = unquote(json);
	struct err e = { 0 };
	struct api_resource_claim *c = api_resource_claim_decode_json(j, strlen(j), &e);
	free(j);
	assert_non_null(c);
	return c;
}

/* upstream allocateOne: "filter operation aborted: ..." when the context's deadline passed
 * (DRA_TIMEOUT here); without a deadline the same search ends in no result. */
static void test_dra_allocator_deadline(void **state)
{
	(void)state;
	struct dra_cel_cache *cc = dra_cel_cache_new(16);
	struct dra_allocated_state *st = dra_allocated_state_new();
	char *j = unquote(CLASS("class-a", DA));
	struct err e = { 0 };
	struct classes cl = { 1, { api_device_class_decode_json(j, strlen(j), &e) } };
	free(j);
	assert_non_null(cl.v[0]);
	/* 21 devices with 7 numa values and a claim for 8 with distinct numa values: no solution,
	 * found only after trying every combination of distinct values */
	char devs[4096] = "";
	for (int i = 0; i < 21; i++)
		cat(devs, sizeof(devs), "%s{`name`:`device-%d`,`attributes`:{`numa`:{`int`:%d}}}", i ? "," : "", i, i % 7);
	char sj[8192];
	snprintf(sj, sizeof(sj), "{`metadata`:{`name`:`slice-1`},`spec`:{`driver`:`driver-a`,`pool`:{`name`:`pool-1`,"
		 "`generation`:1,`resourceSliceCount`:1},`nodeName`:`node-1`,`devices`:[%s]}}", devs);
	struct api_resource_slice *s = slice_json(sj);
	const struct api_resource_claim *claims[1] = { claim_json(
		CLAIMX("claim-0", REQ("req-0", "class-a", 8), CONSTRAINTS(DISTINCT("driver-a/numa")))) };
	char *nj = unquote(NODE1);
	struct api_node *node = api_node_decode_json(nj, strlen(nj), &e);
	free(nj);
	assert_non_null(node);
	struct dra_allocator *a = dra_allocator_new(&dra_features_default, st, class_get, &cl, &s, 1, cc, &e);
	assert_non_null(a);
	struct arena *ar = arena_new(0);
	struct api_dra_allocation out[1];
	assert_int_equal(dra_allocator_allocate(a, node, claims, 1, mono_ns() - 1, ar, out, &e), DRA_TIMEOUT);
	assert_string_equal(e.msg, "filter operation aborted: context deadline exceeded");
	int64_t t0 = mono_ns();
	assert_int_equal(dra_allocator_allocate(a, node, claims, 1, 0, ar, out, &e), DRA_UNSCHEDULABLE);
	int64_t steps = dra_allocator_invocations(a);
	print_message("exhaustive search: %lld allocateOne steps in %.1f ms\n", (long long)steps,
		      (double)(mono_ns() - t0) / 1e6);
	assert_true(steps > 10000); /* the deadline above stopped it at its first step */
	/* a deadline a minute away does not interrupt the same search; one already passed during
	 * it does (upstream checks ctx.Err() at every step; csched reads the clock at the first
	 * step and every 64 after it) */
	assert_int_equal(dra_allocator_allocate(a, node, claims, 1, mono_ns() + 60000000000, ar, out, &e),
			 DRA_UNSCHEDULABLE);
	assert_int_equal(dra_allocator_allocate(a, node, claims, 1, mono_ns() + 100000, ar, out, &e), DRA_TIMEOUT);
	arena_free(ar);
	dra_allocator_free(a);
	api_resource_claim_unref((struct api_resource_claim *)claims[0]);
	api_resource_slice_unref(s);
	api_device_class_unref(cl.v[0]);
	api_node_unref(node);
	dra_allocated_state_free(st);
	dra_cel_cache_free(cc);
}

/* dra_device_matches: upstream selectorsMatch's outcomes for one device (TestCEL's bindings are
 * covered by test_cel_dra; here the errors' wording and the evaluation order). */
static void test_dra_device_matches(void **state)
{
	(void)state;
	struct dra_cel_cache *cc = dra_cel_cache_new(16);
	struct api_resource_slice *s = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", ATTRS(A_INT("numa", 1) "," A_VER("driverVersion", "1.2.3")) "," MEM("8Gi"))));
	const struct api_dra_device *d = &s->devices[0];
	struct err e = { 0 };
	const char *ok[] = { "device.driver == 'driver-a'", "device.attributes['driver-a'].numa == 1",
			     "device.capacity['driver-a'].memory.compareTo(quantity('4Gi')) > 0",
			     "device.attributes['driver-a'].driverVersion.isGreaterThan(semver('1.0.0'))" };
	assert_int_equal(dra_device_matches(cc, s, d, ok, 4, &e), DRA_ALLOCATED);
	const char *no[] = { "device.driver == 'driver-a'", "device.attributes['driver-a'].numa == 2", "noSuchVar" };
	assert_int_equal(dra_device_matches(cc, s, d, no, 3, &e), DRA_UNSCHEDULABLE);
	assert_string_equal(e.msg, "");
	const char *bad[] = { "true", "noSuchVar" };
	assert_int_equal(dra_device_matches(cc, s, d, bad, 2, &e), DRA_ERROR);
	assert_non_null(strstr(e.msg, "selector #1: CEL compile error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar'"));
	const char *rt[] = { "device.attributes['driver-a'].nosuch" };
	assert_int_equal(dra_device_matches(cc, s, d, rt, 1, &e), DRA_ERROR);
	assert_non_null(strstr(e.msg, "selector #0 on device driver-a/pool-1/device-1: CEL runtime error: no such key: nosuch. "
				      "consider using CEL optional chaining"));
	api_resource_slice_unref(s);
	dra_cel_cache_free(cc);
}

/* Tolerations (upstream resourceclaim.ToleratesTaint's table, devicetoleration_test.go) and
 * DeviceTaintRules on a slice (resourceslice/tracker applyPatches). */
static void test_dra_taints(void **state)
{
	(void)state;
	struct api_dra_taint t = { "k", "v", API_DRA_EFFECT_NO_SCHEDULE, "NoSchedule", false, 0 };
	struct api_dra_toleration eq = { "k", API_DRA_TOL_EQUAL, "Equal", "v", "", false, 0 };
	struct api_dra_toleration eq_other = { "k", API_DRA_TOL_EQUAL, "Equal", "w", "", false, 0 };
	struct api_dra_toleration exists_all = { "", API_DRA_TOL_EXISTS, "Exists", "", "", false, 0 };
	struct api_dra_toleration wrong_effect = { "k", API_DRA_TOL_EXISTS, "Exists", "", "NoExecute", false, 0 };
	struct api_dra_toleration other_op = { "k", API_DRA_TOL_OTHER, "Foo", "v", "", false, 0 };
	struct api_dra_toleration wrong_key = { "x", API_DRA_TOL_EXISTS, "Exists", "", "", false, 0 };
	assert_true(dra_toleration_tolerates(&eq, &t));
	assert_false(dra_toleration_tolerates(&eq_other, &t));
	assert_true(dra_toleration_tolerates(&exists_all, &t));
	assert_false(dra_toleration_tolerates(&wrong_effect, &t));
	assert_false(dra_toleration_tolerates(&other_op, &t));
	assert_false(dra_toleration_tolerates(&wrong_key, &t));

	struct api_resource_slice *s = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", TAINTS(TAINT_NONE)) "," DEV("device-2")));
	struct err e = { 0 };
	char *rj = unquote("{`metadata`:{`name`:`rule`},`spec`:{`deviceSelector`:{`driver`:`driver-a`,`device`:`device-1`},"
			   "`taint`:{`key`:`maintenance`,`value`:`yes`,`effect`:`NoSchedule`}}}");
	struct api_device_taint_rule *rule = api_device_taint_rule_decode_json(rj, strlen(rj), &e);
	free(rj);
	assert_non_null(rule);
	char *oj = unquote("{`metadata`:{`name`:`other`},`spec`:{`deviceSelector`:{`pool`:`pool-9`},"
			   "`taint`:{`key`:`x`,`effect`:`NoExecute`}}}");
	struct api_device_taint_rule *other = api_device_taint_rule_decode_json(oj, strlen(oj), &e);
	free(oj);
	assert_non_null(other);
	const struct api_device_taint_rule *none[] = { other };
	struct api_resource_slice *same = dra_slice_with_taint_rules(s, none, 1, &e);
	assert_ptr_equal(same, s); /* no rule applies: the slice itself */
	api_resource_slice_unref(same);
	const struct api_device_taint_rule *rules[] = { other, rule };
	struct api_resource_slice *p = dra_slice_with_taint_rules(s, rules, 2, &e);
	assert_non_null(p);
	assert_ptr_not_equal(p, s);
	assert_int_equal(p->devices[0].n_taints, 2);
	assert_string_equal(p->devices[0].taints[0].key, "taint-key");
	assert_string_equal(p->devices[0].taints[1].key, "maintenance");
	assert_int_equal(p->devices[0].taints[1].effect, API_DRA_EFFECT_NO_SCHEDULE);
	assert_int_equal(p->devices[1].n_taints, 0);
	assert_int_equal(s->devices[0].n_taints, 1); /* the original is not changed */
	api_resource_slice_unref(s); /* the copy keeps it alive */
	assert_string_equal(p->devices[1].name, "device-2");
	api_resource_slice_unref(p);
	api_device_taint_rule_unref(rule);
	api_device_taint_rule_unref(other);
}

#define BAD_VERSION "attribute driverVersion: parse semantic version: cel_semver_new: semver \"x.y\": No Major.Minor.Patch elements found"

/* Evaluates expr (compiled by cc) on device i of v: 1, 0 or negative with e. */
static int views_eval(struct dra_cel_cache *cc, struct dra_cel_eval *ev, struct dra_slice_views *v, uint32_t i,
		      const char *expr, struct err *e)
{
	const char *cerr = NULL;
	struct dra_cel_entry *ent = dra_cel_get(cc, expr, &cerr, e);
	assert_non_null(ent);
	assert_null(cerr);
	int rc = dra_slice_views_eval(v, i, ev, ent, e);
	dra_cel_entry_release(cc, ent);
	return rc;
}

/* The CEL views of a slice's devices are made once per slice object and shared by every
 * allocator (every pod) and by a DeviceTaintRules copy of the slice; a cached selector's result
 * per device is remembered there without keeping the device's bound view, an uncached one keeps
 * the view; errors are given again; another slice object (an update) starts afresh; the views of
 * a slice that nobody else holds any more are dropped. */
static void test_dra_slice_views(void **state)
{
	(void)state;
	enum { OTHERS = 70, MANY = 40 };
	struct dra_cel_cache *cc = dra_cel_cache_new(MANY + 8);
	struct dra_cel_eval *ev = dra_cel_eval_new(cc);
	assert_non_null(ev);
	struct err e = { 0 };
	struct api_resource_slice *s = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEV("device-2") ","
		DEVX("device-3", ATTRS(A_VER("driverVersion", "x.y")))));
	char *rj = unquote("{`metadata`:{`name`:`rule`},`spec`:{`deviceSelector`:{`device`:`device-1`},"
			   "`taint`:{`key`:`k`,`effect`:`NoSchedule`}}}");
	struct api_device_taint_rule *rule = api_device_taint_rule_decode_json(rj, strlen(rj), &e);
	free(rj);
	assert_non_null(rule);
	const struct api_device_taint_rule *rules[] = { rule };
	struct api_resource_slice *p = dra_slice_with_taint_rules(s, rules, 1, &e);
	assert_non_null(p);
	assert_ptr_not_equal(p, s);
	struct api_resource_slice *both[] = { s, p };
	struct dra_slice_views *v[2], *w[1];
	assert_int_equal(dra_cel_views_acquire(cc, both, 2, v, &e), 0);
	assert_ptr_equal(v[0], v[1]); /* the copy binds as its base */
	assert_int_equal(dra_cel_views_acquire(cc, &s, 1, w, &e), 0);
	assert_ptr_equal(w[0], v[0]); /* a second pod: the same views */
	assert_int_equal(dra_cel_views_len(cc), 1);

	const char *numa1 = "'numa' in device.attributes['driver-a'] && device.attributes['driver-a'].numa == 1";
	for (int round = 0; round < 2; round++) { /* the second round answers from what the first remembered */
		assert_int_equal(views_eval(cc, ev, v[0], 0, numa1, &e), 1);
		assert_int_equal(views_eval(cc, ev, w[0], 1, numa1, &e), 0);
		/* errors are not remembered: the same text each time */
		assert_true(views_eval(cc, ev, v[0], 1, "device.attributes['driver-a'].numa == 1", &e) < 0);
		assert_non_null(strstr(e.msg, "no such key: numa. consider using CEL optional chaining"));
		assert_int_equal(views_eval(cc, ev, v[0], 2, "true", &e), ERR_INVALID);
		assert_string_equal(e.msg, BAD_VERSION);
		/* results past the first 32 entries (the views' second word per device) */
		for (int k = 0; k < MANY; k++) {
			char expr[96];
			snprintf(expr, sizeof(expr), "'numa' in device.attributes['driver-a'] && device.attributes['driver-a'].numa == %d", k);
			assert_int_equal(views_eval(cc, ev, v[0], 0, expr, &e), k == 1);
			assert_int_equal(views_eval(cc, ev, v[0], 1, expr, &e), 0);
		}
	}
	assert_int_equal(dra_slice_views_kept(v[0]), 0); /* cached selectors keep no bound device */
	/* what the first round remembered: the 40 selectors of the loop (numa1 is its k == 1) on
	 * device-1 and device-2, nothing of the errors (device-3 does not bind) */
	assert_int_equal(dra_slice_views_remembered(v[0], 0), MANY);
	assert_int_equal(dra_slice_views_remembered(w[0], 1), MANY);
	assert_int_equal(dra_slice_views_remembered(v[0], 2), 0);
	/* dra_slice_views_matches: upstream selectorsMatch's outcomes, as dra_device_matches */
	const char *ok[] = { "device.driver == 'driver-a'", numa1 };
	assert_int_equal(dra_slice_views_matches(cc, ev, v[0], 0, ok, 2, &e), DRA_ALLOCATED);
	assert_int_equal(dra_slice_views_matches(cc, ev, v[0], 1, ok, 2, &e), DRA_UNSCHEDULABLE);
	assert_string_equal(e.msg, "");
	assert_int_equal(dra_slice_views_matches(cc, ev, v[0], 2, ok, 2, &e), DRA_ERROR);
	assert_string_equal(e.msg, "selector #0 on device driver-a/pool-1/device-3: CEL runtime error: " BAD_VERSION);

	/* an updated slice is another object: nothing remembered for it */
	struct api_resource_slice *s2 = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", ATTRS(A_INT("numa", 2))) "," DEV("device-2")));
	struct dra_slice_views *v2[1];
	assert_int_equal(dra_cel_views_acquire(cc, &s2, 1, v2, &e), 0);
	assert_ptr_not_equal(v2[0], v[0]);
	assert_int_equal(views_eval(cc, ev, v2[0], 0, numa1, &e), 0);
	assert_int_equal(views_eval(cc, ev, v[0], 0, numa1, &e), 1);
	dra_slice_views_unref(v2[0]);
	api_resource_slice_unref(s2);

	/* a cache that keeps one entry: the second selector is compiled per call and binds the device
	 * into a kept view, which the cached one then uses too */
	struct dra_cel_cache *small = dra_cel_cache_new(1);
	struct dra_cel_eval *sev = dra_cel_eval_new(small);
	struct dra_slice_views *sv[1];
	assert_non_null(small);
	assert_non_null(sev);
	assert_int_equal(dra_cel_views_acquire(small, &s, 1, sv, &e), 0);
	assert_int_equal(views_eval(small, sev, sv[0], 0, "device.driver == 'driver-a'", &e), 1); /* cached */
	assert_int_equal(dra_slice_views_kept(sv[0]), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(views_eval(small, sev, sv[0], 0, numa1, &e), 1); /* not cached */
		assert_int_equal(dra_slice_views_kept(sv[0]), round ? 3 : 1);
		assert_int_equal(views_eval(small, sev, sv[0], 1, numa1, &e), 0);
		assert_int_equal(dra_slice_views_kept(sv[0]), round ? 3 : 2);
		assert_int_equal(views_eval(small, sev, sv[0], 2, numa1, &e), ERR_INVALID);
		assert_string_equal(e.msg, BAD_VERSION);
		assert_int_equal(dra_slice_views_kept(sv[0]), 3);
	}
	assert_int_equal(views_eval(small, sev, sv[0], 1, "device.driver == 'driver-a'", &e), 1);
	assert_int_equal(views_eval(small, sev, sv[0], 1, "device.driver == 'driver-b'", &e), 0);
	dra_slice_views_unref(sv[0]);
	dra_cel_eval_free(sev);
	dra_cel_cache_free(small);

	/* the slice goes (deleted by the informer): only the cache holds it now */
	dra_slice_views_unref(v[0]);
	dra_slice_views_unref(v[1]);
	dra_slice_views_unref(w[0]);
	api_resource_slice_unref(p);
	api_resource_slice_unref(s);
	api_device_taint_rule_unref(rule);
	/* other slices, kept: past twice the live size (plus slack) the dead views are swept */
	struct api_resource_slice *others[OTHERS];
	struct dra_slice_views *ov[OTHERS];
	for (int i = 0; i < OTHERS; i++) {
		char sj[512];
		snprintf(sj, sizeof(sj), "{`metadata`:{`name`:`slice-o%d`},`spec`:{`driver`:`driver-a`,`pool`:{`name`:`pool-o%d`,"
			 "`generation`:1,`resourceSliceCount`:1},`nodeName`:`node-1`,`devices`:[{`name`:`device-1`}]}}", i, i);
		others[i] = slice_json(sj);
	}
	assert_int_equal(dra_cel_views_acquire(cc, others, OTHERS, ov, &e), 0);
	assert_int_equal(dra_cel_views_len(cc), OTHERS);
	for (int i = 0; i < OTHERS; i++) {
		assert_int_equal(views_eval(cc, ev, ov[i], 0, "device.driver == 'driver-a'", &e), 1);
		dra_slice_views_unref(ov[i]);
		api_resource_slice_unref(others[i]);
	}
	dra_cel_eval_free(ev);
	dra_cel_cache_free(cc);
}

/* The next pod's allocator over the same slice objects reuses the pools and views the previous
 * one built (the CEL cache keeps the last inventory); other slices, or a DeviceTaintRules copy,
 * build a new one, and the answers are the same either way. */
static void test_dra_inventory_reuse(void **state)
{
	(void)state;
	struct dra_cel_cache *cc = dra_cel_cache_new(16);
	struct dra_allocated_state *st = dra_allocated_state_new();
	struct err e = { 0 };
	char *j = unquote(CLASS("class-a", DA));
	struct classes cl = { 1, { api_device_class_decode_json(j, strlen(j), &e) } };
	free(j);
	struct api_resource_slice *s = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", ATTRS(A_INT("numa", 2))) "," DEVX("device-2", ATTRS(A_INT("numa", 1)))));
	struct api_resource_slice *s2 = slice_json(SLICE("slice-2", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-3", ATTRS(A_INT("numa", 1)))));
	const struct api_resource_claim *claims[1] = { claim_json(CLAIM("claim-0",
		REQX("req-0", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].numa == 1"))))) };
	char *nj = unquote(NODE1);
	struct api_node *node = api_node_decode_json(nj, strlen(nj), &e);
	free(nj);
	assert_null(dra_cel_inventory_get(cc, &dra_features_default, &s, 1));
	struct dra_allocator *a1 = dra_allocator_new(&dra_features_default, st, class_get, &cl, &s, 1, cc, &e);
	assert_non_null(a1);
	struct dra_inventory *inv = dra_cel_inventory_get(cc, &dra_features_default, &s, 1);
	assert_non_null(inv); /* kept for the next pod */
	struct dra_allocator *a2 = dra_allocator_new(&dra_features_default, st, class_get, &cl, &s, 1, cc, &e);
	struct dra_inventory *inv2 = dra_cel_inventory_get(cc, &dra_features_default, &s, 1);
	assert_ptr_equal(inv2, inv); /* the second allocator did not replace it */
	dra_inventory_unref(inv2);
	assert_null(dra_cel_inventory_get(cc, &dra_features_default, &s2, 1)); /* other slices */
	struct dra_features f = dra_features_default;
	f.consumable_capacity = false;
	assert_null(dra_cel_inventory_get(cc, &f, &s, 1)); /* other features */
	struct arena *ar = arena_new(0);
	struct api_dra_allocation out[1];
	struct dra_allocator *as[] = { a1, a2 };
	for (int i = 0; i < 2; i++) {
		assert_int_equal(dra_allocator_allocate(as[i], node, claims, 1, 0, ar, out, &e), DRA_ALLOCATED);
		assert_string_equal(out[0].results[0].device, "device-2");
	}
	/* the slices change: a new inventory replaces the kept one */
	struct dra_allocator *a3 = dra_allocator_new(&dra_features_default, st, class_get, &cl, &s2, 1, cc, &e);
	assert_non_null(a3);
	assert_null(dra_cel_inventory_get(cc, &dra_features_default, &s, 1));
	inv2 = dra_cel_inventory_get(cc, &dra_features_default, &s2, 1);
	assert_non_null(inv2);
	assert_ptr_not_equal(inv2, inv);
	dra_inventory_unref(inv2);
	assert_int_equal(dra_allocator_allocate(a3, node, claims, 1, 0, ar, out, &e), DRA_ALLOCATED);
	assert_string_equal(out[0].results[0].device, "device-3");
	/* a1 still holds the replaced inventory: its answers do not change */
	assert_int_equal(dra_allocator_allocate(a1, node, claims, 1, 0, ar, out, &e), DRA_ALLOCATED);
	assert_string_equal(out[0].results[0].device, "device-2");
	dra_inventory_unref(inv);
	arena_free(ar);
	dra_allocator_free(a1);
	dra_allocator_free(a2);
	dra_allocator_free(a3);
	api_resource_claim_unref((struct api_resource_claim *)claims[0]);
	api_resource_slice_unref(s);
	api_resource_slice_unref(s2);
	api_device_class_unref(cl.v[0]);
	api_node_unref(node);
	dra_allocated_state_free(st);
	dra_cel_cache_free(cc);
}

struct thread_arg {
	struct dra_allocator *a;
	struct api_node *node;
	const struct api_resource_claim *const *claims;
	int ok;
};

static void *allocate_thread(void *p)
{
	struct thread_arg *t = p;
	for (int i = 0; i < 200; i++) {
		struct arena *ar = arena_new(0);
		struct api_dra_allocation out[1];
		struct err e = { 0 };
		if (dra_allocator_allocate(t->a, t->node, t->claims, 1, 0, ar, out, &e) == DRA_ALLOCATED &&
		    out[0].n_results == 2 && strcmp(out[0].results[1].device, "device-3") == 0)
			t->ok++;
		arena_free(ar);
	}
	return NULL;
}

/* The plugin calls one allocator from several Filter threads at once: every call must see the
 * same answer (the lazily bound CEL devices are shared). */
static void test_dra_allocator_threads(void **state)
{
	(void)state;
	struct dra_cel_cache *cc = dra_cel_cache_new(1);
	struct dra_allocated_state *st = dra_allocated_state_new();
	struct err e = { 0 };
	char *j = unquote(CLASS("class-a", DA));
	struct classes cl = { 1, { api_device_class_decode_json(j, strlen(j), &e) } };
	free(j);
	struct api_resource_slice *s = slice_json(SLICE("slice-1", ON("node-1"), POOL(PA, 1, 1), DA,
		DEVX("device-1", ATTRS(A_INT("numa", 1))) "," DEVX("device-2", ATTRS(A_INT("numa", 2))) ","
		DEVX("device-3", ATTRS(A_INT("numa", 1)))));
	const struct api_resource_claim *claims[1] = { claim_json(CLAIMX("claim-0",
		REQ("req-0", "class-a", 1) "," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.attributes['driver-a'].numa != 2"))),
		CONSTRAINTS(MATCH("driver-a/numa")))) };
	char *nj = unquote(NODE1);
	struct api_node *node = api_node_decode_json(nj, strlen(nj), &e);
	free(nj);
	struct dra_allocator *a = dra_allocator_new(&dra_features_default, st, class_get, &cl, &s, 1, cc, &e);
	assert_non_null(a);
	pthread_t th[4];
	struct thread_arg args[4];
	for (int i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){ a, node, claims, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, allocate_thread, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].ok, 200);
	}
	dra_allocator_free(a);
	api_resource_claim_unref((struct api_resource_claim *)claims[0]);
	api_resource_slice_unref(s);
	api_device_class_unref(cl.v[0]);
	api_node_unref(node);
	dra_allocated_state_free(st);
	dra_cel_cache_free(cc);
}

/* Many nodes, one allocator (as the plugin uses it in a cycle): each node allocates from its own
 * pool and from the pool every node sees, never from another node's. */
static void test_dra_allocator_many_nodes(void **state)
{
	(void)state;
	enum { NODES = 300, DEVS = 8 };
	struct dra_cel_cache *cc = dra_cel_cache_new(64);
	struct dra_allocated_state *st = dra_allocated_state_new();
	struct err e = { 0 };
	char *j = unquote(CLASS("class-a", DA));
	struct classes cl = { 1, { api_device_class_decode_json(j, strlen(j), &e) } };
	free(j);
	struct api_resource_slice **slices = calloc(NODES + 1, sizeof(*slices));
	struct api_node **nodes = calloc(NODES, sizeof(*nodes));
	assert_true(slices && nodes);
	char buf[8192];
	for (int n = 0; n < NODES; n++) {
		char devs[4096] = "";
		for (int d = 0; d < DEVS; d++)
			cat(devs, sizeof(devs), "%s{`name`:`gpu-%d`,`attributes`:{`numa`:{`int`:%d},`model`:{`string`:`m%d`}},"
				"`capacity`:{`memory`:{`value`:`%dGi`}}}", d ? "," : "", d, d / 4, d % 2, 8 + 8 * (d % 2));
		snprintf(buf, sizeof(buf), "{`metadata`:{`name`:`node-%d-gpus`},`spec`:{`driver`:`driver-a`,`pool`:{`name`:`node-%d`,"
			 "`generation`:1,`resourceSliceCount`:1},`nodeName`:`node-%d`,`devices`:[%s]}}", n, n, n, devs);
		slices[n] = slice_json(buf);
		snprintf(buf, sizeof(buf), "{`metadata`:{`name`:`node-%d`,`labels`:{`region`:`r%d`}}}", n, n % 3);
		char *nj = unquote(buf);
		nodes[n] = api_node_decode_json(nj, strlen(nj), &e);
		free(nj);
		assert_non_null(nodes[n]);
	}
	slices[NODES] = slice_json(SLICE("shared", ALL_NODES, POOL("network", 1, 1), DA, DEV("nic-0") "," DEV("nic-1")));
	const struct api_resource_claim *claims[1] = { claim_json(CLAIMX("claim-0",
		REQX("req-0", "class-a", 2, SELECTORS(SEL("'memory' in device.capacity['driver-a'] && device.capacity['driver-a'].memory.compareTo(quantity('16Gi')) >= 0")))
		"," REQX("req-1", "class-a", 1, SELECTORS(SEL("device.driver == 'driver-a' && !('numa' in device.attributes['driver-a'])"))),
		CONSTRAINTS(MATCH_FOR("`req-0`", "driver-a/numa")))) };
	int64_t t0 = mono_ns();
	struct dra_allocator *a = dra_allocator_new(&dra_features_default, st, class_get, &cl, slices, NODES + 1, cc, &e);
	assert_non_null(a);
	int64_t t1 = mono_ns();
	struct arena *ar = arena_new(0);
	for (int n = 0; n < NODES; n++) {
		struct api_dra_allocation out[1];
		enum dra_result r = dra_allocator_allocate(a, nodes[n], claims, 1, 0, ar, out, &e);
		if (r != DRA_ALLOCATED)
			print_error("node-%d: %d %s\n", n, r, e.msg);
		assert_int_equal(r, DRA_ALLOCATED);
		assert_int_equal(out[0].n_results, 3);
		char pool[32];
		snprintf(pool, sizeof(pool), "node-%d", n);
		/* gpu-1 and gpu-3 (16Gi, numa 0; the shared pool "network" sorts first but its NICs have no
		 * memory), then a NIC for req-1 */
		assert_string_equal(out[0].results[0].pool, pool);
		assert_string_equal(out[0].results[0].device, "gpu-1");
		assert_string_equal(out[0].results[1].device, "gpu-3");
		assert_string_equal(out[0].results[2].pool, "network");
		assert_string_equal(out[0].results[2].device, "nic-0");
		assert_non_null(out[0].node_selector);
		assert_string_equal(out[0].node_selector->terms[0].fields[0].values[0], pool);
		arena_reset(ar);
	}
	int64_t t2 = mono_ns();
	print_message("%d nodes x %d devices: dra_allocator_new %.2f ms, allocate %.1f us per node\n", NODES, DEVS,
		      (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e3 / NODES);
	arena_free(ar);
	dra_allocator_free(a);
	api_resource_claim_unref((struct api_resource_claim *)claims[0]);
	for (int n = 0; n <= NODES; n++)
		api_resource_slice_unref(slices[n]);
	for (int n = 0; n < NODES; n++)
		api_node_unref(nodes[n]);
	free(slices);
	free(nodes);
	api_device_class_unref(cl.v[0]);
	dra_allocated_state_free(st);
	dra_cel_cache_free(cc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dra_allocator_table),
		cmocka_unit_test(test_dra_allocator_deadline),
		cmocka_unit_test(test_dra_device_matches),
		cmocka_unit_test(test_dra_taints),
		cmocka_unit_test(test_dra_slice_views),
		cmocka_unit_test(test_dra_inventory_reuse),
		cmocka_unit_test(test_dra_allocator_threads),
		cmocka_unit_test(test_dra_allocator_many_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
