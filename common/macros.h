/* Small macros every module may use. */
#ifndef CSCHED_COMMON_MACROS_H
#define CSCHED_COMMON_MACROS_H

/* Number of elements of an array (not a pointer: a pointer argument is a compile error with GCC). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + 0 * sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))]))

#endif
