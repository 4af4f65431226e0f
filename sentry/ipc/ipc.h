/*
 * System V IPC: the sandbox's IPC namespace, its three kinds of objects
 * (shared memory segments, semaphore sets, message queues: shm.c, sem.c,
 * msg.c) and what they have in common, as Linux's ipc/util.c: keys and
 * ids, permissions, the ipc64_perm that the *ctl calls copy out.
 *
 * One lock per namespace guards every object in it; waits (semop,
 * msgsnd, msgrcv) drop it and sleep on the object's wait queue, holding a
 * reference, so that an object removed meanwhile (IPC_RMID) is still
 * there to say EIDRM.
 */
#ifndef RUNG_IPC_H
#define RUNG_IPC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sentry/kernel/wait.h"

struct creds;
struct kernel;
struct task;

/* The rights the calls ask for (ipc_permitted's flag), as Linux names them. */
#define IPC_R (0444) /* S_IRUGO */
#define IPC_W (0222) /* S_IWUGO */
#define IPC_X (0111) /* S_IXUGO */

/* Linux's IPCMNI: ids are seq << 15 | index. */
#define IPC_ID_SHIFT 15
#define IPC_MNI	     (1 << IPC_ID_SHIFT)
/* Indexes go round at least this far before one is reused (Linux's
 * ipc_min_cycle, RADIX_TREE_MAP_SIZE). */
#define IPC_MIN_CYCLE 64

/* struct ipc64_perm of x86-64 (what glibc's struct ipc_perm is too). */
struct ipc64_perm_guest {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint16_t mode, pad1;
	uint16_t seq, pad2;
	uint64_t unused1, unused2;
};
_Static_assert(sizeof(struct ipc64_perm_guest) == 48, "ipc64_perm layout");

enum ipc_kind { IPC_KIND_SHM, IPC_KIND_SEM, IPC_KIND_MSG, IPC_KINDS };

struct ipc_obj {
	int refs; /* under the namespace's lock */
	enum ipc_kind kind;
	int id;
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint16_t mode; /* the low 9 bits; shm keeps SHM_DEST and SHM_LOCKED above */
	unsigned seq;
	bool removed; /* IPC_RMID: no longer found by key or id */
	struct waitq wq;
	void (*free)(struct ipc_obj *o); /* the last reference went */
};

struct ipc_ids {
	struct ipc_obj **slots; /* by index; NULL where free */
	unsigned cap, in_use;
	int last_idx;
	unsigned next; /* where the next search for a free index starts */
	unsigned seq;
};

/* The limits of /proc/sys/kernel (Linux's defaults). */
struct ipc_limits {
	uint64_t shmmax, shmall; /* bytes per segment; pages in all */
	unsigned shmmni;
	unsigned semmsl, semmns, semopm, semmni;
	unsigned msgmax, msgmnb, msgmni;
};

struct ipc_ns {
	pthread_mutex_t lock;
	struct ipc_ids ids[IPC_KINDS];
	struct ipc_limits lim;
	uint64_t shm_pages; /* pages of every segment */
	unsigned sem_count; /* semaphores of every set */
	uint64_t msg_bytes, msg_count;
	struct list_head undos; /* struct sem_undo of every process (sem.c) */
	struct mq_ns *mq;	/* POSIX message queues (mqueue.c), made on first use */
};

/* The sandbox's namespace, made on first use. */
struct ipc_ns *ipc_ns_of(struct kernel *k);
void ipc_ns_free(struct ipc_ns *ns);

/*
 * The object of key (not IPC_PRIVATE) in ids, or NULL; under ns->lock.
 */
struct ipc_obj *ipc_find_key(struct ipc_ns *ns, enum ipc_kind kind, int32_t key);
/* The object of id, or NULL (no such index, or another seq); under ns->lock. */
struct ipc_obj *ipc_find_id(struct ipc_ns *ns, enum ipc_kind kind, int id);
/* The object at index idx (the *_STAT commands), or NULL. */
struct ipc_obj *ipc_find_index(struct ipc_ns *ns, enum ipc_kind kind, int idx);
/* The highest index in use, or -1 (IPC_INFO's answer). */
int ipc_max_index(struct ipc_ns *ns, enum ipc_kind kind);
/* Give o (filled by the caller: kind, key, mode, free) an id, with c as
 * owner and creator, one reference held by the namespace: 0 or -ENOSPC
 * when max of that kind exist. Under ns->lock. */
int ipc_add(struct ipc_ns *ns, struct ipc_obj *o, unsigned max, const struct creds *c);
/* IPC_RMID: take o out of the namespace (its id and key go), wake its
 * waiters and drop the namespace's reference. Under ns->lock. */
void ipc_remove(struct ipc_ns *ns, struct ipc_obj *o);
void ipc_get(struct ipc_obj *o);
/* Under ns->lock. */
void ipc_put(struct ipc_obj *o);

/* Linux's ipcperms: may c do what flag's rwx bits ask (IPC_R, IPC_W, IPC_X)? */
bool ipc_permitted(const struct ipc_obj *o, const struct creds *c, int flag);
/* May c change or remove o (IPC_SET, IPC_RMID): its owner, creator or a
 * CAP_SYS_ADMIN holder. */
bool ipc_may_own(const struct ipc_obj *o, const struct creds *c);
/* The shared part of the *get calls, under ns->lock: the object of key in
 * *found, or *found NULL when the caller must make one (IPC_PRIVATE, or
 * IPC_CREAT and none yet): 0 both; -ENOENT or -EEXIST (IPC_CREAT|IPC_EXCL)
 * otherwise. The caller checks what its kind needs (a size), then
 * ipc_get_found. */
int ipc_get_key(struct ipc_ns *ns, enum ipc_kind kind, int32_t key, int flags,
		struct ipc_obj **found);
/* Found: its id if flags' rwx bits are granted to c, or -EACCES. */
int ipc_get_found(const struct ipc_obj *o, int flags, const struct creds *c);

/* The IPC_INFO and *_INFO answer: info (len bytes) copied to the guest at
 * buf; the highest index in use (0 for none), or -EFAULT. Under ns->lock. */
long ipc_info_out(struct task *t, struct ipc_ns *ns, enum ipc_kind kind, uint64_t buf,
		  const void *info, size_t len);

/* The objects' times (the *_ds structures' atime, ctime...): seconds. */
static inline int64_t ipc_now(void)
{
	return (int64_t)time(NULL);
}

void ipc_perm_out(const struct ipc_obj *o, struct ipc64_perm_guest *p);
/* IPC_SET: the owner ids and mode bits of p. */
void ipc_perm_set(struct ipc_obj *o, const struct ipc64_perm_guest *p);

/* A process is gone: what it leaves (semaphore adjustments, sem.c). */
void ipc_process_exit(struct kernel *k, int tgid);

#endif
