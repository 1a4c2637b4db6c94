/* Kubernetes' format library (apiserver pkg/cel/library/format.go; type kubernetes.NamedFormat):
 * format.dns1123Label(), format.dns1123Subdomain(), format.dns1035Label(), format.qualifiedName(),
 * the three *Prefix variants, format.labelValue(), format.uri(), format.uuid(), format.byte(),
 * format.date(), format.datetime(), format.named(name) (optional), and
 * <format>.validate(string) -> optional list of messages (none when valid).
 *
 * The validators are apimachinery's (api/validation NameIsDNSLabel & co., util/validation and
 * api/validate/content: IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsLabelKey,
 * IsLabelValue with their messages) and kube-openapi strfmt's (uuid, byte = base64, date,
 * datetime), written out as the small automata their regular expressions are. */
#include <stdio.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"
#include "lib_internal.h"

/* ---- apimachinery validation ---- */

#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"
#define DNS1035_LABEL_FMT "[a-z]([-a-z0-9]*[a-z0-9])?"
#define LABEL_KEY_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"

static const char msg_label[] =
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
	"end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '"
	DNS1123_LABEL_FMT "')";
static const char msg_subdomain[] =
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
	"start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"
	DNS1123_SUBDOMAIN_FMT "')";
static const char msg_1035[] =
	"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
	"character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
	"validation is '" DNS1035_LABEL_FMT "')";
static const char msg_key_regex[] =
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
	"character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" LABEL_KEY_FMT "')";
static const char msg_label_value[] =
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
	"start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
	"validation is '(" LABEL_KEY_FMT ")?')";

static bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
static bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ */
static bool is_label(const char *s, size_t n)
{
	if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

static bool is_subdomain(const char *s, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i <= n; i++)
		if (i == n || s[i] == '.') {
			if (!is_label(s + start, i - start))
				return false;
			start = i + 1;
		}
	return true;
}

static bool is_1035(const char *s, size_t n)
{
	return n > 0 && s[0] >= 'a' && s[0] <= 'z' && is_label(s, n);
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
static bool is_key_name(const char *s, size_t n)
{
	if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* Up to 4 messages of one validation. */
struct msgs {
	const char *m[4];
	int n;
	char buf[4][600];
};

static void add(struct msgs *r, const char *m) { r->m[r->n++] = m; }

static void addf(struct msgs *r, const char *prefix, const char *m)
{
	snprintf(r->buf[r->n], sizeof(r->buf[r->n]), "%s%s", prefix, m);
	r->m[r->n] = r->buf[r->n];
	r->n++;
}

static void v_label(const char *s, size_t n, struct msgs *r)
{
	if (n > 63)
		add(r, "must be no more than 63 characters");
	if (!is_label(s, n))
		add(r, is_subdomain(s, n) ? "must not contain dots" : msg_label);
}

/* util/validation words the length limit in characters, api/validate/content (label keys and
 * values, and the prefix of a key) in bytes */
static void v_subdomain(const char *s, size_t n, struct msgs *r, const char *prefix)
{
	if (n > 253)
		addf(r, prefix, *prefix ? "must be no more than 253 bytes" : "must be no more than 253 characters");
	if (!is_subdomain(s, n))
		addf(r, prefix, msg_subdomain);
}

static void v_1035(const char *s, size_t n, struct msgs *r)
{
	if (n > 63)
		add(r, "must be no more than 63 characters");
	if (!is_1035(s, n))
		add(r, msg_1035);
}

/* content.IsLabelKey (IsQualifiedName) */
static void v_qualified(const char *s, size_t n, struct msgs *r)
{
	const char *slash = memchr(s, '/', n);
	const char *name = s;
	size_t nn = n;
	if (slash) {
		if (memchr(slash + 1, '/', n - (size_t)(slash + 1 - s))) {
			snprintf(r->buf[r->n], sizeof(r->buf[r->n]),
				 "a valid label key %s with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
				 msg_key_regex);
			r->m[r->n] = r->buf[r->n];
			r->n++;
			return;
		}
		size_t pn = (size_t)(slash - s);
		if (pn == 0)
			add(r, "prefix part must be non-empty");
		else
			v_subdomain(s, pn, r, "prefix part ");
		name = slash + 1;
		nn = n - pn - 1;
	}
	if (nn == 0)
		add(r, "name part must be non-empty");
	else if (nn > 63)
		add(r, "name part must be no more than 63 bytes");
	if (!is_key_name(name, nn))
		addf(r, "name part ", msg_key_regex);
}

static void v_label_value(const char *s, size_t n, struct msgs *r)
{
	if (n > 63)
		add(r, "must be no more than 63 bytes");
	if (n > 0 && !is_key_name(s, n))
		add(r, msg_label_value);
}

/* maskTrailingDash: "abc-" -> "aba" (the last two bytes become "a") for the *Prefix formats */
static size_t mask_dash(const char *s, size_t n, char *buf, size_t cap)
{
	if (n > 1 && s[n - 1] == '-' && n <= cap) {
		memcpy(buf, s, n - 2);
		buf[n - 2] = 'a';
		return n - 1;
	}
	return (size_t)-1;
}

/* ---- kube-openapi strfmt ---- */

static bool hexc(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$ */
static bool is_uuid(const char *s, size_t n)
{
	static const int groups[5] = { 8, 4, 4, 4, 12 };
	size_t i = 0;
	for (int g = 0; g < 5; g++) {
		if (g > 0 && i < n && s[i] == '-')
			i++;
		for (int k = 0; k < groups[g]; k++, i++)
			if (i >= n || !hexc(s[i]))
				return false;
	}
	return i == n;
}

static bool b64c(char c) { return alnum(c) || c == '+' || c == '/'; }

/* ^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$ */
static bool is_base64(const char *s, size_t n)
{
	if (n == 0 || n % 4 != 0)
		return false;
	for (size_t i = 0; i + 4 < n; i++)
		if (!b64c(s[i]))
			return false;
	const char *t = s + n - 4;
	if (!b64c(t[0]) || !b64c(t[1]))
		return false;
	if (t[2] == '=')
		return t[3] == '=';
	return b64c(t[2]) && (t[3] == '=' || b64c(t[3]));
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* time.Parse("2006-01-02", s) */
static bool is_date(const char *s, size_t n)
{
	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2))
		return false;
	int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int m = (s[5] - '0') * 10 + (s[6] - '0');
	int d = (s[8] - '0') * 10 + (s[9] - '0');
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m < 1 || m > 12 || d < 1)
		return false;
	int max = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
	return d <= max;
}

static bool tz_at(const char *q, const char *end)
{
	return (end - q == 1 && *q == 'z') ||
	       (end - q == 6 && (*q == '+' || *q == '-') && digits(q + 1, 2) && q[3] == ':' && digits(q + 4, 2));
}

/* strfmt.IsDateTime: the date before the first 't' (case-insensitively), and the part after it
 * (up to a second 't') matching ^(\d\d):(\d\d):(\d\d)(.[0-9]+)?(z|([+-]\d\d:\d\d))$ with
 * hours <= 23, minutes and seconds <= 59. */
static bool is_datetime(const char *s, size_t n)
{
	if (n < 4)
		return false;
	char low[256];
	if (n >= sizeof(low))
		return false; /* longer than any date-time */
	for (size_t i = 0; i < n; i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
	const char *t1 = memchr(low, 't', n);
	if (!t1 || !is_date(low, (size_t)(t1 - low)))
		return false;
	const char *p = t1 + 1, *end = low + n;
	const char *t2 = memchr(p, 't', (size_t)(end - p));
	if (t2)
		end = t2;
	size_t len = (size_t)(end - p);
	if (len < 9 || !digits(p, 2) || p[2] != ':' || !digits(p + 3, 2) || p[5] != ':' || !digits(p + 6, 2))
		return false;
	const char *q = p + 8;
	/* the zone, z or +hh:mm, must end the part; before it an optional "(any char)digits+": a
	 * zone starts with a non-digit, so the digits are the maximal run */
	bool ok = tz_at(q, end);
	if (!ok && q + 1 < end && *q != '\n') {
		const char *r = q + 1;
		while (r < end && *r >= '0' && *r <= '9')
			r++;
		ok = r > q + 1 && tz_at(r, end);
	}
	if (!ok)
		return false;
	return memcmp(p, "23", 2) <= 0 && memcmp(p + 3, "59", 2) <= 0 && memcmp(p + 6, "59", 2) <= 0;
}

/* ---- the formats ---- */

enum kind { F_LABEL, F_SUBDOMAIN, F_1035, F_QUALIFIED, F_LABEL_P, F_SUBDOMAIN_P, F_1035_P, F_LABEL_VALUE, F_URI, F_UUID,
	    F_BYTE, F_DATE, F_DATETIME };

struct named_format {
	struct cel_object hdr;
	const char *key;  /* format.<key>() */
	const char *name; /* Format.Name: what equality compares */
	enum kind kind;
};

static bool nf_equal(const struct cel_object *a, const struct cel_object *b)
{
	return strcmp(((const struct named_format *)a)->name, ((const struct named_format *)b)->name) == 0;
}

static size_t nf_format(const struct cel_object *o, char *buf, size_t cap)
{
	return (size_t)snprintf(buf, cap, "format.%s()", ((const struct named_format *)o)->key);
}

static const struct cel_object_type nf_type = { { "kubernetes.NamedFormat", CEL_OBJECT }, nf_equal, NULL, nf_format };

static const struct named_format formats[] = {
	{ { &nf_type }, "dns1123Label", "DNS1123Label", F_LABEL },
	{ { &nf_type }, "dns1123Subdomain", "DNS1123Subdomain", F_SUBDOMAIN },
	{ { &nf_type }, "dns1035Label", "DNS1035Label", F_1035 },
	{ { &nf_type }, "qualifiedName", "QualifiedName", F_QUALIFIED },
	{ { &nf_type }, "dns1123LabelPrefix", "DNS1123LabelPrefix", F_LABEL_P },
	{ { &nf_type }, "dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", F_SUBDOMAIN_P },
	{ { &nf_type }, "dns1035LabelPrefix", "DNS1035LabelPrefix", F_1035_P },
	{ { &nf_type }, "labelValue", "LabelValue", F_LABEL_VALUE },
	{ { &nf_type }, "uri", "URI", F_URI },
	{ { &nf_type }, "uuid", "uuid", F_UUID },
	{ { &nf_type }, "byte", "byte", F_BYTE },
	{ { &nf_type }, "date", "date", F_DATE },
	{ { &nf_type }, "datetime", "datetime", F_DATETIME },
};

static int fn_validate(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	const struct named_format *f = (const struct named_format *)a[0].obj;
	const char *s = a[1].s;
	size_t len = a[1].n;
	struct msgs r;
	r.n = 0;
	char masked[512];
	size_t ml;
	switch (f->kind) {
	case F_LABEL_P:
	case F_SUBDOMAIN_P:
	case F_1035_P:
		ml = mask_dash(s, len, masked, sizeof(masked));
		if (ml != (size_t)-1)
			s = masked, len = ml;
		break;
	default:
		break;
	}
	switch (f->kind) {
	case F_LABEL: case F_LABEL_P: v_label(s, len, &r); break;
	case F_SUBDOMAIN: case F_SUBDOMAIN_P: v_subdomain(s, len, &r, ""); break;
	case F_1035: case F_1035_P: v_1035(s, len, &r); break;
	case F_QUALIFIED: v_qualified(s, len, &r); break;
	case F_LABEL_VALUE: v_label_value(s, len, &r); break;
	case F_URI: {
		bool oom;
		const char *m = cel_lib_parse_request_uri(ev, s, len, &oom);
		if (oom)
			return CEL_NOMEM;
		if (m)
			add(&r, m);
		break;
	}
	case F_UUID: if (!is_uuid(s, len)) add(&r, "does not match the UUID format"); break;
	case F_BYTE: if (!is_base64(s, len)) add(&r, "invalid base64"); break;
	case F_DATE: if (!is_date(s, len)) add(&r, "invalid date"); break;
	case F_DATETIME: if (!is_datetime(s, len)) add(&r, "invalid datetime"); break;
	}
	if (r.n == 0)
		return cel_new_optional(ev, NULL, out);
	struct cel_list *l = cel_new_list(ev, (size_t)r.n);
	if (!l)
		return CEL_NOMEM;
	for (int i = 0; i < r.n; i++)
		if (cel_new_string(ev, r.m[i], strlen(r.m[i]), &l->items[i]))
			return CEL_NOMEM;
	cel_value lv = { .kind = CEL_LIST };
	lv.list = l;
	return cel_new_optional(ev, &lv, out);
}

static int fn_named(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (strlen(formats[i].key) == a[0].n && memcmp(formats[i].key, a[0].s, a[0].n) == 0) {
			cel_value v = cel_object_value(&formats[i].hdr);
			return cel_new_optional(ev, &v, out);
		}
	return cel_new_optional(ev, NULL, out);
}

/* format.<key>(): one function per format; the call's overload says which */
#define CONST_FN(idx)                                                                          \
	static int fn_const_##idx(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out) \
	{                                                                                      \
		(void)ev, (void)a, (void)n;                                                    \
		*out = cel_object_value(&formats[idx].hdr);                                   \
		return 0;                                                                      \
	}
CONST_FN(0) CONST_FN(1) CONST_FN(2) CONST_FN(3) CONST_FN(4) CONST_FN(5) CONST_FN(6)
CONST_FN(7) CONST_FN(8) CONST_FN(9) CONST_FN(10) CONST_FN(11) CONST_FN(12)

/* cost.go: "format.named" 1; validate is costed as a regex of the format's MaxRegexSize:
 * ceil(0.1 * (1 + size)) * ceil(0.25 * maxRegexSize) */
static const int max_regex[] = { 30, 60, 30, 60, 30, 60, 30, 40, 1103, 70, 84, 71, 71 };

static uint64_t cost_validate(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	const struct named_format *f = (const struct named_format *)a[0].obj;
	uint64_t s = (uint64_t)((cel_utf8_count(a[1].s, a[1].n) + 1 + 9) / 10);
	uint64_t re = (uint64_t)((max_regex[f->kind] + 3) / 4);
	return s * re;
}

#define NF { CEL_OBJECT, &nf_type }
#define S { CEL_STRING, NULL }
#define G CEL_OV_GLOBAL

static const struct cel_overload named_format_overloads[] = {
	{ "format-validate", "validate", CEL_OV_RECEIVER, 2, { NF, S }, fn_validate, NULL, NULL, cost_validate },
	{ "format-named", "format.named", G, 1, { S }, fn_named, NULL, NULL, NULL },
	{ "format.dns1123Label", "format.dns1123Label", G, 0, { { 0, NULL } }, fn_const_0, NULL, NULL, NULL },
	{ "format.dns1123Subdomain", "format.dns1123Subdomain", G, 0, { { 0, NULL } }, fn_const_1, NULL, NULL, NULL },
	{ "format.dns1035Label", "format.dns1035Label", G, 0, { { 0, NULL } }, fn_const_2, NULL, NULL, NULL },
	{ "format.qualifiedName", "format.qualifiedName", G, 0, { { 0, NULL } }, fn_const_3, NULL, NULL, NULL },
	{ "format.dns1123LabelPrefix", "format.dns1123LabelPrefix", G, 0, { { 0, NULL } }, fn_const_4, NULL, NULL, NULL },
	{ "format.dns1123SubdomainPrefix", "format.dns1123SubdomainPrefix", G, 0, { { 0, NULL } }, fn_const_5, NULL, NULL,
	  NULL },
	{ "format.dns1035LabelPrefix", "format.dns1035LabelPrefix", G, 0, { { 0, NULL } }, fn_const_6, NULL, NULL, NULL },
	{ "format.labelValue", "format.labelValue", G, 0, { { 0, NULL } }, fn_const_7, NULL, NULL, NULL },
	{ "format.uri", "format.uri", G, 0, { { 0, NULL } }, fn_const_8, NULL, NULL, NULL },
	{ "format.uuid", "format.uuid", G, 0, { { 0, NULL } }, fn_const_9, NULL, NULL, NULL },
	{ "format.byte", "format.byte", G, 0, { { 0, NULL } }, fn_const_10, NULL, NULL, NULL },
	{ "format.date", "format.date", G, 0, { { 0, NULL } }, fn_const_11, NULL, NULL, NULL },
	{ "format.datetime", "format.datetime", G, 0, { { 0, NULL } }, fn_const_12, NULL, NULL, NULL },
};

int cel_lib_named_format_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_type(env, &nf_type, e);
	if (rc != 0)
		return rc;
	return cel_env_add_overloads(env, named_format_overloads, ARRAY_SIZE(named_format_overloads), e);
}
