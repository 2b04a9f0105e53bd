// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shared library for check_sym: one function with a known name, so that a
 * runtime address inside libsymtest.so can be checked against its symbol.
 */
#include <stdint.h>

unsigned symtest_lib_marker(unsigned x);
uintptr_t symtest_lib_marker_addr(void);

/* noinline and a loop: a real body, so marker+4 is still inside it */
__attribute__((noinline)) unsigned symtest_lib_marker(unsigned x)
{
	volatile unsigned acc = x;
	unsigned i;

	for (i = 0; i < 8; i++)
		acc = acc * 33 + i;
	return acc;
}

/*
 * Seen from a non-PIE executable, &symtest_lib_marker is the executable's
 * PLT stub (the canonical address); a hidden alias is the code itself.
 */
extern unsigned symtest_lib_marker_here(unsigned x)
	__attribute__((alias("symtest_lib_marker"), visibility("hidden")));

uintptr_t symtest_lib_marker_addr(void)
{
	return (uintptr_t)&symtest_lib_marker_here;
}
