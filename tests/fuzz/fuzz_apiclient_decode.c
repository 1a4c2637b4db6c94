/* Fuzz target for the object decoders and the quantity parser.
 *
 * With clang: clang -fsanitize=fuzzer,address -DCSCHED_LIBFUZZER ... builds a libFuzzer target.
 * Without (gcc has no libFuzzer) the same file builds a replay program: every argument is a
 * file whose bytes are fed to LLVMFuzzerTestOneInput, e.g. the fixtures in tests/fixtures/api.
 *   gcc -std=c11 -D_GNU_SOURCE -fsanitize=address,undefined -I. tests/fuzz/fuzz_apiclient_decode.c \
 *       apiclient/decode.c apiclient/quantity.c apiclient/types.c common/[every .c] -lyajl -lpthread -lm */
#include <stdint.h>
#include <stdio.h>
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

#ifndef CSCHED_LIBFUZZER
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t cap = 1 << 16, n = 0;
		uint8_t *buf = malloc(cap);
		size_t r;
		while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
			n += r;
			if (n == cap) {
				uint8_t *nb = realloc(buf, cap *= 2);
				if (!nb)
					free(buf);
				buf = nb;
			}
		}
		fclose(f);
		if (!buf)
			return 1;
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	return 0;
}
#endif
