/* Timestamps and durations (cel-go common/types/timestamp.go, duration.go): construction from
 * strings and ints, formatting, the accessors with optional time zones, and checked
 * arithmetic. Time zones by name come from the system's tz database (TZif files under
 * /usr/share/zoneinfo, or TZDIR), read with the 64-bit section; a time after the file's last
 * transition follows the file's POSIX TZ footer rule (RFC 8536 3.3), as Go's time package does. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"
#include "time_internal.h"

#define MIN_UNIX (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define MAX_UNIX 253402300799LL   /* 9999-12-31T23:59:59Z */

/* ---- civil calendar (proleptic Gregorian; H. Hinnant's days_from_civil) ---- */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yy + (*m <= 2);
}

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool cel_ts_in_range(int64_t sec) { return sec >= MIN_UNIX && sec <= MAX_UNIX; }

/* ---- parsing ---- */

static bool digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static int month_days(int64_t y, int m)
{
	static const int md[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return md[m - 1];
}

/* Go time.Parse(time.RFC3339, s): YYYY-MM-DDThh:mm:ss[.f{1,9}](Z|±hh:mm). */
bool cel_ts_parse(const char *s, size_t n, int64_t *sec, uint32_t *nanos)
{
	int Y, M, D, h, mi, se;
	if (n < 20 || !digits(s, 4, &Y) || s[4] != '-' || !digits(s + 5, 2, &M) || s[7] != '-' ||
	    !digits(s + 8, 2, &D) || s[10] != 'T' || !digits(s + 11, 2, &h) || s[13] != ':' ||
	    !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &se))
		return false;
	if (M < 1 || M > 12 || D < 1 || D > month_days(Y, M) || h > 23 || mi > 59 || se > 59)
		return false;
	size_t i = 19;
	uint32_t ns = 0;
	if (i < n && s[i] == '.') {
		i++;
		int nd = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (nd < 9)
				ns = ns * 10 + (uint32_t)(s[i] - '0');
			nd++;
			i++;
		}
		if (nd == 0)
			return false;
		for (int k = nd; k < 9; k++)
			ns *= 10;
	}
	int off = 0;
	if (i < n && s[i] == 'Z') {
		i++;
	} else if (i + 6 <= n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
		int oh, om;
		if (!digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om) || oh > 23 || om > 59)
			return false;
		off = (oh * 60 + om) * 60 * (s[i] == '-' ? -1 : 1);
		i += 6;
	} else {
		return false;
	}
	if (i != n)
		return false;
	*sec = days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400 + h * 3600 + mi * 60 + se - off;
	*nanos = ns;
	return true;
}

/* Go time.ParseDuration, to int64 nanoseconds. */
bool cel_dur_parse(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) {
		neg = s[i] == '-';
		i++;
	}
	if (i == n)
		return false;
	if (n - i == 1 && s[i] == '0') {
		*out = 0;
		return true;
	}
	uint64_t total = 0;
	while (i < n) {
		uint64_t v = 0;
		bool any = false, overflow = false;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (v > (UINT64_MAX - 9) / 10)
				overflow = true;
			v = v * 10 + (uint64_t)(s[i] - '0');
			any = true;
			i++;
		}
		double frac = 0, scale = 1;
		bool anyf = false;
		if (i < n && s[i] == '.') {
			i++;
			while (i < n && s[i] >= '0' && s[i] <= '9') {
				if (scale < 1e18) {
					frac = frac * 10 + (s[i] - '0');
					scale *= 10;
				}
				anyf = true;
				i++;
			}
		}
		if ((!any && !anyf) || overflow)
			return false;
		size_t u = i;
		while (i < n && !(s[i] == '.' || (s[i] >= '0' && s[i] <= '9')))
			i++;
		size_t ul = i - u;
		uint64_t unit;
		if (ul == 2 && memcmp(s + u, "ns", 2) == 0) unit = 1;
		else if (ul == 2 && memcmp(s + u, "us", 2) == 0) unit = 1000;
		else if (ul == 3 && memcmp(s + u, "\xc2\xb5s", 3) == 0) unit = 1000;
		else if (ul == 3 && memcmp(s + u, "\xce\xbcs", 3) == 0) unit = 1000;
		else if (ul == 2 && memcmp(s + u, "ms", 2) == 0) unit = 1000000;
		else if (ul == 1 && s[u] == 's') unit = 1000000000ull;
		else if (ul == 1 && s[u] == 'm') unit = 60000000000ull;
		else if (ul == 1 && s[u] == 'h') unit = 3600000000000ull;
		else return false;
		if (v > (1ull << 63) / unit)
			return false;
		v *= unit;
		if (anyf)
			v += (uint64_t)(frac * ((double)unit / scale));
		if (__builtin_add_overflow(total, v, &total) || total > (1ull << 63))
			return false;
	}
	if (!neg && total > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - total) : (int64_t)total;
	return true;
}

/* ---- formatting ---- */

size_t cel_format_timestamp(int64_t sec, uint32_t nanos, char *buf, size_t cap)
{
	int64_t days = floordiv(sec, 86400), rem = sec - days * 86400;
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	char frac[16] = "";
	if (nanos) {
		/* ".%09u" without its trailing zeros (Go's RFC3339Nano) */
		uint32_t v = nanos % 1000000000;
		int digits = 9;
		while (v % 10 == 0) {
			v /= 10;
			digits--;
		}
		snprintf(frac, sizeof(frac), ".%0*" PRIu32, digits, v);
	}
	return (size_t)snprintf(buf, cap, "%04" PRId64 "-%02u-%02uT%02d:%02d:%02d%sZ", y, m, d, (int)(rem / 3600),
				(int)(rem / 60 % 60), (int)(rem % 60), frac);
}

/* strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s" */
size_t cel_format_duration(int64_t nanos, char *buf, size_t cap)
{
	double secs = (double)(nanos / 1000000000) + (double)(nanos % 1000000000) / 1e9;
	char tmp[64];
	int prec;
	for (prec = 0; prec <= 20; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*f", prec, secs);
		if (strtod(tmp, NULL) == secs)
			break;
	}
	return (size_t)snprintf(buf, cap, "%ss", tmp);
}

/* ---- time zones ---- */

static int64_t be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return (int64_t)v;
}

static int32_t be32(const unsigned char *p)
{
	return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

/* ---- POSIX TZ strings (the footer of TZif v2+ files, RFC 8536 3.3): the rule for instants
 * after the last recorded transition, e.g. "EST5EDT,M3.2.0,M11.1.0" ---- */

struct posix_rule {
	char kind;     /* 'M' (Mm.w.d), 'J' (Jn, no Feb 29), 'n' (zero-based day of year) */
	int m, w, d;   /* M: month, week (5 = last), weekday (0 = Sunday); J/n: the day in d */
	int32_t time;  /* seconds after local midnight (default 02:00) */
};

static bool px_name(const char **s, const char *e)
{
	const char *b = *s;
	if (*s < e && **s == '<') {
		while (*s < e && **s != '>')
			(*s)++;
		if (*s >= e)
			return false;
		(*s)++;
		return true;
	}
	while (*s < e && ((**s >= 'a' && **s <= 'z') || (**s >= 'A' && **s <= 'Z')))
		(*s)++;
	return *s - b >= 3;
}

static bool px_num(const char **s, const char *e, int *v)
{
	if (*s >= e || **s < '0' || **s > '9')
		return false;
	*v = 0;
	while (*s < e && **s >= '0' && **s <= '9' && *v < 100000)
		*v = *v * 10 + (*(*s)++ - '0');
	return true;
}

/* [+-]hh[:mm[:ss]] in seconds */
static bool px_time(const char **s, const char *e, int32_t *out)
{
	int sign = 1, h, m = 0, sec = 0;
	if (*s < e && (**s == '+' || **s == '-')) {
		sign = **s == '-' ? -1 : 1;
		(*s)++;
	}
	if (!px_num(s, e, &h) || h > 167)
		return false;
	if (*s < e && **s == ':') {
		(*s)++;
		if (!px_num(s, e, &m) || m > 59)
			return false;
		if (*s < e && **s == ':') {
			(*s)++;
			if (!px_num(s, e, &sec) || sec > 59)
				return false;
		}
	}
	*out = sign * (h * 3600 + m * 60 + sec);
	return true;
}

static bool px_rule(const char **s, const char *e, struct posix_rule *r)
{
	r->time = 7200;
	if (*s < e && **s == 'M') {
		(*s)++;
		r->kind = 'M';
		if (!px_num(s, e, &r->m) || *s >= e || *(*s)++ != '.' || !px_num(s, e, &r->w) || *s >= e ||
		    *(*s)++ != '.' || !px_num(s, e, &r->d) || r->m < 1 || r->m > 12 || r->w < 1 || r->w > 5 || r->d > 6)
			return false;
	} else if (*s < e && **s == 'J') {
		(*s)++;
		r->kind = 'J';
		if (!px_num(s, e, &r->d) || r->d < 1 || r->d > 365)
			return false;
	} else {
		r->kind = 'n';
		if (!px_num(s, e, &r->d) || r->d > 365)
			return false;
	}
	if (*s < e && **s == '/') {
		(*s)++;
		return px_time(s, e, &r->time);
	}
	return true;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Local seconds since the epoch at which rule r fires in year y. */
static int64_t px_when(const struct posix_rule *r, int64_t y)
{
	int64_t day;
	if (r->kind == 'M') {
		int64_t first = days_from_civil(y, (unsigned)r->m, 1);
		int wd = (int)((first % 7 + 11) % 7); /* 0 = Sunday; 1970-01-01 was a Thursday */
		int mday = 1 + (r->d - wd + 7) % 7 + (r->w - 1) * 7;
		while (mday > month_days(y, r->m))
			mday -= 7;
		day = first + mday - 1;
	} else if (r->kind == 'J') {
		day = days_from_civil(y, 1, 1) + r->d - 1 + (leap(y) && r->d >= 60);
	} else {
		day = days_from_civil(y, 1, 1) + r->d;
	}
	return day * 86400 + r->time;
}

/* The UTC offset at t under POSIX TZ string s[0..n); false when it does not parse. */
static bool posix_offset(const char *s, size_t n, int64_t t, int32_t *off)
{
	const char *p = s, *e = s + n;
	int32_t std_west, dst_west;
	if (!px_name(&p, e) || !px_time(&p, e, &std_west))
		return false;
	if (p == e) {
		*off = -std_west;
		return true;
	}
	if (!px_name(&p, e))
		return false;
	dst_west = std_west - 3600;
	if (p < e && *p != ',' && !px_time(&p, e, &dst_west))
		return false;
	struct posix_rule start, end;
	if (p >= e || *p++ != ',' || !px_rule(&p, e, &start) || p >= e || *p++ != ',' || !px_rule(&p, e, &end) ||
	    p != e)
		return false;
	int64_t std_east = -std_west, dst_east = -dst_west;
	int64_t days = floordiv(t + std_east, 86400), y;
	unsigned mo, d;
	civil_from_days(days, &y, &mo, &d);
	/* the start fires in standard time, the end in daylight time */
	int64_t t_start = px_when(&start, y) - std_east, t_end = px_when(&end, y) - dst_east;
	bool dst = t_start < t_end ? (t >= t_start && t < t_end) : !(t >= t_end && t < t_start);
	*off = (int32_t)(dst ? dst_east : std_east);
	return true;
}

/* The UTC offset in seconds of zone name at Unix time t; false when the zone is unknown. */
static bool tz_offset(const char *name, size_t len, int64_t t, int32_t *off)
{
	if (len == 0 || len > 200 || name[0] == '/' || memmem(name, len, "..", 2) || memchr(name, '\0', len))
		return false;
	if (len == 3 && memcmp(name, "UTC", 3) == 0) {
		*off = 0;
		return true;
	}
	const char *dir = getenv("TZDIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/%.*s", dir && *dir ? dir : "/usr/share/zoneinfo", (int)len, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	unsigned char *data = NULL;
	size_t n = 0;
	bool ok = false;
	/* TZif files are a few KiB; a file over 1 MiB is not one */
	if (fseek(f, 0, SEEK_END) != 0)
		goto out;
	long size = ftell(f);
	if (size < 44 || size > (1 << 20) || fseek(f, 0, SEEK_SET) != 0)
		goto out;
	data = malloc((size_t)size);
	if (!data)
		goto out;
	n = fread(data, 1, (size_t)size, f);
	if (n < 44 || memcmp(data, "TZif", 4) != 0)
		goto out;
	{
		/* v1 header counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
		const unsigned char *h = data + 20;
		size_t cnt[6];
		for (int i = 0; i < 6; i++)
			cnt[i] = (size_t)be32(h + 4 * i);
		int tsize = 4;
		const unsigned char *p = data + 44;
		if (data[4] >= '2') {
			size_t skip = cnt[3] * 5 + cnt[4] * 6 + cnt[5] + cnt[2] * 8 + cnt[1] + cnt[0];
			if (44 + skip + 44 > n)
				goto out;
			h = data + 44 + skip + 20;
			for (int i = 0; i < 6; i++)
				cnt[i] = (size_t)be32(h + 4 * i);
			p = h + 24;
			tsize = 8;
		}
		size_t timecnt = cnt[3], typecnt = cnt[4];
		if (typecnt == 0 || (size_t)(p - data) + timecnt * (size_t)(tsize + 1) + typecnt * 6 > n)
			goto out;
		const unsigned char *times = p, *idx = p + timecnt * (size_t)tsize, *types = idx + timecnt;
		size_t type = 0;
		/* before the first transition: the first non-DST type (RFC 8536 3.2), usually type 0 */
		for (size_t i = 0; i < timecnt; i++) {
			int64_t tt = tsize == 8 ? be64(times + 8 * i) : be32(times + 4 * i);
			if (tt > t)
				break;
			type = idx[i];
		}
		if (type >= typecnt)
			goto out;
		*off = be32(types + 6 * type);
		ok = true;
		/* after the last transition, the footer's POSIX TZ rule (v2+) decides */
		int64_t last = timecnt ? (tsize == 8 ? be64(times + 8 * (timecnt - 1)) : be32(times + 4 * (timecnt - 1))) : INT64_MIN;
		if (tsize == 8 && t >= last) {
			const unsigned char *f0 = types + typecnt * 6 + cnt[5] + cnt[2] * 12 + cnt[1] + cnt[0];
			if (f0 < data + n && *f0 == '\n') {
				const unsigned char *f1 = memchr(f0 + 1, '\n', (size_t)(data + n - f0 - 1));
				int32_t po;
				if (f1 && f1 > f0 + 1 && posix_offset((const char *)f0 + 1, (size_t)(f1 - f0 - 1), t, &po))
					*off = po;
			}
		}
	}
out:
	free(data);
	fclose(f);
	return ok;
}

/* cel-go timeZone(): a name for time.LoadLocation, or "[+-]hh:mm". *err set on a bad zone. */
static bool zone_offset(struct cel_eval *ev, cel_value tz, int64_t t, int32_t *off, cel_value *err)
{
	const char *s = tz.s;
	size_t n = tz.n;
	const char *colon = memchr(s, ':', n);
	if (!colon) {
		if (tz_offset(s, n, t, off))
			return true;
		cel_error(ev, err, "unknown time zone %.*s", (int)n, s);
		return false;
	}
	/* strconv.Atoi on both sides */
	size_t hl = (size_t)(colon - s);
	char hb[16], mb[16];
	if (hl == 0 || hl >= sizeof(hb) || n - hl - 1 == 0 || n - hl - 1 >= sizeof(mb)) {
		cel_error(ev, err, "invalid time zone offset %.*s", (int)n, s);
		return false;
	}
	memcpy(hb, s, hl);
	hb[hl] = '\0';
	memcpy(mb, colon + 1, n - hl - 1);
	mb[n - hl - 1] = '\0';
	char *e1, *e2;
	long hr = strtol(hb, &e1, 10), mi = strtol(mb, &e2, 10);
	if (*e1 || *e2 || hb[0] == ' ' || mb[0] == ' ' || mb[0] == '+' || mb[0] == '-') {
		cel_error(ev, err, "invalid time zone offset %.*s", (int)n, s);
		return false;
	}
	if (mi < 0 || mi > 59) {
		cel_error(ev, err, "timezone offset minutes out of range [0, 59]: %.*s", (int)n, s);
		return false;
	}
	long o = s[0] == '-' ? hr * 60 - mi : hr * 60 + mi;
	*off = (int32_t)(o * 60);
	return true;
}

/* ---- functions ---- */

enum acc { A_YEAR, A_MONTH, A_DATE, A_DOM, A_DOW, A_DOY, A_HOURS, A_MINUTES, A_SECONDS, A_MILLIS };

static int ts_access(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, enum acc what)
{
	int64_t t = a[0].i;
	if (n == 2) {
		int32_t off = 0;
		if (!zone_offset(ev, a[1], t, &off, out))
			return 0;
		t += off;
	}
	int64_t days = floordiv(t, 86400), rem = t - days * 86400;
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	int64_t r = 0;
	switch (what) {
	case A_YEAR: r = y; break;
	case A_MONTH: r = m - 1; break;
	case A_DATE: r = d; break;
	case A_DOM: r = d - 1; break;
	case A_DOW: r = (days % 7 + 11) % 7; break; /* 1970-01-01 was a Thursday (4) */
	case A_DOY: r = days - days_from_civil(y, 1, 1); break;
	case A_HOURS: r = rem / 3600; break;
	case A_MINUTES: r = rem / 60 % 60; break;
	case A_SECONDS: r = rem % 60; break;
	case A_MILLIS: r = a[0].n / 1000000; break;
	}
	*out = cel_int(r);
	return 0;
}

#define TS_FN(fname, what) \
	static int fname(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out) \
	{ \
		return ts_access(ev, a, n, out, what); \
	}
TS_FN(ts_year, A_YEAR)
TS_FN(ts_month, A_MONTH)
TS_FN(ts_date, A_DATE)
TS_FN(ts_dom, A_DOM)
TS_FN(ts_dow, A_DOW)
TS_FN(ts_doy, A_DOY)
TS_FN(ts_hours, A_HOURS)
TS_FN(ts_minutes, A_MINUTES)
TS_FN(ts_seconds, A_SECONDS)
TS_FN(ts_millis, A_MILLIS)

static int dur_hours(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(a[0].i / 3600000000000LL);
	return 0;
}
static int dur_minutes(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(a[0].i / 60000000000LL);
	return 0;
}
static int dur_seconds(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(a[0].i / 1000000000LL);
	return 0;
}
static int dur_millis(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(a[0].i / 1000000LL);
	return 0;
}

static int fn_timestamp(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	switch (a[0].kind) {
	case CEL_TIMESTAMP:
		*out = a[0];
		return 0;
	case CEL_INT:
		if (!cel_ts_in_range(a[0].i))
			return cel_error(ev, out, "timestamp overflow");
		*out = cel_timestamp(a[0].i, 0);
		return 0;
	case CEL_STRING: {
		int64_t s;
		uint32_t ns;
		if (!cel_ts_parse(a[0].s, a[0].n, &s, &ns))
			return cel_error(ev, out, "type conversion error from 'string' to 'google.protobuf.Timestamp'");
		if (!cel_ts_in_range(s))
			return cel_error(ev, out, "timestamp overflow");
		*out = cel_timestamp(s, ns);
		return 0;
	}
	}
	return cel_error_no_overload(ev, out, "timestamp", a, 1);
}

static int fn_duration(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	switch (a[0].kind) {
	case CEL_DURATION:
		*out = a[0];
		return 0;
	case CEL_INT:
		*out = cel_duration(a[0].i);
		return 0;
	case CEL_STRING: {
		int64_t d;
		if (!cel_dur_parse(a[0].s, a[0].n, &d))
			return cel_error(ev, out, "type conversion error from 'string' to 'google.protobuf.Duration'");
		*out = cel_duration(d);
		return 0;
	}
	}
	return cel_error_no_overload(ev, out, "duration", a, 1);
}

#define K(k) { k, NULL }
#define R CEL_OV_RECEIVER
#define TS2(id, name, fn) \
	{ id, name, R, 1, { K(CEL_TIMESTAMP) }, fn, NULL, NULL, NULL }, \
	{ id "_with_tz", name, R, 2, { K(CEL_TIMESTAMP), K(CEL_STRING) }, fn, NULL, NULL, NULL }

static const struct cel_overload time_overloads[] = {
	{ "timestamp", "timestamp", CEL_OV_GLOBAL, 1, { { CEL_ANY, NULL } }, fn_timestamp, NULL, NULL, NULL },
	{ "duration", "duration", CEL_OV_GLOBAL, 1, { { CEL_ANY, NULL } }, fn_duration, NULL, NULL, NULL },
	TS2("timestamp_to_year", "getFullYear", ts_year),
	TS2("timestamp_to_month", "getMonth", ts_month),
	TS2("timestamp_to_day_of_month_1_based", "getDate", ts_date),
	TS2("timestamp_to_day_of_month", "getDayOfMonth", ts_dom),
	TS2("timestamp_to_day_of_week", "getDayOfWeek", ts_dow),
	TS2("timestamp_to_day_of_year", "getDayOfYear", ts_doy),
	TS2("timestamp_to_hours", "getHours", ts_hours),
	TS2("timestamp_to_minutes", "getMinutes", ts_minutes),
	TS2("timestamp_to_seconds", "getSeconds", ts_seconds),
	TS2("timestamp_to_milliseconds", "getMilliseconds", ts_millis),
	{ "duration_to_hours", "getHours", R, 1, { K(CEL_DURATION) }, dur_hours, NULL, NULL, NULL },
	{ "duration_to_minutes", "getMinutes", R, 1, { K(CEL_DURATION) }, dur_minutes, NULL, NULL, NULL },
	{ "duration_to_seconds", "getSeconds", R, 1, { K(CEL_DURATION) }, dur_seconds, NULL, NULL, NULL },
	{ "duration_to_milliseconds", "getMilliseconds", R, 1, { K(CEL_DURATION) }, dur_millis, NULL, NULL, NULL },
};

int cel_time_register(struct cel_env *env, struct err *e)
{
	return cel_env_add_overloads(env, time_overloads, sizeof(time_overloads) / sizeof(time_overloads[0]), e);
}
