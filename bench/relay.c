/*
 * bench/relay.c: the program bench/sweep.ts starts in each PTY of its host cases when it
 * hosts more sessions than node processes fit in memory: it connects to the simulated-agent
 * farm (bench/sim-farm.ts) on a Unix socket, says which agent it is ("<index>\n"), puts its
 * terminal in raw mode (as the sim agent's node process does: no echo, no line buffering,
 * output post-processing kept) and copies bytes both ways until either side closes. About
 * 1 MB of memory per session instead of a node process's 40 MB.
 *
 * usage: relay SOCKET INDEX
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, ssize_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, (size_t)n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    buf += w;
    n -= w;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: relay SOCKET INDEX\n");
    return 2;
  }
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) {
    perror("relay: connect");
    return 1;
  }
  struct termios t;
  if (tcgetattr(0, &t) == 0) {
    t.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    t.c_cflag |= CS8;
    t.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    tcsetattr(0, TCSANOW, &t);
  }
  char hello[64];
  int n = snprintf(hello, sizeof hello, "%s\n", argv[2]);
  if (write_all(s, hello, n) < 0) return 1;
  struct pollfd p[2] = {{0, POLLIN, 0}, {s, POLLIN, 0}};
  static char buf[65536];
  for (;;) {
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[0].revents) {
      ssize_t r = read(0, buf, sizeof buf);
      if (r <= 0 || write_all(s, buf, r) < 0) return 0;
    }
    if (p[1].revents) {
      ssize_t r = read(s, buf, sizeof buf);
      if (r <= 0 || write_all(1, buf, r) < 0) return 0;
    }
  }
}
