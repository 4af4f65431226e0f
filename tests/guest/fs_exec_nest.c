/*
 * Guest test (rung allowed four levels and built the wrong argv when it was
 * written): scripts interpreted by scripts. Linux follows up to five #! levels above
 * the ELF interpreter (six is ELOOP, fs_exec checks that), and the argv the
 * ELF interpreter gets names each script by the path the level above gave
 * it, then the script execve was given, then the exec's arguments but its
 * argv[0]. Like fs_exec, a chain of execs of this program, which is the
 * innermost interpreter; FS_EXEC_STAGE says which stage runs and
 * FS_EXEC_FAILS carries the failure count. The work directory and this
 * program's path are printed as DIR and SELF.
 */
#include "fsguest.h"

extern char **environ;

static char self[4096];

static void print_argv(const char *what, int argc, char **argv)
{
	size_t ls = strlen(self), ld = strlen(fs_dir);

	printf("%s: argc %d:", what, argc);
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], self, ls) == 0)
			printf(" [SELF%s]", argv[i] + ls);
		else if (strncmp(argv[i], fs_dir, ld) == 0)
			printf(" [DIR%s]", argv[i] + ld);
		else
			printf(" [%s]", argv[i]);
	}
	printf("\n");
	fflush(stdout);
}

static void exec_stage(const char *path, int stage)
{
	char *argv[] = {"argv0", "arg", NULL}, *env[] = {NULL, NULL, NULL};
	char st[32], fails[32];

	snprintf(st, sizeof(st), "FS_EXEC_STAGE=%d", stage);
	snprintf(fails, sizeof(fails), "FS_EXEC_FAILS=%d", guest_failures);
	env[0] = st;
	env[1] = fails;
	fflush(stdout);
	execve(path, argv, env);
}

/* Is ARGV[I] the script cN, by the absolute path of the #! line above? */
static int is_level(char **argv, int i, int level)
{
	char want[300];

	snprintf(want, sizeof(want), "%s/c%d", fs_dir, level);
	return strcmp(argv[i], want) == 0;
}

int main(int argc, char **argv)
{
	const char *stage = getenv("FS_EXEC_STAGE"), *fails = getenv("FS_EXEC_FAILS");
	char line[4200], name[16];
	long n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = 0;
	if (!stage) {
		fs_enter("fs_exec_nest");
		for (int i = 1; i <= 5; i++) {
			snprintf(name, sizeof(name), "c%d", i);
			if (i == 1)
				snprintf(line, sizeof(line), "#!%s\n", self);
			else
				snprintf(line, sizeof(line), "#!%s/c%d\n", fs_dir, i - 1);
			if (fs_put(name, line) != 0 || chmod(name, 0755) != 0)
				printf("FAIL: write %s\n", name);
		}
		exec_stage("c2", 1);
		CHECK(0, "exec of two levels of scripts");
		fs_leave();
		return GUEST_DONE();
	}
	guest_failures = fails ? atoi(fails) : 0;
	snprintf(fs_dir, sizeof(fs_dir), "/tmp/fs_exec_nest-%d", (int)getpid());
	if (strcmp(stage, "1") == 0) {
		print_argv("two levels (c2)", argc, argv);
		CHECK(argc == 4 && strcmp(argv[0], self) == 0 && is_level(argv, 1, 1) &&
			      strcmp(argv[2], "c2") == 0 && strcmp(argv[3], "arg") == 0,
		      "argv: SELF, c1 by its #! path, c2 as given, arg");
		exec_stage("c5", 2);
		CHECK(0, "exec of five levels of scripts");
	} else {
		print_argv("five levels (c5)", argc, argv);
		CHECK(argc == 7 && strcmp(argv[0], self) == 0 && is_level(argv, 1, 1) &&
			      is_level(argv, 2, 2) && is_level(argv, 3, 3) &&
			      is_level(argv, 4, 4) && strcmp(argv[5], "c5") == 0 &&
			      strcmp(argv[6], "arg") == 0,
		      "argv: SELF, c1 to c4 by their #! paths, c5 as given, arg");
	}
	fs_leave();
	return GUEST_DONE();
}
