/* Keyrings: a new session keyring (natively the host's keyrings stay
 * untouched), add_key of a "user" key into it, KEYCTL_READ, DESCRIBE,
 * UPDATE, SEARCH, request_key finding it and ENOKEY without an upcall,
 * UNLINK, REVOKE and INVALIDATE. Raw system calls: no libkeyutils. */
#include "guest.h"

#include <linux/keyctl.h>

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
	long ses, k, n;

	/* Unique: JOIN of an existing name would join that keyring. */
	snprintf(name, sizeof(name), "rung-keys-basic-%d", (int)getpid());
	ses = keyctl(KEYCTL_JOIN_SESSION_KEYRING, (long)name, 0, 0, 0);
	if (ses == -1 && errno == ENOSYS) {
		printf("SKIP: no keyrings\n");
		return 77;
	}
	CHECK(ses > 0, "KEYCTL_JOIN_SESSION_KEYRING makes a named session keyring");
	CHECK_EQ(keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0, 0), ses,
		 "@s is the new keyring");
	n = keyctl(KEYCTL_DESCRIBE, ses, (long)buf, sizeof(buf), 0);
	CHECK(n > 0 && strncmp(buf, "keyring;", 8) == 0 &&
		      strcmp(strrchr(buf, ';') + 1, name) == 0,
	      "DESCRIBE of the keyring");

	k = add_key("user", "k1", "value", 5, KEY_SPEC_SESSION_KEYRING);
	CHECK(k > 0, "add_key user k1 @s");
	memset(buf, 0, sizeof(buf));
	CHECK(keyctl(KEYCTL_READ, k, (long)buf, sizeof(buf), 0) == 5 && memcmp(buf, "value", 5) == 0,
	      "KEYCTL_READ gives the payload");
	CHECK_EQ(keyctl(KEYCTL_READ, k, 0, 0, 0), 5, "KEYCTL_READ with no buffer gives the length");
	n = keyctl(KEYCTL_DESCRIBE, k, (long)buf, sizeof(buf), 0);
	CHECK(n > 0 && strncmp(buf, "user;", 5) == 0 && strcmp(strrchr(buf, ';'), ";k1") == 0,
	      "DESCRIBE of the user key");
	CHECK_EQ(add_key("user", "k1", "other", 5, KEY_SPEC_SESSION_KEYRING), k,
		 "add_key of the same description updates the key");
	CHECK(keyctl(KEYCTL_READ, k, (long)buf, sizeof(buf), 0) == 5 && memcmp(buf, "other", 5) == 0,
	      "the update replaced the payload");
	CHECK_EQ(keyctl(KEYCTL_UPDATE, k, (long)"third!", 6, 0), 0, "KEYCTL_UPDATE");
	CHECK_EQ(keyctl(KEYCTL_READ, k, 0, 0, 0), 6, "the payload has the new length");
	CHECK_EQ(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"k1", 0), k, "KEYCTL_SEARCH finds it");
	CHECK_EQ(syscall(SYS_request_key, "user", "k1", NULL, 0), k, "request_key finds it");
	CHECK_ERRNO(syscall(SYS_request_key, "user", "rung-none-such", NULL, 0), ENOKEY,
		    "request_key of a missing key without callout");
	CHECK_ERRNO(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"rung-none-such", 0), ENOKEY,
		    "KEYCTL_SEARCH of a missing key");
	CHECK_ERRNO(add_key("user", "", "v", 1, KEY_SPEC_SESSION_KEYRING), EINVAL,
		    "an empty description");
	CHECK_ERRNO(add_key("no-such-type", "d", "v", 1, KEY_SPEC_SESSION_KEYRING), ENODEV,
		    "an unknown key type");

	CHECK_EQ(keyctl(KEYCTL_UNLINK, k, ses, 0, 0), 0, "KEYCTL_UNLINK");
	CHECK_ERRNO(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"k1", 0), ENOKEY,
		    "the unlinked key is no longer found");

	k = add_key("user", "k2", "v", 1, KEY_SPEC_SESSION_KEYRING);
	CHECK_EQ(keyctl(KEYCTL_REVOKE, k, 0, 0, 0), 0, "KEYCTL_REVOKE");
	CHECK_ERRNO(keyctl(KEYCTL_READ, k, (long)buf, sizeof(buf), 0), EKEYREVOKED,
		    "reading a revoked key");
	k = add_key("user", "k3", "v", 1, KEY_SPEC_SESSION_KEYRING);
	CHECK_EQ(keyctl(KEYCTL_CLEAR, ses, 0, 0, 0), 0, "KEYCTL_CLEAR");
	CHECK_ERRNO(keyctl(KEYCTL_SEARCH, ses, (long)"user", (long)"k3", 0), ENOKEY,
		    "a cleared keyring holds nothing");
	CHECK_ERRNO(keyctl(KEYCTL_DESCRIBE, 0x7ffffff0, (long)buf, sizeof(buf), 0), ENOKEY,
		    "DESCRIBE of a serial no key has");
	return GUEST_DONE();
}
