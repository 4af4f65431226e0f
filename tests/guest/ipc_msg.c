/* System V message queues: the type rules of msgrcv, truncation and
 * E2BIG, a full queue, a receiver woken by another process's send, a
 * sender woken by a receive, IPC_STAT's counts, and removal waking a
 * waiter with EIDRM. */
#include "ipcguest.h"

#include <sys/ipc.h>
#include <sys/msg.h>

struct m {
	long type;
	char text[64];
};

static int send(int id, long type, const char *s, int flags)
{
	struct m b = {.type = type};

	snprintf(b.text, sizeof(b.text), "%s", s);
	return msgsnd(id, &b, strlen(s) + 1, flags);
}

/* Receive into b; prints nothing. The length or -1. */
static long recv(int id, struct m *b, size_t size, long type, int flags)
{
	memset(b, 0, sizeof(*b));
	return msgrcv(id, b, size, type, flags);
}

int main(void)
{
	struct msqid_ds ds;
	struct m b;
	int id;
	pid_t pid;

	ipc_own_namespace();
	id = msgget(IPC_PRIVATE, 0600);
	CHECK_EQ(id, 0, "the first queue of a new namespace has id 0");
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 0 && ds.msg_qbytes == 16384 &&
		      (ds.msg_perm.mode & 0777) == 0600,
	      "IPC_STAT: empty, 16384 bytes of room (MSGMNB)");
	CHECK(send(id, 3, "three", 0) == 0 && send(id, 1, "one", 0) == 0 &&
		      send(id, 2, "two", 0) == 0 && send(id, 1, "uno", 0) == 0,
	      "four messages of types 3, 1, 2, 1");
	CHECK(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 4 && ds.msg_cbytes == 18 &&
		      ds.msg_lspid == getpid(),
	      "IPC_STAT counts them and their bytes, and the sender");
	CHECK(recv(id, &b, 64, 2, 0) == 4 && b.type == 2 && !strcmp(b.text, "two"),
	      "type 2: the first of type 2");
	CHECK(recv(id, &b, 64, -2, 0) == 4 && b.type == 1 && !strcmp(b.text, "one"),
	      "type -2: the first of the lowest type up to 2");
	CHECK(recv(id, &b, 64, 1, MSG_EXCEPT) == 6 && b.type == 3 && !strcmp(b.text, "three"),
	      "type 1 with MSG_EXCEPT: the first of another type");
	CHECK_ERRNO(recv(id, &b, 2, 0, 0), E2BIG, "a message longer than the buffer");
	CHECK(recv(id, &b, 2, 0, MSG_NOERROR) == 2 && !strncmp(b.text, "un", 2) && !b.text[2],
	      "with MSG_NOERROR it is cut to the buffer");
	CHECK_ERRNO(recv(id, &b, 64, 0, IPC_NOWAIT), ENOMSG, "an empty queue with IPC_NOWAIT");
	CHECK_ERRNO(send(id, 0, "x", 0), EINVAL, "type 0");
	CHECK_ERRNO(msgsnd(id, &b, 8193, 0), EINVAL, "more than MSGMAX bytes");

	/* A receiver waiting for a type, woken by another process. */
	pid = fork();
	if (pid == 0)
		_exit(recv(id, &b, 64, 7, 0) == 6 && !strcmp(b.text, "seven") ? 0 : 1);
	usleep(50000);
	CHECK(send(id, 5, "five", 0) == 0, "a message of another type does not end the wait");
	CHECK(send(id, 7, "seven", 0) == 0, "one of its type");
	CHECK_EQ(ipc_wait(pid), 0, "the child got it");
	CHECK(recv(id, &b, 64, 0, 0) == 5 && b.type == 5, "the other is still there");

	/* A full queue: IPC_NOWAIT fails, a waiting sender goes on once there is room. */
	memset(&ds, 0, sizeof(ds));
	CHECK(msgctl(id, IPC_STAT, &ds) == 0, "IPC_STAT");
	ds.msg_qbytes = 100;
	CHECK(msgctl(id, IPC_SET, &ds) == 0 && msgctl(id, IPC_STAT, &ds) == 0 &&
		      ds.msg_qbytes == 100,
	      "IPC_SET: 100 bytes of room");
	{
		char big[64] = {0};
		memset(big, 'a', 59);
		CHECK(send(id, 1, big, 0) == 0, "60 bytes in");
		CHECK_ERRNO(send(id, 1, big, IPC_NOWAIT), EAGAIN, "60 more do not fit");
		pid = fork();
		if (pid == 0)
			_exit(send(id, 2, big, 0) == 0 ? 0 : 1);
		usleep(50000);
		CHECK(recv(id, &b, 64, 1, 0) == 60, "a receive makes room");
		CHECK_EQ(ipc_wait(pid), 0, "the waiting sender went on");
		CHECK(recv(id, &b, 64, 0, 0) == 60 && b.type == 2, "its message is there");
	}
	ds.msg_qbytes = 16385;
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (send(id, 1, "x", 0) != -1 || errno != EACCES)
			_exit(1);
		_exit(msgctl(id, IPC_RMID, NULL) == -1 && errno == EPERM ? 0 : 2);
	}
	CHECK_EQ(ipc_wait(pid), 0, "another user: EACCES to send, EPERM to remove");

	/* Keys, info. */
	CHECK_EQ(msgget(0x52756e67, IPC_CREAT | 0600), 1, "a keyed queue");
	CHECK_EQ(msgget(0x52756e67, 0), 1, "found by key");
	CHECK_ERRNO(msgget(0x52756e67, IPC_CREAT | IPC_EXCL), EEXIST, "IPC_EXCL");
	CHECK_ERRNO(msgget(0x52756e68, 0), ENOENT, "a key not in use");
	{
		struct msginfo mi;
		CHECK_EQ(msgctl(0, MSG_INFO, (struct msqid_ds *)&mi), 1,
			 "MSG_INFO returns the highest index");
		CHECK_EQ(mi.msgpool, 2, "MSG_INFO: two queues");
		CHECK_EQ(msgctl(1, MSG_STAT, &ds), 1, "MSG_STAT of index 1 gives its id");
	}

	/* Removal wakes a waiting receiver with EIDRM. */
	pid = fork();
	if (pid == 0)
		_exit(recv(id, &b, 64, 0, 0) == -1 && errno == EIDRM ? 0 : 1);
	usleep(50000);
	CHECK_EQ(msgctl(id, IPC_RMID, NULL), 0, "IPC_RMID");
	CHECK_EQ(ipc_wait(pid), 0, "the waiter gets EIDRM");
	CHECK_ERRNO(msgctl(id, IPC_STAT, &ds), EINVAL, "the queue is gone");
	CHECK_EQ(msgctl(1, IPC_RMID, NULL), 0, "remove the keyed queue");
	return GUEST_DONE();
}
