/*
 * What the files of procfs share (sentry/fs/procfs.c holds the tree and the
 * inode and file operations; each procfs_*.c generates one kind of file).
 * Only procfs's own files include this.
 */
#ifndef RUNG_PROCFS_INTERNAL_H
#define RUNG_PROCFS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel;
struct strbuf;
struct file;
struct task;
struct thread_group;

enum proc_kind {
	PK_DIR,	 /* a static directory (children) */
	PK_FILE, /* generated text */
	PK_LINK, /* a static symlink (target) */
	PK_SELF, /* /proc/self -> pid */
	PK_THREAD_SELF,
	PK_ROOT,   /* /proc: static children plus one directory per pid */
	PK_PID,	   /* /proc/<pid> */
	PK_FD_DIR, /* /proc/<pid>/fd */
	PK_FD,	   /* /proc/<pid>/fd/<n>: a magic link */
	PK_EXE,	   /* magic links: exe, cwd, root */
	PK_CWD,
	PK_ROOTDIR,
	PK_TASK_DIR,   /* /proc/<pid>/task: one entry per thread */
	PK_NS,	       /* /proc/<pid>/ns/<name>: "name:[inode]" (target: the name) */
	PK_FDINFO_DIR, /* /proc/<pid>/fdinfo: one file per descriptor */
	PK_MEM,	       /* /proc/<pid>/mem (procfs_pid_memfile.c) */
};

struct proc_ctx {
	struct kernel *k;
	struct task *t; /* the process a per-pid file describes, or NULL */
	struct mm *mm;	/* its address space, held while the file is made (or NULL) */
	/* A zombie (t is NULL): its thread group, for the files that show one. */
	struct thread_group *zombie;
	int id;			   /* the pid or tid its directory is named by */
	bool thread;		   /* under /proc/<pid>/task/<tid>: the thread, not the process */
	int fd;			   /* /proc/<pid>/fdinfo/<fd>: the descriptor */
	const struct pid_ns *view; /* whose numbers the instance shows (NULL: the initial) */
	const char *arg;	   /* the node's target: what a shared generator shows */
};

/* proc_node->flags */
#define PN_ZOMBIE      0x1u  /* gen describes a zombie too (c->zombie); others show it empty */
#define PN_OPEN_TIME   0x2u  /* the text is made at open, not at each first read */
#define PN_POLL_HOST   0x4u  /* kernel.hostname: polls report its changes */
#define PN_POLL_DOMAIN 0x8u  /* kernel.domainname: the same */
#define PN_PTRACE_READ 0x10u /* opening needs proc_may_read_task (else EACCES) */
#define PN_NETSTACK    0x20u /* a setting of the user-space stack: absent in host mode */
#define PN_MOUNTS      0x40u /* /proc/<pid>/mounts (procfs_mounts.c; no gen) */
#define PN_MOUNTINFO   0x80u /* /proc/<pid>/mountinfo (procfs_mounts.c; no gen) */

struct proc_node {
	const char *name;
	uint32_t mode;
	enum proc_kind kind;
	void (*gen)(struct proc_ctx *c, struct strbuf *out);
	const struct proc_node *children;
	const char *target;
	/* A writable file: one write(2) of len bytes (copied in), applied at
	 * once. Returns len or -errno. NULL: opening it for writing is EACCES. */
	long (*write)(struct proc_ctx *c, const char *buf, size_t len);
	unsigned flags; /* PN_* */
};

/* /proc/<pid>/mounts and mountinfo of t (NULL: a zombie's, empty), opened
 * (procfs_mounts.c). */
int proc_mounts_open(struct task *t, bool info, int flags, struct file **out);

/* /proc/<pid>/stat and status (procfs_pid_stat.c). */
void proc_gen_stat(struct proc_ctx *c, struct strbuf *o);
void proc_gen_status(struct proc_ctx *c, struct strbuf *o);

/* /proc/<pid>/cmdline and environ (procfs_pid_args.c). */
void proc_gen_cmdline(struct proc_ctx *c, struct strbuf *o);
void proc_gen_environ(struct proc_ctx *c, struct strbuf *o);

/* /proc/<pid>/auxv (procfs_pid_auxv.c). */
void proc_gen_auxv(struct proc_ctx *c, struct strbuf *o);

/* /proc/<pid>/fdinfo/<n> (procfs_pid_fdinfo.c). */
void proc_gen_fdinfo(struct proc_ctx *c, struct strbuf *o);

/* /proc/<pid>/mem: a file on target's address space, opened by the
 * current task with flags; 0 or -EACCES (procfs_pid_memfile.c). */
struct file;
int proc_mem_open(struct task *target, int flags, struct file **out);
/* May the current task read target's memory layout and environment (maps,
 * environ, io: Linux's PTRACE_MODE_READ), as it may open its mem? */
bool proc_may_read_task(struct task *target);

/* /proc/<pid>/statm, smaps, smaps_rollup (procfs_pid_mem.c). */
void proc_gen_statm(struct proc_ctx *c, struct strbuf *o);
void proc_gen_smaps(struct proc_ctx *c, struct strbuf *o);
void proc_gen_smaps_rollup(struct proc_ctx *c, struct strbuf *o);
/* The resident and virtual sizes status and stat report, in bytes. */
void proc_mem_sizes(struct mm *mm, uint64_t *vsize, uint64_t *rss);
/* The same, status's VmData and VmStk (Linux's data_vm, stack_vm) and the
 * executable mappings (exec_vm), in bytes. */
struct proc_mem_figures {
	uint64_t vsize, rss, data, stack, text;
};
void proc_mem_figures(struct mm *mm, struct proc_mem_figures *f);

/* /proc/<pid>/oom_score, oom_score_adj (procfs_pid_oom.c). */
void proc_gen_oom_score(struct proc_ctx *c, struct strbuf *o);
void proc_gen_oom_score_adj(struct proc_ctx *c, struct strbuf *o);
long proc_write_oom_score_adj(struct proc_ctx *c, const char *buf, size_t len);

/* /proc/<pid>/coredump_filter (procfs_pid_coredump.c). */
void proc_gen_coredump_filter(struct proc_ctx *c, struct strbuf *o);
long proc_write_coredump_filter(struct proc_ctx *c, const char *buf, size_t len);

/* Polling the UTS names' sysctls (procfs_poll.c): the count of changes of
 * the host (domain: domain) name, and a poll of a file that last saw
 * *seen of them (updated). Other files poll as Linux's: readable, writable. */
struct poll_table;
#define PROC_DEFAULT_POLLMASK \
	(0x001 | 0x004 | 0x040 | 0x100) /* POLLIN|POLLOUT|POLLRDNORM|POLLWRNORM */
unsigned proc_name_poll_event(bool domain);
unsigned proc_name_poll(bool domain, unsigned *seen, struct poll_table *pt);

/* /proc/<pid>/io (procfs_pid_io.c). */
void proc_gen_io(struct proc_ctx *c, struct strbuf *o);

/* System-wide files (procfs_kernel.c): /proc/devices, /proc/cmdline, the
 * System V IPC limits, vm and kernel values under /proc/sys. */
void proc_gen_devices(struct proc_ctx *c, struct strbuf *o);
void proc_gen_cmdline_kernel(struct proc_ctx *c, struct strbuf *o);
void proc_gen_shmmax(struct proc_ctx *c, struct strbuf *o);
void proc_gen_shmall(struct proc_ctx *c, struct strbuf *o);
void proc_gen_shmmni(struct proc_ctx *c, struct strbuf *o);
void proc_gen_sem(struct proc_ctx *c, struct strbuf *o);
void proc_gen_msgmax(struct proc_ctx *c, struct strbuf *o);
void proc_gen_msgmnb(struct proc_ctx *c, struct strbuf *o);
void proc_gen_msgmni(struct proc_ctx *c, struct strbuf *o);
void proc_gen_max_map_count(struct proc_ctx *c, struct strbuf *o);
void proc_gen_mmap_min_addr(struct proc_ctx *c, struct strbuf *o);
void proc_gen_cap_last_cap(struct proc_ctx *c, struct strbuf *o);
void proc_gen_randomize_va_space(struct proc_ctx *c, struct strbuf *o);

/* /proc/<pid>/uid_map, gid_map, setgroups (procfs_pid_userns.c). */
void proc_gen_uid_map(struct proc_ctx *c, struct strbuf *o);
void proc_gen_gid_map(struct proc_ctx *c, struct strbuf *o);
void proc_gen_setgroups(struct proc_ctx *c, struct strbuf *o);
long proc_write_uid_map(struct proc_ctx *c, const char *buf, size_t len);
long proc_write_gid_map(struct proc_ctx *c, const char *buf, size_t len);
long proc_write_setgroups(struct proc_ctx *c, const char *buf, size_t len);

/* /proc/<pid>/ns/ and cgroup (procfs_pid_ns.c). */
extern const struct proc_node proc_ns_nodes[];
void proc_gen_cgroup(struct proc_ctx *c, struct strbuf *o);
/* readlink of an ns/ entry: "ipc:[4026531839]". */
long proc_ns_link(struct task *t, const struct proc_node *n, char *buf, size_t size);

/* One line of /proc/<pid>/maps for the VMA v, smaps' header too (procfs.c). */
struct vma;
void proc_maps_line(const struct vma *v, struct strbuf *o);

#endif
