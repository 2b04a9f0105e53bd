#!/usr/bin/env python3
# Scenarios for tests/live/waits.sh: processes that wait on each other,
# set up, their pids printed as one line "name=pid ..." once they are in
# place, then left waiting until the test kills them (by pid).
#   pipe          sleep | cat: cat reads a pipe only sleep writes
#   cycle         two children, each reading a pipe only the other writes;
#                 this process waits for the first (wait4)
#   dstate FILE   a child writing FILE (on a frozen filesystem: D); this
#                 process waits for it (wait4)
#   flock FILE    flock -F FILE sleep (the holder), then flock FILE true (waits)
#   tcp           a listener with backlog 0 whose accept queue is full, and a
#                 child whose connect() to it blocks in SYN-SENT
# and healthy ones that must not be called deadlocked (each waits on
# something besides its holders):
#   selfpipe      an idle server: select() on its own self-pipe and a
#                 listening socket
#   pairidle      two processes on a socketpair, each in select() on its end,
#                 a listener of its own and a self-pipe
#   polltimeout   two processes each polling a pipe only the other writes,
#                 with a timeout
#   pimutex       (run in a pid namespace of its own) the main thread holds a
#                 PI mutex and a glibc mutex; one thread waits on the first,
#                 two on the second; the ids printed are the namespace's
#   pidfd         waitid(P_PIDFD) on one of its two children
#   fifo PATH     cat reads a FIFO at PATH (made here) that only a child holds
#                 open for writing
#   forge DIR     a unix socket bound at 'DIR/rv-x\nnot a line': a line of
#                 /proc/net/unix that is not one (any user can make it)
# and one that is deadlocked:
#   sockcycle     two processes each reading its end of a socketpair
import os
import select
import socket
import subprocess
import sys
import time


def say(**pids):
    print(' '.join('%s=%d' % kv for kv in pids.items()), flush=True)


def lock_held(pid, path):
    """does /proc/locks show a lock of process pid on path's inode?"""
    ino = os.stat(path).st_ino
    for line in open('/proc/locks'):
        f = line.split()
        if '->' not in f and len(f) > 5 and f[4] == str(pid) and f[5].endswith(':%d' % ino):
            return True
    return False


def pipe():
    sl = subprocess.Popen(['sleep', '600'], stdout=subprocess.PIPE)
    cat = subprocess.Popen(['cat'], stdin=sl.stdout, stdout=subprocess.DEVNULL)
    sl.stdout.close()   # only sleep holds the write end
    say(cat=cat.pid, sleep=sl.pid)
    time.sleep(600)


def cycle():
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    a = os.fork()
    if a == 0:
        os.close(w1)
        os.close(r2)
        os.read(r1, 1)
        os._exit(0)
    b = os.fork()
    if b == 0:
        os.close(w2)
        os.close(r1)
        os.read(r2, 1)
        os._exit(0)
    for fd in (r1, w1, r2, w2):
        os.close(fd)
    say(parent=os.getpid(), a=a, b=b)
    os.waitpid(a, 0)


def dstate(path):
    child = subprocess.Popen(['sh', '-c', 'echo x > "$1"', 'sh', path])
    say(parent=os.getpid(), child=child.pid)
    child.wait()


def flock(path):
    open(path, 'a').close()
    # -F: the holder is sleep itself, which a kill by its pid ends
    holder = subprocess.Popen(['flock', '-F', path, 'sleep', '600'])
    for _ in range(1000):
        if lock_held(holder.pid, path):
            break
        time.sleep(0.01)
    else:
        sys.exit('the holder did not take the lock')
    waiter = subprocess.Popen(['flock', path, 'true'])
    say(holder=holder.pid, waiter=waiter.pid)
    time.sleep(600)


def tcp():
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(0)
    port = ls.getsockname()[1]
    queued = []
    # backlog 0: one handshake completes and fills the accept queue, the
    # SYNs after it are dropped (the clients stay in SYN-SENT)
    for _ in range(2):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(('127.0.0.1', port))
        except BlockingIOError:
            pass
        queued.append(c)
    child = os.fork()
    if child == 0:
        ls.close()
        c = socket.socket()
        c.connect(('127.0.0.1', port))
        os._exit(0)
    say(listener=os.getpid(), client=child)
    time.sleep(600)


def listener():
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(8)
    return ls


def selfpipe():
    r, w = os.pipe()
    ls = listener()
    say(server=os.getpid())
    select.select([r, ls], [], [])


def pairidle():
    s1, s2 = socket.socketpair()
    a = os.fork()
    if a == 0:
        s1.close()
        r, w = os.pipe()
        select.select([s2, listener(), r], [], [])
        os._exit(0)
    s2.close()
    r, w = os.pipe()
    ls = listener()
    say(a=a, b=os.getpid())
    select.select([s1, ls, r], [], [])


def polltimeout():
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    kids = []
    for r, w, other in ((r1, w2, (w1, r2)), (r2, w1, (w2, r1))):
        pid = os.fork()
        if pid == 0:
            for fd in other:
                os.close(fd)
            p = select.poll()
            p.register(r, select.POLLIN)
            p.poll(600000)
            os._exit(0)
        kids.append(pid)
    for fd in (r1, w1, r2, w2):
        os.close(fd)
    say(a=kids[0], b=kids[1])
    time.sleep(600)


def pidfd():
    a = subprocess.Popen(['sleep', '600'])
    b = subprocess.Popen(['sleep', '600'])
    fd = os.pidfd_open(a.pid)
    say(parent=os.getpid(), a=a.pid, b=b.pid)
    os.waitid(os.P_PIDFD, fd, os.WEXITED)


def fifo(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    w = os.fork()
    if w == 0:
        os.open(path, os.O_WRONLY)      # until the reader opens it
        time.sleep(600)
        os._exit(0)
    with open(path, 'rb') as f:
        cat = subprocess.Popen(['cat'], stdin=f, stdout=subprocess.DEVNULL)
    say(cat=cat.pid, writer=w)
    time.sleep(600)


def forge(d):
    s = socket.socket(socket.AF_UNIX)
    s.bind(os.path.join(d, 'rv-x\nnot a line'))
    say(forger=os.getpid())
    time.sleep(600)


def sockcycle():
    s1, s2 = socket.socketpair()
    a = os.fork()
    if a == 0:
        s1.close()
        s2.recv(1)
        os._exit(0)
    s2.close()
    say(a=a, b=os.getpid())
    s1.recv(1)


def pimutex():
    import ctypes
    import threading
    libc = ctypes.CDLL(None)
    attr, pi, mu = (ctypes.create_string_buffer(64) for _ in range(3))
    libc.pthread_mutexattr_init(attr)
    libc.pthread_mutexattr_setprotocol(attr, 1)     # PTHREAD_PRIO_INHERIT
    libc.pthread_mutex_init(pi, attr)
    libc.pthread_mutex_init(mu, None)
    libc.pthread_mutex_lock(pi)
    libc.pthread_mutex_lock(mu)
    tids = {}

    def lock(name, m):
        tids[name] = threading.get_native_id()
        libc.pthread_mutex_lock(m)      # ctypes lets the GIL go

    for name, m in (('piw', pi), ('mw1', mu), ('mw2', mu)):
        threading.Thread(target=lock, args=(name, m), daemon=True).start()
    while len(tids) < 3:
        time.sleep(0.01)
    say(main=threading.get_native_id(), **tids)
    time.sleep(600)


if __name__ == '__main__':
    what = sys.argv[1]
    if what in ('dstate', 'flock', 'forge', 'fifo'):
        globals()[what](sys.argv[2])
    else:
        globals()[what]()
