/* System V shared memory (shmget, shmat, shmdt, shmctl): each segment is a
 * file on the sandbox's internal tmpfs (sentry/fs/memfd.c), and shmat maps
 * it shared. A segment counts the VMAs that map it, as Linux's shm_nattch
 * does (a fork or a split counts again), and one removed while attached
 * (IPC_RMID) stays, marked SHM_DEST with key IPC_PRIVATE, until the last
 * detach. */
#ifndef RUNG_SHM_H
#define RUNG_SHM_H

#include <stdint.h>

struct task;
struct ipc_ns;
struct strbuf;

long shm_get(struct task *t, int32_t key, uint64_t size, int flags);
long shm_attach(struct task *t, int id, uint64_t addr, int flags);
long shm_detach(struct task *t, uint64_t addr);
long shm_ctl(struct task *t, int id, int cmd, uint64_t buf);
/* /proc/sysvipc/shm, as Linux writes it. */
void shm_proc_show(struct ipc_ns *ns, struct strbuf *o);

#endif
