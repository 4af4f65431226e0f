/*
 * Guest test: hard links, in a fresh directory under /tmp. Two names of a
 * file are one inode: the same st_dev and st_ino through stat, fstat of
 * an open file and readdir; st_nlink counts the names (2 after link, 1
 * after unlinking one, 0 in fstat once the last is gone); data written
 * through one name reads back through the other; rename over a name of
 * the same file; linkat's errors (EEXIST, ENOENT, EPERM on a directory,
 * EINVAL on a bad flag) and AT_SYMLINK_FOLLOW.
 */
#include "fsguest.h"

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static long nlink_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (long)st.st_nlink : -1;
}

/* The d_ino readdir reports for name in ".", or 0. */
static ino_t dirent_ino(const char *name)
{
	DIR *d = opendir(".");
	struct dirent *e;
	ino_t ino = 0;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, name) == 0)
			ino = e->d_ino;
	if (d)
		closedir(d);
	return ino;
}

static void two_names(void)
{
	struct stat sa, sb, sf;
	int fd;

	CHECK_EQ(fs_put("a", "one\n"), 0, "a: made");
	CHECK_EQ(link("a", "b"), 0, "link a b");
	CHECK(stat("a", &sa) == 0 && stat("b", &sb) == 0 && same_file(&sa, &sb),
	      "a and b: the same st_dev and st_ino");
	printf("nlink a %ld b %ld\n", nlink_of("a"), nlink_of("b"));
	CHECK(dirent_ino("a") == sa.st_ino && dirent_ino("b") == sa.st_ino,
	      "readdir gives both names the file's st_ino");
	fd = open("b", O_WRONLY | O_APPEND);
	CHECK(fd >= 0, "open b for writing");
	CHECK_EQ(write(fd, "two\n", 4), 4, "write through b");
	CHECK(fstat(fd, &sf) == 0 && same_file(&sf, &sa) && sf.st_nlink == 2,
	      "fstat of b's file: a's identity, 2 links");
	printf("a reads: %s", fs_get("a"));
	CHECK_EQ(unlink("a"), 0, "unlink a");
	printf("nlink b %ld\n", nlink_of("b"));
	CHECK(fstat(fd, &sf) == 0 && sf.st_nlink == 1, "fstat: 1 link left");
	CHECK(stat("b", &sb) == 0 && same_file(&sb, &sa), "b keeps its identity");
	CHECK_EQ(unlink("b"), 0, "unlink b");
	CHECK(fstat(fd, &sf) == 0 && sf.st_nlink == 0 && same_file(&sf, &sa),
	      "fstat of the open file: no links, the same identity");
	close(fd);
}

static void many_names(void)
{
	struct stat s0, s;
	char name[16];
	int k;

	CHECK_EQ(fs_put("m0", "m\n"), 0, "m0: made");
	CHECK_EQ(stat("m0", &s0), 0, "stat m0");
	for (k = 1; k < 5; k++) {
		snprintf(name, sizeof(name), "m%d", k);
		CHECK_EQ(link(k == 1 ? "m0" : "m1", name), 0, "link another name");
	}
	printf("m0 nlink %ld\n", nlink_of("m0"));
	CHECK(stat("m4", &s) == 0 && same_file(&s, &s0), "m4 is m0");
	/* A rename of one name over another of the same file does nothing. */
	CHECK_EQ(rename("m1", "m2"), 0, "rename m1 over m2 (the same file)");
	printf("after rename: m1 %s, m2 nlink %ld\n", access("m1", F_OK) == 0 ? "stays" : "gone",
	       nlink_of("m2"));
	CHECK_EQ(mkdir("sub", 0755), 0, "mkdir sub");
	CHECK_EQ(rename("m3", "sub/m3"), 0, "rename m3 into sub");
	CHECK(stat("sub/m3", &s) == 0 && same_file(&s, &s0), "sub/m3 is still m0");
	CHECK_EQ(fs_put("sub/m3", "changed\n"), 0, "rewrite sub/m3");
	printf("m4 reads: %s", fs_get("m4"));
	for (k = 0; k < 5; k++) {
		snprintf(name, sizeof(name), k == 3 ? "sub/m%d" : "m%d", k);
		unlink(name);
	}
	CHECK(access("m0", F_OK) != 0 && access("m4", F_OK) != 0, "every name gone");
	CHECK_EQ(rmdir("sub"), 0, "rmdir sub");
}

static void errors(void)
{
	struct stat sf, sl;

	CHECK_EQ(fs_put("f", "f\n"), 0, "f: made");
	CHECK_EQ(fs_put("g", "g\n"), 0, "g: made");
	CHECK_ERRNO(link("f", "g"), EEXIST, "link onto an existing name");
	CHECK_ERRNO(link("nothere", "h"), ENOENT, "link of a missing file");
	CHECK_ERRNO(link("f", "nodir/h"), ENOENT, "link into a missing directory");
	CHECK_EQ(mkdir("d", 0755), 0, "mkdir d");
	CHECK_ERRNO(link("d", "d2"), EPERM, "link of a directory");
	CHECK_ERRNO(linkat(AT_FDCWD, "f", AT_FDCWD, "h", 0x1), EINVAL, "linkat with a bad flag");
	CHECK_EQ(symlink("f", "s"), 0, "symlink s -> f");
	CHECK_EQ(linkat(AT_FDCWD, "s", AT_FDCWD, "hs", 0), 0, "linkat of the symlink itself");
	CHECK(lstat("hs", &sl) == 0 && S_ISLNK(sl.st_mode) && sl.st_nlink == 2,
	      "hs: the symlink, 2 links");
	CHECK_EQ(linkat(AT_FDCWD, "s", AT_FDCWD, "hf", AT_SYMLINK_FOLLOW), 0,
		 "linkat AT_SYMLINK_FOLLOW");
	CHECK(stat("f", &sf) == 0 && lstat("hf", &sl) == 0 && same_file(&sf, &sl) &&
		      sf.st_nlink == 2,
	      "hf: the symlink's target, 2 links");
	unlink("f");
	unlink("g");
	unlink("s");
	unlink("hs");
	unlink("hf");
	rmdir("d");
}

int main(void)
{
	fs_enter("fs_hardlink");
	two_names();
	many_names();
	errors();
	fs_leave();
	return GUEST_DONE();
}
