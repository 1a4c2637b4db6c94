/* api_quantity_parse against resource.Quantity (k8s.io/apimachinery v0.37.2).
 *
 * The expected Value()/MilliValue() below were produced by running upstream's ParseQuantity on
 * each input (tests/fuzz/quantity_oracle); inputs are upstream quantity_test.go's cases, their
 * negations, and edge cases of both internal representations (int64Amount and inf.Dec):
 * rounding away from zero, the inf.Dec path's truncate-then-+1 on negatives, the binary cap at
 * 2^63-1, wrapped or zeroed overflow, int32-truncated exponents. Note that upstream accepts
 * "+", "-", ".", "Gi" and "1." (as 0, 0, 0, 0 and 1). */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_types.h"

struct qcase {
	const char *in;
	bool ok;
	int64_t value, milli;
};

static const struct qcase cases[] = {
	{ "", false, 0, 0 },
	{ "1.2.3", false, 0, 0 },
	{ "Gi", true, INT64_C(0), INT64_C(0) },
	{ "1 Gi", false, 0, 0 },
	{ "1iB", false, 0, 0 },
	{ "+", true, INT64_C(0), INT64_C(0) },
	/* a zero with an exponent that wraps to a large int32 scale (found by the fuzzer: it took 2 s);
	 * tests/fuzz/quantity_oracle (upstream ParseQuantity) prints "ok 0 0" */
	{ "+e1202000000017019", true, INT64_C(0), INT64_C(0) },
	{ "1e", false, 0, 0 },
	{ "0x10", false, 0, 0 },
	{ "1.5.Gi", false, 0, 0 },
	{ "--1", false, 0, 0 },
	{ "1e+", false, 0, 0 },
	{ "12Ei", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "9223372036854775807Ki", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "1Z", false, 0, 0 },
	{ "1ki", false, 0, 0 },
	{ "1KI", false, 0, 0 },
	{ "1mm", false, 0, 0 },
	{ "1e1.5", false, 0, 0 },
	{ "1e-1e", false, 0, 0 },
	{ "1E-", false, 0, 0 },
	{ "1e9223372036854775808", false, 0, 0 },
	{ "1e9223372036854775807", true, INT64_C(1), INT64_C(100) },
	{ "-1e-9223372036854775808", true, INT64_C(-1), INT64_C(-1000) },
	{ "1e-2147483649", true, INT64_C(0), INT64_C(1) },
	{ "1.5e2147483647", true, INT64_C(0), INT64_C(15) },
	{ "-0.5", true, INT64_C(-1), INT64_C(-500) },
	{ "-1.5", true, INT64_C(-2), INT64_C(-1500) },
	{ "-1.5m", true, INT64_C(-1), INT64_C(-2) },
	{ "0.5m", true, INT64_C(1), INT64_C(1) },
	{ "1.5m", true, INT64_C(1), INT64_C(2) },
	{ "-0.0005", true, INT64_C(-1), INT64_C(-1) },
	{ "0.0005", true, INT64_C(1), INT64_C(1) },
	{ "-9.01", true, INT64_C(-10), INT64_C(-9010) },
	{ "9.01", true, INT64_C(10), INT64_C(9010) },
	{ "1m", true, INT64_C(1), INT64_C(1) },
	{ "1u", true, INT64_C(1), INT64_C(1) },
	{ "1n", true, INT64_C(1), INT64_C(1) },
	{ "-1n", true, INT64_C(-1), INT64_C(-1) },
	{ "0.1n", true, INT64_C(1), INT64_C(1) },
	{ "-0.1n", true, INT64_C(1), INT64_C(1) },
	{ "1Mi", true, INT64_C(1048576), INT64_C(1048576000) },
	{ "1.5Mi", true, INT64_C(1572864), INT64_C(1572864000) },
	{ "-1.5Mi", true, INT64_C(-1572864), INT64_C(-1572864000) },
	{ "1.5e3", true, INT64_C(1500), INT64_C(1500000) },
	{ "1.5E3", true, INT64_C(1500), INT64_C(1500000) },
	{ "-2e-3", true, INT64_C(-1), INT64_C(-2) },
	{ "64Gi", true, INT64_C(68719476736), INT64_C(68719476736000) },
	{ "256Mi", true, INT64_C(268435456), INT64_C(268435456000) },
	{ "128974848", true, INT64_C(128974848), INT64_C(128974848000) },
	{ "129e6", true, INT64_C(129000000), INT64_C(129000000000) },
	{ "129M", true, INT64_C(129000000), INT64_C(129000000000) },
	{ "123Mi", true, INT64_C(128974848), INT64_C(128974848000) },
	{ "100m", true, INT64_C(1), INT64_C(100) },
	{ "250m", true, INT64_C(1), INT64_C(250) },
	{ "0.25", true, INT64_C(1), INT64_C(250) },
	{ "2", true, INT64_C(2), INT64_C(2000) },
	{ "4", true, INT64_C(4), INT64_C(4000) },
	{ "110", true, INT64_C(110), INT64_C(110000) },
	{ "0.1", true, INT64_C(1), INT64_C(100) },
	{ "0", true, INT64_C(0), INT64_C(0) },
	{ "0n", true, INT64_C(0), INT64_C(0) },
	{ "0u", true, INT64_C(0), INT64_C(0) },
	{ "0m", true, INT64_C(0), INT64_C(0) },
	{ "0Ki", true, INT64_C(0), INT64_C(0) },
	{ "0k", true, INT64_C(0), INT64_C(0) },
	{ "0Mi", true, INT64_C(0), INT64_C(0) },
	{ "0M", true, INT64_C(0), INT64_C(0) },
	{ "0Gi", true, INT64_C(0), INT64_C(0) },
	{ "0G", true, INT64_C(0), INT64_C(0) },
	{ "0Ti", true, INT64_C(0), INT64_C(0) },
	{ "0T", true, INT64_C(0), INT64_C(0) },
	{ "1", true, INT64_C(1), INT64_C(1000) },
	{ "1Ki", true, INT64_C(1024), INT64_C(1024000) },
	{ "8Ki", true, INT64_C(8192), INT64_C(8192000) },
	{ "7Mi", true, INT64_C(7340032), INT64_C(7340032000) },
	{ "6Gi", true, INT64_C(6442450944), INT64_C(6442450944000) },
	{ "5Ti", true, INT64_C(5497558138880), INT64_C(5497558138880000) },
	{ "4Pi", true, INT64_C(4503599627370496), INT64_C(4503599627370496000) },
	{ "3Ei", true, INT64_C(3458764513820540928), INT64_MIN },
	{ "10Ti", true, INT64_C(10995116277760), INT64_C(10995116277760000) },
	{ "100Ti", true, INT64_C(109951162777600), INT64_C(109951162777600000) },
	{ "5n", true, INT64_C(1), INT64_C(1) },
	{ "4u", true, INT64_C(1), INT64_C(1) },
	{ "3m", true, INT64_C(1), INT64_C(3) },
	{ "9", true, INT64_C(9), INT64_C(9000) },
	{ "8k", true, INT64_C(8000), INT64_C(8000000) },
	{ "50k", true, INT64_C(50000), INT64_C(50000000) },
	{ "7M", true, INT64_C(7000000), INT64_C(7000000000) },
	{ "6G", true, INT64_C(6000000000), INT64_C(6000000000000) },
	{ "5T", true, INT64_C(5000000000000), INT64_C(5000000000000000) },
	{ "40T", true, INT64_C(40000000000000), INT64_C(40000000000000000) },
	{ "300T", true, INT64_C(300000000000000), INT64_C(300000000000000000) },
	{ "2P", true, INT64_C(2000000000000000), INT64_C(2000000000000000000) },
	{ "1E", true, INT64_C(1000000000000000000), INT64_C(0) },
	{ "1E-3", true, INT64_C(1), INT64_C(1) },
	{ "1e3", true, INT64_C(1000), INT64_C(1000000) },
	{ "1E6", true, INT64_C(1000000), INT64_C(1000000000) },
	{ "1e9", true, INT64_C(1000000000), INT64_C(1000000000000) },
	{ "1E12", true, INT64_C(1000000000000), INT64_C(1000000000000000) },
	{ "1e15", true, INT64_C(1000000000000000), INT64_C(1000000000000000000) },
	{ "1E18", true, INT64_C(1000000000000000000), INT64_C(0) },
	{ "1e14", true, INT64_C(100000000000000), INT64_C(100000000000000000) },
	{ "1e13", true, INT64_C(10000000000000), INT64_C(10000000000000000) },
	{ "100.035k", true, INT64_C(100035), INT64_C(100035000) },
	{ "0.001", true, INT64_C(1), INT64_C(1) },
	{ "0.0005k", true, INT64_C(1), INT64_C(500) },
	{ "0.005", true, INT64_C(1), INT64_C(5) },
	{ "0.05", true, INT64_C(1), INT64_C(50) },
	{ "0.5", true, INT64_C(1), INT64_C(500) },
	{ "0.00050k", true, INT64_C(1), INT64_C(500) },
	{ "0.00500", true, INT64_C(1), INT64_C(5) },
	{ "0.05000", true, INT64_C(1), INT64_C(50) },
	{ "0.50000", true, INT64_C(1), INT64_C(500) },
	{ "0.5e0", true, INT64_C(1), INT64_C(500) },
	{ "0.5e-1", true, INT64_C(1), INT64_C(50) },
	{ "0.5e-2", true, INT64_C(1), INT64_C(5) },
	{ "10.035M", true, INT64_C(10035000), INT64_C(10035000000) },
	{ "1.2e3", true, INT64_C(1200), INT64_C(1200000) },
	{ "1.3E+6", true, INT64_C(1300000), INT64_C(1300000000) },
	{ "1.40e9", true, INT64_C(1400000000), INT64_C(1400000000000) },
	{ "1.53E12", true, INT64_C(1530000000000), INT64_C(1530000000000000) },
	{ "1.6e15", true, INT64_C(1600000000000000), INT64_C(1600000000000000000) },
	{ "1.7E18", true, INT64_C(1700000000000000000), INT64_C(0) },
	{ "8.1k", true, INT64_C(8100), INT64_C(8100000) },
	{ "7.123456M", true, INT64_C(7123456), INT64_C(7123456000) },
	{ "6.987654321G", true, INT64_C(6987654321), INT64_C(6987654321000) },
	{ "5.444T", true, INT64_C(5444000000000), INT64_C(5444000000000000) },
	{ "40.1T", true, INT64_C(40100000000000), INT64_C(40100000000000000) },
	{ "300.2T", true, INT64_C(300200000000000), INT64_C(300200000000000000) },
	{ "2.5P", true, INT64_C(2500000000000000), INT64_C(2500000000000000000) },
	{ "1.01E", true, INT64_C(1010000000000000000), INT64_C(0) },
	{ "3.001n", true, INT64_C(1), INT64_C(1) },
	{ "1.1E-9", true, INT64_C(1), INT64_C(1) },
	{ "0.0000000001", true, INT64_C(1), INT64_C(1) },
	{ "0.0000000005", true, INT64_C(1), INT64_C(1) },
	{ "0.00000000050", true, INT64_C(1), INT64_C(1) },
	{ "0.5e-9", true, INT64_C(1), INT64_C(1) },
	{ "0.9n", true, INT64_C(1), INT64_C(1) },
	{ "0.00000012345", true, INT64_C(1), INT64_C(1) },
	{ "0.00000012354", true, INT64_C(1), INT64_C(1) },
	{ "9Ei", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "12E", true, INT64_C(0), INT64_C(0) },
	{ "100.035Ki", true, INT64_C(102436), INT64_C(102435840) },
	{ "0.5Mi", true, INT64_C(524288), INT64_C(524288000) },
	{ "0.05Gi", true, INT64_C(53687092), INT64_C(53687091200) },
	{ "0.025Ti", true, INT64_C(27487790695), INT64_C(27487790694400) },
	{ "0.000000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ ".001", true, INT64_C(1), INT64_C(1) },
	{ ".0001k", true, INT64_C(1), INT64_C(100) },
	{ "1.", true, INT64_C(1), INT64_C(1000) },
	{ "1.G", true, INT64_C(1000000000), INT64_C(1000000000000) },
	{ "1.025Ti", true, INT64_C(1126999418471), INT64_C(1126999418470400) },
	{ "-1.025Ti", true, INT64_C(-1748029973), INT64_C(-1748029974116) },
	{ ".", true, INT64_C(0), INT64_C(0) },
	{ "-.", true, INT64_C(0), INT64_C(0) },
	{ "1Gi", true, INT64_C(1073741824), INT64_C(1073741824000) },
	{ "1024Mi", true, INT64_C(1073741824), INT64_C(1073741824000) },
	{ "1000M", true, INT64_C(1000000000), INT64_C(1000000000000) },
	{ ".001Ki", true, INT64_C(2), INT64_C(1024) },
	{ ".000001Ki", true, INT64_C(1), INT64_C(2) },
	{ ".000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ ".000000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ "1.1.M", false, 0, 0 },
	{ "1+1.0M", false, 0, 0 },
	{ "0.1mi", false, 0, 0 },
	{ "0.1am", false, 0, 0 },
	{ "aoeu", false, 0, 0 },
	{ ".5i", false, 0, 0 },
	{ "1i", false, 0, 0 },
	{ "-3.01i", false, 0, 0 },
	{ "-3.01e-", false, 0, 0 },
	{ " 1", false, 0, 0 },
	{ "1 ", false, 0, 0 },
	{ "-1", true, INT64_C(-1), INT64_C(-1000) },
	{ "-", true, INT64_C(0), INT64_C(0) },
	{ ".5", true, INT64_C(1), INT64_C(500) },
	{ "+.5", true, INT64_C(1), INT64_C(500) },
	{ "-.5", true, INT64_C(-1), INT64_C(-500) },
	{ "1.5Gi", true, INT64_C(1610612736), INT64_C(1610612736000) },
	{ "2e3", true, INT64_C(2000), INT64_C(2000000) },
	{ "1e4294967296", true, INT64_C(1), INT64_C(1000) },
	{ "1e-4294967296", true, INT64_C(1), INT64_C(1000) },
	{ "1e2147483647", true, INT64_C(0), INT64_C(1) },
	{ "-0.0000000001", true, INT64_C(1), INT64_C(1) },
	{ "9223372036854775807", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "9223372036854775808", true, INT64_MIN, INT64_C(0) },
	{ "-9223372036854775808", true, INT64_C(0), INT64_C(0) },
	{ "8Ei", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "-9Ei", true, INT64_C(-9223372036854775807), INT64_C(1000) },
	{ "10e18", true, INT64_C(0), INT64_C(0) },
	{ "10E", true, INT64_C(0), INT64_C(0) },
	{ "9.3e18", true, INT64_C(0), INT64_C(0) },
	{ "-9.3e18", true, INT64_C(0), INT64_C(0) },
	{ "1e19", true, INT64_C(0), INT64_C(0) },
	{ "1e20", true, INT64_C(0), INT64_C(0) },
	{ "1e25", true, INT64_C(0), INT64_C(0) },
	{ "-1e25", true, INT64_C(0), INT64_C(0) },
	{ "123456789012345678901234567890", true, INT64_C(-4362896299872285998), INT64_C(8982045596877734992) },
	{ "0.000000000000000000000000001", true, INT64_C(1), INT64_C(1) },
	{ "-0.5n", true, INT64_C(1), INT64_C(1) },
	{ "0.5n", true, INT64_C(1), INT64_C(1) },
	{ "1.1n", true, INT64_C(1), INT64_C(1) },
	{ "-1.1n", true, INT64_C(1), INT64_C(1) },
	{ "9999999999999999999n", true, INT64_C(10000000000), INT64_C(10000000000000) },
	{ "99999999999999999999999999999n", true, INT64_C(7766279631452241920), INT64_C(200376420520689664) },
	{ "1.5Ki", true, INT64_C(1536), INT64_C(1536000) },
	{ ".5Ki", true, INT64_C(512), INT64_C(512000) },
	{ "0.1Ki", true, INT64_C(103), INT64_C(102400) },
	{ "100Pi", true, INT64_C(112589990684262400), INT64_C(1909526242005090304) },
	{ "8191Pi", true, INT64_C(9222246136947933184), INT64_C(-1125899906842624000) },
	{ "8192Pi", true, INT64_C(9223372036854775807), INT64_C(-1000) },
	{ "1.Ki", true, INT64_C(1024), INT64_C(1024000) },
	{ ".Ki", true, INT64_C(0), INT64_C(0) },
	{ ".e-20", false, 0, 0 },
	{ "1e-9", true, INT64_C(1), INT64_C(1) },
	{ "1e-10", true, INT64_C(1), INT64_C(1) },
	{ "1.0000000001", true, INT64_C(2), INT64_C(1001) },
	{ "-1.0000000001", true, INT64_C(0), INT64_C(-999) },
	{ "1000000000000000000000m", true, INT64_C(1000000000000000000), INT64_C(3875820019684212736) },
	{ "-1000000000000000000000m", true, INT64_C(6930898828), INT64_C(6930898827445) },
	{ "9223372036854775.807", true, INT64_C(9223372036854776), INT64_C(9223372036854775807) },
	{ "9223372036854775.808", true, INT64_C(9223372036854776), INT64_MIN },
	{ "-9223372036854775.808", true, INT64_C(0), INT64_C(0) },
	{ "18446744073709551616", true, INT64_C(0), INT64_C(0) },
	{ "-18446744073709551616", true, INT64_C(0), INT64_C(0) },
	{ "1e18", true, INT64_C(1000000000000000000), INT64_C(0) },
	{ "-1e18", true, INT64_C(-1000000000000000000), INT64_C(0) },
	{ "1e16", true, INT64_C(10000000000000000), INT64_C(0) },
	{ "1e17", true, INT64_C(100000000000000000), INT64_C(0) },
	{ "000000000000000000000000001", true, INT64_C(1), INT64_C(1000) },
	{ "-0", true, INT64_C(0), INT64_C(0) },
	{ "00.00", true, INT64_C(0), INT64_C(0) },
	{ "5e-1", true, INT64_C(1), INT64_C(500) },
	{ "5e+1", true, INT64_C(50), INT64_C(50000) },
	{ "5e+", false, 0, 0 },
	{ "-0n", true, INT64_C(0), INT64_C(0) },
	{ "-0u", true, INT64_C(0), INT64_C(0) },
	{ "-0m", true, INT64_C(0), INT64_C(0) },
	{ "-0Ki", true, INT64_C(0), INT64_C(0) },
	{ "-0k", true, INT64_C(0), INT64_C(0) },
	{ "-0Mi", true, INT64_C(0), INT64_C(0) },
	{ "-0M", true, INT64_C(0), INT64_C(0) },
	{ "-0Gi", true, INT64_C(0), INT64_C(0) },
	{ "-0G", true, INT64_C(0), INT64_C(0) },
	{ "-0Ti", true, INT64_C(0), INT64_C(0) },
	{ "-0T", true, INT64_C(0), INT64_C(0) },
	{ "-1Ki", true, INT64_C(-1024), INT64_C(-1024000) },
	{ "-8Ki", true, INT64_C(-8192), INT64_C(-8192000) },
	{ "-7Mi", true, INT64_C(-7340032), INT64_C(-7340032000) },
	{ "-6Gi", true, INT64_C(-6442450944), INT64_C(-6442450944000) },
	{ "-5Ti", true, INT64_C(-5497558138880), INT64_C(-5497558138880000) },
	{ "-4Pi", true, INT64_C(6917529028), INT64_C(6917529027642) },
	{ "-3Ei", true, INT64_C(0), INT64_C(0) },
	{ "-10Ti", true, INT64_C(-10995116277760), INT64_C(-10995116277760000) },
	{ "-100Ti", true, INT64_C(-8568098290), INT64_C(-8568098291071) },
	{ "-5n", true, INT64_C(-1), INT64_C(-1) },
	{ "-4u", true, INT64_C(-1), INT64_C(-1) },
	{ "-3m", true, INT64_C(-1), INT64_C(-3) },
	{ "-9", true, INT64_C(-9), INT64_C(-9000) },
	{ "-8k", true, INT64_C(-8000), INT64_C(-8000000) },
	{ "-50k", true, INT64_C(-50000), INT64_C(-50000000) },
	{ "-7M", true, INT64_C(-7000000), INT64_C(-7000000000) },
	{ "-6G", true, INT64_C(-6000000000), INT64_C(-6000000000000) },
	{ "-5T", true, INT64_C(-5000000000000), INT64_C(-5000000000000000) },
	{ "-40T", true, INT64_C(-40000000000000), INT64_C(-40000000000000000) },
	{ "-300T", true, INT64_C(-300000000000000), INT64_C(-300000000000000000) },
	{ "-2P", true, INT64_C(-2000000000000000), INT64_C(-2000000000000000000) },
	{ "-1E", true, INT64_C(-1000000000000000000), INT64_C(0) },
	{ "-1E-3", true, INT64_C(-1), INT64_C(-1) },
	{ "-1e3", true, INT64_C(-1000), INT64_C(-1000000) },
	{ "-1E6", true, INT64_C(-1000000), INT64_C(-1000000000) },
	{ "-1e9", true, INT64_C(-1000000000), INT64_C(-1000000000000) },
	{ "-1E12", true, INT64_C(-1000000000000), INT64_C(-1000000000000000) },
	{ "-1e15", true, INT64_C(-1000000000000000), INT64_C(-1000000000000000000) },
	{ "-1E18", true, INT64_C(-1000000000000000000), INT64_C(0) },
	{ "-1e14", true, INT64_C(-100000000000000), INT64_C(-100000000000000000) },
	{ "-1e13", true, INT64_C(-10000000000000), INT64_C(-10000000000000000) },
	{ "-100.035k", true, INT64_C(-100035), INT64_C(-100035000) },
	{ "-0.001", true, INT64_C(-1), INT64_C(-1) },
	{ "-0.0005k", true, INT64_C(-1), INT64_C(-500) },
	{ "-0.005", true, INT64_C(-1), INT64_C(-5) },
	{ "-0.05", true, INT64_C(-1), INT64_C(-50) },
	{ "-0.00050k", true, INT64_C(-1), INT64_C(-500) },
	{ "-0.00500", true, INT64_C(-1), INT64_C(-5) },
	{ "-0.05000", true, INT64_C(-1), INT64_C(-50) },
	{ "-0.50000", true, INT64_C(-1), INT64_C(-500) },
	{ "-0.5e0", true, INT64_C(-1), INT64_C(-500) },
	{ "-0.5e-1", true, INT64_C(-1), INT64_C(-50) },
	{ "-0.5e-2", true, INT64_C(-1), INT64_C(-5) },
	{ "-10.035M", true, INT64_C(-10035000), INT64_C(-10035000000) },
	{ "-1.2e3", true, INT64_C(-1200), INT64_C(-1200000) },
	{ "-1.3E+6", true, INT64_C(-1300000), INT64_C(-1300000000) },
	{ "-1.40e9", true, INT64_C(-1400000000), INT64_C(-1400000000000) },
	{ "-1.53E12", true, INT64_C(-1530000000000), INT64_C(-1530000000000000) },
	{ "-1.6e15", true, INT64_C(-1600000000000000), INT64_C(-1600000000000000000) },
	{ "-1.7E18", true, INT64_C(-1700000000000000000), INT64_C(0) },
	{ "-8.1k", true, INT64_C(-8100), INT64_C(-8100000) },
	{ "-7.123456M", true, INT64_C(-7123456), INT64_C(-7123456000) },
	{ "-6.987654321G", true, INT64_C(-6987654321), INT64_C(-6987654321000) },
	{ "-5.444T", true, INT64_C(-5444000000000), INT64_C(-5444000000000000) },
	{ "-40.1T", true, INT64_C(-40100000000000), INT64_C(-40100000000000000) },
	{ "-300.2T", true, INT64_C(-300200000000000), INT64_C(-300200000000000000) },
	{ "-2.5P", true, INT64_C(-2500000000000000), INT64_C(-2500000000000000000) },
	{ "-1.01E", true, INT64_C(-1010000000000000000), INT64_C(0) },
	{ "-3.001n", true, INT64_C(1), INT64_C(1) },
	{ "-1.1E-9", true, INT64_C(1), INT64_C(1) },
	{ "-0.0000000005", true, INT64_C(1), INT64_C(1) },
	{ "-0.00000000050", true, INT64_C(1), INT64_C(1) },
	{ "-0.5e-9", true, INT64_C(1), INT64_C(1) },
	{ "-0.9n", true, INT64_C(1), INT64_C(1) },
	{ "-0.00000012345", true, INT64_C(1), INT64_C(1) },
	{ "-0.00000012354", true, INT64_C(1), INT64_C(1) },
	{ "-9223372036854775807Ki", true, INT64_C(-9223372036854775807), INT64_C(1000) },
	{ "-12E", true, INT64_C(0), INT64_C(0) },
	{ "-100.035Ki", true, INT64_C(-102434), INT64_C(-102435840) },
	{ "-0.5Mi", true, INT64_C(-524288), INT64_C(-524288000) },
	{ "-0.05Gi", true, INT64_C(-53687090), INT64_C(-53687091200) },
	{ "-0.025Ti", true, INT64_C(-9041046619), INT64_C(-9041046620689) },
	{ "-0.000000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ "-.001", true, INT64_C(-1), INT64_C(-1) },
	{ "-.0001k", true, INT64_C(-1), INT64_C(-100) },
	{ "-1.", true, INT64_C(-1), INT64_C(-1000) },
	{ "-1.G", true, INT64_C(-1000000000), INT64_C(-1000000000000) },
	{ "-1Mi", true, INT64_C(-1048576), INT64_C(-1048576000) },
	{ "-1Gi", true, INT64_C(-1073741824), INT64_C(-1073741824000) },
	{ "-1024Mi", true, INT64_C(-1073741824), INT64_C(-1073741824000) },
	{ "-1000M", true, INT64_C(-1000000000), INT64_C(-1000000000000) },
	{ "-.001Ki", true, INT64_C(0), INT64_C(-1024) },
	{ "-.000001Ki", true, INT64_C(1), INT64_C(0) },
	{ "-.000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ "-.000000000001Ki", true, INT64_C(1), INT64_C(1) },
	{ "-1.1.M", false, 0, 0 },
	{ "-1+1.0M", false, 0, 0 },
	{ "-0.1mi", false, 0, 0 },
	{ "-0.1am", false, 0, 0 },
	{ "-aoeu", false, 0, 0 },
	{ "-.5i", false, 0, 0 },
	{ "-1i", false, 0, 0 },
	{ "-1 ", false, 0, 0 },
};

static void test_table(void **state)
{
	(void)state;
	size_t failures = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct qcase *c = &cases[i];
		struct err e = { 0 };
		int64_t v = 12345, m = 12345;
		int rc = api_quantity_parse(c->in, &v, &m, &e);
		if (c->ok && (rc != 0 || v != c->value || m != c->milli)) {
			print_error("%-28s want %" PRId64 " %" PRId64 ", got rc %d %" PRId64 " %" PRId64 " (%s)\n", c->in,
				    c->value, c->milli, rc, v, m, e.msg);
			failures++;
		} else if (!c->ok && (rc != ERR_INVALID || strncmp(e.msg, "invalid quantity \"", 18) != 0)) {
			print_error("%-28s want an error, got rc %d %" PRId64 " %" PRId64 " (%s)\n", c->in, rc, v, m,
				    e.msg);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* Error texts name the input and the problem. */
static void test_messages(void **state)
{
	(void)state;
	static const struct {
		const char *in, *msg;
	} t[] = {
		{ "", "invalid quantity \"\": empty" },
		{ "1.2.3", "invalid quantity \"1.2.3\": must be [+-]digits[.digits][suffix]" },
		{ "1 Gi", "invalid quantity \"1 Gi\": must be [+-]digits[.digits][suffix]" },
		{ "1iB", "invalid quantity \"1iB\": must be [+-]digits[.digits][suffix]" },
		{ "abc", "invalid quantity \"abc\": must be [+-]digits[.digits][suffix]" },
		{ "1e", "invalid quantity \"1e\": unknown suffix" },
		{ "0.1mi", "invalid quantity \"0.1mi\": unknown suffix" },
		{ ".e-20", "invalid quantity \".e-20\": unable to parse numeric part" },
		{ "11111111111111111111111111111111111111111111111111111111111111111111111111111x",
		  "invalid quantity \"1111111111111111111111111111111111111111111111111111111111111111...\": "
		  "must be [+-]digits[.digits][suffix]" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct err e = { 0 };
		int64_t v, m;
		assert_int_equal(api_quantity_parse(t[i].in, &v, &m, &e), ERR_INVALID);
		assert_string_equal(e.msg, t[i].msg);
	}
	/* A NULL err is allowed. */
	int64_t v, m;
	assert_int_equal(api_quantity_parse("x", &v, &m, NULL), ERR_INVALID);
}

/* Long inputs go through the big-decimal path without truncation. */
static void test_long_inputs(void **state)
{
	(void)state;
	char buf[4200];
	int64_t v, m;
	memset(buf, '0', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	buf[2000] = '.';
	buf[sizeof(buf) - 2] = '1'; /* 0.000...1: rounds up to 1n */
	assert_int_equal(api_quantity_parse(buf, &v, &m, NULL), 0);
	assert_int_equal(v, 1);
	assert_int_equal(m, 1);
	buf[1999] = '7'; /* 7.000...1 */
	assert_int_equal(api_quantity_parse(buf, &v, &m, NULL), 0);
	assert_int_equal(v, 8);
	assert_int_equal(m, 7001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_long_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
