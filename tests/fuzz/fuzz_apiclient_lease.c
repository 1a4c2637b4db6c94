/* Fuzz target for the Lease decoder (api_lease_decode, what leader election reads from every GET,
 * create and update answer) and the RFC 3339 time parser its acquireTime/renewTime go through
 * (api_parse_time, the input up to its first NUL): a time that parses must format
 * (api_format_time) to a text that parses to the same instant, else abort. Built as
 * unit_fuzz_apiclient_lease (replay over tests/fuzz/corpus/apiclient_lease) and, with libFuzzer,
 * as the fuzzer fuzz_apiclient_lease. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"
#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct api__json *j;
	if (!j && !(j = api__json_new()))
		return 0;
	char ebuf[256];
	yajl_val root = NULL;
	if (api__json_parse(j, (const char *)data, size, &root, ebuf, sizeof(ebuf)) == 0) {
		struct api_lease l;
		struct err e;
		if (api_lease_decode(root, &l, &e) == 0)
			api_lease_release(&l);
	}
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	int64_t us, again;
	if (api_parse_time(s, &us) == 0) {
		char t[64];
		api_format_time(us, t, sizeof(t));
		if (api_parse_time(t, &again) != 0 || again != us) {
			fprintf(stderr, "time \"%s\": %" PRId64 " us formats as \"%s\", which does not parse back\n", s, us,
				t);
			abort();
		}
	}
	free(s);
	return 0;
}
