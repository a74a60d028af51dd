/*
 * libhadoop_shm_preload.so: runs an unmodified streaming program over ShmStreaming's rings.
 *
 *   LD_PRELOAD=/path/to/libhadoop_shm_preload.so program args
 *   (streaming: -io shm -mapper 'env LD_PRELOAD=/path/to/libhadoop_shm_preload.so program')
 *
 * A constructor reads the task's handshake from fd 0 (hshm_stream_open). Over rings, the
 * process that read it (the "owner") then gets:
 *   - read/readv/__read_chk of fd 0 from the input ring, write/writev of fd 1 into the output
 *     ring (CPython's io and most runtimes call these through the PLT);
 *   - stdin/stdout replaced by fopencookie streams over the same calls (glibc stdio calls its
 *     internal read/write, which cannot be interposed);
 *   - fds 0 and 1 themselves replaced by two private pipes that make any way around the shim
 *     visible: fd 0 holds a marker line and no writer, fd 1 has no reader but the shim. A
 *     thread watches both; a byte consumed from the marker or written to fd 1 (a child that
 *     inherited them, sendfile/splice, a raw system call) fails the program at once;
 *   - at exit (and _exit) the output ring is ended only after stdio is flushed and the
 *     watch found nothing, so a clean end of stream always means complete output.
 * What the shim cannot route fails with one "hadoop_shm_preload:" line on stderr and exit
 * status 70 without ending the output ring, so the task fails (README, "Preload shim").
 * With the "-" handshake (pipes) or no input the shim does nothing after the handshake.
 */
#undef _FORTIFY_SOURCE /* we define read/poll ourselves; the fortified inline wrappers clash */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <wchar.h>

#include "hadoop_accel/shm_stream.h"

#define OWNER_VAR "HADOOP_SHM_PRELOAD_OWNER" /* pid of the owner, or "-" (pipes / no input) */
#define STDIO_VAR "HADOOP_SHM_PRELOAD_STDIO" /* dev:ino of the task's stdin and stdout pipes */
#define FATAL_EXIT 70
#define PRIVATE_FD_MIN 100 /* our pipes' ends: out of the way of programs that use fd 3, 4.. */
#define WATCH_MS 200

static const char kMarker[] =
    "hadoop_shm_preload: this is not the task's input: it is on a shared-memory ring that only "
    "the program streaming started can read\n";

enum { OFF = 0, RING = 1, DONE = 2 }; /* per direction: pass through, ring, ended at exit */

static hshm_stream *g_stream;
static pid_t g_owner; /* 0: the shim routes nothing in this process */
static pid_t g_pid;   /* getpid(), refreshed in fork children: read/write are hot paths */
static int g_in = OFF, g_out = OFF; /* changed under the mutexes; read without them first */
static pthread_mutex_t g_in_mu = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t g_out_mu = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int g_marker_fd = -1, g_stray_fd = -1; /* read ends of the fd 0 and fd 1 pipes */
static FILE *g_stdin, *g_stdout;              /* our cookie streams */
static FILE *g_orig_stdin, *g_orig_stdout;    /* glibc's, back if we stand aside */
/* DORMANT: routes nothing, ever. PENDING: attaches on the first read of the task's stdin or
 * write of its stdout (a wrapper that execs before that hands over to the next image).
 * ATTACHED: this process (g_owner) holds the rings. */
enum { DORMANT = 0, PENDING = 1, ATTACHED = 2 };
static int g_phase = DORMANT;
static pthread_mutex_t g_attach_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int t_attaching;
struct task_fd {
  int set;
  dev_t dev;
  ino_t ino;
};
static struct task_fd g_task_id[2];
static void attach(void);
static int is_task_fd(int fd);

/* ---- the functions we wrap, resolved lazily (a library constructor may call us first) ---- */

static void *next_fn(void **slot, const char *name) {
  void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f == NULL) {
    f = dlsym(RTLD_NEXT, name);
    if (f == NULL) abort();
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}
#define REAL(name) ((__typeof__(&name))next_fn(&real_##name, #name))
static void *real_dup, *real_read, *real_readv, *real___read_chk, *real_write, *real_writev,
    *real_close, *real_dup2, *real_dup3, *real_freopen, *real_freopen64, *real_poll, *real_ppoll,
    *real___poll_chk, *real___ppoll_chk, *real_select, *real_pselect, *real_epoll_ctl, *real_execve,
    *real_execv, *real_execvp, *real_execvpe, *real_fexecve, *real__exit, *real__Exit;
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask,
                size_t fdslen);

static int load(const int *state) { return __atomic_load_n(state, __ATOMIC_ACQUIRE); }
static void store(int *state, int v) { __atomic_store_n(state, v, __ATOMIC_RELEASE); }

static void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fatal(const char *fmt, ...) {
  char msg[640];
  int n = snprintf(msg, 200, "hadoop_shm_preload: %s (pid %d): ", program_invocation_short_name,
                   (int)getpid());
  if (n < 0 || n >= 200) n = 0;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(msg + n, 360, fmt, ap);
  va_end(ap);
  n += m < 0 ? 0 : m < 360 ? m : 359;
  n += snprintf(msg + n, sizeof msg - n, "; the task fails (README: Preload shim)\n");
  if (REAL(write)(2, msg, (size_t)n) < 0) { /* nothing left to tell */
  }
  REAL(_exit)(FATAL_EXIT); /* the output ring is not ended: the task sees -EPIPE */
}

/* The owner is the process that attached. A fork child keeps our memory but not the rings'
 * single-writer rule, so it only passes through. */
static int owner_fast(void) { return g_owner != 0 && g_pid == g_owner; }
/* For calls a vfork child makes (dup2, close, exec, _exit): it shares our memory, g_pid too. */
static int owner_strict(void) { return g_owner != 0 && getpid() == g_owner; }
static int is_private(int fd) { return fd >= 0 && (fd == g_marker_fd || fd == g_stray_fd); }

static void lock(pthread_mutex_t *mu) {
  /* Only a signal handler that uses stdin/stdout while its thread does can deadlock here. */
  if (pthread_mutex_lock(mu) == EDEADLK)
    fatal("a signal handler used standard input/output while its thread was using it");
}
static void unlock(pthread_mutex_t *mu) { pthread_mutex_unlock(mu); }

/* ---- the watch: fd 0 and fd 1 used around the shim ---- */

static void check_bypass(void) {
  int left = 0, stray = 0;
  if (g_marker_fd < 0) return;
  if (ioctl(g_marker_fd, FIONREAD, &left) != 0 || ioctl(g_stray_fd, FIONREAD, &stray) != 0)
    fatal("the descriptors the shim watches (%d, %d) were closed", g_marker_fd, g_stray_fd);
  if (stray > 0) {
    char head[48] = {0};
    ssize_t k = REAL(read)(g_stray_fd, head, sizeof head - 1);
    for (ssize_t i = 0; i < k; i++)
      if (head[i] < ' ' || head[i] > '~') head[i] = '.';
    fatal(
        "%d bytes reached standard output around the shim (\"%s\"): a child process that "
        "inherited it, or a write the shim does not route (dup(1), fdopen(1), dprintf, "
        "sendfile, splice, a raw system call)",
        stray, k > 0 ? head : "");
  }
  if ((size_t)left != sizeof kMarker - 1)
    fatal(
        "standard input was read around the shim (%zu bytes of its marker line consumed): a "
        "child process that inherited it, or a read the shim does not route (dup(0), "
        "fdopen(0), splice, a raw system call)",
        sizeof kMarker - 1 - (size_t)left);
}

/* Held while a look for bypasses runs and, at exit, until the output is ended: the exit
 * path must not end the output cleanly while the watch thread fails the program for bytes it
 * has just taken out of the stray pipe (its _exit and exit's would race). */
static pthread_mutex_t g_watch_mu = PTHREAD_MUTEX_INITIALIZER;

static void *watch(void *arg) {
  (void)arg;
  struct pollfd p = {g_stray_fd, POLLIN, 0};
  for (;;) {
    if (REAL(poll)(&p, 1, WATCH_MS) > 0 && (p.revents & POLLHUP)) p.fd = -1; /* no writer left */
    pthread_mutex_lock(&g_watch_mu);
    check_bypass(); /* the marker gives no event when read: look every WATCH_MS */
    pthread_mutex_unlock(&g_watch_mu);
  }
  return NULL;
}

/* ---- routing ---- */

/* Reads fd 0 from the ring; returns 0 if the direction is not on the ring (pass through). */
static int ring_read(void *buf, size_t n, ssize_t *out) {
  lock(&g_in_mu);
  int state = g_in;
  ssize_t r = 0;
  if (state == RING && n > 0) r = hshm_stream_read(g_stream, buf, n);
  unlock(&g_in_mu);
  if (state == OFF) return 0;
  if (r < 0) errno = EIO; /* -EPIPE: the task is gone */
  *out = r < 0 ? -1 : r;
  return 1;
}

static int ring_write(const struct iovec *iov, int cnt, ssize_t *out) {
  lock(&g_out_mu);
  int state = g_out;
  ssize_t total = 0, r = 0;
  for (int i = 0; state == RING && i < cnt && r >= 0; i++) {
    r = hshm_stream_write(g_stream, iov[i].iov_base, iov[i].iov_len);
    if (r > 0) total += r;
  }
  unlock(&g_out_mu);
  if (state == OFF) return 0;
  if (state == DONE) fatal("wrote to standard output after the shim ended it at exit");
  if (r < 0 && total == 0) {
    if (r == -EPIPE) raise(SIGPIPE); /* as a pipe whose reader is gone */
    errno = (int)-r;
    total = -1;
  }
  *out = total;
  return 1;
}

/* The program closed or replaced fd 0 / fd 1: that direction ends, as it would over a pipe. */
static void end_direction(int fd) {
  if (fd == 0) {
    lock(&g_in_mu);
    if (g_in == RING) store(&g_in, OFF);
    unlock(&g_in_mu);
  } else {
    lock(&g_out_mu);
    if (g_out == RING) {
      check_bypass(); /* end the stream only if nothing went around it */
      hshm_stream_close_output(g_stream);
      store(&g_out, OFF);
    }
    unlock(&g_out_mu);
  }
}

static void after_fd_change(int fd) {
  if (g_owner == 0 || !owner_strict()) return;
  if (fd == 0 || fd == 1) end_direction(fd);
  if (is_private(fd)) fatal("closed or replaced descriptor %d, which the shim uses", fd);
}

/* Ends the output (and detaches) at exit or _exit, after a last look for bypasses. */
static void finish(int flush_stdio) {
  if (g_stream == NULL || !owner_strict()) return;
  if (flush_stdio) fflush(NULL);   /* exit flushes stdio only after us: do it while it counts */
  pthread_mutex_lock(&g_watch_mu); /* never released if the watch is failing the program */
  check_bypass();
  lock(&g_out_mu);
  int was = g_out;
  if (g_out == RING) {
    hshm_stream_close_output(g_stream);
    store(&g_out, DONE);
  }
  unlock(&g_out_mu);
  pthread_mutex_unlock(&g_watch_mu);
  if (was == RING) { /* fd 1 now a pipe without reader: a later write there cannot go unseen */
    int p[2];
    if (pipe2(p, O_CLOEXEC) == 0) {
      REAL(close)(p[0]);
      REAL(dup2)(p[1], 1);
      REAL(close)(p[1]);
    }
  }
  if (pthread_mutex_trylock(&g_in_mu) == 0) { /* else a thread is blocked reading: leave it */
    lock(&g_out_mu);
    if (g_in == RING) store(&g_in, DONE);
    hshm_stream_close(g_stream); /* the task's writer gets -EPIPE if it has more input */
    g_stream = NULL;
    unlock(&g_out_mu);
    unlock(&g_in_mu);
  }
}

static void at_exit(void) { finish(1); }

/* ---- interposed libc functions ---- */

/* First use of the task's stdin (fd 0) or stdout (fd 1) in a PENDING process: attach. */
static void maybe_attach(int fd) {
  if (load(&g_phase) == PENDING && !t_attaching && is_task_fd(fd)) attach();
}

ssize_t read(int fd, void *buf, size_t n) {
  ssize_t r;
  if (fd == 0) maybe_attach(0);
  if (fd == 0 && load(&g_in) != OFF && owner_fast() && ring_read(buf, n, &r)) return r;
  return REAL(read)(fd, buf, n);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  if (n > buflen) return REAL(__read_chk)(fd, buf, n, buflen); /* reports the overflow */
  return read(fd, buf, n);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  ssize_t r;
  if (fd == 0) maybe_attach(0);
  if (fd == 0 && load(&g_in) != OFF && owner_fast()) {
    int i = 0; /* one buffer only: waiting on the ring to fill a second one could block */
    while (i < cnt && iov[i].iov_len == 0) i++;
    if (ring_read(i < cnt ? iov[i].iov_base : NULL, i < cnt ? iov[i].iov_len : 0, &r)) return r;
  }
  return REAL(readv)(fd, iov, cnt);
}

ssize_t write(int fd, const void *buf, size_t n) {
  ssize_t r;
  struct iovec one = {(void *)buf, n};
  if (fd == 1) maybe_attach(1);
  if (fd == 1 && load(&g_out) != OFF && owner_fast() && ring_write(&one, 1, &r)) return r;
  return REAL(write)(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  ssize_t r;
  if (fd == 1) maybe_attach(1);
  if (fd == 1 && load(&g_out) != OFF && owner_fast() && ring_write(iov, cnt, &r)) return r;
  return REAL(writev)(fd, iov, cnt);
}

int close(int fd) {
  if (fd <= 1 || is_private(fd)) after_fd_change(fd);
  return REAL(close)(fd);
}

/* A copy of the task's fd taken before the first read/write would go around the rings unseen:
 * attach first, so the copy is of the watched pipe. */
int dup(int old) {
  if (old == 0 || old == 1) maybe_attach(old);
  return REAL(dup)(old);
}

int dup2(int old, int fd) {
  int r = REAL(dup2)(old, fd);
  if (r >= 0 && old != fd && (fd <= 1 || is_private(fd))) after_fd_change(fd);
  return r;
}

int dup3(int old, int fd, int flags) {
  int r = REAL(dup3)(old, fd, flags);
  if (r >= 0 && (fd <= 1 || is_private(fd))) after_fd_change(fd);
  return r;
}

/* glibc's freopen crashes on a fopencookie stream: do what it would do to stdin/stdout (the new
 * file on fd 0/1, which ends that direction in the owner) and keep our stream, whose reads and
 * writes then go to the file through fd 0/1. */
static FILE *reopen(const char *path, const char *mode, FILE *fp, int fd) {
  if (path == NULL) return fp; /* a mode change: nothing to do on a pipe */
  int flags = mode[0] == 'r'   ? O_RDONLY
              : mode[0] == 'w' ? O_WRONLY | O_CREAT | O_TRUNC
              : mode[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND
                               : -1;
  if (flags < 0) {
    errno = EINVAL;
    return NULL;
  }
  if (strchr(mode, '+') != NULL) flags = (flags & ~O_ACCMODE) | O_RDWR;
  if (strchr(mode, 'x') != NULL) flags |= O_EXCL;
  fflush(fp); /* pending output still goes where it was written */
  int nfd = open(path, flags, 0666);
  if (nfd < 0) return NULL;
  if (nfd != fd && (dup2(nfd, fd) < 0 || REAL(close)(nfd) != 0)) return NULL;
  clearerr(fp);
  return fp;
}
FILE *freopen(const char *path, const char *mode, FILE *fp) {
  if (fp != NULL && (fp == g_stdin || fp == g_stdout))
    return reopen(path, mode, fp, fp == g_stdin ? 0 : 1);
  return REAL(freopen)(path, mode, fp);
}
FILE *freopen64(const char *path, const char *mode, FILE *fp) {
  if (fp != NULL && (fp == g_stdin || fp == g_stdout))
    return reopen(path, mode, fp, fp == g_stdin ? 0 : 1);
  return REAL(freopen64)(path, mode, fp);
}

/* Wide-character stdio cannot work on a fopencookie stream (glibc gives it no wide buffers: it
 * returns WEOF, which a program takes for end of input, or crashes): refuse it on ours. */
static void check_wide(FILE *fp, const char *call) {
  if (fp == NULL || (fp != g_stdin && fp != g_stdout)) return;
  /* Name the call as the program's source does: __wprintf_chk, __isoc99_wscanf -> wprintf... */
  const char *name = strncmp(call, "__isoc99_", 9) == 0 ? call + 9
                     : strncmp(call, "__", 2) == 0      ? call + 2
                                                        : call;
  size_t len = strlen(name);
  if (len > 4 && strcmp(name + len - 4, "_chk") == 0) len -= 4;
  fatal("%.*s() on standard %s: wide-character stdio is not supported by the shim", (int)len, name,
        fp == g_stdin ? "input" : "output");
}
#define WIDE(ret, name, params, args, fp) \
  static void *real_##name;               \
  ret name params {                       \
    check_wide(fp, #name);                \
    return REAL(name) args;               \
  }
#define WIDE_VARARGS(name, params, vname, vargs, fp) \
  int name params {                                  \
    check_wide(fp, #name);                           \
    va_list ap;                                      \
    va_start(ap, fmt);                               \
    int r = REAL(vname) vargs;                       \
    va_end(ap);                                      \
    return r;                                        \
  }
/* <wchar.h> maps wscanf & co to these C99 entry points (the symbols programs call). */
int __isoc99_vwscanf(const wchar_t *fmt, va_list ap);
int __isoc99_vfwscanf(FILE *f, const wchar_t *fmt, va_list ap);
int __isoc99_wscanf(const wchar_t *fmt, ...);
int __isoc99_fwscanf(FILE *f, const wchar_t *fmt, ...);
int __vwprintf_chk(int flag, const wchar_t *fmt, va_list ap);
int __vfwprintf_chk(FILE *f, int flag, const wchar_t *fmt, va_list ap);
int __wprintf_chk(int flag, const wchar_t *fmt, ...);
int __fwprintf_chk(FILE *f, int flag, const wchar_t *fmt, ...);
wchar_t *__fgetws_chk(wchar_t *s, size_t size, int n, FILE *f);
wchar_t *__fgetws_unlocked_chk(wchar_t *s, size_t size, int n, FILE *f);
WIDE(int, fwide, (FILE * f, int mode), (f, mode), mode > 0 ? f : NULL)
WIDE(wint_t, fgetwc, (FILE * f), (f), f)
WIDE(wint_t, getwc, (FILE * f), (f), f)
WIDE(wint_t, fgetwc_unlocked, (FILE * f), (f), f)
WIDE(wint_t, getwc_unlocked, (FILE * f), (f), f)
WIDE(wint_t, getwchar, (void), (), stdin)
WIDE(wint_t, getwchar_unlocked, (void), (), stdin)
WIDE(wint_t, ungetwc, (wint_t c, FILE *f), (c, f), f)
WIDE(wchar_t *, fgetws, (wchar_t * s, int n, FILE *f), (s, n, f), f)
WIDE(wchar_t *, fgetws_unlocked, (wchar_t * s, int n, FILE *f), (s, n, f), f)
WIDE(wchar_t *, __fgetws_chk, (wchar_t * s, size_t size, int n, FILE *f), (s, size, n, f), f)
WIDE(wchar_t *, __fgetws_unlocked_chk, (wchar_t * s, size_t size, int n, FILE *f), (s, size, n, f),
     f)
WIDE(wint_t, fputwc, (wchar_t c, FILE *f), (c, f), f)
WIDE(wint_t, putwc, (wchar_t c, FILE *f), (c, f), f)
WIDE(wint_t, fputwc_unlocked, (wchar_t c, FILE *f), (c, f), f)
WIDE(wint_t, putwc_unlocked, (wchar_t c, FILE *f), (c, f), f)
WIDE(wint_t, putwchar, (wchar_t c), (c), stdout)
WIDE(wint_t, putwchar_unlocked, (wchar_t c), (c), stdout)
WIDE(int, fputws, (const wchar_t *s, FILE *f), (s, f), f)
WIDE(int, fputws_unlocked, (const wchar_t *s, FILE *f), (s, f), f)
WIDE(int, vwprintf, (const wchar_t *fmt, va_list ap), (fmt, ap), stdout)
WIDE(int, vfwprintf, (FILE * f, const wchar_t *fmt, va_list ap), (f, fmt, ap), f)
WIDE(int, __vwprintf_chk, (int flag, const wchar_t *fmt, va_list ap), (flag, fmt, ap), stdout)
WIDE(int, __vfwprintf_chk, (FILE * f, int flag, const wchar_t *fmt, va_list ap), (f, flag, fmt, ap),
     f)
WIDE(int, __isoc99_vwscanf, (const wchar_t *fmt, va_list ap), (fmt, ap), stdin)
WIDE(int, __isoc99_vfwscanf, (FILE * f, const wchar_t *fmt, va_list ap), (f, fmt, ap), f)
WIDE_VARARGS(wprintf, (const wchar_t *fmt, ...), vwprintf, (fmt, ap), stdout)
WIDE_VARARGS(fwprintf, (FILE * f, const wchar_t *fmt, ...), vfwprintf, (f, fmt, ap), f)
WIDE_VARARGS(__wprintf_chk, (int flag, const wchar_t *fmt, ...), __vwprintf_chk, (flag, fmt, ap),
             stdout)
WIDE_VARARGS(__fwprintf_chk, (FILE * f, int flag, const wchar_t *fmt, ...), __vfwprintf_chk,
             (f, flag, fmt, ap), f)
WIDE_VARARGS(__isoc99_wscanf, (const wchar_t *fmt, ...), __isoc99_vwscanf, (fmt, ap), stdin)
WIDE_VARARGS(__isoc99_fwscanf, (FILE * f, const wchar_t *fmt, ...), __isoc99_vfwscanf, (f, fmt, ap),
             f)

/* Readiness of fd 0/1 says nothing about the rings: an event loop would block or spin. */
static void check_wait(int fd, const char *call) {
  int pending = (fd == 0 || fd == 1) && load(&g_phase) == PENDING && is_task_fd(fd);
  if (pending ||
      (((fd == 0 && load(&g_in) == RING) || (fd == 1 && load(&g_out) == RING)) && owner_fast()))
    fatal(
        "%s() on standard %s, which is on a shared-memory ring: waiting for readiness is not "
        "supported",
        call, fd == 0 ? "input" : "output");
}
static void check_pollfds(const struct pollfd *fds, nfds_t n, const char *call) {
  for (nfds_t i = 0; load(&g_phase) != DORMANT && i < n; i++) check_wait(fds[i].fd, call);
}
static void check_fdsets(int nfds, fd_set *r, fd_set *w, fd_set *e, const char *call) {
  for (int fd = 0; load(&g_phase) != DORMANT && fd < 2 && fd < nfds; fd++)
    if ((r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) || (e && FD_ISSET(fd, e)))
      check_wait(fd, call);
}

/* glibc declares the pollfd array write-only (access attribute); it is read-write. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
int poll(struct pollfd *fds, nfds_t n, int timeout) {
  check_pollfds(fds, n, "poll");
  return REAL(poll)(fds, n, timeout);
}
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen) {
  check_pollfds(fds, n, "poll");
  return REAL(__poll_chk)(fds, n, timeout, fdslen);
}
int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask) {
  check_pollfds(fds, n, "ppoll");
  return REAL(ppoll)(fds, n, t, mask);
}
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask,
                size_t fdslen) {
  check_pollfds(fds, n, "ppoll");
  return REAL(__ppoll_chk)(fds, n, t, mask, fdslen);
}
#pragma GCC diagnostic pop
int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *t) {
  check_fdsets(nfds, r, w, e, "select");
  return REAL(select)(nfds, r, w, e, t);
}
int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t,
            const sigset_t *mask) {
  check_fdsets(nfds, r, w, e, "pselect");
  return REAL(pselect)(nfds, r, w, e, t, mask);
}
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev) {
  if (op == EPOLL_CTL_ADD && load(&g_phase) != DORMANT) check_wait(fd, "epoll_ctl");
  return REAL(epoll_ctl)(epfd, op, fd, ev);
}

/* exec in the owner would drop the rings with the process image: the new program could not
 * continue the streams (a constructor check catches the exec paths not wrapped here). An exec
 * before the first use of stdin/stdout is fine: nothing is attached yet, the next image is. */
static void check_exec(const char *what) {
  if (g_stream != NULL && owner_strict())
    fatal(
        "exec of %s would replace the process that holds this task's rings; a program "
        "must exec the next one before it uses its standard input/output, not after",
        what);
}
int execve(const char *path, char *const argv[], char *const envp[]) {
  check_exec(path);
  return REAL(execve)(path, argv, envp);
}
int execv(const char *path, char *const argv[]) {
  check_exec(path);
  return REAL(execv)(path, argv);
}
int execvp(const char *file, char *const argv[]) {
  check_exec(file);
  return REAL(execvp)(file, argv);
}
int execvpe(const char *file, char *const argv[], char *const envp[]) {
  check_exec(file);
  return REAL(execvpe)(file, argv, envp);
}
int fexecve(int fd, char *const argv[], char *const envp[]) {
  check_exec(argv[0] != NULL ? argv[0] : "a descriptor");
  return REAL(fexecve)(fd, argv, envp);
}

/* _exit skips atexit, but what went through write() had reached the pipe: end the output
 * (stdio buffers are not flushed, as with a pipe). */
void _exit(int status) {
  finish(0);
  REAL(_exit)(status);
}
void _Exit(int status) {
  finish(0);
  REAL(_Exit)(status);
}

/* ---- stdio: cookie streams over the same routing (fileno() stays 0 and 1) ---- */

static ssize_t cookie_read(void *c, char *buf, size_t n) {
  (void)c;
  return read(0, buf, n);
}
static ssize_t cookie_write(void *c, const char *buf, size_t n) {
  (void)c;
  size_t done = 0; /* glibc treats a short cookie write as an error */
  while (done < n) {
    ssize_t r = write(1, buf + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return done > 0 ? (ssize_t)done : -1;
    done += (size_t)r;
  }
  return (ssize_t)n;
}
static int cookie_close_in(void *c) {
  (void)c;
  g_stdin = NULL;
  return close(0);
}
static int cookie_close_out(void *c) {
  (void)c;
  g_stdout = NULL;
  return close(1);
}

/* ---- setup: deferred until the program first uses the task's stdin/stdout ---- */

static void after_fork_child(void) { g_pid = getpid(); }

static int private_fd(int fd) {
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, PRIVATE_FD_MIN);
  REAL(close)(fd);
  return moved;
}

/* Whether fd is still the task's pipe (same device and inode as at the first image's start). */
static int is_task_fd(int fd) {
  struct stat st;
  return g_task_id[fd].set && fstat(fd, &st) == 0 && st.st_dev == g_task_id[fd].dev &&
         st.st_ino == g_task_id[fd].ino;
}

/* The first image under the task records its stdin/stdout pipes in the environment, so every
 * image after an exec (wrapper scripts, env, pyenv/conda shims, #! interpreters) and every
 * child knows which fds are the task's. Set before main(): runtimes copy the environment then. */
static int load_task_ids(void) {
  const char *v = getenv(STDIO_VAR);
  unsigned long long d0, i0, d1, i1;
  if (v == NULL) {
    struct stat a, b;
    if (fstat(0, &a) != 0 || fstat(1, &b) != 0) return 0;
    char buf[96];
    snprintf(buf, sizeof buf, "%llu:%llu,%llu:%llu", (unsigned long long)a.st_dev,
             (unsigned long long)a.st_ino, (unsigned long long)b.st_dev,
             (unsigned long long)b.st_ino);
    setenv(STDIO_VAR, buf, 1);
    v = getenv(STDIO_VAR);
  }
  if (sscanf(v, "%llu:%llu,%llu:%llu", &d0, &i0, &d1, &i1) != 4) return 0;
  g_task_id[0] = (struct task_fd){1, (dev_t)d0, (ino_t)i0};
  g_task_id[1] = (struct task_fd){1, (dev_t)d1, (ino_t)i1};
  return 1;
}

/* Attaches this process to the task's rings (reads the handshake from fd 0); runs once, on the
 * first read of the task's stdin or write of its stdout. */
static void attach(void) {
  pthread_mutex_lock(&g_attach_mu);
  if (load(&g_phase) != PENDING || g_pid != getpid()) { /* raced, or a fork child of a holder */
    pthread_mutex_unlock(&g_attach_mu);
    return;
  }
  if (!is_task_fd(0) || !is_task_fd(1))
    fatal(
        "uses the task's standard %s, but its standard %s is not the task's (a pipeline or "
        "redirection in the command): one process must read and write the records",
        is_task_fd(0) ? "input" : "output", is_task_fd(0) ? "output" : "input");
  t_attaching = 1; /* hshm_stream_open_fd reads fd 0 through read(): pass it through */
  hshm_stream *s = hshm_stream_open_fd(0);
  t_attaching = 0;
  if (s == NULL) {
    if (errno == EBUSY) fatal("another process of this task's command holds its rings");
    fatal("standard input does not start with the ShmStreaming handshake (see the line above)");
  }
  if (hshm_stream_transport(s) != HSHM_TRANSPORT_RINGS) {
    setenv(OWNER_VAR, "-", 1); /* children must not take their input for a handshake */
    hshm_stream_close(s);      /* pipes or no input: the program runs as it is */
    store(&g_phase, DORMANT);
    pthread_mutex_unlock(&g_attach_mu);
    return;
  }
  char pid[24];
  snprintf(pid, sizeof pid, "%d", (int)g_pid);
  setenv(OWNER_VAR, pid, 1);

  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
      REAL(write)(in[1], kMarker, sizeof kMarker - 1) != (ssize_t)(sizeof kMarker - 1) ||
      REAL(dup2)(in[0], 0) != 0 || REAL(dup2)(out[1], 1) != 1)
    fatal("cannot set up standard input/output: %s", strerror(errno));
  REAL(close)(in[1]); /* no writer: a reader around the shim gets the marker, then EOF */
  REAL(close)(out[1]);
  g_marker_fd = private_fd(in[0]);
  g_stray_fd = private_fd(out[0]);
  if (g_marker_fd < 0 || g_stray_fd < 0)
    fatal("cannot set up standard input/output: %s", strerror(errno));

  g_stream = s;
  g_in = RING;
  g_out = RING;
  g_owner = g_pid;

  pthread_t t;
  pthread_attr_t attr;
  sigset_t all, old;
  sigfillset(&all);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay with the program's threads */
  int rc = pthread_create(&t, &attr, watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) fatal("cannot start its watch thread: %s", strerror(rc));
  store(&g_phase, ATTACHED);
  pthread_mutex_unlock(&g_attach_mu);
}

/* A program linked to the ShmStreaming API (hshm_stream_open, the Python package) asks us to
 * stand aside: 1 if we had not attached (the rings are the API's), 0 if we hold them already
 * (the API then reads and writes fds 0/1, which we route). */
__attribute__((visibility("default"))) int hadoop_shm_preload_stand_aside(void) {
  pthread_mutex_lock(&g_attach_mu);
  int attached = load(&g_phase) == ATTACHED && owner_strict();
  if (!attached) {
    store(&g_phase, DORMANT);
    if (stdin == g_stdin && g_orig_stdin != NULL) stdin = g_orig_stdin;
    if (stdout == g_stdout && g_orig_stdout != NULL) {
      fflush(g_stdout); /* nothing written yet, or it would have attached us */
      stdout = g_orig_stdout;
    }
  }
  pthread_mutex_unlock(&g_attach_mu);
  return attached ? 0 : 1;
}

__attribute__((constructor)) static void hadoop_shm_preload_init(void) {
  g_pid = getpid();
  if (!hshm_stream_task_uses_rings()) return; /* not -io shm: the program runs over pipes */
  const char *owner = getenv(OWNER_VAR);
  if (owner != NULL) { /* the handshake was read by an ancestor, or before an exec */
    if (strcmp(owner, "-") != 0 && atoi(owner) == g_pid)
      fatal(
          "was started by exec in the process that held this task's rings; a program must "
          "not exec another after it used its standard input/output");
    return; /* a child: fd 0/1 are redirected by its parent, or the watched pipes */
  }
  if (!load_task_ids()) return;
  int in_ok = is_task_fd(0), out_ok = is_task_fd(1);
  if (!in_ok && !out_ok) return; /* e.g. a command substitution's child: not ours */
  pthread_atfork(NULL, NULL, after_fork_child);
  atexit(at_exit); /* runs when exit() finalizes this library: after the program's handlers */

  /* stdio on the task's fds goes through our read()/write() (glibc's internal calls cannot be
   * interposed), which attach on first use and then route to the rings. */
  cookie_io_functions_t in_io = {.read = cookie_read, .close = cookie_close_in};
  cookie_io_functions_t out_io = {.write = cookie_write, .close = cookie_close_out};
  if (in_ok && (g_stdin = fopencookie(NULL, "r", in_io)) != NULL) {
    g_stdin->_fileno = 0; /* fileno(stdin) is 0 for programs that mix stdio and read(2) */
    g_orig_stdin = stdin;
    stdin = g_stdin; /* glibc lets programs assign these; stdio functions use the variables */
  }
  if (out_ok && (g_stdout = fopencookie(NULL, "w", out_io)) != NULL) {
    g_stdout->_fileno = 1;
    g_orig_stdout = stdout;
    stdout = g_stdout;
  }
  store(&g_phase, PENDING);
}
