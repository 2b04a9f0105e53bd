// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target for check_sym's user-space symbol tests (built as a PIE, linked
 * with libsymtest.so). Prints, one hex address per line:
 *
 *   symtest_exe_marker, symtest_exe_marker + 4,
 *   symtest_lib_marker, symtest_lib_marker + 4,
 *   an address in the executable's code mapping that no function covers
 *
 * then stays alive until stdin reaches EOF, so the test can snapshot its
 * mappings and then watch it exit.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

unsigned symtest_exe_marker(unsigned x);
unsigned symtest_lib_marker(unsigned x);	/* libsymtest.so */
uintptr_t symtest_lib_marker_addr(void);	/* libsymtest.so */
extern const char symtest_gap[];

__attribute__((noinline)) unsigned symtest_exe_marker(unsigned x)
{
	volatile unsigned acc = x;
	unsigned i;

	for (i = 0; i < 8; i++)
		acc = acc * 31 + i;
	return acc;
}

/*
 * Bytes in .text right after a sized function, labelled as data: an
 * address here is mapped executable but in no function. STT_* spellings
 * work with every GNU as target, unlike @function/%function.
 */
__asm__(".pushsection .text\n"
	".p2align 4\n"
	".type symtest_gap_before, STT_FUNC\n"
	"symtest_gap_before:\n"
	".skip 16\n"
	".size symtest_gap_before, 16\n"
	".globl symtest_gap\n"
	".hidden symtest_gap\n"
	".type symtest_gap, STT_OBJECT\n"
	"symtest_gap:\n"
	".skip 64\n"
	".size symtest_gap, 64\n"
	".popsection\n");

static void print_addr(uintptr_t a)
{
	printf("%#" PRIxPTR "\n", a);
}

int main(void)
{
	uintptr_t exe = (uintptr_t)&symtest_exe_marker;
	uintptr_t lib = symtest_lib_marker_addr();
	int c;

	/* call both, so nothing about them is left to the optimizer */
	if (symtest_exe_marker(1) == symtest_lib_marker(1))
		fputs("", stderr);
	print_addr(exe);
	print_addr(exe + 4);
	print_addr(lib);
	print_addr(lib + 4);
	print_addr((uintptr_t)symtest_gap + 8);
	if (fflush(stdout))
		return 1;
	while ((c = getchar()) != EOF)
		;
	return 0;
}
