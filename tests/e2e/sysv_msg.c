/*
 * A workload that needs a real kernel: a System V message queue (which
 * the sentry does not implement). Prints "msg ok" and exits 0 when a
 * message goes through the queue, else the error and 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>

int main(void)
{
	struct {
		long type;
		char text[16];
	} out = {1, "hello"}, in = {0, ""};
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);

	if (q < 0 || msgsnd(q, &out, sizeof(out.text), 0) < 0 ||
	    msgrcv(q, &in, sizeof(in.text), 1, 0) < 0) {
		printf("msg: %s\n", strerror(errno));
		return 1;
	}
	msgctl(q, IPC_RMID, NULL);
	printf("msg %s\n", strcmp(in.text, "hello") == 0 ? "ok" : "garbled");
	return 0;
}
