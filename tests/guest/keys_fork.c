/* Keyrings across fork and the rest of keyctl: a child shares the session
 * keyring (a key it adds there the parent finds) but starts without the
 * parent's process and thread keyrings; LINK (and its cycle check), the
 * READ of a keyring (its serials), INVALIDATE, SETPERM, an unknown op. */
#include "guest.h"

#include <linux/keyctl.h>
#include <sys/wait.h>

static long keyctl(long op, long a2, long a3, long a4, long a5)
{
	return syscall(SYS_keyctl, op, a2, a3, a4, a5);
}

static long add_key(const char *type, const char *desc, const void *p, size_t n, long ring)
{
	return syscall(SYS_add_key, type, desc, p, n, ring);
}

int main(void)
{
	char buf[256], name[64];
	long ses, proc, k, sub;
	int32_t ids[8];
	int st;
	pid_t pid;

	snprintf(name, sizeof(name), "rung-keys-fork-%d", (int)getpid());
	ses = keyctl(KEYCTL_JOIN_SESSION_KEYRING, (long)name, 0, 0, 0);
	if (ses == -1 && errno == ENOSYS) {
		printf("SKIP: no keyrings\n");
		return 77;
	}
	CHECK(ses > 0, "a new session keyring");
	CHECK_ERRNO(keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0, 0, 0), ENOKEY,
		    "no process keyring until asked for");
	proc = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1, 0, 0);
	CHECK(proc > 0 && proc != ses, "GET_KEYRING_ID with create makes @p");
	CHECK(keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_THREAD_KEYRING, 1, 0, 0) > 0, "and @t");
	k = add_key("user", "shared", "abc", 3, KEY_SPEC_SESSION_KEYRING);
	CHECK(k > 0, "add_key into @s");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int ok = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0, 0) == ses &&
			 keyctl(KEYCTL_READ, k, (long)buf, sizeof(buf), 0) == 3 &&
			 keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0, 0, 0) == -1 &&
			 errno == ENOKEY &&
			 keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_THREAD_KEYRING, 0, 0, 0) == -1 &&
			 errno == ENOKEY &&
			 add_key("user", "from-child", "x", 1, KEY_SPEC_SESSION_KEYRING) > 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child shares @s, not @p or @t");
	CHECK(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"from-child", 0) > 0,
	      "the child's key is in the shared session keyring");

	CHECK_EQ(keyctl(KEYCTL_LINK, k, proc, 0, 0), 0, "KEYCTL_LINK into @p");
	CHECK_EQ(keyctl(KEYCTL_READ, proc, (long)ids, sizeof(ids), 0), 4,
		 "READ of a keyring: one serial");
	CHECK_EQ(ids[0], k, "the linked key's");
	sub = add_key("keyring", "sub", NULL, 0, proc);
	CHECK(sub > 0, "add_key of a keyring");
	CHECK_ERRNO(keyctl(KEYCTL_LINK, proc, sub, 0, 0), EDEADLK, "LINK making a cycle");
	CHECK_EQ(keyctl(KEYCTL_SEARCH, proc, (long)"keyring", (long)"sub", 0), sub,
		 "SEARCH for a keyring");
	CHECK(keyctl(KEYCTL_DESCRIBE, sub, (long)buf, sizeof(buf), 0) > 0 &&
		      strncmp(buf, "keyring;", 8) == 0,
	      "DESCRIBE of the new keyring");

	CHECK_ERRNO(keyctl(KEYCTL_SETPERM, k, 0x40000000, 0, 0), EINVAL, "SETPERM with unknown bits");
	CHECK_EQ(keyctl(KEYCTL_SETPERM, k, 0x3f000000, 0, 0), 0, "SETPERM");
	CHECK(keyctl(KEYCTL_DESCRIBE, k, (long)buf, sizeof(buf), 0) > 0 &&
		      strstr(buf, ";3f000000;shared") != NULL,
	      "DESCRIBE shows the new mask");
	CHECK_EQ(keyctl(KEYCTL_INVALIDATE, k, 0, 0, 0), 0, "KEYCTL_INVALIDATE");
	/* Linux collects it asynchronously: until then a search says
	 * EKEYREVOKED rather than ENOKEY. */
	errno = 0;
	CHECK(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"shared", 0) == -1 &&
		      (errno == ENOKEY || errno == EKEYREVOKED),
	      "an invalidated key is not found");
	CHECK_ERRNO(keyctl(9999, 0, 0, 0, 0), EOPNOTSUPP, "an unknown keyctl");
	return GUEST_DONE();
}
