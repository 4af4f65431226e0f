/*
 * Guest test: the smaller files of /proc/<pid>. oom_score_adj (read,
 * write, range and parse errors, fork inheritance, EACCES below the
 * minimum without CAP_SYS_RESOURCE) and oom_score; statm,
 * smaps and smaps_rollup agreeing with status and maps; cgroup's v2 line;
 * the ns/ links; /proc/sys/kernel/version as uname's.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static char buf[1 << 20];

/* The whole of path into buf (NUL-terminated); its length or -1. */
static long slurp(const char *path)
{
	long n = 0, r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return n;
}

/* Write s to /proc/self/oom_score_adj: 0 or -errno. */
static int set_adj(const char *s)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static long get_long(const char *path)
{
	return slurp(path) > 0 ? atol(buf) : -99999;
}

/* A "Name:   N kB" line of buf (status, smaps_rollup): N, or -1. */
static long kb_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? atol(p + strlen(name)) : -1;
}

static void drop_sys_resource(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	syscall(SYS_capget, &h, d);
	d[0].effective &= ~(1u << CAP_SYS_RESOURCE);
	syscall(SYS_capset, &h, d);
}

/* Without CAP_SYS_RESOURCE (the host running the tests may not give it
 * either): the minimum stays 0. */
static void oom(void)
{
	pid_t p;
	int st;

	drop_sys_resource();
	CHECK_EQ(set_adj("100"), 0, "oom_score_adj takes 100");
	CHECK_EQ(get_long("/proc/self/oom_score_adj"), 100, "and reads it back");
	CHECK_EQ(set_adj(" 200\n"), 0, "blanks and a newline around the number are fine");
	CHECK_EQ(get_long("/proc/self/oom_score_adj"), 200, "200 it is");
	CHECK_EQ(set_adj("1001"), -EINVAL, "1001 is EINVAL");
	CHECK_EQ(set_adj("-1001"), -EINVAL, "-1001 is EINVAL");
	CHECK_EQ(set_adj("12abc"), -EINVAL, "12abc is EINVAL");
	CHECK_EQ(get_long("/proc/self/oom_score_adj"), 200, "failed writes change nothing");
	CHECK_EQ(set_adj("0x3e8"), 0, "0x3e8 (1000), the most");
	CHECK_EQ(get_long("/proc/self/oom_score_adj"), 1000, "1000 it is");
	{
		long s = get_long("/proc/self/oom_score");
		CHECK(s >= 1330 && s <= 1340, "oom_score at adj 1000 is about 1333");
	}
	CHECK_EQ(set_adj("-1"), -EACCES, "below the minimum (0) without CAP_SYS_RESOURCE: EACCES");
	CHECK_EQ(set_adj("-1000"), -EACCES, "-1000 too");
	CHECK_EQ(set_adj("300"), 0, "300");

	p = fork();
	if (p == 0) {
		int ok = get_long("/proc/self/oom_score_adj") == 300;
		ok &= set_adj("400") == 0;
		ok &= set_adj("0") == 0;
		ok &= set_adj("-5") == -EACCES;
		ok &= get_long("/proc/self/oom_score_adj") == 0;
		_exit(ok ? 0 : 1);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a fork child inherits it and sets its own");
	CHECK_EQ(get_long("/proc/self/oom_score_adj"), 300, "the child's writes stay its own");
	{
		/* As a shell's "echo 7 > oom_score_adj" does it. */
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		CHECK(fd >= 0 && write(fd, "7\n", 2) == 2, "open with O_TRUNC, then write");
		close(fd);
		CHECK_EQ(get_long("/proc/self/oom_score_adj"), 7, "7 it is");
	}
	p = fork();
	if (p == 0) {
		struct stat st;
		int ok = setresuid(1000, 1000, 1000) == 0;
		/* No longer dumpable: its files are root's, as on Linux. */
		ok &= stat("/proc/self/oom_score_adj", &st) == 0 && st.st_uid == 0;
		ok &= open("/proc/self/oom_score_adj", O_WRONLY) < 0 && errno == EACCES;
		_exit(ok ? 0 : 1);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "after setuid (not dumpable) the files are root's: EACCES");
	CHECK_EQ(set_adj("0"), 0, "back to 0");
	{
		long s = get_long("/proc/self/oom_score");
		CHECK(s >= 0 && s <= 1000, "oom_score at 0 is within 0..1000");
	}
}

static void memory(void)
{
	static char status[8192], rollup[8192];
	unsigned long size, resident, shared, text, lib, data, dt;
	long vmsize, vmrss, smaps_size = 0, smaps_rss = 0, entries = 0, lines = 0;
	char *p;

	/* Read everything first: the figures move with every allocation. */
	slurp("/proc/self/status");
	strcpy(status, buf);
	slurp("/proc/self/smaps_rollup");
	strcpy(rollup, buf);
	slurp("/proc/self/statm");
	CHECK(sscanf(buf, "%lu %lu %lu %lu %lu %lu %lu", &size, &resident, &shared, &text, &lib,
		     &data, &dt) == 7,
	      "statm has seven numbers");
	vmsize = kb_field(status, "VmSize:");
	vmrss = kb_field(status, "VmRSS:");
	CHECK(labs((long)size * 4 - vmsize) <= 1024, "statm's size is VmSize in pages");
	CHECK(labs((long)resident * 4 - vmrss) <= 1024, "statm's resident is VmRSS in pages");
	CHECK(resident <= size && shared <= resident, "shared <= resident <= size");
	CHECK(lib == 0 && dt == 0, "lib and dt are 0 (as Linux 2.6+)");

	slurp("/proc/self/maps");
	for (p = buf; *p; p++)
		lines += *p == '\n';
	slurp("/proc/self/smaps");
	for (p = buf; (p = strstr(p, "\nSize:")); p++) {
		entries++;
		smaps_size += atol(p + 6);
	}
	for (p = buf; (p = strstr(p, "\nRss:")); p++)
		smaps_rss += atol(p + 5);
	CHECK(labs(entries - lines) <= 2, "smaps has an entry per maps line");
	CHECK(strstr(buf, "KernelPageSize:        4 kB\n") != NULL, "smaps: KernelPageSize 4 kB");
	CHECK(strstr(buf, "VmFlags: rd") != NULL, "smaps: VmFlags");
	CHECK(labs(smaps_size - vmsize) <= 1024, "smaps' sizes add up to VmSize");
	CHECK(labs(smaps_rss - vmrss) <= 1024, "smaps' Rss add up to VmRSS");
	CHECK(strstr(rollup, "[rollup]\n") != NULL, "smaps_rollup has its [rollup] header");
	CHECK(labs(kb_field(rollup, "\nRss:") - vmrss) <= 1024, "smaps_rollup's Rss is VmRSS");
	CHECK(kb_field(rollup, "\nPss_Anon:") >= 0 && kb_field(rollup, "\nPss_File:") >= 0,
	      "smaps_rollup has Pss_Anon and Pss_File");
}

static void namespaces(void)
{
	static const char *const ns[][2] = {
		{"cgroup", "cgroup"}, {"ipc", "ipc"},	{"mnt", "mnt"},
		{"net", "net"},	      {"pid", "pid"},	{"pid_for_children", "pid"},
		{"time", "time"},     {"user", "user"}, {"time_for_children", "time"},
		{"uts", "uts"},
	};
	char path[64], link[64], what[96], parent_ipc[64] = "";
	pid_t p;
	int st;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		long n;
		unsigned long long ino;
		char type[32], end;
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i][0]);
		n = readlink(path, link, sizeof(link) - 1);
		link[n < 0 ? 0 : n] = 0;
		snprintf(what, sizeof(what), "ns/%s reads %s:[inode]", ns[i][0], ns[i][1]);
		CHECK(n > 0 && sscanf(link, "%31[a-z]:[%llu%c", type, &ino, &end) == 3 &&
			      strcmp(type, ns[i][1]) == 0 && end == ']',
		      what);
		if (strcmp(ns[i][0], "ipc") == 0)
			strcpy(parent_ipc, link);
	}
	p = fork();
	if (p == 0) {
		long n = readlink("/proc/self/ns/ipc", link, sizeof(link) - 1);
		link[n < 0 ? 0 : n] = 0;
		_exit(strcmp(link, parent_ipc) == 0 ? 0 : 1);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a child is in the same ipc namespace");
}

int main(void)
{
	struct utsname u;

	oom();
	memory();
	namespaces();
	slurp("/proc/self/cgroup");
	CHECK(strncmp(buf, "0::/", 4) == 0 || strstr(buf, "\n0::/") != NULL,
	      "cgroup has the v2 line 0::/...");
	uname(&u);
	slurp("/proc/sys/kernel/version");
	CHECK(strlen(buf) == strlen(u.version) + 1 && strncmp(buf, u.version, strlen(u.version)) == 0,
	      "/proc/sys/kernel/version is uname's version");
	return GUEST_DONE();
}
