/*
 * timeit: time one command from inside the sandbox.
 *
 *   timeit [-o FILE] PROGRAM [ARGS...]
 *
 * Forks, execs PROGRAM (by path, or found on $PATH), waits for it and
 * prints the time between the fork and the end of the wait, measured with
 * clock_gettime(CLOCK_MONOTONIC), on a line of its own after whatever the
 * command printed:
 *
 *   ns_per_op=123456
 *
 * With -o, the command's stdout goes to FILE, so bench/run can check its
 * output apart from the figure. A command that fails (non-zero exit or a
 * signal) makes timeit fail with its status and print no figure. Run inside
 * each isolation level, it leaves the level's own start-up out of the
 * workload's time (the `start` workload measures that).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	long long t0, t1;
	int status;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: timeit [-o FILE] PROGRAM [ARGS...]\n");
		return 2;
	}
	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 1;
	}
	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0) {
				perror(out);
				_exit(126);
			}
			close(fd);
		}
		execvp(argv[1], argv + 1);
		fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("timeit: waitpid");
		return 1;
	}
	t1 = now_ns();
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "timeit: %s: killed by signal %d\n", argv[1], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "timeit: %s: exit status %d\n", argv[1], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	printf("\nns_per_op=%lld\n", t1 - t0);
	return 0;
}
