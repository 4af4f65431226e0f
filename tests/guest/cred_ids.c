/*
 * Guest test: the set*id family and supplementary groups with Linux's
 * rules. The test runs as root; each drop of privilege happens in a forked
 * child, which reports what it can no longer do (EPERM), what it still may
 * (its saved ids), and how the ids move (setreuid's saved-id rule, setuid
 * as root and as non-root, setfsuid's return value, no-op calls).
 */
#include "guest.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define NOBODY 65534

/* Raw ids: glibc's wrappers would broadcast or cache nothing here, but the
 * raw calls show exactly what the kernel returns. */
static void ids(uid_t *r, uid_t *e, uid_t *s)
{
	syscall(SYS_getresuid, r, e, s);
}

static void gids(gid_t *r, gid_t *e, gid_t *s)
{
	syscall(SYS_getresgid, r, e, s);
}

static int uids_are(uid_t r, uid_t e, uid_t s)
{
	uid_t a, b, c;

	ids(&a, &b, &c);
	return a == r && b == e && c == s;
}

static int gids_are(gid_t r, gid_t e, gid_t s)
{
	gid_t a, b, c;

	gids(&a, &b, &c);
	return a == r && b == e && c == s;
}

/* Run fn in a child and wait; its checks print there. */
static void in_child(void (*fn)(void))
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		fn();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

static void groups(void)
{
	gid_t set[] = {300, 5, 100, 5}, got[8];
	int n;

	CHECK_EQ(setgroups(4, set), 0, "setgroups with 4 groups (one twice)");
	n = getgroups(0, NULL);
	CHECK_EQ(n, 4, "getgroups(0) counts them");
	CHECK_EQ(getgroups(8, got), 4, "getgroups returns 4");
	CHECK(got[0] == 5 && got[1] == 5 && got[2] == 100 && got[3] == 300,
	      "the list comes back sorted");
	CHECK_ERRNO(getgroups(3, got), EINVAL, "getgroups with a short buffer");
	CHECK_ERRNO(syscall(SYS_getgroups, -1, got), EINVAL, "getgroups with a negative size");
	CHECK_ERRNO(syscall(SYS_getgroups, 8, (void *)8), EFAULT, "getgroups into a bad pointer");
	CHECK_ERRNO(syscall(SYS_setgroups, 2, (void *)8), EFAULT, "setgroups from a bad pointer");
	set[0] = (gid_t)-1;
	CHECK_ERRNO(setgroups(2, set), EINVAL, "setgroups with gid -1");
	CHECK_ERRNO(syscall(SYS_setgroups, 65537, set), EINVAL, "setgroups beyond NGROUPS_MAX");
	CHECK_EQ(getgroups(0, NULL), 4, "failed calls changed nothing");
	CHECK_EQ(setgroups(0, NULL), 0, "setgroups with none");
	CHECK_EQ(getgroups(0, NULL), 0, "no groups now");
}

/* Root drops everything to nobody. */
static void drop_all(void)
{
	gid_t g = 1000;

	CHECK_EQ(setgroups(1, &g), 0, "setgroups as root");
	CHECK_EQ(setresgid(1000, 1000, 1000), 0, "setresgid to 1000");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid to nobody");
	CHECK(uids_are(NOBODY, NOBODY, NOBODY), "every uid is nobody");
	CHECK(gids_are(1000, 1000, 1000), "every gid is 1000");
	CHECK_EQ(getuid(), NOBODY, "getuid");
	CHECK_EQ(geteuid(), NOBODY, "geteuid");
	CHECK_ERRNO(setuid(0), EPERM, "setuid(0) as nobody");
	CHECK_ERRNO(seteuid(0), EPERM, "seteuid(0) as nobody");
	CHECK_ERRNO(setresuid(-1, 0, -1), EPERM, "setresuid(-1, 0, -1) as nobody");
	CHECK_ERRNO(setreuid(0, -1), EPERM, "setreuid(0, -1) as nobody");
	CHECK_ERRNO(setgid(0), EPERM, "setgid(0) without CAP_SETGID");
	CHECK_ERRNO(setresgid(0, 0, 0), EPERM, "setresgid(0) without CAP_SETGID");
	CHECK_ERRNO(setgroups(0, NULL), EPERM, "setgroups without CAP_SETGID");
	CHECK_EQ(setuid(NOBODY), 0, "setuid to one's own uid");
	CHECK_EQ(setresuid(-1, -1, -1), 0, "setresuid(-1, -1, -1) changes nothing");
	CHECK_EQ(setgid(1000), 0, "setgid to one's own gid");
	CHECK_EQ(setfsuid(0), NOBODY, "setfsuid(0) returns the old fsuid");
	CHECK_EQ(setfsuid(-1), NOBODY, "and did not change it");
	CHECK_EQ(getgroups(0, NULL), 1, "the groups stay");
}

/* Saved set-user-ID: root keeps uid 0 saved and can come back. */
static void saved_root(void)
{
	CHECK_EQ(setresuid(1000, 1000, 0), 0, "setresuid(1000, 1000, 0)");
	CHECK(uids_are(1000, 1000, 0), "saved uid stays 0");
	CHECK_ERRNO(setresuid(2000, -1, -1), EPERM, "an unrelated ruid needs CAP_SETUID");
	CHECK_EQ(seteuid(0), 0, "seteuid(0) from the saved uid");
	CHECK(uids_are(1000, 0, 0), "euid 0 again");
	CHECK_EQ(setresuid(2000, -1, -1), 0, "with euid 0 CAP_SETUID is back");
	CHECK(uids_are(2000, 0, 0), "ruid 2000");
	CHECK_EQ(setuid(3000), 0, "setuid as euid 0 sets all three");
	CHECK(uids_are(3000, 3000, 3000), "all 3000");
	CHECK_ERRNO(seteuid(0), EPERM, "no way back");
}

/* setreuid's saved-id rule and unprivileged swaps. */
static void reuid(void)
{
	CHECK_EQ(setreuid(1000, 2000), 0, "setreuid(1000, 2000) as root");
	CHECK(uids_are(1000, 2000, 2000), "the saved uid follows the new euid");
	CHECK_EQ(setreuid(2000, 1000), 0, "an unprivileged swap of ruid and euid");
	CHECK(uids_are(2000, 1000, 1000), "swapped, saved = euid");
	CHECK_EQ(setreuid(-1, 2000), 0, "setreuid(-1, ruid)");
	CHECK(uids_are(2000, 2000, 1000), "euid = ruid leaves the saved uid");
	CHECK_EQ(setreuid(-1, 1000), 0, "setreuid(-1, saved uid)");
	CHECK(uids_are(2000, 1000, 1000), "euid 1000 != ruid: saved = euid");
	CHECK_ERRNO(setreuid(3000, -1), EPERM, "a new ruid");
	CHECK_ERRNO(setreuid(-1, 3000), EPERM, "a new euid");
	CHECK_ERRNO(setuid(3000), EPERM, "setuid to a new uid");
	CHECK_EQ(setuid(2000), 0, "setuid to the real uid as non-root");
	CHECK(uids_are(2000, 2000, 1000), "setuid as non-root sets euid only");
}

static void gid_rules(void)
{
	CHECK_EQ(setregid(10, 20), 0, "setregid(10, 20) as root");
	CHECK(gids_are(10, 20, 20), "the saved gid follows the new egid");
	CHECK_EQ(setgid(30), 0, "setgid as root");
	CHECK(gids_are(30, 30, 30), "setgid with CAP_SETGID sets all three");
	CHECK_EQ(setresgid(40, 50, 60), 0, "setresgid(40, 50, 60)");
	CHECK(gids_are(40, 50, 60), "three different gids");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "drop to nobody");
	CHECK_EQ(setgid(60), 0, "setgid to the saved gid");
	CHECK(gids_are(40, 60, 60), "without CAP_SETGID setgid sets egid only");
	CHECK_EQ(setregid(60, 40), 0, "setregid among one's own gids");
	CHECK(gids_are(60, 40, 40), "rgid set: saved = egid");
	CHECK_ERRNO(setregid(70, -1), EPERM, "a new rgid");
	CHECK_ERRNO(setgid(70), EPERM, "setgid to a new gid");
	CHECK_EQ(setfsgid(70), 40, "setfsgid returns the old fsgid");
	CHECK_EQ(setfsgid(-1), 40, "a refused setfsgid changed nothing");
	CHECK_EQ(setfsgid(60), 40, "setfsgid to the real gid");
	CHECK_EQ(setfsgid(-1), 60, "and it took");
}

static void invalid(void)
{
	CHECK_ERRNO(setuid(-1), EINVAL, "setuid(-1)");
	CHECK_ERRNO(setgid(-1), EINVAL, "setgid(-1)");
	CHECK_EQ(setreuid(-1, -1), 0, "setreuid(-1, -1)");
	CHECK_EQ(setresgid(-1, -1, -1), 0, "setresgid(-1, -1, -1)");
	CHECK_ERRNO(syscall(SYS_getresuid, (void *)8, (void *)8, (void *)8), EFAULT,
		    "getresuid into a bad pointer");
	CHECK(uids_are(0, 0, 0), "still root");
}

/* What the file system thinks of the ids: fsuid and the DAC capabilities. */
static void files(void)
{
	char path[] = "/tmp/cred_ids.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0, "a root-owned file");
	fchmod(fd, 0600);
	close(fd);
	CHECK(open(path, O_RDONLY) >= 0, "root may open it");
	pid_t p = fork();
	if (p == 0) {
		setfsuid(NOBODY);
		CHECK_ERRNO(open(path, O_RDONLY), EACCES, "fsuid nobody loses CAP_DAC_OVERRIDE");
		setfsuid(0);
		CHECK(open(path, O_RDONLY) >= 0, "fsuid 0 has it again");
		setresuid(NOBODY, NOBODY, NOBODY);
		CHECK_ERRNO(open(path, O_RDONLY), EACCES, "nobody may not open it");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	int st;
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
	unlink(path);
}

int main(void)
{
	CHECK(uids_are(0, 0, 0), "the test runs as root");
	groups();
	in_child(drop_all);
	in_child(saved_root);
	in_child(reuid);
	in_child(gid_rules);
	invalid();
	files();
	return GUEST_DONE();
}
