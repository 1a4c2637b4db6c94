/* URL query values for the subcommands' requests (cmd_internal.h). */
#include <string.h>

#include "cmd_internal.h"

void cmd_query_escape(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			strbuf_add(sb, p, 1);
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
}
