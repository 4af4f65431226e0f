/*
 * POSIX message queues (Linux's ipc/mqueue.c, man 7 mq_overview): named
 * queues of prioritized messages in the sandbox's IPC namespace, opened as
 * files that poll and read ("QSIZE:...") as Linux's mqueue files do.
 */
#ifndef RUNG_MQUEUE_H
#define RUNG_MQUEUE_H

#include <stdint.h>

struct kernel;
struct task;
struct mq_ns;

long mq_open_name(struct task *t, uint64_t uname, int oflag, uint32_t mode, uint64_t uattr);
long mq_unlink_name(struct task *t, uint64_t uname);
long mq_timedsend_fd(struct task *t, int fd, uint64_t umsg, uint64_t len, unsigned prio,
		     uint64_t uts);
long mq_timedreceive_fd(struct task *t, int fd, uint64_t umsg, uint64_t len, uint64_t uprio,
			uint64_t uts);
long mq_notify_fd(struct task *t, int fd, uint64_t usev);
long mq_getsetattr_fd(struct task *t, int fd, uint64_t unew, uint64_t uold);
/* /proc/sys/fs/mqueue: the limit name ("msg_max", "msgsize_max",
 * "queues_max", "msg_default", "msgsize_default") of k's namespace. */
unsigned mq_limit(struct kernel *k, const char *name);
/* The namespace's queues go (ipc_ns_free). */
void mq_ns_free(struct mq_ns *mq);

#endif
