/* Small macros every module may use. */
#ifndef CSCHED_COMMON_MACROS_H
#define CSCHED_COMMON_MACROS_H

/* 0, or a compile error ("size of unnamed array is negative") when a is a pointer, whose
 * sizeof would silently give a wrong count. */
#define ARRAY_SIZE_IS_ARRAY_(a) \
	(0 * sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))]))

/* The number of elements of an array. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + ARRAY_SIZE_IS_ARRAY_(a))

#endif
