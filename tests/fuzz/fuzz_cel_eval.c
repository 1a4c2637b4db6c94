/* Fuzz target for the CEL module: the input is one expression, compiled in an environment with
 * the Kubernetes libraries and a few variables (an int, a string, a list, a map like a DRA
 * device's attributes), then evaluated twice with a small cost limit (10,000) and memory limit
 * (8 MiB): no crash, no leak, bounded time and memory, and the two evaluations of the same
 * program must agree (an evaluation leaves nothing behind that changes the next). A compile
 * error must carry a "line:col: " position. Each input runs twice over: with Kubernetes' strings
 * version 2 (cel-go's first formatter) and with the latest (string reverse, the current
 * formatter). Built as unit_fuzz_cel_eval (replay over
 * tests/fuzz/corpus/cel_eval) and, with libFuzzer, as the fuzzer fuzz_cel_eval. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(const uint8_t *data, size_t size, uint32_t strings_version)
{
	struct cel_env_options o = { .cost_limit = 10000, .memory_limit = 8 << 20, .strings_version = strings_version };
	struct cel_env *env = cel_env_new(&o);
	if (!env)
		abort();
	struct err e = { 0 };
	if (cel_env_add_kubernetes(env, &e) != 0)
		abort();
	int x = cel_env_declare(env, "x", &e), s = cel_env_declare(env, "s", &e);
	int l = cel_env_declare(env, "l", &e), d = cel_env_declare(env, "device", &e);
	struct cel_list *list = cel_list_new(3);
	struct cel_map *attrs = cel_map_new(4), *dev = cel_map_new(2);
	struct cel_activation *a = cel_activation_new(env);
	struct cel_eval *ev = cel_eval_new();
	if (x < 0 || s < 0 || l < 0 || d < 0 || !list || !attrs || !dev || !a || !ev)
		abort();
	cel_list_set(list, 0, cel_int(1));
	cel_list_set(list, 1, cel_string("two", 3));
	cel_list_set(list, 2, cel_double(3.5));
	cel_map_put(attrs, cel_string("model", 5), cel_string("a100", 4));
	cel_map_put(attrs, cel_string("memory", 6), cel_int(80));
	cel_map_put(attrs, cel_int(7), cel_bool(true));
	cel_map_put(dev, cel_string("driver", 6), cel_string("gpu.example.com", 15));
	cel_map_put(dev, cel_string("attributes", 10), cel_map_value(attrs));
	cel_activation_set(a, x, cel_int(42));
	cel_activation_set(a, s, cel_string("h\xc3\xa9llo", 6));
	cel_activation_set(a, l, cel_list_value(list));
	cel_activation_set(a, d, cel_map_value(dev));

	struct cel_program *p = cel_program_compile_len(env, (const char *)data, size, &e);
	if (!p) {
		int line, col;
		if (sscanf(e.msg, "%d:%d: ", &line, &col) != 2 && strncmp(e.msg, "expression code point size", 26) != 0)
			abort(); /* every compile error names its place */
	} else {
		char r1[512], r2[512];
		cel_value v;
		uint64_t c1 = 0, c2 = 0;
		if (cel_program_eval(p, ev, a, &v, &c1) != 0)
			abort();
		cel_value_format(v, r1, sizeof(r1));
		if (cel_program_eval(p, ev, a, &v, &c2) != 0)
			abort();
		cel_value_format(v, r2, sizeof(r2));
		if (strcmp(r1, r2) != 0 || c1 != c2)
			abort(); /* evaluations are independent */
		if (c1 > 10000 + 100000 && strstr(r1, "cost limit") == NULL)
			abort();
		cel_program_free(p);
	}
	cel_eval_free(ev);
	cel_activation_free(a);
	cel_map_free(dev);
	cel_map_free(attrs);
	cel_list_free(list);
	cel_env_free(env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	run(data, size, CEL_STRINGS_VERSION_KUBERNETES);
	run(data, size, CEL_STRINGS_VERSION_LATEST);
	return 0;
}
