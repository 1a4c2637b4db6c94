#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int log_level_;              /* atomic: read on every LOG_V */
static int log_fd_ = 2;      /* atomic */

void log_set_verbosity(int v) { __atomic_store_n(&log_level_, v, __ATOMIC_RELAXED); }
int log_verbosity(void) { return __atomic_load_n(&log_level_, __ATOMIC_RELAXED); }
void log_set_fd(int fd) { __atomic_store_n(&log_fd_, fd, __ATOMIC_RELAXED); }

void log_write(char severity, const char *file, int line, const char *fmt, ...)
{
	char buf[4096];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg */
	int n = snprintf(buf, sizeof(buf), "%c%02d%02d %02d:%02d:%02d.%06ld %7ld %s:%d] ", severity,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000,
			 (long)syscall(SYS_gettid), base, line);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2; /* truncated: keep the newline */
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n++] = '\n';
	/* One write per line so that lines from different threads never interleave. */
	ssize_t w = write(__atomic_load_n(&log_fd_, __ATOMIC_RELAXED), buf, (size_t)n);
	(void)w;
}
