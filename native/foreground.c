/*
 * agentwatch_foreground: who holds a PTY, who asks on a socket, and the orphans a host adopts.
 *
 * Seven functions, nothing else (types in native/foreground.d.ts):
 *
 *   foregroundPgid(fd)  -> number
 *       tcgetpgrp(fd) on a PTY master (POSIX.1). Throws an Error whose message names the
 *       errno (code, errno and syscall set like Node's own system errors) when the call
 *       fails, e.g. EBADF for a closed fd, ENOTTY for an fd that is not a terminal.
 *
 *   processInfo(pid)    -> { pid, name, argv } | null
 *       Linux: name from /proc/PID/comm (proc(5); at most 15 bytes, set by execve from
 *       the file name or later by prctl(PR_SET_NAME)), argv from /proc/PID/cmdline.
 *       macOS: name = basename of proc_pidpath(), argv from sysctl KERN_PROCARGS2.
 *       null when the process does not exist (ENOENT/ESRCH); argv is [] when it cannot be
 *       read (a zombie, or another user's process on macOS).
 *
 *   inputQueued(fd)     -> number
 *       How many bytes written to the PTY master `fd` its slave side has not read yet: the
 *       input queued toward the program in the terminal. Opens the slave (Linux 4.13+:
 *       ioctl(TIOCGPTPEER) on the master, tty_ioctl(4); else open(ptsname(fd)), O_NOCTTY),
 *       polls it once with timeout 0 (Linux's n_tty_poll first moves bytes still in the
 *       pty's flip buffer into the line discipline: tty_buffer_flush_work), asks
 *       ioctl(FIONREAD) (tty_ioctl(4): TIOCINQ, "the number of bytes in the input buffer";
 *       in canonical mode only complete lines count) and closes it again. Throws an Error
 *       naming the errno when a call fails.
 *
 *   peerCredentials(fd) -> { pid, uid, gid }
 *       Who is on the other end of a connected Unix socket `fd`, as the kernel recorded it
 *       when the connection was made. Linux: getsockopt(SO_PEERCRED) (socket(7), unix(7)).
 *       macOS: getpeereid(3) for uid/gid and getsockopt(SOL_LOCAL, LOCAL_PEERPID) for the
 *       pid (sys/un.h). Throws an Error naming the errno when the call fails (ENOTSOCK,
 *       EBADF, ENOTCONN).
 *
 *   childSubreaper()    -> boolean
 *       Linux: prctl(PR_SET_CHILD_SUBREAPER, 1) (prctl(2), Linux 3.4): orphaned descendants
 *       of this process are re-parented to it, not to init. false elsewhere or on failure.
 *
 *   reapChild(pid)      -> boolean
 *       waitpid(pid, WNOHANG) (POSIX.1): true when that child had exited and is reaped now.
 *
 *   setCloexec(fd)      -> undefined
 *       fcntl(fd, F_SETFD, FD_CLOEXEC) (POSIX.1): `fd` is not inherited by programs children
 *       exec. Throws an Error naming the errno.
 *
 * Plain Node-API (NAPI_VERSION 8), C99, no allocation that outlives a call; every buffer
 * is bounded (cmdline and procargs are truncated at ARGS_CAP bytes).
 */
#ifdef __linux__
#define _GNU_SOURCE /* struct ucred (SO_PEERCRED) */
#endif
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/tty.h>
#include <sys/prctl.h>
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41) /* Linux 4.13 */
#endif
#endif

#ifdef __APPLE__
#include <libproc.h>
#include <sys/sysctl.h>
#endif

/* Largest argument block read for one process (bytes); longer command lines are cut. */
#define ARGS_CAP (256 * 1024)

/* Returns NULL from the current napi callback when a napi call fails (an exception is
 * then pending, or one is raised here). */
#define NAPI_CALL(env, call)                                                               \
  do {                                                                                     \
    if ((call) != napi_ok) {                                                               \
      bool pending_ = false;                                                               \
      napi_is_exception_pending((env), &pending_);                                         \
      if (!pending_) napi_throw_error((env), NULL, "agentwatch_foreground: " #call " failed"); \
      return NULL;                                                                         \
    }                                                                                      \
  } while (0)

static const char *errno_name(int err) {
  switch (err) {
    case EBADF: return "EBADF";
    case ENOTTY: return "ENOTTY";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ESRCH: return "ESRCH";
    case ENOENT: return "ENOENT";
    case ENOMEM: return "ENOMEM";
    case EFAULT: return "EFAULT";
    case EINTR: return "EINTR";
    case EMFILE: return "EMFILE";
    case ENOTSOCK: return "ENOTSOCK";
    case ENOTCONN: return "ENOTCONN";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case ENFILE: return "ENFILE";
    default: return NULL;
  }
}

/* Throws Error("<what> failed: <strerror> (<ENAME>, errno N)") with .code, .errno and
 * .syscall, the shape of Node's own system errors. */
static void throw_errno(napi_env env, const char *syscall, const char *what, int err) {
  char code_buf[24];
  const char *code = errno_name(err);
  if (code == NULL) {
    snprintf(code_buf, sizeof code_buf, "ERRNO%d", err);
    code = code_buf;
  }
  char msg[256];
  snprintf(msg, sizeof msg, "%s failed: %s (%s, errno %d)", what, strerror(err), code, err);

  napi_value js_msg, js_code, js_errno, js_syscall, error;
  if (napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &js_msg) != napi_ok ||
      napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &js_code) != napi_ok ||
      napi_create_error(env, js_code, js_msg, &error) != napi_ok) {
    napi_throw_error(env, code, msg);
    return;
  }
  if (napi_create_int32(env, err, &js_errno) == napi_ok) {
    napi_set_named_property(env, error, "errno", js_errno);
  }
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &js_syscall) == napi_ok) {
    napi_set_named_property(env, error, "syscall", js_syscall);
  }
  napi_throw(env, error);
}

/* Reads the single argument as a whole number in [min, INT32_MAX]; throws TypeError or
 * RangeError otherwise. Returns false when it threw. */
static bool int_arg(napi_env env, napi_callback_info info, const char *fn, int min, int *out) {
  size_t argc = 1;
  napi_value argv[1];
  double d;
  char msg[128];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc < 1 || napi_get_value_double(env, argv[0], &d) != napi_ok) {
    snprintf(msg, sizeof msg, "%s: expected a number", fn);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return false;
  }
  if (!(d >= (double)min && d <= 2147483647.0) || d != (double)(int)d) {
    snprintf(msg, sizeof msg, "%s: expected an integer >= %d, got %g", fn, min, d);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return false;
  }
  *out = (int)d;
  return true;
}

/* The JS null value, or NULL with an exception pending. */
static napi_value js_null(napi_env env) {
  napi_value value;
  NAPI_CALL(env, napi_get_null(env, &value));
  return value;
}

static napi_value foreground_pgid(napi_env env, napi_callback_info info) {
  int fd;
  if (!int_arg(env, info, "foregroundPgid", 0, &fd)) return NULL;
  pid_t pgid = tcgetpgrp(fd);
  if (pgid == (pid_t)-1) {
    int err = errno;
    char what[48];
    snprintf(what, sizeof what, "tcgetpgrp(%d)", fd);
    throw_errno(env, "tcgetpgrp", what, err);
    return NULL;
  }
  napi_value result;
  NAPI_CALL(env, napi_create_int32(env, (int32_t)pgid, &result));
  return result;
}

/* Appends buf[0..len) split at NUL bytes to the JS array `arr`, at most max_items items;
 * a last item without a terminating NUL (truncated) is kept. */
static bool push_nul_separated(napi_env env, napi_value arr, const char *buf, size_t len,
                               size_t max_items) {
  size_t start = 0;
  uint32_t index = 0;
  while (start < len && index < max_items) {
    const char *nul = memchr(buf + start, '\0', len - start);
    size_t end = nul ? (size_t)(nul - buf) : len;
    napi_value s;
    if (napi_create_string_utf8(env, buf + start, end - start, &s) != napi_ok ||
        napi_set_element(env, arr, index++, s) != napi_ok) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

#ifndef __APPLE__
/* Reads at most cap bytes of a file into buf. Returns 0 and sets *len, or an errno. */
static int read_bounded(const char *path, char *buf, size_t cap, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t n = 0;
  int err = 0;
  while (n < cap) {
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  *len = n;
  return err;
}
#endif

static napi_value process_info(napi_env env, napi_callback_info info) {
  int pid;
  if (!int_arg(env, info, "processInfo", 1, &pid)) return NULL;

  char name[1024];
  size_t name_len = 0;
  char *args = NULL; /* freed before every return below */
  size_t args_len = 0;
  size_t max_items = (size_t)-1;
  int err;

#ifdef __APPLE__
  char path[PROC_PIDPATHINFO_MAXSIZE];
  int n = proc_pidpath(pid, path, sizeof path);
  if (n > 0) {
    path[(size_t)n < sizeof path ? (size_t)n : sizeof path - 1] = '\0';
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    name_len = strlen(base);
    if (name_len >= sizeof name) name_len = sizeof name - 1;
    memcpy(name, base, name_len);
  } else {
    /* proc_pidpath fails for some processes (zombies); proc_name gives p_comm. */
    err = errno;
    n = proc_name(pid, name, sizeof name);
    if (n <= 0) {
      if (err == ESRCH || errno == ESRCH) return js_null(env);
      throw_errno(env, "proc_pidpath", "proc_pidpath", err ? err : errno);
      return NULL;
    }
    name_len = strnlen(name, sizeof name);
  }
  name[name_len] = '\0';

  /* KERN_PROCARGS2: int argc, the exec path, NUL padding, then argc NUL-terminated
   * arguments (then the environment, which is not read). */
  int mib[3] = {CTL_KERN, KERN_ARGMAX, 0};
  int argmax = 0;
  size_t size = sizeof argmax;
  if (sysctl(mib, 2, &argmax, &size, NULL, 0) != 0 || argmax <= 0) argmax = ARGS_CAP;
  size = (size_t)argmax < ARGS_CAP ? (size_t)argmax : ARGS_CAP;
  char *raw = malloc(size);
  if (raw == NULL) {
    throw_errno(env, "malloc", "malloc", ENOMEM);
    return NULL;
  }
  mib[1] = KERN_PROCARGS2;
  mib[2] = pid;
  if (sysctl(mib, 3, raw, &size, NULL, 0) == 0 && size > sizeof(int)) {
    int argc;
    memcpy(&argc, raw, sizeof argc);
    size_t p = sizeof argc;
    while (p < size && raw[p] != '\0') p++; /* exec path */
    while (p < size && raw[p] == '\0') p++; /* padding */
    if (argc > 0) {
      args = raw + p;
      args_len = size - p;
      max_items = (size_t)argc;
    }
  }
  /* else: EINVAL for zombies and other users' processes: argv stays [] */
#else
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", pid);
  err = read_bounded(path, name, sizeof name - 1, &name_len);
  if (err == ENOENT || err == ESRCH) return js_null(env);
  if (err != 0) {
    throw_errno(env, "open", "reading /proc/PID/comm", err);
    return NULL;
  }
  while (name_len > 0 && name[name_len - 1] == '\n') name_len--;
  name[name_len] = '\0';

  char *raw = malloc(ARGS_CAP);
  if (raw == NULL) {
    throw_errno(env, "malloc", "malloc", ENOMEM);
    return NULL;
  }
  snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
  err = read_bounded(path, raw, ARGS_CAP, &args_len);
  if (err == ENOENT || err == ESRCH) {
    /* exited between the two reads */
    free(raw);
    return js_null(env);
  }
  if (err == 0) args = raw; /* else argv stays [] */
#endif

  napi_value result, js_pid, js_name, js_argv;
  if (napi_create_object(env, &result) != napi_ok ||
      napi_create_int32(env, pid, &js_pid) != napi_ok ||
      napi_create_string_utf8(env, name, name_len, &js_name) != napi_ok ||
      napi_create_array(env, &js_argv) != napi_ok ||
      (args != NULL && !push_nul_separated(env, js_argv, args, args_len, max_items)) ||
      napi_set_named_property(env, result, "pid", js_pid) != napi_ok ||
      napi_set_named_property(env, result, "name", js_name) != napi_ok ||
      napi_set_named_property(env, result, "argv", js_argv) != napi_ok) {
    free(raw);
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, NULL, "agentwatch_foreground: building the result failed");
    return NULL;
  }
  free(raw);
  return result;
}

static napi_value input_queued(napi_env env, napi_callback_info info) {
  int fd;
  if (!int_arg(env, info, "inputQueued", 0, &fd)) return NULL;
  char what[64];
  int slave = -1;
#ifdef __linux__
  slave = ioctl(fd, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
#endif
  if (slave < 0) {
    /* not Linux, or a kernel before 4.13 (EINVAL/ENOTTY): the slave by its name */
    const char *name = ptsname(fd);
    if (name == NULL) {
      int err = errno;
      snprintf(what, sizeof what, "ptsname(%d)", fd);
      throw_errno(env, "ptsname", what, err);
      return NULL;
    }
    slave = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (slave < 0) {
      int err = errno;
      throw_errno(env, "open", "opening the PTY's slave", err);
      return NULL;
    }
  }
  struct pollfd p = {slave, POLLIN, 0};
  (void)poll(&p, 1, 0); /* only for its flush of the flip buffer; the result is not used */
  int queued = 0;
  if (ioctl(slave, FIONREAD, &queued) != 0) {
    int err = errno;
    close(slave);
    snprintf(what, sizeof what, "ioctl(FIONREAD) on the slave of %d", fd);
    throw_errno(env, "ioctl", what, err);
    return NULL;
  }
  close(slave);
  napi_value result;
  NAPI_CALL(env, napi_create_int32(env, (int32_t)queued, &result));
  return result;
}

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  int fd;
  if (!int_arg(env, info, "peerCredentials", 0, &fd)) return NULL;
  int32_t pid = 0;
  uint32_t uid = 0, gid = 0;
  char what[48];
#ifdef __APPLE__
  uid_t euid;
  gid_t egid;
  if (getpeereid(fd, &euid, &egid) != 0) {
    int err = errno;
    snprintf(what, sizeof what, "getpeereid(%d)", fd);
    throw_errno(env, "getpeereid", what, err);
    return NULL;
  }
  pid_t ppid = 0;
  socklen_t plen = sizeof ppid;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &ppid, &plen) != 0) {
    int err = errno;
    snprintf(what, sizeof what, "getsockopt(%d, LOCAL_PEERPID)", fd);
    throw_errno(env, "getsockopt", what, err);
    return NULL;
  }
  pid = (int32_t)ppid;
  uid = (uint32_t)euid;
  gid = (uint32_t)egid;
#else
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    int err = errno;
    snprintf(what, sizeof what, "getsockopt(%d, SO_PEERCRED)", fd);
    throw_errno(env, "getsockopt", what, err);
    return NULL;
  }
  pid = (int32_t)cred.pid;
  uid = (uint32_t)cred.uid;
  gid = (uint32_t)cred.gid;
#endif
  napi_value result, js_pid, js_uid, js_gid;
  NAPI_CALL(env, napi_create_object(env, &result));
  NAPI_CALL(env, napi_create_int32(env, pid, &js_pid));
  NAPI_CALL(env, napi_create_uint32(env, uid, &js_uid));
  NAPI_CALL(env, napi_create_uint32(env, gid, &js_gid));
  NAPI_CALL(env, napi_set_named_property(env, result, "pid", js_pid));
  NAPI_CALL(env, napi_set_named_property(env, result, "uid", js_uid));
  NAPI_CALL(env, napi_set_named_property(env, result, "gid", js_gid));
  return result;
}

/*
 * childSubreaper(): Linux prctl(PR_SET_CHILD_SUBREAPER, 1) (prctl(2), Linux 3.4): this
 * process's orphaned descendants are re-parented to it instead of to init. true when set,
 * false elsewhere (not Linux) or when the kernel refuses.
 */
static napi_value child_subreaper(napi_env env, napi_callback_info info) {
  (void)info;
  bool set = false;
#ifdef __linux__
  set = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
#endif
  napi_value result;
  NAPI_CALL(env, napi_get_boolean(env, set, &result));
  return result;
}

/*
 * reapChild(pid): waitpid(pid, WNOHANG) (POSIX.1) on one child of this process: true when it
 * had exited and is now reaped, false when it still runs, is not our child (ECHILD) or cannot
 * be waited for. For the children a subreaper adopts, which no one else waits for.
 */
static napi_value reap_child(napi_env env, napi_callback_info info) {
  int pid;
  if (!int_arg(env, info, "reapChild", 1, &pid)) return NULL;
  int status = 0;
  pid_t got;
  do {
    got = waitpid((pid_t)pid, &status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  napi_value result;
  NAPI_CALL(env, napi_get_boolean(env, got == (pid_t)pid, &result));
  return result;
}

/*
 * setCloexec(fd): fcntl(fd, F_SETFD, FD_CLOEXEC) (POSIX.1): `fd` is closed in every program
 * this process's children exec. For node-pty's PTY masters, which it leaves inheritable: each
 * later child (another session's agent, a notify command, and all they start) would hold every
 * session's master and could type into any of them. Throws an Error naming the errno.
 */
static napi_value set_cloexec(napi_env env, napi_callback_info info) {
  int fd;
  if (!int_arg(env, info, "setCloexec", 0, &fd)) return NULL;
  int flags = fcntl(fd, F_GETFD);
  if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
    int err = errno;
    char what[64];
    snprintf(what, sizeof what, "fcntl(%d, F_SETFD, FD_CLOEXEC)", fd);
    throw_errno(env, "fcntl", what, err);
    return NULL;
  }
  napi_value result;
  NAPI_CALL(env, napi_get_undefined(env, &result));
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"foregroundPgid", NULL, foreground_pgid, NULL, NULL, NULL, napi_enumerable, NULL},
      {"processInfo", NULL, process_info, NULL, NULL, NULL, napi_enumerable, NULL},
      {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_enumerable, NULL},
      {"inputQueued", NULL, input_queued, NULL, NULL, NULL, napi_enumerable, NULL},
      {"childSubreaper", NULL, child_subreaper, NULL, NULL, NULL, napi_enumerable, NULL},
      {"reapChild", NULL, reap_child, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setCloexec", NULL, set_cloexec, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) {
    return NULL;
  }
  return exports;
}
