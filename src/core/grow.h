/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one array-growth helper: every growing array in the project uses it. */
#ifndef OFFCPU_GROW_H
#define OFFCPU_GROW_H

#include <stddef.h>

/*
 * @v (an array of *@cap items of @size bytes, or NULL with *@cap 0) made
 * to hold item @n: unchanged when @n < *@cap, else reallocated to double
 * the capacity (at least @first items, and at least @n + 1) and *@cap
 * updated. Returns the array, or NULL when out of memory or the size
 * would overflow; then @v is still valid and *@cap unchanged (the caller
 * frees it as before).
 */
void *mem_grow_from(void *v, size_t *cap, size_t n, size_t size, size_t first);

/* mem_grow_from() with a first capacity of 16 items. */
static inline void *mem_grow(void *v, size_t *cap, size_t n, size_t size)
{
	return mem_grow_from(v, cap, n, size, 16);
}

#endif
