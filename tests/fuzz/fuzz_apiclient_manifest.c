/* Fuzz target for the YAML manifest reader (api_manifest_to_json: what `csched simulate --pods` and
 * --dump read): the input is the file, taken once with any kind and once as a pods file (kind Pod
 * only). It must end in JSON or a clear error, never a crash, a leak or unbounded work: go-yaml v2's
 * aliasing guard and depth limit are what keep "billion laughs" files bounded. Built as
 * unit_fuzz_apiclient_manifest (replay over tests/fuzz/corpus/apiclient_manifest) and, with libFuzzer,
 * fuzz_apiclient_manifest. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { NULL, "Pod" };
	for (size_t k = 0; k < 2; k++) {
		char *out = NULL;
		size_t len = 0;
		struct err e = { 0 };
		if (api_manifest_to_json("fuzz.yaml", (const char *)data, size, kinds[k], &out, &len, &e) < 0) {
			if (!e.msg[0] || out)
				abort(); /* an error says what it is, and leaves nothing behind */
			continue;
		}
		/* JSON (first non-blank byte '{') comes back as it is; YAML comes back as JSON that the
		 * decoders read next, so it must parse */
		size_t i = 0;
		while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
			i++;
		bool json_in = i < size && data[i] == '{';
		if (!out || (json_in ? len != size : strlen(out) != len))
			abort();
		char why[128];
		yajl_val v = json_in ? NULL : yajl_tree_parse(out, why, sizeof(why));
		if (!json_in && !v)
			abort();
		yajl_tree_free(v);
		free(out);
	}
	return 0;
}
