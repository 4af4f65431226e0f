/*
 * procfs: files synthesised from the sandbox's kernel state. Nothing here
 * reads the host's /proc at run time (cpuinfo is captured once at boot).
 *
 * The tree is described by tables of struct proc_node; inodes carry the node
 * and, under a process directory, the pid (and fd) they describe. Nothing is
 * cached (sb->cached is false): processes come and go, so every lookup asks
 * the kernel again. A file's text is generated when it is opened; a write
 * to a writable one (oom_score_adj) goes to its node's write at once.
 *
 * This file holds the tree, the inode and file operations and the small
 * generators; the larger per-process files are generated in procfs_pid_*.c
 * (stat and status, cmdline and environ, the memory figures, oom, ns).
 */
#include "config.h"
#include "sentry/fs/procfs.h"
#include "sentry/ipc/ipc.h"
#include "sentry/ipc/mqueue.h"
#include "sentry/ipc/msg.h"
#include "sentry/ipc/sem.h"
#include "sentry/ipc/shm.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/nsfs.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/pidns.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/fs/filemap.h"
#include "sentry/fs/hostinfo.h"
#include "sentry/fs/inotify.h"
#include "sentry/fs/pipe.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/aio.h"
#include "sentry/fs/fstypes.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/sysinfo.h"
#include "sentry/kernel/uts.h"
#include "sentry/mm/mm.h"
#include "sentry/net/procnet.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PROC_SUPER_MAGIC 0x9fa0
#define PROC_ROOT_INO	 1 /* Linux's: /proc is inode 1 */

struct proc_inode {
	const struct proc_node *node;
	int pid; /* the process (tgid) of per-pid files */
	int tid; /* under /proc/<pid>/task/<tid>: the thread; else 0 */
	int fd;
	bool sysctl; /* under /proc/sys */
};

struct proc_sb {
	struct kernel *k;
	struct pid_ns *pidns; /* whose numbers it shows (its mounter's; NULL: the initial) */
};

static const struct inode_ops proc_inode_ops;
static const struct inode_ops proc_magic_ops;
static const struct file_ops proc_file_ops;
static const struct file_ops proc_dir_ops;

#define PI(i)	      ((struct proc_inode *)(i)->priv)
#define KERNEL_OF(sb) (((struct proc_sb *)(sb)->priv)->k)
#define PIDNS_OF(sb)  (((struct proc_sb *)(sb)->priv)->pidns)

/* A process or thread number of the instance's namespace to the sandbox's
 * id (PID_NONE when none), and back (0 when outside). */
static int global_id(struct super_block *sb, int nr)
{
	return pidns_global(KERNEL_OF(sb), PIDNS_OF(sb), nr);
}

static int view_id(struct super_block *sb, int global)
{
	return pidns_view(KERNEL_OF(sb), PIDNS_OF(sb), global);
}

/* --- generators ------------------------------------------------------------- */

static void gen_comm(struct proc_ctx *c, struct strbuf *o)
{
	char comm[TASK_COMM_LEN];

	pthread_mutex_lock(&c->k->lock);
	memcpy(comm, c->t ? c->t->comm : c->zombie->comm, sizeof(comm));
	pthread_mutex_unlock(&c->k->lock);
	comm[TASK_COMM_LEN - 1] = '\0';
	strbuf_printf(o, "%s\n", comm);
}

/* Linux's comm_write: the first 15 bytes, as written (a newline too), name
 * a thread of the writer's own process; another's: EINVAL. */
static long write_comm(struct proc_ctx *c, const char *buf, size_t len)
{
	struct task *writer = current_task();
	char comm[TASK_COMM_LEN] = {0};

	if (!writer || writer->tg != c->t->tg)
		return -EINVAL;
	memcpy(comm, buf, MIN(len, sizeof(comm) - 1));
	pthread_mutex_lock(&c->k->lock);
	memset(c->t->comm, 0, sizeof(c->t->comm));
	strcpy(c->t->comm, comm);
	pthread_mutex_unlock(&c->k->lock);
	return (long)len;
}

/* The process's children, "pid pid ... " as Linux prints them. */
static void gen_children(struct proc_ctx *c, struct strbuf *o)
{
	int *ids = NULL;
	size_t n = 0;

	kernel_child_ids(c->k, c->t->tgid, &ids, &n);
	for (size_t i = 0; i < n; i++)
		strbuf_printf(o, "%d ", pidns_view(c->k, c->view, ids[i]));
	free(ids);
}

static long file_link_text(struct task *viewer, struct file *f, char *buf, size_t size);

/* One line of /proc/pid/maps, as Linux's show_map_vma: the header ends in
 * a space and is padded to 72 characters, then a space and the name (so it
 * starts at column 74). A shared anonymous mapping is Linux's shmem file
 * "/dev/zero (deleted)". */
void proc_maps_line(const struct vma *v, struct strbuf *o)
{
	struct file *f = vma_file(v);
	char line[96], *name = NULL;
	uint64_t dev = 0, ino = 0;
	int n;

	if (f && f->inode) {
		struct kstat st;
		long len;
		inode_stat(f->inode, &st);
		dev = st.dev;
		ino = st.ino;
		name = xmalloc(VFS_PATH_MAX);
		len = file_link_text(current_task(), f, name, VFS_PATH_MAX - 1);
		name[len < 0 ? 0 : len] = 0;
	} else if (v->flags & VMA_STACK) {
		name = xstrdup("[stack]");
	} else if (v->flags & VMA_HEAP) {
		name = xstrdup("[heap]");
	} else if (v->flags & (VMA_VDSO | VMA_VVAR)) {
		name = xstrdup(v->flags & VMA_VDSO ? "[vdso]" : "[vvar]");
	} else if (!f && (v->flags & VMA_SHARED)) {
		name = xstrdup("/dev/zero (deleted)");
	}
	n = snprintf(line, sizeof(line), "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ",
		     (unsigned long long)v->start, (unsigned long long)v->end,
		     (v->prot & PROT_READ) ? 'r' : '-', (v->prot & PROT_WRITE) ? 'w' : '-',
		     (v->prot & PROT_EXEC) ? 'x' : '-', (v->flags & VMA_SHARED) ? 's' : 'p',
		     (unsigned long long)(f ? v->pgoff : 0), major(dev), minor(dev),
		     (unsigned long long)ino);
	strbuf_append(o, line, (size_t)n);
	if (name && *name)
		strbuf_printf(o, "%*s%s", n < 72 ? 73 - n : 1, "", name);
	strbuf_append(o, "\n", 1);
	free(name);
}

static void one_map(const struct vma *v, void *arg)
{
	proc_maps_line(v, arg);
}

static void gen_maps(struct proc_ctx *c, struct strbuf *o)
{
	if (c->mm)
		mm_for_each_vma(c->mm, one_map, o);
}

static void gen_limits(struct proc_ctx *c, struct strbuf *o)
{
	static const char *const names[] = {
		"Max cpu time",		"Max file size",      "Max data size",
		"Max stack size",	"Max core file size", "Max resident set",
		"Max processes",	"Max open files",     "Max locked memory",
		"Max address space",	"Max file locks",     "Max pending signals",
		"Max msgqueue size",	"Max nice priority",  "Max realtime priority",
		"Max realtime timeout",
	};
	static const char *const units[] = {
		"seconds", "bytes", "bytes", "bytes",	"bytes", "bytes", "processes", "files",
		"bytes",   "bytes", "locks", "signals", "bytes", "",	  "",	       "us"};

	strbuf_printf(o, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units");
	for (int r = 0; r < RLIM_NLIMITS && r < (int)ARRAY_SIZE(names); r++) {
		char soft[32], hard[32];
		struct rlimit *l = &c->t->tg->rlim[r];
		if (l->rlim_cur == RLIM_INFINITY)
			strcpy(soft, "unlimited");
		else
			snprintf(soft, sizeof(soft), "%llu", (unsigned long long)l->rlim_cur);
		if (l->rlim_max == RLIM_INFINITY)
			strcpy(hard, "unlimited");
		else
			snprintf(hard, sizeof(hard), "%llu", (unsigned long long)l->rlim_max);
		strbuf_printf(o, "%-25s %-20s %-20s %-10s\n", names[r], soft, hard, units[r]);
	}
}

static void gen_cpuinfo(struct proc_ctx *c, struct strbuf *o)
{
	const char *info = host_cpuinfo();

	if (info)
		strbuf_printf(o, "%s", info);
}

static void gen_meminfo(struct proc_ctx *c, struct strbuf *o)
{
	struct sandbox_mem m;

	sandbox_mem(c->k, &m);
	strbuf_printf(
		o,
		"MemTotal:       %8llu kB\nMemFree:        %8llu kB\nMemAvailable:   %8llu kB\n"
		"Buffers:               0 kB\nCached:                0 kB\nSwapCached:            "
		"0 kB\n"
		"Active:         %8llu kB\nInactive:              0 kB\nSwapTotal:             0 "
		"kB\n"
		"SwapFree:              0 kB\nShmem:                 0 kB\n"
		"CommitLimit:    %8llu kB\nCommitted_AS:   %8llu kB\n",
		(unsigned long long)(m.total >> 10), (unsigned long long)(m.free >> 10),
		(unsigned long long)(m.free >> 10), (unsigned long long)(m.used >> 10),
		(unsigned long long)(m.total >> 10), (unsigned long long)(m.committed >> 10));
}

static void gen_uptime(struct proc_ctx *c, struct strbuf *o)
{
	uint64_t up = sandbox_uptime_ns(c->k);

	strbuf_printf(o, "%llu.%02llu 0.00\n", (unsigned long long)(up / 1000000000ull),
		      (unsigned long long)(up / 10000000ull % 100));
}

/* The load is not kept: 0.00, as sysinfo's loads; running/total tasks. */
static void gen_loadavg(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "0.00 0.00 0.00 1/%u %d\n", sandbox_tasks(c->k), c->k->next_tid - 1);
}

static void gen_version(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "Linux version " UTS_RELEASE " (rung@rung) (gcc) " UTS_VERSION "\n");
}

static void gen_filesystems(struct proc_ctx *c, struct strbuf *o)
{
	const struct fs_type_name *ft;

	for (unsigned i = 0; (ft = fs_type_at(i)); i++)
		strbuf_printf(o, "%s\t%s\n", ft->nodev ? "nodev" : "", ft->name);
}

static void gen_stat_global(struct proc_ctx *c, struct strbuf *o)
{
	struct timespec now;
	uint64_t up = (monotonic_ns() - c->k->boot_ns) / 10000000ull;

	clock_gettime(CLOCK_REALTIME, &now);
	strbuf_printf(o, "cpu  %llu 0 0 0 0 0 0 0 0 0\n", (unsigned long long)up);
	for (unsigned i = 0; i < c->k->ncpus; i++)
		strbuf_printf(o, "cpu%u %llu 0 0 0 0 0 0 0 0 0\n", i, (unsigned long long)up);
	strbuf_printf(o,
		      "intr 0\nctxt 0\nbtime %lld\nprocesses %d\nprocs_running 1\n"
		      "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n",
		      (long long)(now.tv_sec - (long long)(up / 100)), c->k->next_tid - 1);
}

/* The reader's UTS namespace's names (the sandbox's first ones without a reader). */
static void gen_uts_name(struct proc_ctx *c, struct strbuf *o, bool domain)
{
	struct task *reader = current_task();
	struct uts_ns *uts = reader ? task_ns(reader)->uts : kernel_nsproxy(c->k)->uts;
	char name[65];

	pthread_mutex_lock(&c->k->lock);
	memcpy(name, domain ? uts->domainname : uts->hostname, sizeof(name));
	pthread_mutex_unlock(&c->k->lock);
	name[64] = '\0';
	strbuf_printf(o, "%s\n", name);
}

static void gen_hostname(struct proc_ctx *c, struct strbuf *o)
{
	gen_uts_name(c, o, false);
}

static void gen_domainname(struct proc_ctx *c, struct strbuf *o)
{
	gen_uts_name(c, o, true);
}

static void gen_unpriv_port_start(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", c->k->net_sysctl.unprivileged_port_start);
}

static void gen_ping_group_range(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\t%u\n", c->k->net_sysctl.ping_group_lo,
		      c->k->net_sysctl.ping_group_hi);
}

static void gen_osrelease(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%s\n", UTS_RELEASE);
}

static void gen_ostype(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%s\n", UTS_SYSNAME);
}

static void gen_kernel_version(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%s\n", UTS_VERSION);
}

static void gen_pid_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "4194304\n");
}

static void gen_ngroups_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", CREDS_MAX_GROUPS); /* what setgroups takes here */
}

/* The id an unmapped uid or gid reads as (fixed here: not writable). */
static void gen_overflow_id(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", OVERFLOW_UID);
}

static void gen_max_user_ns(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", MAX_USER_NS);
}

static void gen_pipe_max_size(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", PIPE_MAX_SIZE);
}

/* /proc/sys/fs/aio-nr, aio-max-nr (sentry/kernel/aio.c; read-only here). */
static void gen_aio_nr(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%lu\n", aio_nr());
}

static void gen_aio_max_nr(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%lu\n", aio_max_nr());
}

/* /proc/sys/fs/mount-max (read-only here: Linux's default). */
static void gen_mount_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", __atomic_load_n(&vfs_mount_max, __ATOMIC_RELAXED));
}

/* /proc/sys/fs/mqueue (read-only here: the limits are Linux's defaults). */
static void gen_mq_msg_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", mq_limit(c->k, "msg_max"));
}

static void gen_mq_msgsize_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", mq_limit(c->k, "msgsize_max"));
}

static void gen_mq_queues_max(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", mq_limit(c->k, "queues_max"));
}

static void gen_mq_msg_default(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", mq_limit(c->k, "msg_default"));
}

static void gen_mq_msgsize_default(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", mq_limit(c->k, "msgsize_default"));
}

static void gen_inotify_instances(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", INOTIFY_MAX_USER_INSTANCES);
}

static void gen_inotify_watches(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", inotify_max_user_watches());
}

static void gen_inotify_queued(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", INOTIFY_MAX_QUEUED_EVENTS);
}

static void gen_zero(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "0\n");
}

static void uuid_text(const uint8_t b[16], struct strbuf *o)
{
	strbuf_printf(o, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
		      b[0], b[1], b[2], b[3], b[4], b[5], (b[6] & 0x0f) | 0x40, b[7],
		      (b[8] & 0x3f) | 0x80, b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void gen_uuid(struct proc_ctx *c, struct strbuf *o)
{
	uint8_t b[16] = {0};

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		memset(b, 0, sizeof(b));
	uuid_text(b, o);
}

static void gen_boot_id(struct proc_ctx *c, struct strbuf *o)
{
	uint8_t b[16];

	/* Fixed for the life of the sandbox: derived from its boot time. */
	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)(c->k->boot_ns >> ((i % 8) * 8) ^ (uint64_t)i * 0x9d);
	uuid_text(b, o);
}

/* --- the tree ----------------------------------------------------------------- */

static const struct proc_node random_nodes[] = {
	{"boot_id", S_IFREG | 0444, PK_FILE, gen_boot_id},
	{"uuid", S_IFREG | 0444, PK_FILE, gen_uuid},
	{NULL},
};

static const struct proc_node kernel_nodes[] = {
	{"cap_last_cap", S_IFREG | 0444, PK_FILE, proc_gen_cap_last_cap},
	{"domainname", S_IFREG | 0644, PK_FILE, gen_domainname, .flags = PN_POLL_DOMAIN},
	{"hostname", S_IFREG | 0644, PK_FILE, gen_hostname, .flags = PN_POLL_HOST},
	{"msgmax", S_IFREG | 0644, PK_FILE, proc_gen_msgmax},
	{"msgmnb", S_IFREG | 0644, PK_FILE, proc_gen_msgmnb},
	{"msgmni", S_IFREG | 0644, PK_FILE, proc_gen_msgmni},
	{"ngroups_max", S_IFREG | 0444, PK_FILE, gen_ngroups_max},
	{"osrelease", S_IFREG | 0444, PK_FILE, gen_osrelease},
	{"ostype", S_IFREG | 0444, PK_FILE, gen_ostype},
	{"overflowgid", S_IFREG | 0644, PK_FILE, gen_overflow_id},
	{"overflowuid", S_IFREG | 0644, PK_FILE, gen_overflow_id},
	{"pid_max", S_IFREG | 0644, PK_FILE, gen_pid_max},
	{"random", S_IFDIR | 0555, PK_DIR, NULL, random_nodes},
	{"randomize_va_space", S_IFREG | 0644, PK_FILE, proc_gen_randomize_va_space},
	{"sem", S_IFREG | 0644, PK_FILE, proc_gen_sem},
	{"shmall", S_IFREG | 0644, PK_FILE, proc_gen_shmall},
	{"shmmax", S_IFREG | 0644, PK_FILE, proc_gen_shmmax},
	{"shmmni", S_IFREG | 0644, PK_FILE, proc_gen_shmmni},
	{"version", S_IFREG | 0444, PK_FILE, gen_kernel_version},
	{NULL},
};

static const struct proc_node inotify_nodes[] = {
	{"max_queued_events", S_IFREG | 0644, PK_FILE, gen_inotify_queued},
	{"max_user_instances", S_IFREG | 0644, PK_FILE, gen_inotify_instances},
	{"max_user_watches", S_IFREG | 0644, PK_FILE, gen_inotify_watches},
	{NULL},
};

static const struct proc_node mqueue_nodes[] = {
	{"msg_default", S_IFREG | 0644, PK_FILE, gen_mq_msg_default},
	{"msg_max", S_IFREG | 0644, PK_FILE, gen_mq_msg_max},
	{"msgsize_default", S_IFREG | 0644, PK_FILE, gen_mq_msgsize_default},
	{"msgsize_max", S_IFREG | 0644, PK_FILE, gen_mq_msgsize_max},
	{"queues_max", S_IFREG | 0644, PK_FILE, gen_mq_queues_max},
	{NULL},
};

static const struct proc_node fs_nodes[] = {
	{"aio-max-nr", S_IFREG | 0644, PK_FILE, gen_aio_max_nr},
	{"aio-nr", S_IFREG | 0444, PK_FILE, gen_aio_nr},
	{"inotify", S_IFDIR | 0555, PK_DIR, NULL, inotify_nodes},
	{"mount-max", S_IFREG | 0444, PK_FILE, gen_mount_max},
	{"mqueue", S_IFDIR | 0555, PK_DIR, NULL, mqueue_nodes},
	{"pipe-max-size", S_IFREG | 0644, PK_FILE, gen_pipe_max_size},
	{NULL},
};

static const struct proc_node vm_nodes[] = {
	{"max_map_count", S_IFREG | 0644, PK_FILE, proc_gen_max_map_count},
	{"mmap_min_addr", S_IFREG | 0644, PK_FILE, proc_gen_mmap_min_addr},
	{"overcommit_memory", S_IFREG | 0644, PK_FILE, gen_zero},
	{NULL},
};

/* A setting of the user-space stack (procnet.h); node->target names it. */
static void gen_net_stack(struct proc_ctx *c, struct strbuf *o)
{
	procnet_sysctl(c->k, c->arg, o);
}

#define NET_STACK_FILE(name, dir)                                                 \
	{                                                                         \
		name, S_IFREG | 0444, PK_FILE, gen_net_stack, NULL, dir "/" name, \
			.flags = PN_NETSTACK                                      \
	}

static const struct proc_node ipv4_nodes[] = {
	NET_STACK_FILE("ip_forward", "ipv4"),
	{"ip_unprivileged_port_start", S_IFREG | 0644, PK_FILE, gen_unpriv_port_start},
	{"ping_group_range", S_IFREG | 0644, PK_FILE, gen_ping_group_range},
	NET_STACK_FILE("tcp_recovery", "ipv4"),
	NET_STACK_FILE("tcp_sack", "ipv4"),
	{NULL},
};

static const struct proc_node ipv6_nodes[] = {
	NET_STACK_FILE("auto_flowlabels", "ipv6"),
	NET_STACK_FILE("bindv6only", "ipv6"),
	NET_STACK_FILE("ip6frag_time", "ipv6"),
	NET_STACK_FILE("ip_nonlocal_bind", "ipv6"),
	{NULL},
};

static const struct proc_node net_nodes[] = {
	{"ipv4", S_IFDIR | 0555, PK_DIR, NULL, ipv4_nodes},
	{"ipv6", S_IFDIR | 0555, PK_DIR, NULL, ipv6_nodes, .flags = PN_NETSTACK},
	{NULL},
};

static const struct proc_node user_nodes[] = {
	{"max_user_namespaces", S_IFREG | 0644, PK_FILE, gen_max_user_ns},
	{NULL},
};

static const struct proc_node sys_nodes[] = {
	{"fs", S_IFDIR | 0555, PK_DIR, NULL, fs_nodes},
	{"kernel", S_IFDIR | 0555, PK_DIR, NULL, kernel_nodes},
	{"net", S_IFDIR | 0555, PK_DIR, NULL, net_nodes},
	{"user", S_IFDIR | 0555, PK_DIR, NULL, user_nodes},
	{"vm", S_IFDIR | 0555, PK_DIR, NULL, vm_nodes},
	{NULL},
};

/* /proc/net (sentry/net/procnet.h). */
static void gen_net_dev(struct proc_ctx *c, struct strbuf *o)
{
	procnet_dev(c->k, o);
}

static void gen_net_route(struct proc_ctx *c, struct strbuf *o)
{
	procnet_route(c->k, o);
}

static void gen_net_if_inet6(struct proc_ctx *c, struct strbuf *o)
{
	procnet_if_inet6(c->k, o);
}

static void gen_net_tcp(struct proc_ctx *c, struct strbuf *o)
{
	procnet_tcp(c->k, AF_INET, o);
}

static void gen_net_tcp6(struct proc_ctx *c, struct strbuf *o)
{
	procnet_tcp(c->k, AF_INET6, o);
}

static void gen_net_udp(struct proc_ctx *c, struct strbuf *o)
{
	procnet_udp(c->k, AF_INET, o);
}

static void gen_net_udp6(struct proc_ctx *c, struct strbuf *o)
{
	procnet_udp(c->k, AF_INET6, o);
}

static void gen_net_unix(struct proc_ctx *c, struct strbuf *o)
{
	procnet_unix(c->k, o);
}

static const struct proc_node proc_net_nodes[] = {
	{"dev", S_IFREG | 0444, PK_FILE, gen_net_dev},
	{"if_inet6", S_IFREG | 0444, PK_FILE, gen_net_if_inet6},
	{"route", S_IFREG | 0444, PK_FILE, gen_net_route},
	{"tcp", S_IFREG | 0444, PK_FILE, gen_net_tcp},
	{"tcp6", S_IFREG | 0444, PK_FILE, gen_net_tcp6},
	{"udp", S_IFREG | 0444, PK_FILE, gen_net_udp},
	{"udp6", S_IFREG | 0444, PK_FILE, gen_net_udp6},
	{"unix", S_IFREG | 0444, PK_FILE, gen_net_unix},
	{NULL},
};

/* /proc/<pid>, /proc/<tid> (which Linux resolves but does not list) and
 * /proc/<pid>/task/<tid>: see pid_node_listed. */
static const struct proc_node pid_nodes[] = {
	{"auxv", S_IFREG | 0400, PK_FILE, proc_gen_auxv, .flags = PN_PTRACE_READ},
	{"cgroup", S_IFREG | 0444, PK_FILE, proc_gen_cgroup},
	{"children", S_IFREG | 0444, PK_FILE, gen_children},
	{"cmdline", S_IFREG | 0444, PK_FILE, proc_gen_cmdline},
	{"comm", S_IFREG | 0644, PK_FILE, gen_comm, NULL, NULL, write_comm, PN_ZOMBIE},
	{"coredump_filter", S_IFREG | 0644, PK_FILE, proc_gen_coredump_filter, NULL, NULL,
	 proc_write_coredump_filter},
	{"cwd", S_IFLNK | 0777, PK_CWD},
	{"environ", S_IFREG | 0400, PK_FILE, proc_gen_environ, .flags = PN_PTRACE_READ},
	{"exe", S_IFLNK | 0777, PK_EXE},
	{"fd", S_IFDIR | 0500, PK_FD_DIR},
	{"fdinfo", S_IFDIR | 0500, PK_FDINFO_DIR},
	{"gid_map", S_IFREG | 0644, PK_FILE, proc_gen_gid_map, NULL, NULL, proc_write_gid_map,
	 PN_OPEN_TIME},
	{"io", S_IFREG | 0400, PK_FILE, proc_gen_io, .flags = PN_PTRACE_READ},
	{"limits", S_IFREG | 0444, PK_FILE, gen_limits},
	{"maps", S_IFREG | 0444, PK_FILE, gen_maps, .flags = PN_PTRACE_READ},
	{"mem", S_IFREG | 0600, PK_MEM},
	{"mountinfo", S_IFREG | 0444, PK_FILE, NULL, .flags = PN_MOUNTINFO},
	{"mounts", S_IFREG | 0444, PK_FILE, NULL, .flags = PN_MOUNTS},
	{"net", S_IFDIR | 0555, PK_DIR, NULL, proc_net_nodes},
	{"ns", S_IFDIR | 0511, PK_DIR, NULL, proc_ns_nodes},
	{"oom_score", S_IFREG | 0444, PK_FILE, proc_gen_oom_score, .flags = PN_ZOMBIE},
	{"oom_score_adj", S_IFREG | 0644, PK_FILE, proc_gen_oom_score_adj, NULL, NULL,
	 proc_write_oom_score_adj, PN_ZOMBIE},
	{"root", S_IFLNK | 0777, PK_ROOTDIR},
	{"setgroups", S_IFREG | 0644, PK_FILE, proc_gen_setgroups, NULL, NULL, proc_write_setgroups,
	 PN_OPEN_TIME},
	{"smaps", S_IFREG | 0444, PK_FILE, proc_gen_smaps, .flags = PN_PTRACE_READ},
	{"smaps_rollup", S_IFREG | 0444, PK_FILE, proc_gen_smaps_rollup, .flags = PN_PTRACE_READ},
	{"stat", S_IFREG | 0444, PK_FILE, proc_gen_stat, .flags = PN_ZOMBIE},
	{"statm", S_IFREG | 0444, PK_FILE, proc_gen_statm},
	{"status", S_IFREG | 0444, PK_FILE, proc_gen_status, .flags = PN_ZOMBIE},
	{"task", S_IFDIR | 0555, PK_TASK_DIR},
	{"uid_map", S_IFREG | 0644, PK_FILE, proc_gen_uid_map, NULL, NULL, proc_write_uid_map,
	 PN_OPEN_TIME},
	{NULL},
};

static void gen_sysvipc_shm(struct proc_ctx *c, struct strbuf *o)
{
	shm_proc_show(ipc_ns_of(c->k), o);
}

static void gen_sysvipc_sem(struct proc_ctx *c, struct strbuf *o)
{
	sem_proc_show(ipc_ns_of(c->k), o);
}

static void gen_sysvipc_msg(struct proc_ctx *c, struct strbuf *o)
{
	msg_proc_show(ipc_ns_of(c->k), o);
}

static const struct proc_node sysvipc_nodes[] = {
	{"msg", S_IFREG | 0444, PK_FILE, gen_sysvipc_msg},
	{"sem", S_IFREG | 0444, PK_FILE, gen_sysvipc_sem},
	{"shm", S_IFREG | 0444, PK_FILE, gen_sysvipc_shm},
	{NULL},
};

static const struct proc_node root_nodes[] = {
	{"cmdline", S_IFREG | 0444, PK_FILE, proc_gen_cmdline_kernel},
	{"cpuinfo", S_IFREG | 0444, PK_FILE, gen_cpuinfo},
	{"devices", S_IFREG | 0444, PK_FILE, proc_gen_devices},
	{"filesystems", S_IFREG | 0444, PK_FILE, gen_filesystems},
	{"loadavg", S_IFREG | 0444, PK_FILE, gen_loadavg},
	{"meminfo", S_IFREG | 0444, PK_FILE, gen_meminfo},
	{"mounts", S_IFLNK | 0777, PK_LINK, NULL, NULL, "self/mounts"},
	{"net", S_IFLNK | 0777, PK_LINK, NULL, NULL, "self/net"},
	{"self", S_IFLNK | 0777, PK_SELF},
	{"stat", S_IFREG | 0444, PK_FILE, gen_stat_global},
	{"sys", S_IFDIR | 0555, PK_DIR, NULL, sys_nodes},
	{"sysvipc", S_IFDIR | 0555, PK_DIR, NULL, sysvipc_nodes},
	{"thread-self", S_IFLNK | 0777, PK_THREAD_SELF},
	{"uptime", S_IFREG | 0444, PK_FILE, gen_uptime},
	{"version", S_IFREG | 0444, PK_FILE, gen_version},
	{NULL},
};

static const struct proc_node root_node = {"/", S_IFDIR | 0555, PK_ROOT};
static const struct proc_node pid_node = {NULL, S_IFDIR | 0555, PK_PID, NULL, pid_nodes};
static const struct proc_node tid_node = {NULL, S_IFDIR | 0555, PK_PID, NULL, pid_nodes};
static const struct proc_node fd_node = {NULL, S_IFLNK | 0700, PK_FD};
static const struct proc_node fdinfo_node = {NULL, S_IFREG | 0444, PK_FILE, proc_gen_fdinfo};

/*
 * Is c in the directory of node dir? Linux's thread directory (tid_base_stuff)
 * has no task directory in it, which would nest forever (`find /proc` would
 * not end); children is a thread's only (the processes it forked; here
 * the process's, whose children the sandbox keeps per process). Settings of
 * the user-space stack are not there in host mode.
 */
static bool pid_node_listed(struct super_block *sb, const struct proc_node *dir,
			    const struct proc_node *c)
{
	if ((c->flags & PN_NETSTACK) && !procnet_has_stack_sysctls(KERNEL_OF(sb)))
		return false;
	if (dir == &tid_node)
		return c->kind != PK_TASK_DIR && c->gen != proc_gen_coredump_filter;
	if (dir == &pid_node)
		return c->gen != gen_children;
	return true;
}

/* Inode numbers are stable for a (node, pid, tid, fd) tuple; tid is 0
 * outside a thread's files. */
static uint64_t proc_ino(const struct proc_node *n, int pid, int tid, int fd)
{
	uint64_t id = (uint64_t)(tid ? tid : pid);

	if (n == &root_node)
		return PROC_ROOT_INO;

	return (((uint64_t)(uintptr_t)n * 31 + id * 1000003 + (uint64_t)(fd + 1)) &
		0x7fffffffffffull) ^
	       (tid ? 0x400000000000ull : 0);
}

/* The zombie process pid (referenced), or NULL: it has no task left, and
 * shows in /proc until it is reaped. */
static struct thread_group *find_zombie(struct kernel *k, int pid)
{
	struct thread_group *tg;

	pthread_mutex_lock(&k->lock);
	tg = kernel_find_tg_locked(k, pid, true);
	if (tg && (tg->flags & TG_ZOMBIE))
		tg_get(tg);
	else
		tg = NULL;
	pthread_mutex_unlock(&k->lock);
	return tg;
}

/* The task per-pid files describe: the thread, or the process's first live thread. */
static struct task *find_task(struct kernel *k, int pid, int tid)
{
	return tid ? kernel_find_task(k, tid) : kernel_find_process(k, pid);
}

static struct inode *proc_inode_tid(struct super_block *sb, const struct proc_node *n, int pid,
				    int tid, int fd)
{
	bool magic = n->kind == PK_FD || n->kind == PK_EXE || n->kind == PK_CWD ||
		     n->kind == PK_ROOTDIR || n->kind == PK_NS;
	struct inode *i = inode_new(sb, magic ? &proc_magic_ops : &proc_inode_ops, n->mode);
	struct proc_inode *pi = xzalloc(sizeof(*pi));
	struct task *t = pid ? find_task(KERNEL_OF(sb), pid, tid) : NULL;

	pi->node = n;
	pi->pid = pid;
	pi->tid = tid;
	pi->fd = fd;
	i->priv = pi;
	i->ino = proc_ino(n, pid, tid, fd);
	if (S_ISDIR(n->mode))
		i->nlink = 2;
	/* A process that is not dumpable (it changed its ids) has its files
	 * owned by root, as Linux's task_dump_owner gives them. */
	if (t) {
		i->uid = t->dumpable ? t->creds.euid : 0;
		i->gid = t->dumpable ? t->creds.egid : 0;
		task_put(t);
	}
	return i;
}

static struct inode *proc_inode(struct super_block *sb, const struct proc_node *n, int pid, int fd)
{
	return proc_inode_tid(sb, n, pid, 0, fd);
}

static int parse_num(const char *name)
{
	char *end;
	long v;

	if (!*name || *name == '0' || *name == '+' || *name == '-')
		return name[0] == '0' && !name[1] ? 0 : -1;
	v = strtol(name, &end, 10);
	if (*end || v <= 0 || v > INT32_MAX)
		return -1;
	return (int)v;
}

static struct task *proc_task(struct inode *i)
{
	return find_task(KERNEL_OF(i->sb), PI(i)->pid, PI(i)->tid);
}

static int proc_lookup(struct inode *dir, const char *name, struct inode **out)
{
	const struct proc_node *n = PI(dir)->node, *c;
	int pid = PI(dir)->pid;

	switch (n->kind) {
	case PK_ROOT: {
		int want = parse_num(name);
		if (want > 0)
			want = global_id(dir->sb, want);
		if (want > 0) {
			/* A process, or (not listed, as in Linux) a thread by its tid. */
			struct task *t = kernel_find_process(KERNEL_OF(dir->sb), want);
			if (!t)
				t = kernel_find_task(KERNEL_OF(dir->sb), want);
			if (!t) {
				struct thread_group *z = find_zombie(KERNEL_OF(dir->sb), want);
				if (!z)
					return -ENOENT;
				tg_put(z);
				*out = proc_inode(dir->sb, &pid_node, want, -1);
				return 0;
			}
			*out = t->tgid == want
				       ? proc_inode(dir->sb, &pid_node, want, -1)
				       : proc_inode_tid(dir->sb, &pid_node, t->tgid, want, -1);
			task_put(t);
			return 0;
		}
		c = root_nodes;
		break;
	}
	case PK_PID:
	case PK_DIR:
		c = n->children;
		break;
	case PK_FD_DIR:
	case PK_FDINFO_DIR: {
		int fd = parse_num(name);
		struct task *t = proc_task(dir);
		struct file *f = (t && t->files && fd >= 0) ? fd_get_raw(t->files, fd) : NULL;
		task_put(t);
		if (!f)
			return -ENOENT;
		file_put(f);
		*out = proc_inode_tid(dir->sb, n->kind == PK_FD_DIR ? &fd_node : &fdinfo_node, pid,
				      PI(dir)->tid, fd);
		return 0;
	}
	case PK_TASK_DIR: {
		int tid = parse_num(name);
		struct task *t;
		if (tid > 0)
			tid = global_id(dir->sb, tid);
		t = tid > 0 ? kernel_find_task(KERNEL_OF(dir->sb), tid) : NULL;
		bool ours = t && t->tgid == pid;
		task_put(t);
		if (!ours)
			return -ENOENT;
		*out = proc_inode_tid(dir->sb, &tid_node, pid, tid, -1);
		return 0;
	}
	default:
		return -ENOTDIR;
	}
	for (; c && c->name; c++)
		if (strcmp(c->name, name) == 0 && pid_node_listed(dir->sb, n, c)) {
			*out = proc_inode_tid(dir->sb, c, pid, PI(dir)->tid, -1);
			PI(*out)->sysctl = PI(dir)->sysctl || c->children == sys_nodes;
			return 0;
		}
	return -ENOENT;
}

static long copy_link(const char *s, char *buf, size_t size)
{
	size_t len = strlen(s);

	memcpy(buf, s, MIN(len, size));
	return (long)MIN(len, size);
}

/* What a link of a process without a task says: a zombie has no files
 * (ENOENT); a reaped process is no more (ESRCH), as Linux's. */
static int gone_errno(struct inode *inode)
{
	struct thread_group *z =
		PI(inode)->tid ? NULL : find_zombie(KERNEL_OF(inode->sb), PI(inode)->pid);

	tg_put(z);
	return z ? -ENOENT : -ESRCH;
}

/* The path a magic link points at, for readlink. */
static long file_link_text(struct task *viewer, struct file *f, char *buf, size_t size)
{
	char tmp[128];
	int hostfd;

	if (f->inode && S_ISFIFO(f->inode->mode) &&
	    (!f->path.mnt || (f->path.mnt->flags & MNT_INTERNAL))) {
		snprintf(tmp, sizeof(tmp), "pipe:[%llu]", (unsigned long long)f->inode->ino);
		return copy_link(tmp, buf, size);
	}
	if (f->path.dentry && f->path.mnt && !(f->path.mnt->flags & MNT_INTERNAL)) {
		struct path root;
		long n;
		char *p = xmalloc(VFS_PATH_MAX);
		if (viewer && viewer->fs)
			fs_get_root(viewer->fs, &root);
		else
			root = (struct path){0};
		n = path_to_string(&f->path, &root, p, VFS_PATH_MAX);
		path_put(&root);
		if (n >= 0 && f->path.dentry->deleted && (size_t)n + 10 < VFS_PATH_MAX)
			strcat(p, " (deleted)");
		n = n < 0 ? n : copy_link(p, buf, size);
		free(p);
		return n;
	}
	if (anon_file_name(f)) {
		snprintf(tmp, sizeof(tmp), "anon_inode:%s", anon_file_name(f));
		return copy_link(tmp, buf, size);
	}
	if (f->path.dentry) {
		/* An anonymous file (memfd): "/name (deleted)". */
		snprintf(tmp, sizeof(tmp), "/%s%s", f->path.dentry->name,
			 f->path.dentry->deleted ? " (deleted)" : "");
		return copy_link(tmp, buf, size);
	}
	if (f->inode && S_ISSOCK(f->inode->mode)) {
		snprintf(tmp, sizeof(tmp), "socket:[%llu]", (unsigned long long)f->inode->ino);
		return copy_link(tmp, buf, size);
	}
	hostfd = hostfile_fd(f);
	if (hostfd >= 0) {
		struct stat st;
		if (fstat(hostfd, &st) == 0 && S_ISFIFO(st.st_mode))
			snprintf(tmp, sizeof(tmp), "pipe:[%llu]", (unsigned long long)st.st_ino);
		else if (fstat(hostfd, &st) == 0 && S_ISCHR(st.st_mode) &&
			 st.st_rdev == makedev(1, 3))
			snprintf(tmp, sizeof(tmp), "/dev/null");
		else
			snprintf(tmp, sizeof(tmp), "host:[%llu]", (unsigned long long)st.st_ino);
		return copy_link(tmp, buf, size);
	}
	return copy_link("anon_inode:[unknown]", buf, size);
}

static long proc_readlink(struct inode *inode, char *buf, size_t size)
{
	const struct proc_node *n = PI(inode)->node;
	struct task *viewer = current_task(), *t;
	char tmp[32];
	long ret;

	switch (n->kind) {
	case PK_LINK:
		return copy_link(n->target, buf, size);
	case PK_NS:
		t = proc_task(inode);
		if (!t)
			return gone_errno(inode);
		ret = proc_ns_link(t, n, buf, size);
		task_put(t);
		return ret;
	case PK_SELF:
	case PK_THREAD_SELF:
		if (!viewer)
			return -ENOENT;
		{
			/* The viewer as the instance's namespace numbers it. */
			const struct pid_ns *ns = PIDNS_OF(inode->sb);
			int pid = tg_pid_nr(viewer->tg, ns), tid = task_tid_nr(viewer, ns);
			if (!pid || !tid)
				return -ENOENT;
			if (n->kind == PK_SELF)
				snprintf(tmp, sizeof(tmp), "%d", pid);
			else
				snprintf(tmp, sizeof(tmp), "%d/task/%d", pid, tid);
		}
		return copy_link(tmp, buf, size);
	default:
		break;
	}
	t = proc_task(inode);
	if (!t)
		return n->kind == PK_FD ? -ENOENT : gone_errno(inode);
	if (n->kind == PK_FD) {
		struct file *f = t->files ? fd_get_raw(t->files, PI(inode)->fd) : NULL;
		ret = f ? file_link_text(viewer, f, buf, size) : -ENOENT;
		if (f)
			file_put(f);
	} else {
		struct path p = {0}, root = {0};
		char *s = xmalloc(VFS_PATH_MAX);
		if (n->kind == PK_EXE) {
			p = t->exe;
			path_get(&p);
		} else if (t->fs && n->kind == PK_CWD) {
			fs_get_cwd(t->fs, &p);
		} else if (t->fs) {
			fs_get_root(t->fs, &p);
		}
		if (viewer && viewer->fs)
			fs_get_root(viewer->fs, &root);
		ret = p.dentry ? path_to_string(&p, &root, s, VFS_PATH_MAX) : -ENOENT;
		/* A removed cwd, a deleted program: " (deleted)", as Linux's d_path. */
		if (ret >= 0 && p.dentry->deleted && ret + 10 < VFS_PATH_MAX)
			strcat(s, " (deleted)");
		if (ret >= 0)
			ret = copy_link(s, buf, size);
		path_put(&p);
		path_put(&root);
		free(s);
	}
	task_put(t);
	return ret;
}

/* Following a magic link goes to the file itself. */
static int proc_get_link(struct inode *inode, struct task *viewer, struct path *out)
{
	const struct proc_node *n = PI(inode)->node;
	struct task *t = proc_task(inode);
	int ret = -ENOENT;

	if (!t)
		return -ENOENT;
	if (n->kind == PK_FD) {
		struct file *f = t->files ? fd_get_raw(t->files, PI(inode)->fd) : NULL;
		if (f && f->path.dentry && f->path.mnt) {
			*out = f->path;
			path_get(out);
			ret = 0;
		} else if (f && hostfile_fd(f) >= 0) {
			ret = viewer ? hostfile_reopen_path(f, &viewer->creds, out) : -ENXIO;
		} else if (f) {
			ret = -ENXIO; /* nothing to open again */
		}
		if (f)
			file_put(f);
	} else if (n->kind == PK_NS) {
		ret = nsfs_path(t, n->name, out);
	} else if (n->kind == PK_EXE && t->exe.dentry) {
		*out = t->exe;
		path_get(out);
		ret = 0;
	} else if (t->fs && (n->kind == PK_CWD || n->kind == PK_ROOTDIR)) {
		if (n->kind == PK_CWD)
			fs_get_cwd(t->fs, out);
		else
			fs_get_root(t->fs, out);
		ret = 0;
	}
	task_put(t);
	return ret;
}

/* A task directory links each thread's directory: 2 + threads, as Linux's
 * proc_task_getattr. */
static int proc_getattr(struct inode *inode)
{
	if (PI(inode)->node->kind == PK_TASK_DIR) {
		int *ids = NULL;
		size_t n = 0;
		kernel_thread_ids(KERNEL_OF(inode->sb), PI(inode)->pid, &ids, &n);
		free(ids);
		inode->nlink = 2 + (uint32_t)n;
	}
	return 0;
}

/* open(O_TRUNC) of a writable file (echo N > oom_score_adj) truncates
 * nothing, as on Linux; modes and owners do not change (EPERM). */
static int proc_setattr(struct inode *inode, const struct iattr *attr)
{
	if (attr->valid & (ATTR_MODE | ATTR_UID | ATTR_GID))
		return -EPERM;
	return 0;
}

/* --- open files ----------------------------------------------------------------- */

/* What a generator or a write is told about the file's inode (the task is
 * the caller's to find). */
static struct proc_ctx proc_ctx_of(struct inode *inode)
{
	return (struct proc_ctx){.k = KERNEL_OF(inode->sb),
				 .id = PI(inode)->tid ? PI(inode)->tid : PI(inode)->pid,
				 .thread = PI(inode)->tid != 0,
				 .fd = PI(inode)->fd,
				 .view = PIDNS_OF(inode->sb),
				 .arg = PI(inode)->node->target};
}

/*
 * A file's text is made when it is first read, and again by a read at 0 or
 * one that does not start where the last one ended (a seek back), as Linux's
 * seq_file: a file opened while its process ran reads ESRCH once the
 * process is reaped, and a sysctl read after a write sees the new value.
 * PN_OPEN_TIME files (the id maps, which pin their namespace at open) are
 * made at open too, and keep their text once the process has no task left.
 */
struct proc_text {
	char *data;
	size_t len;
	bool made;
	int64_t end;	     /* where the last read ended */
	unsigned poll_event; /* PN_POLL_*: the name's change count last reported */
};

/* (Re)make f's text from the kernel's state now: 0, or -ESRCH when the
 * process is gone (a PN_OPEN_TIME file's text made before stays then). */
static int proc_make_text(struct inode *inode, struct proc_text *text)
{
	const struct proc_node *n = PI(inode)->node;
	struct proc_ctx c = proc_ctx_of(inode);
	struct strbuf sb;

	if (PI(inode)->pid) {
		c.t = proc_task(inode);
		c.mm = c.t ? task_mm_get(c.t) : NULL;
		if (!c.t && text->made && (n->flags & PN_OPEN_TIME))
			return 0;
		if (!c.t && !PI(inode)->tid)
			c.zombie = find_zombie(c.k, PI(inode)->pid);
		if (!c.t && !c.zombie)
			return -ESRCH;
	}
	strbuf_init(&sb);
	if (!c.zombie || (n->flags & PN_ZOMBIE))
		n->gen(&c, &sb);
	mm_put(c.mm);
	task_put(c.t);
	tg_put(c.zombie);
	free(text->data);
	text->data = strbuf_steal(&sb, &text->len);
	text->made = true;
	return 0;
}

static int proc_open(struct inode *inode, struct dentry *dentry, int flags, struct file **out)
{
	const struct proc_node *n = PI(inode)->node;
	struct proc_text *text;
	struct file *f;

	if (S_ISDIR(inode->mode)) {
		f = file_alloc(&proc_dir_ops, flags, NULL);
		f->fmode = FMODE_PREAD | FMODE_ATPOS;
		*out = f;
		return 0;
	}
	if (n->kind == PK_MEM) {
		struct task *t = proc_task(inode);
		int ret = t ? proc_mem_open(t, flags, out) : -ESRCH;
		task_put(t);
		return ret;
	}
	if (n->kind != PK_FILE)
		return -ENXIO;
	if (flags_writable(flags) && !n->write && PI(inode)->sysctl)
		return -EACCES; /* a sysctl without a handler (Linux's proc_sys_permission) */
	if (PI(inode)->pid) {
		struct task *t = proc_task(inode);
		struct thread_group *z =
			t || PI(inode)->tid ? NULL
					    : find_zombie(KERNEL_OF(inode->sb), PI(inode)->pid);
		bool gone = !t && !z,
		     denied = t && (n->flags & PN_PTRACE_READ) && !proc_may_read_task(t);
		if (!gone && (n->flags & (PN_MOUNTS | PN_MOUNTINFO))) {
			int ret = proc_mounts_open(t, n->flags & PN_MOUNTINFO, flags, out);
			task_put(t);
			tg_put(z);
			return ret;
		}
		task_put(t);
		tg_put(z);
		if (gone)
			return -ESRCH;
		if (denied)
			return -EACCES;
	}
	text = xzalloc(sizeof(*text));
	if (n->flags & (PN_POLL_HOST | PN_POLL_DOMAIN))
		text->poll_event = proc_name_poll_event(n->flags & PN_POLL_DOMAIN);
	if (n->flags & PN_OPEN_TIME) {
		int ret = proc_make_text(inode, text);
		if (ret < 0) {
			free(text);
			return ret;
		}
	}
	f = file_alloc(&proc_file_ops, flags, text);
	f->fmode = FMODE_PREAD | FMODE_ATPOS;
	*out = f;
	return 0;
}

/* A write to a writable file goes to its node at once (each write(2) is
 * one setting, as Linux's proc files take them). A file with no write
 * (that root could open) fails as Linux's proc_reg_write: EIO. */
static long proc_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	const struct proc_node *n = PI(f->inode)->node;
	struct proc_ctx c = proc_ctx_of(f->inode);
	struct proc_text *text = f->priv;
	long ret;

	if (!n->write)
		return -EIO;
	if (!len)
		return 0; /* as Linux: an empty write sets nothing */
	if (PI(f->inode)->pid) {
		c.t = proc_task(f->inode);
		if (!c.t)
			return -ESRCH;
		c.mm = task_mm_get(c.t);
	}
	ret = n->write(&c, buf, len);
	mm_put(c.mm);
	task_put(c.t);
	if (ret > 0)
		text->end = -1; /* the next read makes the text again: the new value */
	return ret;
}

static long proc_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct proc_text *text = f->priv;
	size_t n;

	if (!text->made || *pos == 0 || *pos != text->end) {
		int ret = proc_make_text(f->inode, text);
		if (ret < 0)
			return ret;
	}
	if ((uint64_t)*pos >= text->len) {
		text->end = *pos;
		return 0;
	}
	n = MIN(len, text->len - (size_t)*pos);
	memcpy(buf, text->data + *pos, n);
	*pos += (int64_t)n;
	text->end = *pos;
	return (long)n;
}

/* Linux's seq_lseek: from the start or the current position only; a
 * sysctl (default_llseek) also from its end, its size being 0. */
static int64_t proc_llseek(struct file *f, int64_t off, int whence)
{
	struct proc_text *text = f->priv;

	if (whence != SEEK_SET && whence != SEEK_CUR)
		return PI(f->inode)->sysctl ? generic_llseek(f, off, whence, 0) : -EINVAL;
	return generic_llseek(f, off, whence, (int64_t)text->len);
}

static unsigned proc_poll(struct file *f, struct poll_table *pt)
{
	const struct proc_node *n = PI(f->inode)->node;
	struct proc_text *text = f->priv;

	if (n->flags & (PN_POLL_HOST | PN_POLL_DOMAIN))
		return proc_name_poll(n->flags & PN_POLL_DOMAIN, &text->poll_event, pt);
	return PROC_DEFAULT_POLLMASK;
}

static void proc_release(struct file *f)
{
	struct proc_text *text = f->priv;

	free(text->data);
	free(text);
}

static int proc_fstat(struct file *f, struct kstat *st)
{
	inode_stat(f->inode, st);
	st->size = 0;
	return 0;
}

static const struct file_ops proc_file_ops = {
	.read = proc_read,
	.write = proc_write,
	.llseek = proc_llseek,
	.poll = proc_poll,
	.fstat = proc_fstat,
	.release = proc_release,
};

/* Directory listings: position 0/1 are "." and "..", then the fixed
 * entries at 2+i; numbered entries (pids, tids, fds) sit at a position
 * that is their number past a base, as Linux's, so that an entry that goes
 * away between two getdents calls (a closed fd, an exited process) moves
 * no other: a walk of /proc/self/fd that closes what it reads sees all. */
struct list_ctx {
	struct dir_emitter *e;
	struct file *f;
	int64_t idx;
	bool full;
};

/* The entry at position pos (ascending from one call to the next). */
static bool list_at(struct list_ctx *l, int64_t pos, const char *name, uint64_t ino, unsigned type)
{
	if (l->full)
		return false;
	l->idx = pos + 1;
	if (pos < l->f->pos)
		return true;
	if (!l->e->emit(l->e, name, strlen(name), ino, type, pos + 1)) {
		l->full = true;
		return false;
	}
	l->f->pos = pos + 1;
	return true;
}

static bool list_one(struct list_ctx *l, const char *name, uint64_t ino, unsigned type)
{
	return list_at(l, l->idx, name, ino, type);
}

struct id_nr {
	int nr, global;
};

struct pid_list {
	int *pids;
	size_t n, cap;
	struct id_nr *nrs; /* the ones the instance's namespace sees, by their number there */
	size_t nnr;
};

static int cmp_nr(const void *a, const void *b)
{
	const struct id_nr *x = a, *y = b;

	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* pl->nrs from pl->pids: each one's number in sb's namespace, in order. */
static void view_ids(struct super_block *sb, struct pid_list *pl)
{
	pl->nrs = xzalloc((pl->n ? pl->n : 1) * sizeof(*pl->nrs));
	for (size_t i = 0; i < pl->n; i++) {
		int nr = view_id(sb, pl->pids[i]);
		if (nr) /* else outside the instance's namespace */
			pl->nrs[pl->nnr++] = (struct id_nr){nr, pl->pids[i]};
	}
	qsort(pl->nrs, pl->nnr, sizeof(*pl->nrs), cmp_nr);
}

struct fd_list {
	int *fds;
	size_t n, cap;
};

static void collect_fd(int fd, struct file *file, void *arg)
{
	struct fd_list *fl = arg;

	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 64;
		fl->fds = xrealloc(fl->fds, fl->cap * sizeof(int));
	}
	fl->fds[fl->n++] = fd;
}

static int proc_getdents(struct file *f, struct dir_emitter *e)
{
	struct inode *dir = f->inode;
	const struct proc_node *n = PI(dir)->node, *c = NULL;
	struct list_ctx l = {.e = e, .f = f};
	int pid = PI(dir)->pid;
	int64_t base;
	char name[32];

	/* The directory of a reaped process lists nothing: ENOENT, as Linux's. */
	if (pid && n->kind != PK_DIR) {
		struct task *t = proc_task(dir);
		int gone = !t ? gone_errno(dir) : 0;
		task_put(t);
		if (gone == -ESRCH)
			return -ENOENT;
	}
	if (!list_one(&l, ".", dir->ino, DT_DIR) || !list_one(&l, "..", dir->ino, DT_DIR))
		return 0;
	switch (n->kind) {
	case PK_ROOT: {
		struct pid_list pl = {0};
		for (c = root_nodes; c->name; c++)
			if (!list_one(&l, c->name, proc_ino(c, 0, 0, -1), IFTODT(c->mode)))
				return 0;
		kernel_process_ids(KERNEL_OF(dir->sb), &pl.pids, &pl.n);
		view_ids(dir->sb, &pl);
		base = l.idx;
		for (size_t i = 0; i < pl.nnr; i++) {
			snprintf(name, sizeof(name), "%d", pl.nrs[i].nr);
			if (!list_at(&l, base + pl.nrs[i].nr, name,
				     proc_ino(&pid_node, pl.nrs[i].global, 0, -1), DT_DIR))
				break;
		}
		free(pl.nrs);
		free(pl.pids);
		return 0;
	}
	case PK_PID:
	case PK_DIR:
		for (c = n->children; c && c->name; c++)
			if (pid_node_listed(dir->sb, n, c) &&
			    !list_one(&l, c->name, proc_ino(c, pid, PI(dir)->tid, -1),
				      IFTODT(c->mode)))
				return 0;
		return 0;
	case PK_FD_DIR:
	case PK_FDINFO_DIR: {
		const struct proc_node *en = n->kind == PK_FD_DIR ? &fd_node : &fdinfo_node;
		struct task *t = proc_task(dir);
		struct fd_list fl = {0};
		if (t && t->files)
			fd_for_each(t->files, collect_fd, &fl);
		task_put(t);
		for (size_t i = 0; i < fl.n; i++) {
			snprintf(name, sizeof(name), "%d", fl.fds[i]);
			if (!list_at(&l, 2 + (int64_t)fl.fds[i], name,
				     proc_ino(en, pid, PI(dir)->tid, fl.fds[i]), IFTODT(en->mode)))
				break;
		}
		free(fl.fds);
		return 0;
	}
	case PK_TASK_DIR: {
		struct pid_list tl = {0};
		kernel_thread_ids(KERNEL_OF(dir->sb), pid, &tl.pids, &tl.n);
		view_ids(dir->sb, &tl);
		for (size_t i = 0; i < tl.nnr; i++) {
			snprintf(name, sizeof(name), "%d", tl.nrs[i].nr);
			if (!list_at(&l, 2 + (int64_t)tl.nrs[i].nr, name,
				     proc_ino(&tid_node, pid, tl.nrs[i].global, -1), DT_DIR))
				break;
		}
		free(tl.nrs);
		free(tl.pids);
		return 0;
	}
	default:
		return -ENOTDIR;
	}
}

static int64_t proc_dir_llseek(struct file *f, int64_t off, int whence)
{
	if (whence == SEEK_SET && off >= 0)
		return off;
	if (whence == SEEK_CUR && f->pos + off >= 0)
		return f->pos + off;
	if (whence == SEEK_END && off >= 0)
		return off; /* a directory's size is 0 here, as Linux's generic_file_llseek sees it */
	return -EINVAL;
}

static const struct file_ops proc_dir_ops = {
	.getdents = proc_getdents,
	.llseek = proc_dir_llseek,
	.fstat = proc_fstat,
};

static void proc_evict(struct inode *inode)
{
	free(inode->priv);
}

static const struct inode_ops proc_inode_ops = {
	.lookup = proc_lookup,
	.readlink = proc_readlink,
	.getattr = proc_getattr,
	.setattr = proc_setattr,
	.open = proc_open,
	.evict = proc_evict,
};

/* Magic links need get_link; plain ones (self, mounts) must not have it. */
static const struct inode_ops proc_magic_ops = {
	.readlink = proc_readlink,
	.get_link = proc_get_link,
	.getattr = proc_getattr,
	.evict = proc_evict,
};

static void proc_release_sb(struct super_block *sb)
{
	pidns_put(PIDNS_OF(sb));
	free(sb->priv);
}

static const struct super_ops proc_super_ops = {
	.release = proc_release_sb,
};

int procfs_dir_tgid(const struct inode *i)
{
	if (!i || i->sb->ops != &proc_super_ops || PI(i)->node != &pid_node)
		return 0;
	return PI(i)->pid;
}

struct super_block *procfs_new(struct kernel *k, struct pid_ns *pidns)
{
	struct super_block *sb = sb_new(&proc_super_ops, "proc", PROC_SUPER_MAGIC);
	struct proc_sb *ps = xzalloc(sizeof(*ps));
	struct inode *root;

	ps->k = k;
	ps->pidns = pidns_level(pidns) ? pidns_get(pidns) : NULL;
	sb->priv = ps;
	sb->cached = false;
	root = proc_inode(sb, &root_node, 0, -1);
	sb->root = dentry_make_root(sb, root);
	inode_put(root);
	return sb;
}
