/*
 * bench/ticker.c: the program bench/pty-io.ts starts in each of its PTYs: a spinner line of
 * BYTES bytes every PERIOD_MS ms (as an agent's 10 Hz spinner draws it: carriage return,
 * SGR, a braille frame, text), each with one write(2), and every byte it is given read and
 * dropped. Its terminal in raw mode (no echo), as an agent's. Starts after a random part of
 * one period, so a thousand tickers do not draw in step.
 *
 * usage: ticker PERIOD_MS BYTES SEED
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: ticker PERIOD_MS BYTES SEED\n");
    return 2;
  }
  int period = atoi(argv[1]);
  int bytes = atoi(argv[2]);
  srand((unsigned)atoi(argv[3]));
  if (period < 1 || bytes < 16 || bytes > 4000) return 2;
  struct termios t;
  if (tcgetattr(0, &t) == 0) {
    t.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
    tcsetattr(0, TCSANOW, &t);
  }
  static const char *frames[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  char line[4096];
  char in[4096];
  long long next = now_ms() + rand() % period;
  for (unsigned k = 0;; k++) {
    long long wait = next - now_ms();
    struct pollfd p = {0, POLLIN, 0};
    int r = poll(&p, 1, wait > 0 ? (int)wait : 0);
    if (r < 0 && errno != EINTR) return 1;
    if (r > 0) {
      if (read(0, in, sizeof in) <= 0) return 0;
      continue;
    }
    if (now_ms() < next) continue;
    next += period;
    int n = snprintf(line, sizeof line, "\r\x1b[38;5;174m%s\x1b[39m Working… (%us) ",
                     frames[k % 10], k / 10);
    while (n < bytes - 1) line[n++] = '.';
    line[n++] = ' ';
    if (write(1, line, (size_t)n) < 0) return 0;
  }
}
