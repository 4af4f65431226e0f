/*
 * Guest test: system-wide files of /proc agree with what the kernel does:
 * /proc is inode 1; /proc/sys/kernel's System V IPC limits are what the
 * IPC_INFO calls report; cap_last_cap is the last capability
 * PR_CAPBSET_READ knows; vm.mmap_min_addr can be mapped; max_map_count and
 * randomize_va_space are numbers; /proc/devices has the mem devices and
 * both headers; /proc/cmdline is a line. Root may open a read-only
 * /proc file for writing, but a write fails; a sysctl without a write
 * handler cannot be opened for writing. A change of the host name wakes
 * an epoll watching /proc/sys/kernel/hostname once (EPOLLERR); /proc/stat
 * has softirq's 10 counts.
 */
#include "guest.h"

#include <sched.h>

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *__buf;
};

static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return buf;
}

static unsigned long long num(const char *path)
{
	char *s = slurp(path);

	return s ? strtoull(s, NULL, 10) : ~0ull;
}

/* In a UTS namespace of its own (natively too), so the host keeps its name. */
static void check_hostname_poll(void)
{
	struct epoll_event ev = {0}, got;
	int fd, ep;

	if (unshare(CLONE_NEWUTS) < 0) {
		printf("FAIL: unshare(CLONE_NEWUTS) errno %d\n", errno);
		guest_failures++;
		return;
	}
	fd = open("/proc/sys/kernel/hostname", O_RDONLY);
	ep = epoll_create1(0);
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll watches kernel/hostname");
	CHECK(epoll_wait(ep, &got, 1, 0) == 0, "no event before a change");
	CHECK(sethostname("rung-poll-test", 14) == 0, "sethostname");
	CHECK(epoll_wait(ep, &got, 1, 1000) == 1 && (got.events & EPOLLERR),
	      "a change of the name: EPOLLERR");
	CHECK(epoll_wait(ep, &got, 1, 0) == 0, "reported once");
	close(ep);
	close(fd);
}

int main(void)
{
	struct shminfo shm;
	struct seminfo sem;
	struct msginfo msg;
	union semun arg = {.__buf = &sem};
	unsigned a, b, c, d;
	unsigned long long last, min, maps;
	struct stat st;
	char *s;
	void *p;
	int fd;

	CHECK(stat("/proc", &st) == 0 && st.st_ino == 1, "/proc is inode 1");

	CHECK(shmctl(0, IPC_INFO, (struct shmid_ds *)&shm) >= 0, "shmctl IPC_INFO");
	CHECK(num("/proc/sys/kernel/shmmax") == shm.shmmax, "shmmax is IPC_INFO's");
	CHECK(num("/proc/sys/kernel/shmall") == shm.shmall, "shmall is IPC_INFO's");
	CHECK(num("/proc/sys/kernel/shmmni") == shm.shmmni, "shmmni is IPC_INFO's");
	CHECK(semctl(0, 0, IPC_INFO, arg) >= 0, "semctl IPC_INFO");
	s = slurp("/proc/sys/kernel/sem");
	CHECK(s && sscanf(s, "%u\t%u\t%u\t%u\n", &a, &b, &c, &d) == 4 && a == (unsigned)sem.semmsl &&
		      b == (unsigned)sem.semmns && c == (unsigned)sem.semopm &&
		      d == (unsigned)sem.semmni,
	      "sem is IPC_INFO's semmsl, semmns, semopm, semmni, tab-separated");
	CHECK(msgctl(0, IPC_INFO, (struct msqid_ds *)&msg) >= 0, "msgctl IPC_INFO");
	CHECK(num("/proc/sys/kernel/msgmax") == (unsigned)msg.msgmax, "msgmax is IPC_INFO's");
	CHECK(num("/proc/sys/kernel/msgmnb") == (unsigned)msg.msgmnb, "msgmnb is IPC_INFO's");
	CHECK(num("/proc/sys/kernel/msgmni") == (unsigned)msg.msgmni, "msgmni is IPC_INFO's");

	last = num("/proc/sys/kernel/cap_last_cap");
	CHECK(prctl(PR_CAPBSET_READ, (unsigned long)last) >= 0,
	      "PR_CAPBSET_READ knows cap_last_cap");
	CHECK_ERRNO(prctl(PR_CAPBSET_READ, (unsigned long)last + 1), EINVAL,
		    "PR_CAPBSET_READ of cap_last_cap + 1");

	min = num("/proc/sys/vm/mmap_min_addr");
	p = mmap((void *)(uintptr_t)min, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	CHECK(p == (void *)(uintptr_t)min, "mmap at vm.mmap_min_addr works");
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	maps = num("/proc/sys/vm/max_map_count");
	CHECK(maps > 1000 && maps < (1ull << 31), "vm.max_map_count is a number");
	s = slurp("/proc/sys/kernel/randomize_va_space");
	CHECK(s && (s[0] >= '0' && s[0] <= '2') && s[1] == '\n', "randomize_va_space is 0, 1 or 2");

	s = slurp("/proc/devices");
	CHECK(s && strncmp(s, "Character devices:\n", 19) == 0 && strstr(s, "  1 mem\n") &&
		      strstr(s, "  5 /dev/tty\n") && strstr(s, "136 pts\n") &&
		      strstr(s, "\n\nBlock devices:\n") > strstr(s, "  1 mem\n"),
	      "/proc/devices: mem, tty, pts, then the block devices");
	s = slurp("/proc/cmdline");
	CHECK(s && strlen(s) > 1 && strchr(s, '\n') == s + strlen(s) - 1, "/proc/cmdline is one line");

	fd = open("/proc/cpuinfo", O_WRONLY);
	CHECK(fd >= 0, "root opens /proc/cpuinfo for writing");
	CHECK_ERRNO(write(fd, "x", 1), EIO, "a write to /proc/cpuinfo");
	close(fd);
	CHECK_ERRNO(open("/proc/sys/kernel/cap_last_cap", O_WRONLY), EACCES,
		    "opening a read-only sysctl for writing");

	s = slurp("/proc/stat");
	s = s ? strstr(s, "\nsoftirq ") : NULL;
	{
		int fields = 0;
		for (char *q = s ? s + 1 : NULL; q && *q && *q != '\n'; q++)
			fields += *q == ' ';
		CHECK(fields == 11, "/proc/stat: softirq has a total and 10 counts");
	}
	check_hostname_poll();
	return GUEST_DONE();
}
