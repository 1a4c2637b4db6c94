/* RFC 3339 parsing and formatting (contract in rfc3339.h). Digits are read by hand: sscanf was a
 * visible share of decoding a pod. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/rfc3339.h"

/* One fixed-width number of a layout: where it starts, how wide it is, its range. */
struct field {
	int at, width, min, max;
};

/* n decimal digits at s into *v; false when one is not a digit. */
static bool digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

/* Reads the fields of a layout (after its separators were checked) into v; false when one is
 * not all digits or out of its range. */
static bool read_fields(const char *s, const struct field *f, size_t n, int *v)
{
	for (size_t i = 0; i < n; i++) {
		if (!digits(s + f[i].at, f[i].width, &v[i]) || v[i] < f[i].min || v[i] > f[i].max)
			return false;
	}
	return true;
}

/* The separators of a layout: layout[i] is the character s[i] must be, or ' ' for a digit. */
static bool separators(const char *s, const char *layout)
{
	for (size_t i = 0; layout[i]; i++) {
		if (layout[i] != ' ' && s[i] != layout[i])
			return false;
	}
	return true;
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return mdays[m - 1] + (m == 2 && leap_year(y));
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "2006-01-02T15:04:05" at s (19 characters, checked by the caller) -> seconds since the epoch. */
static bool parse_date_time(const char *s, int64_t *secs)
{
	enum { Y, MO, D, H, MI, S, NFIELDS };
	static const struct field f[NFIELDS] = {
		[Y] = {0, 4, 0, 9999}, [MO] = {5, 2, 1, 12}, [D] = {8, 2, 1, 31},
		[H] = {11, 2, 0, 23}, [MI] = {14, 2, 0, 59}, [S] = {17, 2, 0, 59},
	};
	int v[NFIELDS];
	if (!separators(s, "    -  -  T  :  :") || !read_fields(s, f, NFIELDS, v) || v[D] > days_in_month(v[Y], v[MO]))
		return false;
	*secs = days_from_civil(v[Y], v[MO], v[D]) * 86400 + v[H] * 3600 + v[MI] * 60 + v[S];
	return true;
}

/* ".123456789" at *p -> microseconds (digits past the sixth truncated); *p moves past it. No
 * fraction is 0; a '.' without a digit is left for the zone, which then rejects it. */
static int64_t parse_fraction(const char **p)
{
	const char *s = *p;
	if (s[0] != '.' || s[1] < '0' || s[1] > '9')
		return 0;
	int64_t frac = 0;
	int n = 0;
	for (s++; *s >= '0' && *s <= '9'; s++, n++) {
		if (n < 6)
			frac = frac * 10 + (*s - '0');
	}
	for (; n < 6; n++)
		frac *= 10;
	*p = s;
	return frac;
}

/* "Z" or "+hh:mm" / "-hh:mm", the whole rest of the string -> offset east of UTC in seconds. */
static bool parse_zone(const char *s, int64_t *off)
{
	static const struct field f[2] = {{1, 2, 0, 23}, {4, 2, 0, 59}};
	int v[2];
	*off = 0;
	if (s[0] == 'Z' && !s[1])
		return true;
	if ((s[0] != '+' && s[0] != '-') || strlen(s) != 6 || s[3] != ':' || !read_fields(s, f, 2, v))
		return false;
	*off = (int64_t)(v[0] * 60 + v[1]) * 60 * (s[0] == '-' ? -1 : 1);
	return true;
}

bool rfc3339_parse(const char *s, int64_t *us)
{
	int64_t secs, off;
	if (!s || strnlen(s, 19) < 19 || !parse_date_time(s, &secs))
		return false;
	const char *p = s + 19;
	int64_t frac = parse_fraction(&p);
	if (!parse_zone(p, &off))
		return false;
	*us = (secs - off) * 1000000 + frac;
	return true;
}

void rfc3339_format_micro(int64_t us, char *buf, size_t size)
{
	int64_t secs = us / 1000000, rem = us % 1000000;
	if (rem < 0) {
		rem += 1000000;
		secs--;
	}
	time_t t = (time_t)secs;
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "1970-01-01T00:00:00.000000Z");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)rem);
}
