/* System V message queues (msgget, msgsnd, msgrcv, msgctl). Queued
 * messages are charged to the sandbox's memory account. */
#ifndef RUNG_MSG_H
#define RUNG_MSG_H

#include <stdint.h>

struct task;
struct ipc_ns;
struct strbuf;

long msg_get(struct task *t, int32_t key, int flags);
long msg_send(struct task *t, int id, uint64_t msgp, uint64_t size, int flags);
long msg_receive(struct task *t, int id, uint64_t msgp, uint64_t size, int64_t type, int flags);
long msg_ctl(struct task *t, int id, int cmd, uint64_t buf);
/* /proc/sysvipc/msg, as Linux writes it. */
void msg_proc_show(struct ipc_ns *ns, struct strbuf *o);

#endif
