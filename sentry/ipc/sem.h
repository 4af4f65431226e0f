/* System V semaphores (semget, semop, semtimedop, semctl), with SEM_UNDO:
 * each process's adjustments are applied when it exits. */
#ifndef RUNG_SEM_H
#define RUNG_SEM_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct ipc_ns;
struct strbuf;

long sem_get(struct task *t, int32_t key, int nsems, int flags);
/* timeout: a guest struct timespec (relative), or 0 for none. */
long sem_timedop(struct task *t, int id, uint64_t sops, uint64_t nsops, uint64_t timeout);
long sem_ctl(struct task *t, int id, int semnum, int cmd, uint64_t arg);
/* The process tgid is gone: its SEM_UNDO adjustments apply. */
void sem_process_exit(struct ipc_ns *ns, int tgid);
/* Has process tgid SEM_UNDO adjustments (Linux: an undo list)? kcmp's KCMP_SYSVSEM. */
bool sem_has_undo(struct ipc_ns *ns, int tgid);
/* /proc/sysvipc/sem, as Linux writes it. */
void sem_proc_show(struct ipc_ns *ns, struct strbuf *o);

#endif
