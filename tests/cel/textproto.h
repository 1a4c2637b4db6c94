/* A small reader of protobuf text format, enough for cel-spec's SimpleTestFile conformance
 * files: fields `name: scalar`, `name { ... }` / `name: { ... }` / `name < ... >`, repeated
 * `name: [a, b]`, extension/Any names `[type.googleapis.com/x.Y]`, '#' comments, quoted
 * strings with C escapes (adjacent strings concatenate), numbers and identifiers. */
#ifndef CSCHED_TESTS_CEL_TEXTPROTO_H
#define CSCHED_TESTS_CEL_TEXTPROTO_H

#include <stdbool.h>
#include <stddef.h>

struct tp_node {
	char *name;
	bool is_msg;
	bool quoted;     /* scalar was a quoted string (bytes in sval/slen) */
	char *sval;      /* scalar text (decoded for strings), NUL-terminated */
	size_t slen;
	struct tp_node **kids;
	size_t nkids;
};

/* Parses a whole file; NULL with a message in err (line:col) on a syntax error. */
struct tp_node *tp_parse(const char *text, size_t len, char *err, size_t errcap);
void tp_free(struct tp_node *n);
/* The first child named name, or NULL. */
const struct tp_node *tp_get(const struct tp_node *n, const char *name);

#endif
