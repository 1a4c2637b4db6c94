/* Fuzz target for the object decoders and the quantity parser. tests/CMakeLists.txt builds it as
 * unit_fuzz_apiclient_decode (tests/fuzz/replay.c over tests/fuzz/corpus/apiclient_decode, a unit
 * test) and, with a compiler that has libFuzzer (clang), as the fuzzer fuzz_apiclient_decode. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	struct api_pod *p = api_pod_decode_json((const char *)data, size, &e);
	api_pod_unref(p);
	struct api_node *n = api_node_decode_json((const char *)data, size, &e);
	api_node_unref(n);
	/* The same bytes as a quantity (up to the first NUL). */
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
		int64_t v, m;
		api_quantity_parse(s, &v, &m, &e);
		free(s);
	}
	return 0;
}
