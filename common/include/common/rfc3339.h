/* RFC 3339 timestamps, as the API server writes them (metav1.Time, metav1.MicroTime) and as
 * exec credential plugins print expirationTimestamp.
 *
 * rfc3339_parse accepts what RFC 3339's date-time grammar and Go's time.Parse(time.RFC3339, ...)
 * agree on: "YYYY-MM-DDThh:mm:ss", an optional fraction ".d..." of any length (read to the
 * microsecond, the rest truncated), then "Z" or "+hh:mm"/"-hh:mm". Every field has its fixed
 * width and its range (month 1-12, day 1 to the month's length in that year, hour 0-23, minute
 * 0-59, second 0-59, offset up to 23:59). Rejected, as Go rejects them: lowercase 't'/'z', a
 * leap second ":60", a fraction without digits. Also rejected, as RFC 3339 and Go's strict
 * parser (go.dev/issue/54580) do, where Go's lenient fallback parser would accept: a one-digit
 * hour, a ',' before the fraction, an offset hour of 24 or minute of 60. */
#ifndef CSCHED_COMMON_RFC3339_H
#define CSCHED_COMMON_RFC3339_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* s -> Unix microseconds in *us; false (and *us untouched) when s is NULL or not RFC 3339. */
bool rfc3339_parse(const char *s, int64_t *us);

/* Unix microseconds -> "2026-11-23T06:49:36.123456Z" (27 characters and a NUL; buf should hold
 * RFC3339_MICRO_SIZE). */
#define RFC3339_MICRO_SIZE 32
void rfc3339_format_micro(int64_t us, char *buf, size_t size);

#endif
