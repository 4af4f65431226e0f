/*
 * A workload that needs a real kernel: fanotify (a host facility the
 * sentry does not offer: docs/syscalls.md). Prints "fanotify ok" and exits
 * 0 when fanotify_init gives a descriptor, else the error and 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

int main(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);

	if (fd < 0) {
		printf("fanotify: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("fanotify ok\n");
	return 0;
}
