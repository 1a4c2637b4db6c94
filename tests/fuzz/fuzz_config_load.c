/* Fuzz target for the configuration loaders: the bytes as a KubeSchedulerConfiguration and as a
 * legacy Policy (YAML or JSON). What loads must also write (config_write) to a text that loads
 * again: a configuration csched accepts but cannot reproduce is a bug (abort). tests/CMakeLists.txt
 * builds it as unit_fuzz_config_load (replay over tests/fuzz/corpus/config_load) and, with
 * libFuzzer, as the fuzzer fuzz_config_load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "algorithm/framework.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* config_write's output must load again. */
static void check_round_trip(const struct config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct err e = { 0 };
	if (!f)
		return;
	int rc = config_write(cfg, f, &e);
	fclose(f);
	if (rc == 0) {
		struct config again = { 0 };
		if (config_load_buffer(&again, fw_registry(), "written", text, len, &e) != 0) {
			fprintf(stderr, "config_write output does not load again: %s\n%s\n", e.msg, text);
			abort();
		}
		config_free(&again);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = { 0 };
	struct config cfg = { 0 };
	if (config_load_buffer(&cfg, fw_registry(), "fuzz", (const char *)data, size, &e) == 0)
		check_round_trip(&cfg);
	config_free(&cfg);
	struct config pol = { 0 };
	if (config_load_policy_buffer(&pol, fw_registry(), "fuzz", (const char *)data, size, &e) == 0)
		check_round_trip(&pol);
	config_free(&pol);
	return 0;
}
