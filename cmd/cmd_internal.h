/* Helpers shared by csched's subcommands (cmd/). */
#ifndef CSCHED_CMD_INTERNAL_H
#define CSCHED_CMD_INTERNAL_H

#include "common/strbuf.h"

/* Appends s to sb percent-encoded for a URL query value (RFC 3986 unreserved characters kept). */
void cmd_query_escape(struct strbuf *sb, const char *s);

#endif
