/* Helpers shared by the Kubernetes library files (cel/lib_*.c): Go's spellings of values in
 * error messages. Included by plain name by cel/lib_*.c only. */
#ifndef CSCHED_CEL_LIB_INTERNAL_H
#define CSCHED_CEL_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel_internal.h"

/* s[0..n) quoted as Go's strconv.Quote (fmt's %q) into the evaluation's arena: printable
 * characters as they are, \" \\ \a \b \f \n \r \t \v, other bytes below 0x80 and invalid UTF-8
 * as \xNN. NULL on out of memory. */
const char *cel_lib_go_quote(struct cel_eval *ev, const char *s, size_t n);

/* strconv.ParseUint(s, 10, 64): 0 and *v, or the error message as Go words it
 * ("strconv.ParseUint: parsing \"x\": invalid syntax" / "... value out of range") into the
 * arena as *msg (NULL msg: out of memory, return CEL_NOMEM). */
int cel_lib_go_parse_uint(struct cel_eval *ev, const char *s, size_t n, uint64_t *v, const char **msg);

/* netip.ParseAddr(s): true and *v6, or false with Go's message ("ParseAddr(\"x\"): unable to
 * parse IP") in msg (cel/lib_net.c). */
bool cel_lib_parse_addr(const char *s, size_t n, bool *v6, char *msg, size_t cap);

/* url.ParseRequestURI(s): NULL when it parses, else Go's message (arena); *oom on out of
 * memory (cel/lib_url.c). */
const char *cel_lib_parse_request_uri(struct cel_eval *ev, const char *s, size_t n, bool *oom);

/* string.format(list) (cel/lib_format.c), overload functions of cel/lib_strings.c by the
 * strings extension's version: cel-go's first formatter (versions 1 to 3), its current one
 * without a precision limit (version 4) and with precision at most 100 (from version 5). */
int cel_lib_format_string_v1(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out);
int cel_lib_format_string_v4(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out);
int cel_lib_format_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out);

#endif
