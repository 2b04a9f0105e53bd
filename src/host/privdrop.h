/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Capabilities a run no longer needs, given up for the rest of it. */
#ifndef OFFCPU_PRIVDROP_H
#define OFFCPU_PRIVDROP_H

#define PRIV_DAC_READ_SEARCH (1ULL << 2)
#define PRIV_SYSLOG (1ULL << 34)
#define PRIV_PERFMON (1ULL << 38)

/*
 * Removes @caps (PRIV_* bits) from this process's effective, permitted and
 * inheritable sets, for good: a process that never held them (root keeps
 * its own: nothing is dropped for uid 0) is left as it was. 0, or -errno.
 */
int priv_drop(unsigned long long caps);

#endif
