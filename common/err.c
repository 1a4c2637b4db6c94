#include "common/err.h"

#include <stdio.h>
#include <string.h>

int err_setv(struct err *e, int code, const char *fmt, va_list ap)
{
	if (e) {
		e->code = code;
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	}
	return code;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_setv(e, code, fmt, ap);
	va_end(ap);
	return code;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	if (!e)
		return ERR_INVALID;
	char buf[2 * ERR_MSG_MAX + 4];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, ERR_MSG_MAX, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n >= ERR_MSG_MAX)
		n = ERR_MSG_MAX - 1;
	buf[n++] = ':';
	buf[n++] = ' ';
	size_t old = strnlen(e->msg, ERR_MSG_MAX - 1);
	memcpy(buf + n, e->msg, old);
	n += (int)old;
	if (n >= ERR_MSG_MAX)
		n = ERR_MSG_MAX - 1; /* the message is cut, the place it names is kept */
	memcpy(e->msg, buf, (size_t)n);
	e->msg[n] = '\0';
	return e->code ? e->code : ERR_INVALID;
}

void err_clear(struct err *e)
{
	if (e) {
		e->code = 0;
		e->http_status = 0;
		e->msg[0] = '\0';
	}
}

const char *err_code_str(int code)
{
	switch (code) {
	case 0: return "ok";
	case ERR_INVALID: return "invalid";
	case ERR_NOMEM: return "out of memory";
	case ERR_IO: return "i/o error";
	case ERR_TRANSPORT: return "transport error";
	case ERR_HTTP: return "http error";
	case ERR_NOT_FOUND: return "not found";
	case ERR_CONFLICT: return "conflict";
	case ERR_GONE: return "gone";
	case ERR_FORBIDDEN: return "forbidden";
	case ERR_STOPPED: return "stopped";
	case ERR_TIMEOUT: return "timeout";
	case ERR_UNSUPPORTED: return "unsupported";
	default: return "unknown error";
	}
}
