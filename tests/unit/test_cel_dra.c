/* The DRA selector environment, case by case from k8s.io/dynamic-resource-allocation v0.37.2
 * cel/compile_test.go TestCEL: the same expressions against the same devices, bound as
 * DeviceMatches binds them (device.driver, device.allowMultipleAllocations, device.attributes
 * and device.capacity by domain, an unqualified name in the driver's domain, an unknown domain
 * an empty map), in the environment selectors get (Kubernetes libraries, OptOptimize, cost
 * limit CELSelectorExpressionMaxCost = 1,000,000). Expected: the match, or an error containing
 * upstream's text; and, as TestCEL checks ("cost estimate ... underestimated the evaluation
 * cost"), a runtime cost not above upstream's estimate (expectCost). Left out: the cases of the
 * alpha list-type attributes (includes(), list-valued attribute macros), which need the
 * DRAListTypeAttributes feature's extra function. Where csched's CEL (no type checker, see
 * docs/cel.md) reports at evaluation what cel-go reports at compilation, the case says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "common/macros.h"

enum akind { A_NONE, A_BOOL, A_INT, A_STRING, A_VERSION, A_STRINGS, A_INTS };

struct attr {
	const char *name; /* "name" (the driver's domain) or "domain/name" */
	enum akind kind;
	const char *s;    /* bool: "true"/"false"; int: decimal; string, version; lists: comma-separated */
};

struct cap {
	const char *name;
	const char *quantity;
};

struct dra_case {
	const char *name; /* TestCEL's key */
	const char *expression;
	const char *driver;
	int allow_multi; /* -1 unset (false), 0, 1 */
	struct attr attrs[6];
	struct cap caps[2];
	const char *compile_error; /* substring, or NULL */
	const char *match_error;   /* substring, or NULL */
	bool match;
	uint64_t max_cost; /* upstream's cost estimate: the runtime cost must not exceed it */
};

#define D "dra.example.com"

static const struct dra_case cases[] = {
	{ "true", "true", "", -1, { { 0 } }, { { 0 } }, NULL, NULL, true, 0 },
	{ "false", "false", "", -1, { { 0 } }, { { 0 } }, NULL, NULL, false, 0 },
	{ "syntax-error", "?!", "", -1, { { 0 } }, { { 0 } }, "Syntax error", NULL, false, 0 },
	/* upstream: compile error "must evaluate to bool or the unknown type, not int" */
	{ "type-error", "1", "", -1, { { 0 } }, { { 0 } }, NULL, "expected bool, got int", false, 0 },
	{ "runtime-error-lookup-identifier",
	  "device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"))", "", -1, { { 0 } },
	  { { 0 } }, NULL, "no such key: noSuchAttr", false, 6 },
	{ "runtime-error-lookup-map",
	  "device.attributes[\"no-such-domain\"][\"noSuchAttr\"].isGreaterThan(quantity(\"0\"))", "", -1, { { 0 } },
	  { { 0 } }, NULL, "no such key: noSuchAttr", false, 6 },
	{ "domain-check-negative", "\"no-such-domain\" in device.attributes", "", -1, { { 0 } }, { { 0 } }, NULL, NULL,
	  false, 3 },
	{ "domain-check-positive", "\"dra.example.com\" in device.attributes", "", -1,
	  { { "dra.example.com/something", A_BOOL, "true" } }, { { 0 } }, NULL, NULL, true, 3 },
	{ "empty-driver-name", "device.driver == \"\"", "", -1, { { 0 } }, { { 0 } }, NULL, NULL, true, 2 },
	{ "real-driver-name", "device.driver == \"dra.example.com\"", D, -1, { { 0 } }, { { 0 } }, NULL, NULL, true, 4 },
	{ "driver-name-qualifier", "device.attributes[\"dra.example.com\"].name", D, -1, { { "name", A_BOOL, "true" } },
	  { { 0 } }, NULL, NULL, true, 4 },
	{ "driver-name-qualifier-map-lookup", "device.attributes[\"dra.example.com\"][\"name\"]", D, -1,
	  { { "name", A_BOOL, "true" } }, { { 0 } }, NULL, NULL, true, 4 },
	{ "bind", "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name)", D, -1,
	  { { "name", A_BOOL, "true" } }, { { 0 } }, NULL, NULL, true, 15 },
	{ "qualified-attribute-name", "device.attributes[\"other.example.com\"].name", D, -1,
	  { { "other.example.com/name", A_BOOL, "true" } }, { { 0 } }, NULL, NULL, true, 4 },
	{ "bool", "device.attributes[\"dra.example.com\"].name", D, -1, { { "name", A_BOOL, "true" } }, { { 0 } }, NULL,
	  NULL, true, 4 },
	{ "int", "device.attributes[\"dra.example.com\"].name > 0", D, -1, { { "name", A_INT, "1" } }, { { 0 } }, NULL,
	  NULL, true, 5 },
	{ "string", "device.attributes[\"dra.example.com\"].name == \"fish\"", D, -1, { { "name", A_STRING, "fish" } },
	  { { 0 } }, NULL, NULL, true, 5 },
	{ "macro-exists-on-int", "device.attributes[\"dra.example.com\"].name.exists(x, x > 0)", D, -1,
	  { { "name", A_INT, "1" } }, { { 0 } }, NULL, "got 'types.Int', expected iterable type", false, 5 + 6 * 64 },
	{ "macro-exists-on-bool", "device.attributes[\"dra.example.com\"].name.exists(x, x == true)", D, -1,
	  { { "name", A_BOOL, "true" } }, { { 0 } }, NULL, "got 'types.Bool', expected iterable type", false, 5 + 6 * 64 },
	{ "macro-exists-on-string", "device.attributes[\"dra.example.com\"].name.exists(x, x == \"fish\")", D, -1,
	  { { "name", A_STRING, "fish" } }, { { 0 } }, NULL, "got 'types.String', expected iterable type", false,
	  5 + 6 * 64 },
	/* upstream: "CEL result of type list could not be converted to bool" */
	{ "list-result-type-causes-match-error", "device.attributes[\"dra.example.com\"].names", D, -1,
	  { { "names", A_STRINGS, "fish,bird" } }, { { 0 } }, NULL, "expected bool, got list", false, 4 },
	{ "list-of-int", "device.attributes[\"dra.example.com\"].names.size() == 2", D, -1,
	  { { "names", A_INTS, "1,2" } }, { { 0 } }, NULL, NULL, true, 6 },
	{ "list-of-string", "device.attributes[\"dra.example.com\"].names.size() == 2", D, -1,
	  { { "names", A_STRINGS, "fish,bird" } }, { { 0 } }, NULL, NULL, true, 6 },
	{ "in-operator-on-list", "1 in device.attributes[\"dra.example.com\"].names", D, -1,
	  { { "names", A_INTS, "1,2,3" } }, { { 0 } }, NULL, NULL, true, 4 + 64 },
	{ "version", "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"0.0.1\"))", D, -1,
	  { { "name", A_VERSION, "1.0.0" } }, { { 0 } }, NULL, NULL, true, 6 },
	{ "version_v",
	  "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"v0.0.1\", true)) && isSemver(\"v1.0.0\", true)",
	  D, -1, { { "name", A_VERSION, "1.0.0" } }, { { 0 } }, NULL, NULL, true, 7 },
	{ "macro-exists-on-version",
	  "device.attributes[\"dra.example.com\"].name.exists(x, x.isGreaterThan(semver(\"0.0.1\")))", D, -1,
	  { { "name", A_VERSION, "1.0.0" } }, { { 0 } }, NULL, "got 'cel.Semver', expected iterable type", false,
	  5 + 7 * 64 },
	{ "quantity", "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", D, -1, { { 0 } },
	  { { "name", "1Mi" } }, NULL, NULL, true, 6 },
	{ "check-positive",
	  "\"name\" in device.capacity[\"dra.example.com\"] && device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
	  D, -1, { { 0 } }, { { "name", "1Mi" } }, NULL, NULL, true, 10 },
	{ "check-negative",
	  "!(\"name\" in device.capacity[\"dra.example.com\"]) || device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
	  "", -1, { { 0 } }, { { 0 } }, NULL, NULL, true, 11 },
	{ "all",
	  "device.capacity[\"dra.example.com\"].quantity.isGreaterThan(quantity(\"1Ki\")) &&\n"
	  "device.attributes[\"dra.example.com\"].bool &&\n"
	  "device.attributes[\"dra.example.com\"].int > 0 &&\n"
	  "device.attributes[\"dra.example.com\"].string == \"fish\" &&\n"
	  "device.attributes[\"dra.example.com\"].version.isGreaterThan(semver(\"0.0.1\")) &&\n"
	  "device.capacity[\"dra.example.com\"][\"quantity\"].isGreaterThan(quantity(\"1Ki\")) &&\n"
	  "device.attributes[\"dra.example.com\"][\"bool\"] &&\n"
	  "device.attributes[\"dra.example.com\"][\"int\"] > 0 &&\n"
	  "device.attributes[\"dra.example.com\"][\"string\"] == \"fish\" &&\n"
	  "device.attributes[\"dra.example.com\"][\"version\"].isGreaterThan(semver(\"0.0.1\"))",
	  D, -1,
	  { { "bool", A_BOOL, "true" }, { "int", A_INT, "1" }, { "string", A_STRING, "fish" }, { "version", A_VERSION, "1.0.0" } },
	  { { "quantity", "1Mi" } }, NULL, NULL, true, 52 },
	{ "many",
	  "device.attributes[\"dra.example.com\"].a && device.attributes[\"dra.example.com\"].b && device.attributes[\"dra.example.com\"].c",
	  D, -1, { { "a", A_BOOL, "true" }, { "b", A_BOOL, "true" }, { "c", A_BOOL, "true" } }, { { 0 } }, NULL, NULL, true,
	  12 },
	{ "check_attribute_domains", "device.attributes.exists_one(x, x == \"dra.example.com\")", D, -1,
	  { { "services", A_STRING, "some_example_value" } }, { { 0 } }, NULL, NULL, true, 164 },
	{ "check_attribute_ids", "device.attributes[\"dra.example.com\"].exists_one(x, x == \"services\")", D, -1,
	  { { "services", A_STRING, "some_example_value" } }, { { 0 } }, NULL, NULL, true, 133 },
	{ "split_attribute", "device.attributes[\"dra.example.com\"].services.split(\"example\").size() >= 2", D, -1,
	  { { "services", A_STRING, "some_example_value" } }, { { 0 } }, NULL, NULL, true, 19 },
	{ "regexp_attribute", "device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\")", D, -1,
	  { { "services", A_STRING, "asymetric" } }, { { 0 } }, NULL, NULL, true, 18 },
	{ "check_capacity_domains", "device.capacity.exists_one(x, x == \"dra.example.com\")", D, -1, { { 0 } },
	  { { "memory", "1Mi" } }, NULL, NULL, true, 164 },
	{ "check_capacity_ids", "device.capacity[\"dra.example.com\"].exists_one(x, x == \"memory\")", D, -1, { { 0 } },
	  { { "memory", "1Mi" } }, NULL, NULL, true, 133 },
	{ "expensive",
	  "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, "
	  "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
	  "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
	  D, -1, { { 0 } }, { { 0 } }, NULL, "actual cost limit exceeded", false, 85555551 },
	{ "allow_multiple_allocations", "device.allowMultipleAllocations == true", D, 1, { { 0 } }, { { 0 } }, NULL, NULL,
	  true, 3 },
	{ "allow_multiple_allocations_default", "device.allowMultipleAllocations == false", D, -1, { { 0 } }, { { 0 } },
	  NULL, NULL, true, 3 },
	{ "allow_multiple_allocations_false", "device.allowMultipleAllocations == false", D, 0, { { 0 } }, { { 0 } }, NULL,
	  NULL, true, 3 },
};

/* Owns what one device's binding allocated. */
struct device {
	struct cel_map *dev, *attrs, *caps, *empty, *doms[8];
	struct cel_list *lists[8];
	cel_value objs[8]; /* semver and quantity values */
	int ndoms, nlists, nobjs;
};

/* A library value bound as DRA binds it: cel_semver_new / cel_quantity_new, caller-owned. */
static cel_value make_obj(struct device *d, bool semver, const char *arg)
{
	cel_value v;
	struct err e = { 0 };
	int rc = semver ? cel_semver_new(arg, strlen(arg), false, &v, &e) : cel_quantity_new(arg, strlen(arg), &v, &e);
	assert_int_equal(rc, 0);
	assert_true(d->nobjs < 8);
	d->objs[d->nobjs++] = v;
	return v;
}

/* The domain's inner map in outer, created on first use. */
static struct cel_map *domain_map(struct device *d, struct cel_map *outer, const char *dom, size_t len)
{
	cel_value v;
	if (cel_map_find(outer, cel_string(dom, len), &v))
		return (struct cel_map *)v.map;
	struct cel_map *m = cel_map_new(4);
	assert_non_null(m);
	assert_true(d->ndoms < 8);
	d->doms[d->ndoms++] = m;
	assert_int_equal(cel_map_put(outer, cel_string(dom, len), cel_map_value(m)), 0);
	return m;
}

/* upstream parseQualifiedName: "domain/id", or the driver's domain for a bare id */
static void split_name(const char *qn, const char *driver, const char **dom, size_t *dl, const char **id)
{
	const char *slash = strchr(qn, '/');
	if (slash) {
		*dom = qn;
		*dl = (size_t)(slash - qn);
		*id = slash + 1;
	} else {
		*dom = driver;
		*dl = strlen(driver);
		*id = qn;
	}
}

static struct cel_list *split_list(struct device *d, const char *s, bool ints)
{
	size_t n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	struct cel_list *l = cel_list_new(n);
	assert_non_null(l);
	assert_true(d->nlists < 8);
	d->lists[d->nlists++] = l;
	size_t i = 0;
	for (const char *p = s; i < n; i++) {
		size_t len = strcspn(p, ",");
		cel_list_set(l, i, ints ? cel_int(strtoll(p, NULL, 10)) : cel_string(p, len));
		p += len + (p[len] == ',');
	}
	return l;
}

static cel_value bind_device(struct device *d, const struct dra_case *c)
{
	memset(d, 0, sizeof(*d));
	d->dev = cel_map_new(4);
	d->attrs = cel_map_new(4);
	d->caps = cel_map_new(4);
	d->empty = cel_map_new(1);
	assert_true(d->dev && d->attrs && d->caps && d->empty);
	cel_map_set_default(d->attrs, cel_map_value(d->empty));
	cel_map_set_default(d->caps, cel_map_value(d->empty));
	for (const struct attr *a = c->attrs; a->name; a++) {
		const char *dom, *id;
		size_t dl;
		split_name(a->name, c->driver, &dom, &dl, &id);
		struct cel_map *m = domain_map(d, d->attrs, dom, dl);
		cel_value v = cel_null();
		switch (a->kind) {
		case A_BOOL: v = cel_bool(strcmp(a->s, "true") == 0); break;
		case A_INT: v = cel_int(strtoll(a->s, NULL, 10)); break;
		case A_STRING: v = cel_string(a->s, strlen(a->s)); break;
		case A_VERSION: v = make_obj(d, true, a->s); break;
		case A_STRINGS: v = cel_list_value(split_list(d, a->s, false)); break;
		case A_INTS: v = cel_list_value(split_list(d, a->s, true)); break;
		default: break;
		}
		assert_int_equal(cel_map_put(m, cel_string(id, strlen(id)), v), 0);
	}
	for (const struct cap *q = c->caps; q->name; q++) {
		const char *dom, *id;
		size_t dl;
		split_name(q->name, c->driver, &dom, &dl, &id);
		struct cel_map *m = domain_map(d, d->caps, dom, dl);
		assert_int_equal(cel_map_put(m, cel_string(id, strlen(id)), make_obj(d, false, q->quantity)), 0);
	}
	cel_map_put(d->dev, cel_string("driver", 6), cel_string(c->driver, strlen(c->driver)));
	cel_map_put(d->dev, cel_string("allowMultipleAllocations", 24), cel_bool(c->allow_multi == 1));
	cel_map_put(d->dev, cel_string("attributes", 10), cel_map_value(d->attrs));
	cel_map_put(d->dev, cel_string("capacity", 8), cel_map_value(d->caps));
	return cel_map_value(d->dev);
}

static void device_release(struct device *d)
{
	for (int i = 0; i < d->ndoms; i++)
		cel_map_free(d->doms[i]);
	for (int i = 0; i < d->nlists; i++)
		cel_list_free(d->lists[i]);
	for (int i = 0; i < d->nobjs; i++)
		cel_object_free(d->objs[i]);
	cel_map_free(d->dev);
	cel_map_free(d->attrs);
	cel_map_free(d->caps);
	cel_map_free(d->empty);
}

static void test_cel_dra_selectors(void **state)
{
	(void)state;
	struct cel_env_options o = { .cost_limit = 1000000, .optimize = true };
	struct cel_env *env = cel_env_new(&o);
	struct err e = { 0 };
	assert_non_null(env);
	assert_int_equal(cel_env_add_kubernetes(env, &e), 0);
	int slot = cel_env_declare(env, "device", &e);
	assert_true(slot >= 0);
	int bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct dra_case *c = &cases[i];
		struct cel_program *p = cel_program_compile(env, c->expression, &e);
		if (c->compile_error) {
			if (p || !strstr(e.msg, c->compile_error)) {
				print_error("%s: want compile error \"%s\", got %s\n", c->name, c->compile_error, p ? "none" : e.msg);
				bad++;
			}
			cel_program_free(p);
			continue;
		}
		if (!p) {
			print_error("%s: compile error %s\n", c->name, e.msg);
			bad++;
			continue;
		}
		struct device d;
		cel_value dev = bind_device(&d, c);
		struct cel_activation *a = cel_activation_new(env);
		struct cel_eval *ev = cel_eval_new();
		cel_activation_set(a, slot, dev);
		cel_value v;
		uint64_t cost = 0;
		assert_int_equal(cel_program_eval(p, ev, a, &v, &cost), 0);
		int rc = cel_program_eval_bool(p, ev, a, &e);
		if (c->match_error) {
			if (rc >= 0 || !strstr(e.msg, c->match_error)) {
				print_error("%s: want error \"%s\", got %s\n", c->name, c->match_error, rc >= 0 ? "a result" : e.msg);
				bad++;
			}
		} else if (rc != (c->match ? 1 : 0)) {
			print_error("%s: want %s, got %s\n", c->name, c->match ? "match" : "no match",
				    rc < 0 ? e.msg : rc ? "match" : "no match");
			bad++;
		}
		if (cost > c->max_cost && c->max_cost < 1000000) {
			print_error("%s: runtime cost %llu above upstream's estimate %llu\n", c->name,
				    (unsigned long long)cost, (unsigned long long)c->max_cost);
			bad++;
		}
		cel_eval_free(ev);
		cel_activation_free(a);
		device_release(&d);
		cel_program_free(p);
	}
	cel_env_free(env);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cel_dra_selectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
