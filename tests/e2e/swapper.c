/*
 * Host-side helper of escape.sh (not a guest): swap directories with
 * symlinks as fast as possible, so that a guest walking into them races
 * against the swaps. `swapper SECONDS TARGET DIR...` makes a symlink
 * DIR.swap -> TARGET next to each DIR, then exchanges each DIR with its
 * DIR.swap in turn, atomically (renameat2 RENAME_EXCHANGE), until SIGTERM
 * or SECONDS have passed; it leaves every DIR a directory again, removes
 * the symlinks and prints how many swaps it made.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int swap(const char *dir, const char *link)
{
	if (renameat2(AT_FDCWD, dir, AT_FDCWD, link, RENAME_EXCHANGE) == 0)
		return 0;
	perror("swapper: renameat2");
	return -1;
}

int main(int argc, char **argv)
{
	int ndirs = argc - 3;
	char **links;
	struct stat st;
	time_t end;
	long n = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: swapper SECONDS TARGET DIR...\n");
		return 2;
	}
	links = calloc(ndirs, sizeof(*links));
	if (!links)
		return 1;
	for (int i = 0; i < ndirs; i++) {
		if (asprintf(&links[i], "%s.swap", argv[3 + i]) < 0)
			return 1;
		unlink(links[i]);
		if (symlink(argv[2], links[i]) != 0) {
			perror("swapper: symlink");
			return 1;
		}
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	/* the test waits for this line: a loaded machine may start us late */
	printf("swapping\n");
	fflush(stdout);
	end = time(NULL) + atoi(argv[1]);
	while (!stop && (n % 4096 || time(NULL) < end)) {
		if (swap(argv[3 + n % ndirs], links[n % ndirs]) != 0)
			return 1;
		n++;
	}
	for (int i = 0; i < ndirs; i++) {
		if (lstat(argv[3 + i], &st) == 0 && S_ISLNK(st.st_mode) &&
		    swap(argv[3 + i], links[i]) != 0)
			return 1;
		unlink(links[i]);
	}
	printf("%ld swaps\n", n);
	return 0;
}
