/* An unmodified C stdio streaming program for the preload shim's test (test_preload_shim.py):
 * plain stdin/stdout, no ShmStreaming code. `test_stdio_program MODE`:
 *   getline  "<length> TAB <line>" per line (getline, printf, fwrite); at exit an atexit handler
 *            and a destructor each print one more line, never flushed by the program
 *   fgets    echo (fgets, fputs)          getchar  echo (getchar, putchar)
 *   fread    echo (fread, fwrite)         fileno   echo (read/write on fileno(stdin/stdout))
 *   scanf    one word per line (scanf, puts)
 *   _exit    echo, fflush, then _exit(0)  fclose   echo, fclose(stdout), then exit
 *   freopen  prints the line count, then redirects stdout to /dev/null and prints more
 * and ways the shim refuses (it must fail, not hang or lose output):
 *   poll | select  wait for stdin        system-out | system-in  a child uses stdout / stdin
 *   fork-write     a fork child writes   execvp | execlp  replace the program
 *   dup            writes to dup(1)      wide  wide-character stdio (wprintf)
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

static int at_exit_lines; /* getline mode: lines printed by exit handlers after main */
static void bye(void) { printf("atexit handler\n"); }
static void __attribute__((destructor)) fini(void) {
  if (at_exit_lines) printf("destructor\n");
}

static int echo(void) {
  char buf[4096];
  while (fgets(buf, sizeof buf, stdin) != NULL) fputs(buf, stdout);
  return ferror(stdin) ? 3 : 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "getline";
  if (strcmp(mode, "getline") == 0) {
    at_exit_lines = 1;
    atexit(bye);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
      printf("%zd\t", n);
      fwrite(line, 1, (size_t)n, stdout);
    }
    free(line);
    return ferror(stdin) ? 3 : 0; /* the destructor's line too: nothing flushed by hand */
  }
  if (strcmp(mode, "fgets") == 0) return echo();
  if (strcmp(mode, "getchar") == 0) {
    int c;
    while ((c = getchar()) != EOF) putchar(c);
    return 0;
  }
  if (strcmp(mode, "fread") == 0) {
    static char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) fwrite(buf, 1, n, stdout);
    return 0;
  }
  if (strcmp(mode, "fileno") == 0) {
    char buf[10000];
    ssize_t n;
    while ((n = read(fileno(stdin), buf, sizeof buf)) > 0)
      if (write(fileno(stdout), buf, (size_t)n) != n) return 4;
    return n == 0 ? 0 : 3;
  }
  if (strcmp(mode, "scanf") == 0) {
    char word[256];
    while (scanf("%255s", word) == 1) puts(word);
    return 0;
  }
  if (strcmp(mode, "_exit") == 0) {
    int rc = echo();
    fflush(stdout);
    _exit(rc);
  }
  if (strcmp(mode, "fclose") == 0) {
    int rc = echo();
    return fclose(stdout) == 0 ? rc : 5;
  }
  if (strcmp(mode, "freopen") == 0) {
    char buf[4096];
    long lines = 0;
    while (fgets(buf, sizeof buf, stdin) != NULL) lines++;
    printf("%ld lines\n", lines);
    if (freopen("/dev/null", "w", stdout) == NULL) return 6;
    printf("not part of the output\n");
    return 0;
  }
  /* Refused: each of these must end with a "hadoop_shm_preload:" line and exit status 70. */
  if (strcmp(mode, "poll") == 0) {
    struct pollfd p = {0, POLLIN, 0};
    poll(&p, 1, 1000);
    return echo();
  }
  if (strcmp(mode, "select") == 0) {
    fd_set r;
    FD_ZERO(&r);
    FD_SET(0, &r);
    struct timeval t = {1, 0};
    select(1, &r, NULL, NULL, &t);
    return echo();
  }
  if (strcmp(mode, "system-out") == 0) {
    int rc = echo();
    fflush(stdout);
    return system("echo a line from a child process") == 0 ? rc : 10;
  }
  if (strcmp(mode, "system-in") == 0) {
    return system("cat > /dev/null") == 0 ? echo() : 10;
  }
  if (strcmp(mode, "fork-write") == 0) {
    int rc = echo();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      printf("from the fork child\n");
      exit(0);
    }
    waitpid(pid, NULL, 0);
    return rc;
  }
  if (strcmp(mode, "execvp") == 0) {
    char *cat[] = {"cat", NULL};
    execvp("cat", cat);
    return 7;
  }
  if (strcmp(mode, "execlp") == 0) {
    execlp("cat", "cat", (char *)NULL);
    return 7;
  }
  if (strcmp(mode, "dup") == 0) {
    int fd = dup(1);
    int rc = echo();
    fflush(stdout);
    return write(fd, "via dup(1)\n", 11) == 11 ? rc : 8;
  }
  if (strcmp(mode, "wide") == 0) {
    int rc = echo();
    fflush(stdout);
    return wprintf(L"%ls\n", L"wide") > 0 ? rc : 9;
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
