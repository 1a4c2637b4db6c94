/* Base64 decoding, standard alphabet (RFC 4648 section 4), for certificate and key data. */
#ifndef CSCHED_COMMON_BASE64_H
#define CSCHED_COMMON_BASE64_H

#include <stdbool.h>
#include <stddef.h>

enum base64_mode {
	/* Go's encoding/json for []byte (base64.StdEncoding): padded to a multiple of 4, nothing
	 * but the alphabet and final '='s. */
	BASE64_STRICT,
	/* client-go's kubeconfig *-data fields as people write them: padding optional, white space
	 * (line breaks of a pasted PEM) skipped. */
	BASE64_LENIENT,
};

/* The most bytes in_len characters decode to: the size of out for base64_decode. */
static inline size_t base64_decoded_max(size_t in_len)
{
	return in_len / 4 * 3 + 3;
}

/* Decodes in[0..in_len) into out (base64_decoded_max(in_len) bytes), the length into *out_len.
 * Returns false when in is not base64 in that mode; *bad_at is then the offset of the first byte
 * that is not allowed where it stands, or in_len when the input ends short (a length that is not
 * a multiple of 4 in BASE64_STRICT, a dangling character or wrong padding in BASE64_LENIENT).
 * bad_at may be NULL. */
bool base64_decode(const char *in, size_t in_len, enum base64_mode mode, unsigned char *out, size_t *out_len,
		   size_t *bad_at);

#endif
