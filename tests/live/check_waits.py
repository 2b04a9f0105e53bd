#!/usr/bin/env python3
# tests/live/waits.sh: what `offcpu-ftrace waits --format=json` said about
# a scenario of tests/live/waits_scen.py (its pids as name=pid arguments).
# Exits 1 with the reason when the resolved holders or kinds are not the
# ones the scenario made; prints nothing otherwise.
import json
import os
import sys


def fail(msg):
    sys.exit('FAIL: ' + msg)


def thread(doc, tid):
    for t in doc['threads']:
        if t['tid'] == tid:
            return t
    fail('thread %d is not in threads[]' % tid)


def waits(t, kind):
    """t's waits of @kind"""
    w = [w for w in t['waits_on'] if w['kind'] == kind]
    if not w:
        fail('%s %d waits on %s, not on a %s' % (t['comm'], t['tid'],
             [(x['kind'], x['object']) for x in t['waits_on']], kind))
    return w


def holder(w, pid, role):
    """w names process pid as a holder in that role, blocking"""
    for h in w['holders']:
        if h['pid'] == pid and h['role'] == role and h['blocks']:
            return h
    fail('%s %s: holders %s, not pid %d as %s' % (w['kind'], w['object'],
         [(h['pid'], h['role']) for h in w['holders']], pid, role))


def check_pipe(doc, p):
    cat = thread(doc, p['cat'])
    w = waits(cat, 'pipe')[0]
    holder(w, p['sleep'], 'writer')
    if w['source'] != 'syscall' or 'reading fd 0' not in w['detail']:
        fail('pipe: source %s, detail %s' % (w['source'], w['detail']))
    if not any(c['pids'][:2] == [p['cat'], p['sleep']] for c in doc['chains']):
        fail('no chain cat -> sleep in %s' % doc['chains'])
    if doc['cycles']:
        fail('a cycle where there is none: %s' % doc['cycles'])
    if cat['state'] != 'S' or cat['stuck']:
        fail('cat: state %s, stuck %s' % (cat['state'], cat['stuck']))


def check_cycle(doc, p):
    a, b = thread(doc, p['a']), thread(doc, p['b'])
    holder(waits(a, 'pipe')[0], p['b'], 'writer')
    holder(waits(b, 'pipe')[0], p['a'], 'writer')
    if not any(sorted(c) == sorted([p['a'], p['b']]) for c in doc['cycles']):
        fail('cycles %s, not [%d, %d]' % (doc['cycles'], p['a'], p['b']))
    if not (a['stuck'] and b['stuck']):
        fail('the cycle is not stuck')
    par = thread(doc, p['parent'])
    holder(waits(par, 'child')[0], p['a'], 'child')
    if par['syscall'] is not None and par['syscall']['name'] != 'wait4':
        fail('the parent is in %s, not wait4' % par['syscall'])


def check_dstate(doc, p, root):
    par, ch = thread(doc, p['parent']), thread(doc, p['child'])
    h = holder(waits(par, 'child')[0], p['child'], 'child')
    if h['state'] != 'D' or ch['state'] != 'D':
        fail('the child is %s (%s), not D' % (ch['state'], h['state']))
    w = waits(ch, 'io')[0]
    if root:
        if not ch['kstack'] or 'mnt_want_write' not in ch['kstack']:
            fail('kstack %s' % ch['kstack'])
        if 'frozen' not in w['object']:
            fail('io object %s' % w['object'])
    elif ch['kstack'] is not None or 'root' not in (ch['kstack_why'] or ''):
        fail('kstack as nobody: %s (%s)' % (ch['kstack'], ch['kstack_why']))
    if root and 'opening' not in w['detail']:
        fail('io detail %s' % w['detail'])
    # without its stack nothing says it does not hold its memory map lock:
    # the path it opens is not read from its memory, and the note says so
    if not root and ('opening' in w['detail'] or 'the path it opens: not read' not in (w['note'] or '')):
        fail('io detail %s, note %s' % (w['detail'], w['note']))


def check_fifo(doc, p):
    """cat's FIFO, at a path of 200 bytes or more, names its writer"""
    w = waits(thread(doc, p['cat']), 'fifo')[0]
    holder(w, p['writer'], 'writer')
    if not w['object'].startswith('/') or len(w['object']) < 150:
        fail('fifo object %s' % w['object'])


def check_pidfd(doc, p):
    """waitid(P_PIDFD) waits for the pidfd's child, not for any child"""
    w = waits(thread(doc, p['parent']), 'child')[0]
    if [h['pid'] for h in w['holders']] != [p['a']] or 'P_PIDFD' not in w['detail']:
        fail('waitid(P_PIDFD) on %d: %s, holders %s' % (p['a'], w['detail'],
             [h['pid'] for h in w['holders']]))


def check_flock(doc, p):
    w = waits(thread(doc, p['waiter']), 'lock')[0]
    holder(w, p['holder'], 'lock holder')
    if 'FLOCK WRITE' not in w['detail']:
        fail('lock detail %s' % w['detail'])


def check_tcp(doc, p):
    w = waits(thread(doc, p['client']), 'tcp')[0]
    holder(w, p['listener'], 'listener')
    if 'SYN-SENT' not in w['detail'] or 'full' not in w['detail']:
        fail('tcp detail %s' % w['detail'])


def not_stuck(doc, t, why):
    """t is not stuck, no cycle holds it, and its 'wakes' names why"""
    if t['stuck']:
        fail('%s %d called stuck: %s' % (t['comm'], t['tid'], t['waits_on']))
    if any(t['tid'] in c for c in doc['cycle_tids']):
        fail('%d in a cycle: %s' % (t['tid'], doc['cycle_tids']))
    if why not in (t['wakes'] or ''):
        fail('%s %d: wakes %s, not "%s"' % (t['comm'], t['tid'], t['wakes'], why))


def check_selfpipe(doc, p):
    t = thread(doc, p['server'])
    holder(waits(t, 'pipe')[0], p['server'], 'writer')
    not_stuck(doc, t, 'listens')
    if doc['cycles']:
        fail('a cycle where there is none: %s' % doc['cycles'])


def check_pairidle(doc, p):
    a, b = thread(doc, p['a']), thread(doc, p['b'])
    holder(waits(a, 'unix')[0], p['b'], 'peer')
    holder(waits(b, 'unix')[0], p['a'], 'peer')
    not_stuck(doc, a, 'listens')
    not_stuck(doc, b, 'listens')
    if doc['cycles']:
        fail('a cycle where there is none: %s' % doc['cycles'])


def check_polltimeout(doc, p):
    a, b = thread(doc, p['a']), thread(doc, p['b'])
    holder(waits(a, 'pipe')[0], p['b'], 'writer')
    holder(waits(b, 'pipe')[0], p['a'], 'writer')
    not_stuck(doc, a, "poll's timeout")
    not_stuck(doc, b, "poll's timeout")
    if doc['cycles']:
        fail('a cycle where there is none: %s' % doc['cycles'])


def check_sockcycle(doc, p):
    a, b = thread(doc, p['a']), thread(doc, p['b'])
    holder(waits(a, 'unix')[0], p['b'], 'peer')
    holder(waits(b, 'unix')[0], p['a'], 'peer')
    if not any(sorted(c) == sorted([p['a'], p['b']]) for c in doc['cycles']):
        fail('cycles %s, not [%d, %d]' % (doc['cycles'], p['a'], p['b']))
    if not (a['stuck'] and b['stuck']) or a['wakes'] or b['wakes']:
        fail('the socketpair cycle: stuck %s %s, wakes %s %s' % (a['stuck'], b['stuck'],
             a['wakes'], b['wakes']))


def check_pimutex(doc, p):
    """ns_* are the namespace's thread ids: the owners must be the host's
    thread whose NSpid ends in ns_main, in process py (not init)"""
    host = {}
    for tid in os.listdir('/proc/%d/task' % p['py']):
        for line in open('/proc/%d/task/%s/status' % (p['py'], tid)):
            if line.startswith('NSpid:'):
                host[int(line.split()[-1])] = int(tid)
    main = host[p['ns_main']]
    for name, role in (('ns_piw', 'owner'), ('ns_mw1', 'owner (glibc mutex)'),
                       ('ns_mw2', 'owner (glibc mutex)')):
        w = waits(thread(doc, host[p[name]]), 'futex')[0]
        h = holder(w, p['py'], role)
        if h['tid'] != main:
            fail('%s: %s is thread %s, not the main thread %d' % (w['detail'], role, h['tid'], main))
        if 'another pid namespace' not in w['detail']:
            fail('the detail does not say the number is the namespace\'s: %s' % w['detail'])


def check_make(lines, p):
    """waits --format=json -- make (recursive): no round has a cycle or a stuck make,
    and one round saw the sub-make wait for its children's SIGCHLD"""
    docs = [json.loads(x) for x in lines]
    if not docs:
        fail('no round')
    seen = False
    for d in docs:
        if d['cycles']:
            fail('round %s: cycles %s in a healthy build' % (d.get('round'), d['cycles']))
        for t in d['threads']:
            if t['comm'] == 'make' and t['stuck']:
                fail('round %s: make %d called stuck' % (d.get('round'), t['tid']))
            seen |= t['comm'] == 'make' and any(
                w['kind'] == 'signal' and w['object'].startswith('SIGCHLD') and
                any(h['comm'] == 'sleep' for h in w['holders']) for w in t['waits_on'])
    # make 4.3 waits in pselect6 with SIGCHLD let through; another make may not
    print('a make waited for SIGCHLD from its sleeps; ' if seen else
          'no make waited for SIGCHLD (this make does not wait in pselect6); ', end='')


def check_watch(lines, p):
    docs = [json.loads(x) for x in lines]
    if [d.get('round') for d in docs] != [1, 2]:
        fail('rounds %s' % [d.get('round') for d in docs])
    c1, c2 = thread(docs[0], p['cat']), thread(docs[1], p['cat'])
    if c1['still'] or not c2['still']:
        fail('still: %s then %s' % (c1['still'], c2['still']))
    if c1['state_ns'] is None or c2['state_ns'] is None or c2['state_ns'] <= c1['state_ns']:
        fail('state_ns %s then %s: the lower bound must grow' % (c1['state_ns'], c2['state_ns']))


if __name__ == '__main__':
    what, path = sys.argv[1], sys.argv[2]
    pids = {k: int(v) for k, v in (a.split('=') for a in sys.argv[3:] if '=' in a)}
    text = open(path).read()
    if what in ('watch', 'make'):
        globals()['check_' + what](text.splitlines(), pids)
    elif what == 'dstate':
        check_dstate(json.loads(text), pids, 'root' in sys.argv[3:])
    else:
        globals()['check_' + what](json.loads(text), pids)
