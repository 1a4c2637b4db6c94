/* klog-style logging: "I1123 06:49:36.123456   12345 file.c:42] message".
 *
 * Severity letters I, W, E, F as klog. LOG_V(n, ...) prints only when the verbosity set with
 * log_set_verbosity (the -v flag) is >= n. Thread-safe: each line is written with one write(2).
 * Never pass secrets (tokens, keys) to these functions. */
#ifndef CSCHED_LOG_H
#define CSCHED_LOG_H

#include <stdbool.h>

void log_set_verbosity(int v);
int log_verbosity(void);
static inline bool log_v_enabled(int v)
{
	extern int log_level_;
	return __atomic_load_n(&log_level_, __ATOMIC_RELAXED) >= v;
}

/* Redirects output (default: stderr). fd must stay open. */
void log_set_fd(int fd);

void log_write(char severity, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define LOG_INFO(...) log_write('I', __FILE__, __LINE__, __VA_ARGS__)
#define LOG_WARN(...) log_write('W', __FILE__, __LINE__, __VA_ARGS__)
#define LOG_ERROR(...) log_write('E', __FILE__, __LINE__, __VA_ARGS__)
#define LOG_V(n, ...)                                                  \
	do {                                                           \
		if (log_v_enabled(n))                                  \
			log_write('I', __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

#endif
