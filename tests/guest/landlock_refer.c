/*
 * Landlock's REFER rules for rename and link: within one directory no
 * REFER is needed; across directories both sides need it, and a file must
 * not gain rights by moving (EXDEV), in either direction of a
 * RENAME_EXCHANGE; a missing right other than REFER is EACCES first.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ALL_V2 ((LANDLOCK_ACCESS_FS_REFER << 1) - 1)
#define A_RIGHTS                                                                 \
	(LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |          \
	 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_READ_FILE | \
	 LANDLOCK_ACCESS_FS_READ_DIR)
#define B_RIGHTS (A_RIGHTS | LANDLOCK_ACCESS_FS_WRITE_FILE)
#define C_RIGHTS (LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE)

static char top[64];

static const char *p(const char *name)
{
	static char bufs[4][128];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, 128, "%s/%s", top, name);
	return b;
}

static int add_rule(int rfd, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = {.allowed_access = access};
	int ret;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	ret = (int)syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	return ret;
}

static void touch(const char *path)
{
	close(open(path, O_WRONLY | O_CREAT, 0600));
}

static int restricted(void)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = ALL_V2};
	int rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

	CHECK(rfd >= 0 && add_rule(rfd, "/", LANDLOCK_ACCESS_FS_EXECUTE |
						     LANDLOCK_ACCESS_FS_READ_FILE |
						     LANDLOCK_ACCESS_FS_READ_DIR) == 0 &&
		      add_rule(rfd, p("a"), A_RIGHTS) == 0 && add_rule(rfd, p("b"), B_RIGHTS) == 0 &&
		      add_rule(rfd, p("c"), C_RIGHTS) == 0,
	      "the rules");
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	CHECK_EQ(syscall(SYS_landlock_restrict_self, rfd, 0), 0, "restrict self");

	CHECK_EQ(rename(p("a/f"), p("a/f2")), 0, "rename within a");
	CHECK_EQ(rename(p("a/f2"), p("a/f")), 0, "and back");
	CHECK_ERRNO(rename(p("a/f"), p("b/f")), EXDEV, "a to b would gain WRITE_FILE");
	CHECK_ERRNO(link(p("a/f"), p("b/h")), EXDEV, "a link from a into b too");
	CHECK_EQ(rename(p("b/g"), p("a/g")), 0, "b to a loses rights: allowed");
	CHECK_ERRNO(rename(p("a/g"), p("b/g")), EXDEV, "and back: a's rules are g's now");
	CHECK_EQ(link(p("b/k"), p("a/h")), 0, "a link from b into a");
	CHECK_ERRNO(renameat2(AT_FDCWD, p("a/f"), AT_FDCWD, p("b/k"), RENAME_EXCHANGE), EXDEV,
		    "exchanging a/f and b/k: f would gain");
	CHECK_ERRNO(rename(p("a/f"), p("c/f")), EXDEV, "into c, which has no REFER");
	CHECK_ERRNO(rename(p("a/f"), p("d/f")), EACCES, "into d, where nothing may be made");
	CHECK_ERRNO(rename(p("d/e"), p("a/e")), EACCES, "out of d, where nothing may be removed");
	CHECK_ERRNO(link(p("d/e"), p("a/e")), EXDEV, "a link out of d (no REFER there)");
	return GUEST_DONE();
}

int main(void)
{
	int st;
	pid_t pid;

	if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 0) {
		printf("SKIP: landlock is not enabled on this kernel\n");
		return 77;
	}
	snprintf(top, sizeof(top), "/tmp/ll-refer-XXXXXX");
	if (!mkdtemp(top))
		return 2;
	mkdir(p("a"), 0700);
	mkdir(p("b"), 0700);
	mkdir(p("c"), 0700);
	mkdir(p("d"), 0700);
	touch(p("a/f"));
	touch(p("b/g"));
	touch(p("b/k"));
	touch(p("d/e"));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(restricted());
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the restricted child's checks passed");
	unlink(p("a/f"));
	unlink(p("a/h"));
	unlink(p("a/g"));
	unlink(p("b/k"));
	unlink(p("b/h"));
	unlink(p("d/e"));
	rmdir(p("a"));
	rmdir(p("b"));
	rmdir(p("c"));
	rmdir(p("d"));
	CHECK_EQ(rmdir(top), 0, "clean up");
	return GUEST_DONE();
}
