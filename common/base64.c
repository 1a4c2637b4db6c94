/* Base64 decoding (contract in base64.h). */
#include <ctype.h>
#include <stdint.h>

#include "common/base64.h"

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* A '=' at i: strict mode allows one only in the last two places. */
static bool pad_allowed(size_t i, size_t in_len, enum base64_mode mode)
{
	return mode == BASE64_LENIENT || i + 2 >= in_len;
}

/* The input ended: 6 leftover bits cannot encode a byte; padding must complete a 4-character
 * group (2 leftover bits: one '=', 4: two). */
static bool tail_ok(int bits, size_t pad)
{
	return bits < 6 && pad <= 2 && (!pad || (size_t)(bits / 2) == pad);
}

bool base64_decode(const char *in, size_t in_len, enum base64_mode mode, unsigned char *out, size_t *out_len,
		   size_t *bad_at)
{
	size_t n = 0, pad = 0, at = in_len;
	uint32_t acc = 0;
	int bits = 0;
	*out_len = 0;
	if (mode == BASE64_STRICT && in_len % 4)
		goto bad;
	for (size_t i = 0; i < in_len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (mode == BASE64_LENIENT && isspace(c))
			continue;
		if (c == '=' && pad_allowed(i, in_len, mode)) {
			pad++;
			continue;
		}
		int v = b64_value(c);
		if (v < 0 || pad) { /* a bad character, or data after padding */
			at = i;
			goto bad;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)((acc >> bits) & 0xff);
		}
	}
	if (!tail_ok(bits, pad))
		goto bad;
	*out_len = n;
	return true;
bad:
	if (bad_at)
		*bad_at = at;
	return false;
}
