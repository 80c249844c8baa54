/*
 * A pod infra ("pause") process for podrun's test images, written for this project.
 *
 * It only has to hold the pod's namespaces open: sleep until a signal arrives, exit 0 on
 * SIGINT or SIGTERM so `stop` is quick and clean, and reap children re-parented to it
 * (it is PID 1 when the pod shares a PID namespace) so they never linger as zombies.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define VERSION "podrun-test-pause 3.10"

static void on_terminate(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  /* waitpid may clobber errno, which the interrupted code might still read. */
  int saved = errno;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    puts(VERSION);
    return 0;
  }
  if (getpid() != 1) {
    fputs("pause: warning: not running as PID 1, zombies of other processes are not reaped\n", stderr);
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_terminate;
  if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) {
    perror("pause: sigaction");
    return 1;
  }
  sa.sa_handler = on_child;
  sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  if (sigaction(SIGCHLD, &sa, NULL) != 0) {
    perror("pause: sigaction");
    return 1;
  }

  for (;;) {
    pause();
  }
  return 42; /* not reached */
}
