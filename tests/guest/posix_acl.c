/*
 * Guest test: POSIX ACLs, the system.posix_acl_access and
 * system.posix_acl_default attributes in their xattr form (version 2), on
 * a tmpfs and on an overlay of two tmpfs directories, in a mount
 * namespace of the test's own (every mount private first, so natively
 * nothing reaches the host's). On the tmpfs: a value read back as set,
 * size queries and ERANGE, the mode the ACL gives (the mask as the group
 * bits), a minimal ACL folded into the mode, listxattr, the errors of a
 * bad value (EINVAL, EOPNOTSUPP), default ACLs (EACCES on a file,
 * inherited on creation with the umask ignored), chmod's update, empty
 * values, symlinks, ctime, the setgid bit, and the permission check of
 * named users and groups under the mask (children with other ids). On the
 * overlay: a lower file without an ACL is not copied up to remove one
 * (ENODATA), setting one copies it up, a lower ACL is read through and
 * copied up with the file, a default ACL on a copied-up directory is
 * inherited and a directory copied up later inherits none. Exits 77 when
 * it cannot make the namespace or the tmpfs takes no ACLs natively.
 */
#include "guest.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>

#define ACCESS	"system.posix_acl_access"
#define DEFAULT "system.posix_acl_default"
#define UNDEF	0xffffffffu
#define NOBODY	65534

enum { USER_OBJ = 1, USER = 2, GROUP_OBJ = 4, GROUP = 8, MASK = 0x10, OTHER = 0x20 };
enum { R = 4, W = 2, X = 1 };

struct ent {
	uint16_t tag, perm;
	uint32_t id;
};

struct acl {
	char b[4 + 16 * 8];
	size_t n;
};

static struct acl make(const struct ent *e, size_t count)
{
	struct acl a;
	uint32_t version = 2;

	memcpy(a.b, &version, 4);
	memcpy(a.b + 4, e, count * sizeof(*e));
	a.n = 4 + count * sizeof(*e);
	return a;
}

#define ACL(...)                                 \
	make((const struct ent[]){__VA_ARGS__}, \
	     sizeof((const struct ent[]){__VA_ARGS__}) / sizeof(struct ent))

static int set(const char *path, const char *name, struct acl a)
{
	return setxattr(path, name, a.b, a.n, 0);
}

/* Is the ACL name of path exactly a? */
static int reads_back(const char *path, const char *name, struct acl a)
{
	char got[512];
	long n = getxattr(path, name, got, sizeof(got));

	return n == (long)a.n && memcmp(got, a.b, a.n) == 0;
}

/* The perm of path's first access ACL entry tag (id for USER and GROUP), or -1. */
static int perm_of(const char *path, uint16_t tag, uint32_t id)
{
	char got[512];
	long n = getxattr(path, ACCESS, got, sizeof(got));

	for (long off = 4; off + 8 <= n; off += 8) {
		struct ent e;
		memcpy(&e, got + off, sizeof(e));
		if (e.tag == tag && ((tag != USER && tag != GROUP) || e.id == id))
			return e.perm;
	}
	return -1;
}

static unsigned mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : 0xffff;
}

static int listed(const char *path, const char *name)
{
	char list[1024];
	long n = listxattr(path, list, sizeof(list));

	for (long off = 0; off < n; off += (long)strlen(list + off) + 1)
		if (strcmp(list + off, name) == 0)
			return 1;
	return 0;
}

static int make_file(const char *path, unsigned mode)
{
	int fd = open(path, O_CREAT | O_RDWR, mode);

	if (fd < 0)
		return -1;
	close(fd);
	return chmod(path, mode);
}

/* Run fn in a child process (its checks print there); its failures count here. */
static void in_child(void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0,
	      "the child's checks passed");
}

static const struct ent nobody_reads[] = {
	{USER_OBJ, R | W, UNDEF}, {USER, R | W | X, NOBODY}, {GROUP_OBJ, 0, UNDEF},
	{MASK, R, UNDEF},	  {OTHER, 0, UNDEF},
};

static void as_nobody(void)
{
	CHECK(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
	      "child: uid and gid nobody");
	CHECK_ERRNO(open("t/closed", O_RDONLY), EACCES, "child: a 0600 file without an ACL");
	int fd = open("t/named", O_RDONLY);
	CHECK(fd >= 0, "child: a named user entry grants read");
	close(fd);
	CHECK_ERRNO(open("t/named", O_WRONLY), EACCES, "child: the mask denies its write");
	fd = open("t/group", O_RDONLY);
	CHECK(fd >= 0, "child: a named group entry grants read");
	close(fd);
	CHECK_ERRNO(open("t/group", O_WRONLY), EACCES, "child: the mask denies the group's write");
	CHECK_ERRNO(open("t/group-obj", O_RDONLY), EACCES,
		    "child: a group entry that matches without the bits denies (other not asked)");
	struct acl a = make(nobody_reads, 5);
	CHECK_ERRNO(set("t/open", ACCESS, a), EPERM, "child: only the owner sets an ACL");
	CHECK_EQ(removexattr("t/closed", DEFAULT), 0,
		 "child: anyone removes the default ACL of a file");
	/* An owner is judged by the owner entry alone. */
	CHECK_ERRNO(open("t/owner-none", O_RDONLY), EACCES,
		    "child: the owner entry locks the owner out");
}

static void as_owner_outside_group(void)
{
	struct acl a = ACL({USER_OBJ, R | W, UNDEF}, {USER, R, NOBODY}, {GROUP_OBJ, R, UNDEF},
			   {MASK, R, UNDEF}, {OTHER, R, UNDEF});

	CHECK(setgroups(0, NULL) == 0 && setgid(3000) == 0 && setuid(1000) == 0,
	      "child: uid 1000, gid 3000");
	CHECK_EQ(set("t/sgid-in", ACCESS, a), 0, "child: set an ACL on a file of its group");
	CHECK_EQ(mode_of("t/sgid-in") & S_ISGID, S_ISGID, "child: in the group, setgid stays");
	CHECK_EQ(set("t/sgid-out", ACCESS, a), 0, "child: set an ACL on a file of another group");
	CHECK_EQ(mode_of("t/sgid-out") & S_ISGID, 0, "child: outside the group, setgid goes");
	CHECK_EQ(removexattr("t/sgid-rm", ACCESS), 0, "child: remove an ACL that is not there");
	CHECK_EQ(mode_of("t/sgid-rm") & S_ISGID, 0, "child: removing one clears setgid too");
}

static void tmpfs_part(void)
{
	struct acl ext = ACL({USER_OBJ, R | W, UNDEF}, {USER, R, NOBODY}, {GROUP_OBJ, R, UNDEF},
			     {GROUP, R | W, NOBODY}, {MASK, R | W, UNDEF}, {OTHER, R, UNDEF});
	struct acl min = ACL({USER_OBJ, R | W | X, UNDEF}, {GROUP_OBJ, R | X, UNDEF},
			     {OTHER, R, UNDEF});
	struct acl dflt = ACL({USER_OBJ, R | W | X, UNDEF}, {USER, R | X, NOBODY},
			      {GROUP_OBJ, R | X, UNDEF}, {MASK, R | W | X, UNDEF},
			      {OTHER, R | X, UNDEF});
	struct acl bad;
	struct stat st1, st2;
	char small[8];
	uint32_t version;

	CHECK_EQ(mkdir("t", 0755), 0, "mkdir t");
	CHECK_EQ(make_file("t/f", 0644), 0, "make t/f");
	CHECK_ERRNO(getxattr("t/f", ACCESS, NULL, 0), ENODATA, "no access ACL at first");
	CHECK(!listed("t/f", ACCESS), "listxattr shows none");
	CHECK_EQ(set("t/f", ACCESS, ext), 0, "set an extended access ACL");
	CHECK(reads_back("t/f", ACCESS, ext), "it reads back as set");
	CHECK_EQ(getxattr("t/f", ACCESS, NULL, 0), (long)ext.n, "the size query");
	CHECK_ERRNO(getxattr("t/f", ACCESS, small, sizeof(small)), ERANGE, "a small buffer");
	CHECK_EQ(mode_of("t/f"), 0664, "the mode: owner, mask as group, other");
	CHECK(listed("t/f", ACCESS), "listxattr shows it");
	CHECK_EQ(removexattr("t/f", ACCESS), 0, "removexattr");
	CHECK_ERRNO(getxattr("t/f", ACCESS, NULL, 0), ENODATA, "it is gone");
	CHECK(!listed("t/f", ACCESS), "and not listed");
	CHECK_EQ(mode_of("t/f"), 0664, "the mode stays");

	CHECK_EQ(set("t/f", ACCESS, min), 0, "set a minimal ACL");
	CHECK_EQ(mode_of("t/f"), 0754, "it becomes the mode");
	CHECK_ERRNO(getxattr("t/f", ACCESS, NULL, 0), ENODATA, "and is not kept");

	CHECK_ERRNO(setxattr("t/f", ACCESS, "x", 1, 0), EINVAL, "a value shorter than the header");
	bad = ext;
	version = 1;
	memcpy(bad.b, &version, 4);
	CHECK_ERRNO(set("t/f", ACCESS, bad), EOPNOTSUPP, "another version");
	bad = ext;
	bad.n--;
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "a ragged entry");
	bad = ACL({USER_OBJ, R | W, UNDEF}, {USER, 010, NOBODY}, {GROUP_OBJ, R, UNDEF},
		  {MASK, R, UNDEF}, {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "a perm beyond rwx");
	bad = ACL({USER_OBJ, R, UNDEF}, {USER_OBJ, R, UNDEF}, {GROUP_OBJ, R, UNDEF},
		  {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "two owner entries");
	bad = ACL({USER_OBJ, R, UNDEF}, {USER, R, NOBODY}, {GROUP_OBJ, R, UNDEF}, {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "a named entry without a mask");
	bad = ACL({GROUP_OBJ, R, UNDEF}, {USER_OBJ, R, UNDEF}, {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "entries out of order");
	bad = ACL({USER_OBJ, R, UNDEF}, {GROUP_OBJ, R, UNDEF}, {0x40, R, UNDEF}, {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "an unknown tag");
	bad = ACL({USER_OBJ, R, UNDEF}, {USER, R, UNDEF}, {GROUP_OBJ, R, UNDEF}, {MASK, R, UNDEF},
		  {OTHER, R, UNDEF});
	CHECK_ERRNO(set("t/f", ACCESS, bad), EINVAL, "a named user with no id");
	bad = ACL({USER_OBJ, R | W, UNDEF}, {USER, R, NOBODY}, {USER, R | W, NOBODY},
		  {GROUP_OBJ, R, UNDEF}, {MASK, R, UNDEF}, {OTHER, R, UNDEF});
	CHECK_EQ(set("t/f", ACCESS, bad), 0, "one user named twice is taken");
	CHECK_EQ(setxattr("t/f", ACCESS, "", 0, 0), 0, "an empty value");
	CHECK_ERRNO(getxattr("t/f", ACCESS, NULL, 0), ENODATA, "removes the ACL");
	CHECK_EQ(set("t/f", ACCESS, ext), 0, "set it again");
	CHECK_EQ(set("t/f", ACCESS, make(nobody_reads, 0)), 0, "a bare header");
	CHECK_ERRNO(getxattr("t/f", ACCESS, NULL, 0), ENODATA, "removes it too");
	CHECK_EQ(removexattr("t/f", ACCESS), 0, "removing none is no error on a tmpfs");

	CHECK_ERRNO(set("t/f", DEFAULT, min), EACCES, "a default ACL on a file");
	CHECK_EQ(removexattr("t/f", DEFAULT), 0, "removing a file's default ACL");
	CHECK_EQ(setxattr("t/f", DEFAULT, "", 0, 0), 0, "or setting it empty");
	CHECK_ERRNO(getxattr("t/f", DEFAULT, NULL, 0), ENODATA, "a file has no default ACL");

	CHECK_EQ(chmod("t/f", 0644), 0, "chmod 0644");
	CHECK_EQ(set("t/f", ACCESS,
		     ACL({USER_OBJ, R | W, UNDEF}, {USER, R | W, NOBODY}, {GROUP_OBJ, R, UNDEF},
			 {MASK, R, UNDEF}, {OTHER, R, UNDEF})),
		 0, "an ACL with a mask r--");
	CHECK_EQ(chmod("t/f", 0460), 0, "chmod 0460");
	CHECK_EQ(perm_of("t/f", USER_OBJ, 0), R, "chmod sets the owner entry");
	CHECK_EQ(perm_of("t/f", MASK, 0), R | W, "the mask");
	CHECK_EQ(perm_of("t/f", OTHER, 0), 0, "the other entry");
	CHECK_EQ(perm_of("t/f", GROUP_OBJ, 0), R, "not the group entry");
	CHECK_EQ(perm_of("t/f", USER, NOBODY), R | W, "nor a named one");
	CHECK_EQ(mode_of("t/f"), 0460, "the mode is chmod's");

	CHECK_EQ(stat("t/f", &st1), 0, "stat");
	nanosleep(&(struct timespec){0, 20000000}, NULL);
	CHECK_EQ(set("t/f", ACCESS, ext), 0, "set an ACL");
	CHECK_EQ(stat("t/f", &st2), 0, "stat again");
	CHECK(st2.st_ctim.tv_sec > st1.st_ctim.tv_sec ||
		      (st2.st_ctim.tv_sec == st1.st_ctim.tv_sec &&
		       st2.st_ctim.tv_nsec > st1.st_ctim.tv_nsec),
	      "setting an ACL changes ctime");

	CHECK_EQ(symlink("f", "t/ln"), 0, "symlink t/ln -> f");
	CHECK(reads_back("t/ln", ACCESS, ext), "getxattr follows the link");
	CHECK_ERRNO(lgetxattr("t/ln", ACCESS, NULL, 0), EOPNOTSUPP, "a symlink's own ACL");
	CHECK_ERRNO(lsetxattr("t/ln", ACCESS, ext.b, ext.n, 0), EOPNOTSUPP, "setting one");
	CHECK_ERRNO(lremovexattr("t/ln", DEFAULT), EOPNOTSUPP, "removing one");

	CHECK_EQ(mkdir("t/d", 0755), 0, "mkdir t/d");
	CHECK_EQ(set("t/d", DEFAULT, dflt), 0, "set a default ACL on a directory");
	CHECK(reads_back("t/d", DEFAULT, dflt), "it reads back");
	CHECK(listed("t/d", DEFAULT), "and is listed");
	CHECK_ERRNO(getxattr("t/d", ACCESS, NULL, 0), ENODATA, "the directory has no access ACL");
	umask(077);
	int fd = open("t/d/child", O_CREAT | O_RDWR, 0666);
	CHECK(fd >= 0, "create t/d/child 0666 under umask 077");
	close(fd);
	CHECK_EQ(mode_of("t/d/child"), 0664, "the default ACL, not the umask, limits its mode");
	CHECK_EQ(perm_of("t/d/child", USER, NOBODY), R | X, "it inherits the named user");
	CHECK_EQ(perm_of("t/d/child", MASK, 0), R | W, "its mask meets the mode asked");
	CHECK_ERRNO(getxattr("t/d/child", DEFAULT, NULL, 0), ENODATA, "a file gets no default ACL");
	CHECK_EQ(mkdir("t/d/sub", 0777), 0, "mkdir t/d/sub 0777");
	CHECK(reads_back("t/d/sub", DEFAULT, dflt), "a directory inherits the default ACL as is");
	CHECK_EQ(mode_of("t/d/sub"), 0775, "its mode (other r-x from the ACL)");
	CHECK_EQ(mknod("t/d/fifo", S_IFIFO | 0600, 0), 0, "mkfifo t/d/fifo 0600");
	CHECK_EQ(mode_of("t/d/fifo"), 0600, "the ACL gives no more than asked");
	CHECK_EQ(symlink("x", "t/d/ln"), 0, "a symlink there");
	CHECK_ERRNO(lgetxattr("t/d/ln", ACCESS, NULL, 0), EOPNOTSUPP, "gets no ACL");
	umask(022);

	/* The permission check, from children with other ids. */
	CHECK_EQ(make_file("t/closed", 0600), 0, "t/closed 0600");
	CHECK_EQ(make_file("t/named", 0600), 0, "t/named");
	CHECK_EQ(set("t/named", ACCESS, make(nobody_reads, 5)), 0, "nobody named, mask r--");
	CHECK_EQ(make_file("t/group", 0600), 0, "t/group");
	CHECK_EQ(set("t/group", ACCESS,
		     ACL({USER_OBJ, R | W, UNDEF}, {GROUP_OBJ, 0, UNDEF}, {GROUP, R | W, NOBODY},
			 {MASK, R, UNDEF}, {OTHER, 0, UNDEF})),
		 0, "group nobody named, mask r--");
	CHECK_EQ(make_file("t/group-obj", 0600), 0, "t/group-obj");
	CHECK_EQ(chown("t/group-obj", 0, NOBODY), 0, "its group nobody");
	CHECK_EQ(set("t/group-obj", ACCESS,
		     ACL({USER_OBJ, R | W, UNDEF}, {USER, 0, 12345}, {GROUP_OBJ, W, UNDEF},
			 {MASK, R | W, UNDEF}, {OTHER, R, UNDEF})),
		 0, "group entry -w-, other r--");
	CHECK_EQ(make_file("t/open", 0666), 0, "t/open 0666");
	CHECK_EQ(make_file("t/owner-none", 0644), 0, "t/owner-none");
	CHECK_EQ(chown("t/owner-none", NOBODY, 0), 0, "owned by nobody");
	CHECK_EQ(set("t/owner-none", ACCESS,
		     ACL({USER_OBJ, 0, UNDEF}, {USER, R, 0}, {GROUP_OBJ, R, UNDEF}, {MASK, R, UNDEF},
			 {OTHER, R, UNDEF})),
		 0, "the owner entry ---, other r--");
	in_child(as_nobody);

	/* The setgid bit and the caller's groups. */
	const char *sg[][2] = {{"t/sgid-in", "3000"}, {"t/sgid-out", "2000"}, {"t/sgid-rm", "2000"}};
	for (int k = 0; k < 3; k++) {
		CHECK_EQ(make_file(sg[k][0], 0770), 0, "a file for the setgid checks");
		CHECK_EQ(chown(sg[k][0], 1000, (gid_t)atoi(sg[k][1])), 0, "owned by uid 1000");
		CHECK_EQ(chmod(sg[k][0], 02770), 0, "setgid");
	}
	CHECK_EQ(chmod("t", 0777), 0, "t open to all");
	in_child(as_owner_outside_group);
}

static void overlay_part(void)
{
	struct acl ext = ACL({USER_OBJ, R | W, UNDEF}, {USER, R, NOBODY}, {GROUP_OBJ, R, UNDEF},
			     {MASK, R, UNDEF}, {OTHER, R, UNDEF});
	struct acl dflt = ACL({USER_OBJ, R | W | X, UNDEF}, {USER, R | X, NOBODY},
			      {GROUP_OBJ, R | X, UNDEF}, {MASK, R | W | X, UNDEF},
			      {OTHER, R | X, UNDEF});
	const char *dirs[] = {"l", "u", "w", "m", "l/d", "l/d/s"};

	for (int k = 0; k < 6; k++)
		CHECK_EQ(mkdir(dirs[k], 0755), 0, "a directory for the overlay");
	CHECK_EQ(make_file("l/f", 0644), 0, "lower file l/f");
	CHECK_EQ(make_file("l/g", 0644), 0, "lower file l/g");
	CHECK_EQ(set("l/g", ACCESS, ext), 0, "l/g gets an ACL in the lower layer");
	CHECK_EQ(mount("overlay", "m", "overlay", 0, "lowerdir=l,upperdir=u,workdir=w"), 0,
		 "mount the overlay on m");

	CHECK_ERRNO(removexattr("m/f", ACCESS), ENODATA, "removing a lower file's missing ACL");
	CHECK_ERRNO(setxattr("m/f", ACCESS, "", 0, 0), ENODATA, "or setting it empty");
	CHECK_EQ(removexattr("m/f", DEFAULT), 0, "a file's default ACL: nothing to do");
	CHECK_ERRNO(access("u/f", F_OK), ENOENT, "none of that copied it up");
	CHECK_EQ(set("m/f", ACCESS, ext), 0, "set an ACL on the lower file");
	CHECK(reads_back("m/f", ACCESS, ext), "it reads back");
	CHECK(reads_back("u/f", ACCESS, ext), "it is the upper copy's");
	CHECK_ERRNO(getxattr("l/f", ACCESS, NULL, 0), ENODATA, "the lower file keeps none");
	CHECK_EQ(mode_of("m/f"), 0644, "the mode the ACL gives");

	CHECK(reads_back("m/g", ACCESS, ext), "a lower ACL reads through the overlay");
	CHECK(listed("m/g", ACCESS), "and is listed");
	CHECK_EQ(chmod("m/g", 0640), 0, "chmod copies it up");
	CHECK_EQ(perm_of("u/g", USER, NOBODY), R, "the copy has the named user");
	CHECK_EQ(perm_of("m/g", OTHER, 0), 0, "and chmod's other entry");
	CHECK_EQ(perm_of("l/g", OTHER, 0), R, "the lower one is unchanged");

	CHECK_EQ(set("m/d", DEFAULT, dflt), 0, "a default ACL on a lower directory");
	CHECK(reads_back("u/d", DEFAULT, dflt), "copied it up");
	umask(077);
	int fd = open("m/d/x", O_CREAT | O_RDWR, 0666);
	CHECK(fd >= 0, "create m/d/x");
	close(fd);
	CHECK_EQ(perm_of("m/d/x", USER, NOBODY), R | X, "it inherits the default ACL");
	CHECK_EQ(mode_of("m/d/x"), 0664, "its mode ignores the umask");
	fd = open("m/d/s/y", O_CREAT | O_RDWR, 0666);
	CHECK(fd >= 0, "create m/d/s/y (copies up m/d/s)");
	close(fd);
	umask(022);
	CHECK_ERRNO(getxattr("m/d/s", DEFAULT, NULL, 0), ENODATA,
		    "a directory copied up inherits no default ACL");
	CHECK_ERRNO(getxattr("m/d/s", ACCESS, NULL, 0), ENODATA, "nor an access ACL");
	CHECK_ERRNO(getxattr("m/d/s/y", ACCESS, NULL, 0), ENODATA, "nor does a file made in it");
	CHECK_EQ(mode_of("m/d/s/y"), 0600, "which has the umask");
	CHECK_EQ(umount2("m", MNT_DETACH), 0, "unmount the overlay");
}

int main(void)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("acltmp", "/mnt", "tmpfs", 0, "mode=755") != 0 || chdir("/mnt") != 0) {
		printf("SKIP: no mount namespace of its own\n");
		return 77;
	}
	if (make_file("probe", 0644) == 0 && setxattr("probe", DEFAULT, "", 0, 0) != 0 &&
	    errno == EOPNOTSUPP) {
		printf("SKIP: this tmpfs takes no POSIX ACLs\n");
		return 77;
	}
	umask(022);
	tmpfs_part();
	overlay_part();
	CHECK_EQ(chdir("/"), 0, "leave /mnt");
	CHECK_EQ(umount2("/mnt", MNT_DETACH), 0, "unmount the tmpfs");
	return GUEST_DONE();
}
