/* Fuzz target for the legacy Policy loader alone (config_load_policy_buffer, JSON or YAML),
 * seeded with Policy documents (tests/fuzz/corpus/config_policy) so the fuzzer spends its time in
 * policy.c rather than in the KubeSchedulerConfiguration decoder (fuzz_config_load covers both).
 * What loads must write (config_write) a KubeSchedulerConfiguration that loads again, else abort.
 * Built as unit_fuzz_config_policy (replay) and, with libFuzzer, as the fuzzer fuzz_config_policy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "algorithm/framework.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = { 0 };
	struct config pol = { 0 };
	if (config_load_policy_buffer(&pol, fw_registry(), "fuzz", (const char *)data, size, &e) == 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			int rc = config_write(&pol, f, &e);
			fclose(f);
			struct config again = { 0 };
			if (rc == 0 && config_load_buffer(&again, fw_registry(), "written", text, len, &e) != 0) {
				fprintf(stderr, "config_write output of a Policy does not load again: %s\n%s\n", e.msg,
					text);
				abort();
			}
			config_free(&again);
			free(text);
		}
	}
	config_free(&pol);
	return 0;
}
