/* process_vm_readv and process_vm_writev between a parent and its child:
 * scattered reads and writes, a transfer cut at a remote fault, and the
 * errors. */
#include "guest.h"

#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

static char area[64];

int main(void)
{
	char a[8] = {0}, b[8] = {0}, *hole;
	int go[2], back[2];
	struct iovec l[2], r[2];
	pid_t pid;
	char c;
	int st;

	hole = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, PAGE);
	strcpy(area, "the child's words");
	if (pipe(go) || pipe(back))
		return 2;
	pid = fork();
	if (pid == 0) {
		/* Its own copy of area changes; it waits until the parent wrote it. */
		strcpy(area, "CHILD: 0123456789");
		write(back[1], "r", 1);
		read(go[0], &c, 1);
		printf("child sees: %s\n", area);
		fflush(stdout);
		_exit(0);
	}
	read(back[0], &c, 1);
	l[0] = (struct iovec){a, 3};
	l[1] = (struct iovec){b, 5};
	r[0] = (struct iovec){area, 8};
	CHECK_EQ(process_vm_readv(pid, l, 2, r, 1, 0), 8, "readv: 8 bytes of the child into 3 + 5");
	printf("read: %.3s|%.5s\n", a, b);
	r[0] = (struct iovec){area + 7, 2};
	r[1] = (struct iovec){area + 12, 3};
	l[0] = (struct iovec){"xyzab", 5};
	CHECK_EQ(process_vm_writev(pid, l, 1, r, 2, 0), 5, "writev: 5 bytes into two places");
	r[0] = (struct iovec){area, 4};
	r[1] = (struct iovec){hole, 4};
	l[0] = (struct iovec){a, 8};
	CHECK_EQ(process_vm_readv(pid, l, 1, r, 2, 0), 4, "a remote hole cuts the transfer short");
	r[0] = (struct iovec){hole, 4};
	CHECK_ERRNO(process_vm_readv(pid, l, 1, r, 1, 0), EFAULT, "a remote hole at the start");
	r[0] = (struct iovec){area, 4};
	l[0] = (struct iovec){hole, 4};
	CHECK_ERRNO(process_vm_readv(pid, l, 1, r, 1, 0), EFAULT, "a local hole");
	l[0] = (struct iovec){a, 4};
	CHECK_ERRNO(process_vm_readv(pid, l, 1, r, 1, 1), EINVAL, "a flag");
	CHECK_ERRNO(process_vm_readv(4000000, l, 1, r, 1, 0), ESRCH, "no such process");
	CHECK_ERRNO(process_vm_readv(pid, l, 1025, r, 1, 0), EINVAL, "more than IOV_MAX iovecs");
	CHECK_EQ(process_vm_readv(pid, l, 0, r, 1, 0), 0, "no local iovecs: 0");
	write(go[1], "g", 1);
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "the child ends");

	pid = fork();
	if (pid == 0) {
		/* Another user may not read root's memory. */
		pid_t parent = getppid();
		if (setgid(65534) || setuid(65534))
			_exit(3);
		l[0] = (struct iovec){a, 4};
		r[0] = (struct iovec){area, 4};
		_exit(process_vm_readv(parent, l, 1, r, 1, 0) == -1 && errno == EPERM ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "another user gets EPERM");
	return GUEST_DONE();
}
