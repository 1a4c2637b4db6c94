/* Fuzz target for the PodDisruptionBudget decoder (api_pdb_decode_json, what the PDB informer
 * decodes every LIST item and watch event with). Built as unit_fuzz_apiclient_pdb (replay over
 * tests/fuzz/corpus/apiclient_pdb) and, with libFuzzer, as the fuzzer fuzz_apiclient_pdb. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	struct api_pdb *p = api_pdb_decode_json((const char *)data, size, &e);
	if (p) {
		/* Every field a decoded budget promises is readable (ASan/valgrind check the reads). */
		size_t n = strlen(p->meta.name) + strlen(p->meta.namespace);
		for (uint32_t i = 0; i < p->n_disrupted; i++)
			n += strlen(p->disrupted_pods[i]);
		if (p->selector) {
			for (uint32_t i = 0; i < p->selector->match_labels.n; i++)
				n += strlen(p->selector->match_labels.items[i].key) +
				     strlen(p->selector->match_labels.items[i].value);
			for (uint32_t i = 0; i < p->selector->n_exprs; i++)
				for (uint32_t j = 0; j < p->selector->exprs[i].n_values; j++)
					n += strlen(p->selector->exprs[i].values[j]);
		}
		if (n == SIZE_MAX)
			abort();
	}
	api_pdb_unref(p);
	return 0;
}
