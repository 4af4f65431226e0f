/* System V shared memory: shmget's keys and errors, attach counts across
 * fork, read-only attaches, SHM_RND, removal while attached, shmctl's
 * STAT/INFO, and the name /proc shows for an attach. */
#include "ipcguest.h"

#include <signal.h>
#include <sys/ipc.h>
#include <sys/shm.h>

static long nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) == 0 ? (long)ds.shm_nattch : -1;
}

/* The name /proc/self/maps gives the mapping at addr. */
static void maps_name(void *addr, char *out, size_t n)
{
	char line[512], want[32];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (strncmp(line, want, strlen(want)) == 0 && p) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, n, "%s", p);
		}
	}
	if (f)
		fclose(f);
}

int main(void)
{
	struct shmid_ds ds;
	char name[128];
	key_t key = 0x52756e67; /* "Rung" */
	int id, id2;
	char *p, *q;
	pid_t pid;

	ipc_own_namespace();
	id = shmget(IPC_PRIVATE, 10000, 0600);
	CHECK_EQ(id, 0, "the first segment of a new namespace has id 0");
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_segsz == 10000 &&
		      (ds.shm_perm.mode & 0777) == 0600 && ds.shm_nattch == 0 &&
		      ds.shm_cpid == getpid() && ds.shm_perm.__key == IPC_PRIVATE,
	      "IPC_STAT: size, mode, no attach, creator pid, private key");

	p = shmat(id, NULL, 0);
	CHECK(p != (void *)-1 && ((unsigned long)p & (PAGE - 1)) == 0, "shmat: page aligned");
	CHECK(p[0] == 0 && p[9999] == 0, "a new segment reads zero");
	strcpy(p, "parent");
	CHECK_EQ(nattch(id), 1, "one attach");
	maps_name(p, name, sizeof(name));
	printf("maps: %s\n", name);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_lpid == getpid() && ds.shm_atime != 0,
	      "the attach sets lpid and atime");

	pid = fork();
	if (pid == 0) {
		/* The fork's copy of the mapping is an attach too. */
		if (nattch(id) != 2 || strcmp(p, "parent"))
			_exit(1);
		strcpy(p + 100, "child");
		_exit(shmdt(p) == 0 && nattch(id) == 1 ? 0 : 2);
	}
	CHECK_EQ(ipc_wait(pid), 0, "a child sees the segment, two attaches, detaches");
	CHECK(strcmp(p + 100, "child") == 0, "the child's write is seen by the parent");
	CHECK_EQ(nattch(id), 1, "back to one attach");

	q = shmat(id, NULL, SHM_RDONLY);
	CHECK(q != (void *)-1 && q != p && strcmp(q, "parent") == 0,
	      "a read-only attach elsewhere sees the same bytes");
	CHECK_EQ(nattch(id), 2, "two attaches in one process");
	pid = fork();
	if (pid == 0) {
		q[0] = 'x';
		_exit(0);
	}
	CHECK_EQ(ipc_wait(pid), 128 + SIGSEGV, "a write to a read-only attach is SIGSEGV");
	CHECK_ERRNO(mprotect(q, PAGE, PROT_READ | PROT_WRITE), EACCES,
		    "mprotect(PROT_WRITE) of a read-only attach");
	CHECK(shmdt(q) == 0, "shmdt of the read-only attach");

	/* Addresses. */
	CHECK_ERRNO((long)shmat(id, p + 1, 0), EINVAL, "an unaligned address without SHM_RND");
	CHECK_ERRNO((long)shmat(id, p, 0), EINVAL, "an address in use without SHM_REMAP");
	q = shmat(id, p + 1, SHM_RND | SHM_REMAP);
	CHECK(q == p && strcmp(q, "parent") == 0, "SHM_RND|SHM_REMAP attaches over itself");
	CHECK_ERRNO((long)shmat(id, NULL, SHM_REMAP), EINVAL, "SHM_REMAP without an address");
	CHECK_ERRNO(shmdt(p + 1), EINVAL, "shmdt of an unaligned address");
	CHECK_ERRNO(shmdt(p + PAGE), EINVAL, "shmdt where no attach starts");
	CHECK_ERRNO((long)shmat(id + 1, NULL, 0), EINVAL, "shmat of an id not in use");

	/* Keys. */
	id2 = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0640);
	CHECK_EQ(id2, 1, "a keyed segment takes the next index");
	CHECK_EQ(shmget(key, 100, 0), id2, "shmget of the key finds it");
	CHECK_EQ(shmget(key, 4096, IPC_CREAT | 0600), id2, "IPC_CREAT finds it too");
	CHECK_ERRNO(shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600), EEXIST, "IPC_CREAT|IPC_EXCL");
	CHECK_ERRNO(shmget(key, 8192, 0), EINVAL, "asking more than its size");
	CHECK_ERRNO(shmget(key + 1, 4096, 0), ENOENT, "a key not in use");
	CHECK_ERRNO(shmget(IPC_PRIVATE, 0, 0600), EINVAL, "size 0");
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (shmget(key, 0, 0) != id2 || shmget(key, 0, 0400) != -1 || errno != EACCES)
			_exit(1);
		_exit(shmat(id2, NULL, SHM_RDONLY) == (void *)-1 && errno == EACCES ? 0 : 2);
	}
	CHECK_EQ(ipc_wait(pid), 0,
		 "another user finds it asking no rights, and gets EACCES asking to read it");
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(shmctl(id2, IPC_RMID, NULL) == -1 && errno == EPERM ? 0 : 1);
	}
	CHECK_EQ(ipc_wait(pid), 0, "another user may not remove it (EPERM)");

	/* IPC_SET */
	memset(&ds, 0, sizeof(ds));
	CHECK(shmctl(id2, IPC_STAT, &ds) == 0, "IPC_STAT of the keyed segment");
	ds.shm_perm.mode = 0604;
	CHECK(shmctl(id2, IPC_SET, &ds) == 0 && shmctl(id2, IPC_STAT, &ds) == 0 &&
		      (ds.shm_perm.mode & 0777) == 0604,
	      "IPC_SET changes the mode");

	/* Info. */
	CHECK_EQ(shmctl(0, IPC_INFO, (struct shmid_ds *)&(struct shminfo){0}), 1,
		 "IPC_INFO returns the highest index in use");
	{
		struct shm_info si;
		CHECK(shmctl(0, SHM_INFO, (struct shmid_ds *)&si) == 1 && si.used_ids == 2,
		      "SHM_INFO: two segments in use");
		CHECK(shmctl(1, SHM_STAT, &ds) == id2, "SHM_STAT of index 1 gives its id");
	}

	/* Removal while attached: key and stat change, the memory stays. */
	CHECK(shmctl(id2, IPC_RMID, NULL) == 0, "IPC_RMID of an unattached segment");
	CHECK_ERRNO(shmctl(id2, IPC_STAT, &ds), EINVAL, "it is gone at once");
	CHECK(shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID of an attached segment");
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & SHM_DEST) &&
		      ds.shm_perm.__key == IPC_PRIVATE && ds.shm_nattch == 1,
	      "it stays while attached: SHM_DEST, its key private");
	CHECK(strcmp(p, "parent") == 0, "its memory is still there");
	q = shmat(id, NULL, 0);
	CHECK(q != (void *)-1 && strcmp(q, "parent") == 0, "and it can still be attached by id");
	CHECK(shmdt(q) == 0 && shmdt(p) == 0, "detach both");
	CHECK_ERRNO(shmctl(id, IPC_STAT, &ds), EINVAL, "the last detach destroys it");
	id = shmget(IPC_PRIVATE, 4096, 0600);
	CHECK_EQ(id, 2, "ids go round: the next index, not the first free");
	CHECK(shmctl(id, IPC_RMID, NULL) == 0, "remove it");

	/* A big segment is one attach, a split of it by mprotect two. */
	id = shmget(IPC_PRIVATE, 5 << 20, 0600);
	p = shmat(id, NULL, 0);
	CHECK(p != (void *)-1, "attach a 5 MiB segment");
	p[(5 << 20) - 1] = 1;
	CHECK_EQ(nattch(id), 1, "a 5 MiB segment attached once is one attach");
	CHECK(mprotect(p + 3 * PAGE, PAGE, PROT_READ) == 0, "mprotect one page in it");
	CHECK_EQ(nattch(id), 3, "split in three, it counts three");
	CHECK(shmdt(p) == 0 && nattch(id) == 0, "shmdt takes every piece");
	CHECK(shmctl(id, IPC_RMID, NULL) == 0, "remove the big segment");
	return GUEST_DONE();
}
