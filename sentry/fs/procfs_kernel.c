/*
 * System-wide files of /proc made from the sandbox's own state:
 * /proc/devices (the character devices the sentry implements), /proc/cmdline,
 * the System V IPC limits of /proc/sys/kernel (shm*, sem, msg*: the IPC
 * namespace's), vm.max_map_count and vm.mmap_min_addr (what the memory
 * manager enforces), kernel.cap_last_cap and kernel.randomize_va_space
 * (exec randomizes the stack, mmap base, PIE load address and brk: 2).
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/devpts.h"
#include "sentry/ipc/ipc.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/uts.h"
#include "sentry/mm/mm.h"
#include "platform/platform.h"
#include "lib/strbuf.h"

#include <stdio.h>

void proc_gen_devices(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "Character devices:\n");
	chrdev_show(o);
	strbuf_printf(o, "%3d pts\n\nBlock devices:\n", PTY_SLAVE_MAJOR);
}

/* The sandbox's kernel has no boot loader: its release names the image. */
void proc_gen_cmdline_kernel(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "BOOT_IMAGE=/boot/vmlinuz-%s ro quiet\n", UTS_RELEASE);
}

static struct ipc_limits ipc_limits(struct kernel *k)
{
	struct ipc_ns *ns = ipc_ns_of(k);
	struct ipc_limits l;

	pthread_mutex_lock(&ns->lock);
	l = ns->lim;
	pthread_mutex_unlock(&ns->lock);
	return l;
}

void proc_gen_shmmax(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%llu\n", (unsigned long long)ipc_limits(c->k).shmmax);
}

void proc_gen_shmall(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%llu\n", (unsigned long long)ipc_limits(c->k).shmall);
}

void proc_gen_shmmni(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", ipc_limits(c->k).shmmni);
}

void proc_gen_sem(struct proc_ctx *c, struct strbuf *o)
{
	struct ipc_limits l = ipc_limits(c->k);

	strbuf_printf(o, "%u\t%u\t%u\t%u\n", l.semmsl, l.semmns, l.semopm, l.semmni);
}

void proc_gen_msgmax(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", ipc_limits(c->k).msgmax);
}

void proc_gen_msgmnb(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", ipc_limits(c->k).msgmnb);
}

void proc_gen_msgmni(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", ipc_limits(c->k).msgmni);
}

void proc_gen_max_map_count(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%u\n", MM_MAX_VMAS);
}

void proc_gen_mmap_min_addr(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%lu\n", (unsigned long)GUEST_MIN_ADDR);
}

void proc_gen_cap_last_cap(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "%d\n", CAP_LAST_CAP);
}

void proc_gen_randomize_va_space(struct proc_ctx *c, struct strbuf *o)
{
	strbuf_printf(o, "2\n");
}
