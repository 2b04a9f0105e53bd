/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one string and word hash (64-bit FNV-1a), and the one thread-id hash. */
#ifndef OFFCPU_HASH_H
#define OFFCPU_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV1A64_INIT 14695981039346656037ULL

/* @h (FNV1A64_INIT to start) continued over @n bytes of @p. */
static inline uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

/* The hash of NUL-terminated @s. */
static inline uint64_t fnv1a64_str(const char *s)
{
	return fnv1a64(FNV1A64_INIT, s, strlen(s));
}

/* @h continued over the 64-bit word @w, with a fold that spreads its high bits. */
static inline uint64_t fnv1a64_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 1099511628211ULL;
	return h ^ (h >> 29);
}

/*
 * A thread id spread over 32 bits (Knuth's multiplicative hash): take the
 * high bits (>> (32 - bits)) for a table of 2^bits slots, or mask it.
 */
static inline uint32_t tid_hash32(int32_t tid)
{
	return (uint32_t)tid * 2654435761u;
}

#endif
