/* CEL selector micro-benchmark: the device selectors of upstream's DRA scheduler_perf configs
 * (test/integration/scheduler_perf/dra/performance-config.yaml and friends) and a 10-clause
 * selector, each compiled once and evaluated against 10,000 devices (DRA's device shape:
 * driver, attributes and capacity maps by domain, a semver driverVersion, quantities), as
 * csched's DRA plugin binds them (each device's maps built once, reused by every evaluation).
 * Prints ns per evaluation, the matches and the runtime cost of the evaluation against device 3 (which passes every clause); tests/bench/cel_go/ runs the same expressions on
 * the same devices through upstream's k8s.io/dynamic-resource-allocation/cel (docs/benchmarks.md).
 *
 *   bench_cel_selectors [ROUNDS [EXPR...]]   (default 20 rounds over the 10,000 devices; EXPRs
 *                                            instead of the built-in selectors) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cel/cel.h"

#define NDEV 10000
#define DOMAIN "test-driver.cdi.k8s.io"

static const char *const selectors[] = {
	"device.driver == \"test-driver.cdi.k8s.io\"",
	"device.driver == \"no-such-driver.cdi.k8s.io\"",
	"device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.major() >= 1 && "
	"device.capacity[\"test-driver.cdi.k8s.io\"].memory.isGreaterThan(quantity(\"1Mi\"))",
	/* 10 clauses */
	"device.driver == \"test-driver.cdi.k8s.io\" && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].model == \"a100\" && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].family.startsWith(\"amp\") && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].index >= 2 && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].healthy && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].cores > 64 && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].numa in [0, 1] && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.isGreaterThan(semver(\"1.0.0\")) && "
	"device.capacity[\"test-driver.cdi.k8s.io\"].memory.compareTo(quantity(\"40Gi\")) >= 0 && "
	"device.capacity[\"test-driver.cdi.k8s.io\"].slices.isLessThan(quantity(\"8\"))",
	/* comprehensions and library calls, for runtime cost parity */
	"device.attributes[\"test-driver.cdi.k8s.io\"].exists(k, k.startsWith(\"zzz\")) == false && "
	"device.attributes.all(d, d.size() > 0)",
	"device.attributes[\"test-driver.cdi.k8s.io\"].filter(k, k.size() > 4).map(k, k.upperAscii()).size() >= 3 && "
	"device.attributes[\"test-driver.cdi.k8s.io\"].model.matches(\"^a[0-9]+$\")",
	"cel.bind(a, device.attributes[\"test-driver.cdi.k8s.io\"], a.index + a.cores > 50 && "
	"[a.numa, a.index].exists_one(v, v == 0) || a.uuid.split(\"-\").size() == 3)",
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	/* bench_cel_selectors ROUNDS EXPR...: the given expressions instead of the built-in ones */
	const char *const *sel = selectors;
	size_t nsel = sizeof(selectors) / sizeof(selectors[0]);
	if (argc > 2) {
		sel = (const char *const *)argv + 2;
		nsel = (size_t)argc - 2;
	}
	/* CELSelectorExpressionMaxCost; OptOptimize as apiserver's base environment */
	struct cel_env_options o = { .cost_limit = 1000000, .optimize = true };
	struct cel_env *env = cel_env_new(&o);
	struct err e = { 0 };
	if (!env || cel_env_add_kubernetes(env, &e) != 0) {
		fprintf(stderr, "env: %s\n", e.msg);
		return 1;
	}
	int dev_slot = cel_env_declare(env, "device", &e);
	/* The semver and quantity values the devices carry, bound as DRA binds them. */
	static const char *const objs[] = { "0.9.0", "1.2.3", "16Gi", "80Gi", "4", "16" };
	struct cel_list *vlist = cel_list_new(6);
	for (size_t i = 0; i < 6; i++) {
		cel_value v;
		int rc = i < 2 ? cel_semver_new(objs[i], strlen(objs[i]), false, &v, &e)
			       : cel_quantity_new(objs[i], strlen(objs[i]), &v, &e);
		if (rc != 0 || !vlist) {
			fprintf(stderr, "%s: %s\n", objs[i], e.msg);
			return 1;
		}
		cel_list_set(vlist, i, v);
	}
	cel_value vals = cel_list_value(vlist);
	static struct cel_map *devs[NDEV], *attrs[NDEV], *caps[NDEV], *adom[NDEV], *cdom[NDEV];
	static const char *const models[] = { "a100", "h100", "t4" };
	/* an unknown domain is an empty map, as upstream's newStringInterfaceMapWithDefault */
	struct cel_map *empty = cel_map_new(1);
	for (int i = 0; i < NDEV; i++) {
		attrs[i] = cel_map_new(8);
		cel_map_put(attrs[i], cel_string("model", 5), cel_string(models[i % 3], strlen(models[i % 3])));
		cel_map_put(attrs[i], cel_string("family", 6), cel_string(i % 2 ? "ampere" : "hopper", 6));
		cel_map_put(attrs[i], cel_string("index", 5), cel_int(i % 8));
		cel_map_put(attrs[i], cel_string("healthy", 7), cel_bool(i % 5 != 0));
		cel_map_put(attrs[i], cel_string("cores", 5), cel_int(32 + (i % 4) * 32));
		cel_map_put(attrs[i], cel_string("numa", 4), cel_int(i % 3));
		cel_map_put(attrs[i], cel_string("driverVersion", 13), cel_list_get(vals.list, (size_t)(i % 7 != 0)));
		cel_map_put(attrs[i], cel_string("uuid", 4), cel_string("gpu-0000-0000", 13));
		caps[i] = cel_map_new(2);
		cel_map_put(caps[i], cel_string("memory", 6), cel_list_get(vals.list, 2 + (size_t)(i % 2)));
		cel_map_put(caps[i], cel_string("slices", 6), cel_list_get(vals.list, 4 + (size_t)((i / 4) % 2)));
		adom[i] = cel_map_new(1);
		cel_map_put(adom[i], cel_string(DOMAIN, strlen(DOMAIN)), cel_map_value(attrs[i]));
		cdom[i] = cel_map_new(1);
		cel_map_put(cdom[i], cel_string(DOMAIN, strlen(DOMAIN)), cel_map_value(caps[i]));
		cel_map_set_default(adom[i], cel_map_value(empty));
		cel_map_set_default(cdom[i], cel_map_value(empty));
		devs[i] = cel_map_new(4);
		cel_map_put(devs[i], cel_string("driver", 6), cel_string(DOMAIN, strlen(DOMAIN)));
		cel_map_put(devs[i], cel_string("allowMultipleAllocations", 24), cel_bool(false));
		cel_map_put(devs[i], cel_string("attributes", 10), cel_map_value(adom[i]));
		cel_map_put(devs[i], cel_string("capacity", 8), cel_map_value(cdom[i]));
	}
	struct cel_activation *act = cel_activation_new(env);
	struct cel_eval *ev = cel_eval_new();
	for (size_t s = 0; s < nsel; s++) {
		struct cel_program *p = cel_program_compile(env, sel[s], &e);
		if (!p) {
			fprintf(stderr, "compile %s: %s\n", sel[s], e.msg);
			return 1;
		}
		int matches = 0, errors = 0;
		uint64_t cost = 0;
		cel_value v1;
		cel_activation_set(act, dev_slot, cel_map_value(devs[3]));
		if (cel_program_eval(p, ev, act, &v1, &cost) != 0)
			return 1;
		double t0 = now_ns();
		for (int r = 0; r < rounds; r++) {
			for (int i = 0; i < NDEV; i++) {
				cel_activation_set(act, dev_slot, cel_map_value(devs[i]));
				int rc = cel_program_eval_bool(p, ev, act, &e);
				if (r == 0) {
					matches += rc == 1;
					errors += rc < 0;
				}
			}
		}
		double ns = (now_ns() - t0) / ((double)rounds * NDEV);
		printf("%8.1f ns/eval  %5d/%d match  %d errors  cost %" PRIu64 "  %.60s%s\n", ns, matches, NDEV, errors,
		       cost, sel[s],
		       strlen(sel[s]) > 60 ? "..." : "");
		cel_program_free(p);
	}
	cel_eval_free(ev);
	cel_activation_free(act);
	for (int i = 0; i < NDEV; i++) {
		cel_map_free(devs[i]);
		cel_map_free(attrs[i]);
		cel_map_free(caps[i]);
		cel_map_free(adom[i]);
		cel_map_free(cdom[i]);
	}
	cel_map_free(empty);
	for (size_t i = 0; i < 6; i++)
		cel_object_free(cel_list_get(vlist, i));
	cel_list_free(vlist);
	cel_env_free(env);
	return 0;
}
