/*
 * e2e guest: the container process of tests/e2e/oci_cli.sh. One small
 * static program with a subcommand per behaviour the OCI CLI tests watch
 * from the host; every line it prints is meant to be matched exactly.
 *
 *   ocitest sleep              block until a signal ends it
 *   ocitest exit N             exit with status N
 *   ocitest echo WORDS...      print WORDS on one line, exit 0
 *   ocitest fds                print "fds: 0 1 2 ..." (every open descriptor below 1024)
 *   ocitest trap SIG CODE      on SIG exit with CODE; prints "trapping SIG" first
 *   ocitest ignore SIG         ignore SIG, print "ignoring SIG", then sleep
 *   ocitest session            print whether it is pid 1 and leads its group and session
 *   ocitest tty                isatty of 0-2 and the window size; then waits for
 *                              SIGWINCH ("waiting for SIGWINCH") and prints the new size
 *   ocitest rlimit             "nofile SOFT HARD" and "nproc SOFT HARD"
 *   ocitest closeio            close 0, 1 and 2, then sleep
 *   ocitest writefd N TEXT     write TEXT and a newline to fd N; status 0, or 1 on failure
 *   ocitest cat                copy stdin to stdout until EOF
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static int exit_code;

static void on_trap(int sig)
{
	_exit(exit_code);
}

static volatile sig_atomic_t winched;

static void on_winch(int sig)
{
	winched = 1;
}

static void sleep_forever(void)
{
	for (;;)
		pause();
}

static int parse_sig(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {{"HUP", SIGHUP},	{"INT", SIGINT},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},
		     {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"ALRM", SIGALRM}, {"WINCH", SIGWINCH}};

	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	return atoi(s);
}

static void print_size(const char *what)
{
	struct winsize ws;

	if (ioctl(1, TIOCGWINSZ, &ws) < 0)
		printf("%s: TIOCGWINSZ failed: %s\n", what, strerror(errno));
	else
		printf("%s: %ux%u\n", what, ws.ws_row, ws.ws_col);
	fflush(stdout);
}

static int cmd_tty(void)
{
	struct sigaction sa = {.sa_handler = on_winch};
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGWINCH, &sa, NULL);
	printf("isatty: %d %d %d\n", isatty(0), isatty(1), isatty(2));
	print_size("size");
	printf("waiting for SIGWINCH\n");
	fflush(stdout);
	while (!winched)
		sigsuspend(&old);
	print_size("resized");
	return 0;
}

static int cmd_cat(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write(1, buf, (size_t)n) != n)
			return 1;
	return n < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(cmd, "sleep") == 0) {
		sleep_forever();
	} else if (strcmp(cmd, "exit") == 0 && argc == 3) {
		return atoi(argv[2]);
	} else if (strcmp(cmd, "echo") == 0) {
		for (int i = 2; i < argc; i++)
			printf("%s%s", argv[i], i + 1 < argc ? " " : "");
		printf("\n");
		return 0;
	} else if (strcmp(cmd, "fds") == 0) {
		printf("fds:");
		for (int fd = 0; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				printf(" %d", fd);
		printf("\n");
		return 0;
	} else if (strcmp(cmd, "trap") == 0 && argc == 4) {
		struct sigaction sa = {.sa_handler = on_trap};
		exit_code = atoi(argv[3]);
		sigaction(parse_sig(argv[2]), &sa, NULL);
		printf("trapping %s\n", argv[2]);
		sleep_forever();
	} else if (strcmp(cmd, "ignore") == 0 && argc == 3) {
		signal(parse_sig(argv[2]), SIG_IGN);
		printf("ignoring %s\n", argv[2]);
		sleep_forever();
	} else if (strcmp(cmd, "tty") == 0) {
		return cmd_tty();
	} else if (strcmp(cmd, "rlimit") == 0) {
		struct rlimit a, b;
		getrlimit(RLIMIT_NOFILE, &a);
		getrlimit(RLIMIT_NPROC, &b);
		printf("nofile %llu %llu\n", (unsigned long long)a.rlim_cur,
		       (unsigned long long)a.rlim_max);
		printf("nproc %llu %llu\n", (unsigned long long)b.rlim_cur,
		       (unsigned long long)b.rlim_max);
		return 0;
	} else if (strcmp(cmd, "session") == 0) {
		pid_t self = getpid();
		printf("pid %s, group leader %s, session leader %s\n", self == 1 ? "1" : "not 1",
		       getpgrp() == self ? "yes" : "no", getsid(0) == self ? "yes" : "no");
		return 0;
	} else if (strcmp(cmd, "umask") == 0) {
		mode_t m = umask(0);
		printf("umask %04o\n", (unsigned)m);
		return 0;
	} else if (strcmp(cmd, "closeio") == 0) {
		close(0);
		close(1);
		close(2);
		sleep_forever();
	} else if (strcmp(cmd, "writefd") == 0 && argc == 4) {
		char *line;
		int len = asprintf(&line, "%s\n", argv[3]);
		return len > 0 && write(atoi(argv[2]), line, (size_t)len) == len ? 0 : 1;
	} else if (strcmp(cmd, "cat") == 0) {
		return cmd_cat();
	}
	fprintf(stderr, "ocitest: unknown command `%s`\n", cmd);
	return 2;
}
