/* Fuzz target for the PersistentVolumeClaim decoder (api_pvc_decode_json, what the PVC informer
 * decodes every LIST item and watch event with). Built as unit_fuzz_apiclient_pvc (replay over
 * tests/fuzz/corpus/apiclient_pvc) and, with libFuzzer, as the fuzzer fuzz_apiclient_pvc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	struct api_pvc *p = api_pvc_decode_json((const char *)data, size, &e);
	if (p) {
		/* Every field a decoded claim promises is readable (ASan/valgrind check the reads). */
		size_t n = strlen(p->meta.name) + strlen(p->meta.namespace) + strlen(p->volume_name) +
			   strlen(p->phase) + (p->storage_class_name ? strlen(p->storage_class_name) : 0);
		if (n == SIZE_MAX)
			abort();
	}
	api_pvc_unref(p);
	return 0;
}
