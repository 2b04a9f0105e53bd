/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits: the wait-for graph. Nodes are threads; a thread that waits on
 * something points at what holds it: a thread (a PI futex's owner) or a
 * process (a pipe's other end, a child, a lock's owner), which stands for
 * the thread of it that the chain follows (its representative). Pure.
 *
 * A thread is stuck when it is blocked, waits on something /proc named a
 * holder of, nothing else may wake it (wgraph_wakes(): a timeout, a
 * signal its wait lets through, a descriptor nobody named or not read,
 * a listener), it does not wait on its own process (a self-pipe), and
 * every holder it waits on is stuck (a process: every thread of it): one
 * holder that can run may free it, so a thread with a running or
 * unexplained holder is not stuck. Cycles are found among stuck threads
 * only, so a cycle named is a deadlock unless a signal breaks it.
 */
#ifndef OFFCPU_WAITGRAPH_H
#define OFFCPU_WAITGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wgraph;

/* A new empty graph (NULL: out of memory); free with wgraph_free(). */
struct wgraph *wgraph_new(void);
void wgraph_free(struct wgraph *g);

/*
 * Thread @tid of process @pid, @blocked when it is not runnable (S, D, T,
 * t, Z, I, ...). Returns its node index, or -ENOMEM. Each tid once.
 */
long wgraph_node(struct wgraph *g, int32_t pid, int32_t tid, bool blocked);
/*
 * Node @i may wake with none of the holders it waits on moving (a
 * timeout, a signal, a wait whose holder is not named): never stuck.
 */
void wgraph_wakes(struct wgraph *g, size_t i);
/*
 * Node @from waits on thread @tid (> 0), or on process @pid (@tid 0).
 * 0 or -ENOMEM. Edges to threads or processes with no node lead nowhere
 * (not stuck: nothing is known of them).
 */
int wgraph_edge(struct wgraph *g, size_t from, int32_t pid, int32_t tid);

/* Work out representatives, stuck threads and cycles. 0 or -ENOMEM. */
int wgraph_solve(struct wgraph *g);

/* after wgraph_solve(): */
size_t wgraph_count(const struct wgraph *g);
int32_t wgraph_tid(const struct wgraph *g, size_t i);
int32_t wgraph_pid(const struct wgraph *g, size_t i);
bool wgraph_stuck(const struct wgraph *g, size_t i);
/* the node of thread @tid, or of process @pid's representative (@tid 0); -1 */
long wgraph_find(const struct wgraph *g, int32_t pid, int32_t tid);
/*
 * The nodes node @i waits on (the targets of its edges, processes as
 * their representatives, each once), at most @max into @out; the count.
 */
size_t wgraph_next(const struct wgraph *g, size_t i, size_t *out, size_t max);
/* Does any other node wait on node @i (through an edge, as above)? */
bool wgraph_waited_on(const struct wgraph *g, size_t i);

/* The cycles: node indices in order, each cycle once. */
size_t wgraph_ncycles(const struct wgraph *g);
const size_t *wgraph_cycle(const struct wgraph *g, size_t k, size_t *len);

/* How a chain ends. */
enum wchain_end {
	WCHAIN_END,	/* at a node that waits on nothing (or at the length bound) */
	WCHAIN_LOOP,	/* back at a node already on it (the last one, repeated) */
	WCHAIN_JOIN,	/* at a node an earlier chain of the same root went on from */
};

/*
 * The chains: the paths from each node nobody waits on (a root) along
 * wgraph_next(), each node expanded once per root, so a root gives at
 * most one chain per edge; then, for cycles no root leads into, one path
 * around each; then the paths from each node with an edge that none of
 * those reached (rings of threads that are not stuck). At most @max_chains of at most @max_len nodes: @fn is
 * called with each; returns how many there were (more than it was
 * called for when it stopped).
 */
size_t wgraph_chains(const struct wgraph *g, size_t max_chains, size_t max_len,
		     void (*fn)(const size_t *path, size_t len, enum wchain_end end, void *arg),
		     void *arg);

#endif
