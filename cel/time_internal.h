/* Timestamp and duration helpers shared by time.c, std.c and eval.c. */
#ifndef CSCHED_CEL_TIME_INTERNAL_H
#define CSCHED_CEL_TIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0001-01-01T00:00:00Z <= sec <= 9999-12-31T23:59:59Z */
bool cel_ts_in_range(int64_t sec);
bool cel_ts_parse(const char *s, size_t n, int64_t *sec, uint32_t *nanos);
bool cel_dur_parse(const char *s, size_t n, int64_t *nanos);
size_t cel_format_timestamp(int64_t sec, uint32_t nanos, char *buf, size_t cap);
size_t cel_format_duration(int64_t nanos, char *buf, size_t cap);
size_t cel_format_double(double d, char *buf, size_t cap);

#endif
