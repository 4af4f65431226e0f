/*
 * e2e host helper: what containerd's shim does with a runtime's processes.
 * It becomes a child subreaper, runs one command (rung create, or rung exec
 * --detach), and reaps every process of that command's tree, the orphaned
 * sandbox and exec proxies included, as the shim's reaper loop does.
 *
 *   reaper REPORT COMMAND [ARGS...]
 *
 * The command keeps the caller's stdio; the reaper itself holds none of it
 * (0-2 become /dev/null), so a pipe given to the command reaches EOF when
 * the command's own processes close it. When the command exits, its status
 * is written to REPORT.cmd; each other process reaped adds "PID STATUS" to
 * REPORT (both written whole, then renamed into place / appended with one
 * write). STATUS is the shim's: the exit code, or 128 + the signal. The
 * reaper exits when it has no child left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int shim_status(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char *tmp, *cmdfile;
	pid_t child, pid;
	int status, fd, null;

	if (argc < 3) {
		fprintf(stderr, "usage: reaper REPORT COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		perror("reaper: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	if (asprintf(&tmp, "%s.cmd.tmp", argv[1]) < 0 || asprintf(&cmdfile, "%s.cmd", argv[1]) < 0)
		return 2;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("reaper: report");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("reaper: fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		perror("reaper: exec");
		_exit(127);
	}
	null = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3 && null >= 0; i++)
		dup2(null, i);
	if (null > 2)
		close(null);
	for (;;) {
		char line[64];
		int len;
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nothing left */
		}
		if (pid == child) {
			FILE *f = fopen(tmp, "we");
			if (f) {
				fprintf(f, "%d", shim_status(status));
				fclose(f);
				rename(tmp, cmdfile);
			}
			continue;
		}
		len = snprintf(line, sizeof(line), "%d %d\n", (int)pid, shim_status(status));
		if (write(fd, line, (size_t)len) != len)
			return 2;
	}
	close(fd);
	return 0;
}
