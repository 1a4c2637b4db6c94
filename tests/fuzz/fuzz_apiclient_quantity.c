/* Fuzz target for the quantity parser (api_quantity_parse, resource.ParseQuantity's grammar).
 * The input up to its first NUL is one quantity. With FUZZ_QUANTITY_PRINT set in the
 * environment, each input's result is printed as tests/fuzz/quantity_oracle prints upstream's
 * (`ok VALUE MILLI` or `err`), one line per input, so that a corpus the fuzzer grew can be
 * compared with upstream's ParseQuantity (tests/fuzz/quantity_diff.sh). Built as
 * unit_fuzz_apiclient_quantity (replay over tests/fuzz/corpus/apiclient_quantity) and, with
 * libFuzzer, as the fuzzer fuzz_apiclient_quantity. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int print = -1;
	if (print < 0)
		print = getenv("FUZZ_QUANTITY_PRINT") != NULL;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct err e = { 0 };
	int64_t v = 0, m = 0;
	int rc = api_quantity_parse(s, &v, &m, &e);
	if (print) {
		if (rc == 0)
			printf("ok %" PRId64 " %" PRId64 "\n", v, m);
		else
			printf("err\n");
	}
	free(s);
	return 0;
}
