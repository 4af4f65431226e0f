/* What ptrace_tools.sh traces and debugs: a call chain (for gdb's
 * backtrace) and a fork whose child execs /bin/true (for strace -f). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static int inner(int x)
{
	return x * 3;
}

__attribute__((noinline)) static int outer(int x)
{
	return inner(x + 1) + 1;
}

int main(void)
{
	int st = -1;
	pid_t pid;

	printf("outer(4) = %d\n", outer(4));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)0);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
