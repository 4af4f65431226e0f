/*
 * Guest test: execve of #! scripts and of a dynamically linked program.
 * There is no fork, so the test is a chain of execs of this same program,
 * which is also the scripts' interpreter; FS_EXEC_STAGE in the environment
 * says which stage runs, FS_EXEC_FAILS carries the failure count on.
 *
 * Stage 0 writes the scripts into a fresh directory under /tmp and checks
 * the failures: a missing interpreter (ENOENT), an empty #! line, a text
 * file and a truncated ELF header (ENOEXEC), no execute permission on the
 * script or the interpreter (EACCES), a directory (EACCES), and six levels
 * of scripts interpreted by scripts (ELOOP). Then it execs a script whose
 * #! line has an argument. Stage 1, this program as that interpreter,
 * prints its argv as Linux builds it (interpreter, the #! argument, the
 * script's path, the exec's arguments but its argv[0]) and execs a script
 * without an argument; stage 2 prints that argv, removes the directory and
 * execs the dynamically linked /bin/sh (with no fork: builtins and an exec
 * of /bin/true), whose exit status 0 ends the test. The work directory and
 * this program's path are printed as DIR and SELF. (Scripts interpreted by
 * scripts, up to five levels: fs_exec_nest.)
 */
#include "fsguest.h"

#include <sys/stat.h>

extern char **environ;

static char self[4096];
static const char *dir;

/* Print S with the work directory and this program's path replaced. */
static void print_path(const char *s)
{
	size_t ls = strlen(self), ld = strlen(dir);

	if (ls && strncmp(s, self, ls) == 0)
		printf("SELF%s", s + ls);
	else if (ld && strncmp(s, dir, ld) == 0)
		printf("DIR%s", s + ld);
	else
		printf("%s", s);
}

static void print_argv(const char *what, int argc, char **argv)
{
	printf("%s: argc %d:", what, argc);
	for (int i = 0; i < argc; i++) {
		printf(" [");
		print_path(argv[i]);
		printf("]");
	}
	printf("\n");
	fflush(stdout);
}

/* Exec PATH with ARGV in this environment plus the next stage and the
 * failures so far; returns only if the exec fails. */
static void exec_stage(const char *path, char **argv, int stage)
{
	char *env[64], st[32], fails[32];
	int n = 0;

	snprintf(st, sizeof(st), "FS_EXEC_STAGE=%d", stage);
	snprintf(fails, sizeof(fails), "FS_EXEC_FAILS=%d", guest_failures);
	for (char **e = environ; *e && n < 60; e++)
		if (strncmp(*e, "FS_EXEC_", 8) != 0)
			env[n++] = *e;
	env[n++] = st;
	env[n++] = fails;
	env[n] = NULL;
	fflush(stdout);
	execve(path, argv, env);
}

static void put(const char *name, const char *text, mode_t mode)
{
	if (fs_put(name, text) != 0 || chmod(name, mode) != 0)
		printf("FAIL: write %s (errno %d)\n", name, errno);
}

static void stage0(void)
{
	char line[8192], name[32], *av[] = {"argv0", "one", "two words", NULL};
	long n;

	fs_enter("fs_exec");
	dir = fs_dir;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0, "readlink /proc/self/exe");
	self[n > 0 ? n : 0] = 0;

	snprintf(line, sizeof(line), "#!%s  -x  y \t\n", self);
	put("witharg", line, 0755);
	snprintf(line, sizeof(line), "#!/nonexistent/interpreter\n");
	put("nointerp", line, 0755);
	put("empty", "#!\n", 0755);
	put("blank", "#!  \t \n", 0755);
	put("text", "echo this is not a script\n", 0755);
	put("badelf", "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\0\0", 0755);
	snprintf(line, sizeof(line), "#!%s\n", self);
	put("noexec", line, 0644);
	put("plain", "not executable\n", 0644);
	snprintf(line, sizeof(line), "#!%s/plain\n", fs_dir);
	put("interp-noexec", line, 0755);
	CHECK_EQ(mkdir("dir", 0755), 0, "mkdir dir");
	snprintf(line, sizeof(line), "#!%s\n", self);
	put("c1", line, 0755);
	for (int i = 2; i <= 6; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		snprintf(line, sizeof(line), "#!%s/c%d\n", fs_dir, i - 1);
		put(name, line, 0755);
	}

	CHECK_ERRNO(execve("nointerp", av, environ), ENOENT, "a script with a missing interpreter");
	CHECK_ERRNO(execve("empty", av, environ), ENOEXEC, "a script with an empty #! line");
	CHECK_ERRNO(execve("blank", av, environ), ENOEXEC, "a #! line of blanks");
	CHECK_ERRNO(execve("text", av, environ), ENOEXEC, "a text file");
	CHECK_ERRNO(execve("badelf", av, environ), ENOEXEC, "a truncated ELF header");
	CHECK_ERRNO(execve("noexec", av, environ), EACCES, "a script without execute permission");
	CHECK_ERRNO(execve("interp-noexec", av, environ), EACCES,
		    "an interpreter without execute permission");
	CHECK_ERRNO(execve("dir", av, environ), EACCES, "a directory");
	CHECK_ERRNO(execve("missing", av, environ), ENOENT, "a missing file");
	CHECK_ERRNO(execve("c6", av, environ), ELOOP, "six levels of scripts");
	exec_stage("witharg", av, 1);
	CHECK(0, "exec of a script with an argument");
}

static void stage1(int argc, char **argv)
{
	char exe[4096], *av[] = {"ignored", "last", NULL};
	long n;

	print_argv("stage 1 (witharg)", argc, argv);
	CHECK(argc == 5 && strcmp(argv[0], self) == 0, "argv[0] is the interpreter's path");
	CHECK(argc == 5 && strcmp(argv[1], "-x  y") == 0,
	      "argv[1] is the rest of the #! line, inner blanks kept, trailing ones cut");
	CHECK(argc == 5 && strcmp(argv[2], "witharg") == 0,
	      "argv[2] is the script as execve was given it");
	CHECK(argc == 5 && strcmp(argv[3], "one") == 0 && strcmp(argv[4], "two words") == 0,
	      "then the exec's arguments but the first");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	CHECK(n > 0 && strcmp(exe, self) == 0, "/proc/self/exe is the interpreter");
	CHECK_EQ(chdir("dir"), 0, "the cwd carries over exec: chdir dir");
	exec_stage("../c1", av, 2);
	CHECK(0, "exec of a script with no argument");
}

static void stage2(int argc, char **argv)
{
	char script[] = "echo \"dynamic $0: $1\"; exec /bin/true";
	char *sh[] = {"sh", "-c", script, "sh-arg0", "one", NULL};

	print_argv("stage 2 (c1)", argc, argv);
	CHECK(argc == 3 && strcmp(argv[0], self) == 0 && strcmp(argv[1], "../c1") == 0 &&
		      strcmp(argv[2], "last") == 0,
	      "a #! line without an argument adds only the interpreter");
	fs_leave();
	if (guest_failures)
		exit(1);
	exec_stage("/bin/sh", sh, 3);
	CHECK(0, "exec of /bin/sh");
}

int main(int argc, char **argv)
{
	const char *stage = getenv("FS_EXEC_STAGE");
	const char *fails = getenv("FS_EXEC_FAILS");
	long n;

	if (!stage) {
		stage0();
		return GUEST_DONE();
	}
	guest_failures = fails ? atoi(fails) : 0;
	/* exec keeps the pid, so the work directory's name too */
	snprintf(fs_dir, sizeof(fs_dir), "/tmp/fs_exec-%d", (int)getpid());
	dir = fs_dir;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	if (strcmp(stage, "1") == 0)
		stage1(argc, argv);
	else if (strcmp(stage, "2") == 0)
		stage2(argc, argv);
	else
		CHECK(0, "a known stage");
	return GUEST_DONE();
}
