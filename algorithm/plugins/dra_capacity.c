/* Consumable capacity (upstream structured/internal/incubating/consumable_capacity.go,
 * DRAConsumableCapacity with FractionalCapacityRange): what a request consumes of a device's
 * capacity under its requestPolicy, and whether it still fits. Amounts are compared as milli
 * values (resource.Quantity.MilliValue()); see docs/dra.md for where that differs from
 * upstream's exact quantities (sub-milli amounts). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dra_internal.h"
#include "common/err.h"

#define ERR_NOT_REPRESENTABLE "capacity request cannot be represented in the device's range arithmetic"

/* Value(): whole units, fractions rounded up (as resource.Quantity.Value does for positives). */
static int64_t units(int64_t milli)
{
	if (milli >= 0)
		return milli / 1000 + (milli % 1000 != 0);
	return -((-milli) / 1000) - ((-milli) % 1000 != 0);
}

/* Whether a quantity text is in a binary SI format ("Ki".."Ei"). */
static bool binary_format(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n >= 2 && s[n - 1] == 'i';
}

/* A quantity's canonical text (resource.Quantity.String) for milli in format binary or decimal:
 * the largest suffix that keeps the number whole, "m" for fractions. */
static void format_quantity(int64_t milli, bool binary, char *buf, size_t size)
{
	if (milli % 1000 != 0) {
		snprintf(buf, size, "%" PRId64 "m", milli);
		return;
	}
	int64_t v = milli / 1000;
	if (v == 0) {
		snprintf(buf, size, "0");
		return;
	}
	static const char *const dec[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	int64_t base = binary ? 1024 : 1000;
	int i = 0;
	while (i < 6 && v % base == 0) {
		v /= base;
		i++;
	}
	if (binary && i == 0) {
		/* upstream: a binary amount that is not a multiple of 1024 prints in decimal SI */
		base = 1000;
		while (i < 6 && v % base == 0) {
			v /= base;
			i++;
		}
		snprintf(buf, size, "%" PRId64 "%s", v, dec[i]);
		return;
	}
	snprintf(buf, size, "%" PRId64 "%s", v, binary ? bin[i] : dec[i]);
}

static void set_q(struct dra_consumed *c, const struct api_dra_quantity *q)
{
	c->milli = q->milli;
	c->s = q->s;
}

static void set_v(struct dra_consumed *c, int64_t milli, bool binary)
{
	c->milli = milli;
	format_quantity(milli, binary, c->buf, sizeof(c->buf));
	c->s = c->buf;
}

/* upstream useMilli: FractionalCapacityRange on and a step of at least one milli unit */
static bool use_milli(const struct api_dra_request_policy *p, bool fractional)
{
	if (!fractional)
		return false;
	if (p->has_step && p->step.milli < 1)
		return false;
	return true;
}

/* upstream roundUpRange */
static int round_up_range(const struct api_dra_quantity *req, const struct api_dra_request_policy *p, bool fractional,
			  struct dra_consumed *out, struct err *e)
{
	if (req->milli < p->min.milli) {
		set_q(out, &p->min);
		return 0;
	}
	if (!p->has_step) {
		set_q(out, req);
		return 0;
	}
	bool binary = binary_format(p->step.s);
	if (use_milli(p, fractional)) {
		int64_t step = p->step.milli, min = p->min.milli, added = req->milli - min;
		int64_t n = added / step + (added % step != 0);
		if (n > (INT64_MAX - min) / step)
			return err_set(e, ERR_INVALID, "%s: rounding request %s up to the next step passes the milli-value range",
				       ERR_NOT_REPRESENTABLE, req->s);
		set_v(out, min + step * n, binary);
		return 0;
	}
	int64_t step = units(p->step.milli), min = units(p->min.milli), added = units(req->milli) - min;
	if (step <= 0)
		step = 1;
	int64_t n = added / step + (added % step != 0);
	if (min >= 0 && n > (INT64_MAX - min) / step)
		return err_set(e, ERR_INVALID, "%s: rounding request %s up to the next step passes MaxInt64",
			       ERR_NOT_REPRESENTABLE, req->s);
	set_v(out, (min + step * n) * 1000, binary);
	return 0;
}

/* upstream calculateConsumedCapacity for one capacity (req NULL: not requested) */
static int consumed_one(const struct api_dra_quantity *req, const struct api_dra_capacity *cap, bool fractional,
			struct dra_consumed *out, struct err *e)
{
	out->name = cap->name;
	const struct api_dra_request_policy *p = cap->request_policy;
	if (!req) { /* fillEmptyRequest */
		set_q(out, p && p->has_default ? &p->def : &cap->value);
		return 0;
	}
	if (p && p->has_valid_range && p->has_min)
		return round_up_range(req, p, fractional, out, e);
	if (p && p->n_valid_values) { /* roundUpValidValues */
		for (uint32_t i = 0; i < p->n_valid_values; i++)
			if (req->milli <= p->valid_values[i].milli) {
				set_q(out, &p->valid_values[i]);
				return 0;
			}
	}
	set_q(out, req);
	return 0;
}

/* upstream violatesPolicy */
static bool violates_policy(const struct dra_consumed *c, const struct api_dra_request_policy *p, bool fractional)
{
	if (!p)
		return false;
	if (p->has_default && c->milli == p->def.milli)
		return false;
	if (p->has_valid_range) {
		if (p->has_max && c->milli > p->max.milli)
			return true;
		if (p->has_step) {
			int64_t req, step, min;
			if (use_milli(p, fractional)) {
				req = c->milli;
				step = p->step.milli;
				min = p->has_min ? p->min.milli : 0;
			} else {
				req = units(c->milli);
				step = units(p->step.milli);
				min = p->has_min ? units(p->min.milli) : 0;
			}
			if (step != 0 && (req - min) % step != 0)
				return true;
		}
		return false;
	}
	if (p->n_valid_values) {
		for (uint32_t i = 0; i < p->n_valid_values; i++)
			if (c->milli == p->valid_values[i].milli)
				return false;
		return true;
	}
	return false;
}

static const struct api_dra_quantity *requested(const struct api_dra_device_request *r, const char *name)
{
	if (!r)
		return NULL;
	for (uint32_t i = 0; i < r->n_capacity_requests; i++)
		if (r->capacity_requests[i].name == name)
			return &r->capacity_requests[i].value;
	return NULL;
}

int dra_capacity_consumed(const struct api_dra_device_request *r, const struct api_dra_device *d, bool fractional,
			  struct dra_consumed *out, struct err *e)
{
	for (uint32_t i = 0; i < d->n_capacity; i++) {
		const struct api_dra_capacity *cap = &d->capacity[i];
		if (consumed_one(requested(r, cap->name), cap, fractional, &out[i], e) < 0)
			return err_prefix(e, "capacity \"%s\"", cap->name);
	}
	return 0;
}

int dra_capacity_fits(const struct dra_amounts *allocated, const struct api_dra_device_request *r,
		      const struct api_dra_device *d, const struct dra_amounts *allocating, bool fractional,
		      struct err *e)
{
	/* requestsContainNonExistCapacity */
	for (uint32_t i = 0; r && i < r->n_capacity_requests; i++) {
		bool found = false;
		for (uint32_t j = 0; j < d->n_capacity && !found; j++)
			found = d->capacity[j].name == r->capacity_requests[i].name;
		if (!found)
			return 0;
	}
	for (uint32_t i = 0; i < d->n_capacity; i++) {
		const struct api_dra_capacity *cap = &d->capacity[i];
		struct dra_consumed c;
		if (consumed_one(requested(r, cap->name), cap, fractional, &c, e) < 0)
			return err_prefix(e, "capacity \"%s\"", cap->name);
		if (c.milli < 0)
			return err_set(e, ERR_INVALID, "capacity \"%s\": capacity value is negative", cap->name);
	}
	for (uint32_t i = 0; i < d->n_capacity; i++) {
		const struct api_dra_capacity *cap = &d->capacity[i];
		struct dra_consumed c;
		(void)consumed_one(requested(r, cap->name), cap, fractional, &c, e); /* succeeded above */
		if (violates_policy(&c, cap->request_policy, fractional))
			return 0;
		int64_t total = dra_amounts_get(allocated, cap->name, NULL) + c.milli +
				dra_amounts_get(allocating, cap->name, NULL);
		if (total > cap->value.milli)
			return 0;
	}
	return 1;
}
