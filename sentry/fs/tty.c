/*
 * What every terminal does, whatever drives it (Linux's tty_jobctrl.c,
 * the generic half of tty_io.c and tty_ioctl.c): controlling terminals and
 * sessions, the foreground process group, job-control checks, hang-ups,
 * and the ioctls that are the same for every terminal.
 */
#include "config.h"
#include "sentry/fs/tty.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <termios.h>

#ifndef BOTHER
#define BOTHER 0x00001000
#endif
#ifndef IBSHIFT
#define IBSHIFT 16
#endif
#define N_TTY	     0
#define NR_LDISCS    31
#define TTY_TCGETS2  _IOR('T', 0x2A, struct ktermios)
#define TTY_TCSETS2  _IOW('T', 0x2B, struct ktermios)
#define TTY_TCSETSW2 _IOW('T', 0x2C, struct ktermios)
#define TTY_TCSETSF2 _IOW('T', 0x2D, struct ktermios)

_Static_assert(sizeof(struct ktermios) == KTERMIOS2_SIZE, "struct termios2 is 44 bytes");

void tty_init(struct tty *tty, struct kernel *k, const struct tty_ops *ops, uint64_t rdev)
{
	tty->k = k;
	tty->ops = ops;
	tty->rdev = rdev;
	tty->session = TTY_NONE;
	tty->pgrp = TTY_NONE;
	pthread_mutex_init(&tty->resize, NULL);
}

/* --- speeds ---------------------------------------------------------------------- */

static const uint32_t bauds[] = {
	0,	 50,	  75,	   110,	    134,     150,     200,     300,
	600,	 1200,	  1800,	   2400,    4800,    9600,    19200,   38400,
	57600,	 115200,  230400,  460800,  500000,  576000,  921600,  1000000,
	1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
};

uint32_t tty_baud(uint32_t code)
{
	code &= CBAUD;
	if (code & CBAUDEX) {
		code = (code & ~CBAUDEX) + 15;
		if (code < 16 || code >= ARRAY_SIZE(bauds))
			return 0;
	}
	return code < ARRAY_SIZE(bauds) ? bauds[code] : 0;
}

void tty_termios_speeds(struct ktermios *kt)
{
	uint32_t in = (kt->c_cflag >> IBSHIFT) & CBAUD;

	if ((kt->c_cflag & CBAUD) != BOTHER)
		kt->c_ospeed = tty_baud(kt->c_cflag);
	if (in == BOTHER)
		return;
	kt->c_ispeed = in == 0 ? kt->c_ospeed : tty_baud(in);
}

/* --- signals to groups ------------------------------------------------------------ */

/* Send info to every live process of group pgrp; k->lock held. */
static void kill_pgrp_info_locked(struct kernel *k, int pgrp, const siginfo_t *info)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode)
		if (tg->pgid == pgrp && !(tg->flags & (TG_ZOMBIE | TG_REAPED)))
			signal_send_tg_locked(tg, info);
}

void tty_kill_pgrp_locked(struct kernel *k, int pgrp, int sig)
{
	siginfo_t info;

	siginfo_kernel(&info, sig);
	kill_pgrp_info_locked(k, pgrp, &info);
}

void tty_signal_fg(struct tty *tty, int sig)
{
	pthread_mutex_lock(&tty->k->lock);
	if (tty->pgrp != TTY_NONE)
		tty_kill_pgrp_locked(tty->k, tty->pgrp, sig);
	pthread_mutex_unlock(&tty->k->lock);
}

int tty_fg_pgrp(struct tty *tty)
{
	int pgrp;

	pthread_mutex_lock(&tty->k->lock);
	pgrp = tty->pgrp;
	pthread_mutex_unlock(&tty->k->lock);
	return pgrp;
}

/* Does t ignore or block sig (so that a terminal does not stop it)? k->lock held. */
static bool sig_ignored_or_blocked(struct task *t, int sig)
{
	return (t->sigmask & SIGBIT(sig)) ||
	       t->sighand->action[sig - 1].handler == (uint64_t)(uintptr_t)SIG_IGN;
}

int tty_check_change(struct tty *tty, int sig)
{
	struct task *t = current_task();
	struct kernel *k = tty->k;
	int ret = 0;

	if (!t)
		return 0;
	pthread_mutex_lock(&k->lock);
	if (t->tg->tty != tty || tty->pgrp == TTY_NONE || tty->pgrp == t->tg->pgid) {
		ret = 0;
	} else if (sig_ignored_or_blocked(t, sig)) {
		ret = sig == SIGTTIN ? -EIO : 0;
	} else if (pgrp_orphaned_locked(k, t->tg->pgid)) {
		ret = -EIO;
	} else {
		tty_kill_pgrp_locked(k, t->tg->pgid, sig);
		ret = -ERESTARTSYS;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* --- controlling terminals --------------------------------------------------------- */

/* Every process of session sid loses its controlling terminal; k->lock held. */
static void session_clear_tty_locked(struct kernel *k, int sid)
{
	struct thread_group *tg;

	list_for_each_entry(tg, &k->groups, knode)
		if (tg->sid == sid)
			tg->tty = NULL;
}

void tty_set_ctty_locked(struct tty *tty, struct thread_group *tg)
{
	tty->session = tg->sid;
	tty->pgrp = tg->pgid;
	tg->tty = tty;
	tg->has_tty_old_pgrp = false;
}

static bool is_session_leader(struct thread_group *tg)
{
	return tg->sid == tg->tgid;
}

void tty_open_ctty(struct task *t, struct tty *tty, struct file *f)
{
	struct kernel *k = tty->k;
	struct thread_group *tg = t->tg;

	if (!flags_readable(f->flags))
		return;
	pthread_mutex_lock(&k->lock);
	if (is_session_leader(tg) && !tg->tty && tty->session == TTY_NONE)
		tty_set_ctty_locked(tty, tg);
	pthread_mutex_unlock(&k->lock);
}

int tty_open_current(struct inode *inode, int flags, struct file **out)
{
	struct task *t = current_task();
	struct tty *tty;
	int ret;

	if (!t)
		return -ENXIO;
	pthread_mutex_lock(&t->k->lock);
	tty = t->tg->tty;
	if (tty && tty->ops->get)
		tty->ops->get(tty);
	pthread_mutex_unlock(&t->k->lock);
	if (!tty)
		return -ENXIO;
	ret = tty->ops->reopen(tty, flags, out);
	if (ret == 0)
		(*out)->inode = inode_get(inode);
	if (tty->ops->put)
		tty->ops->put(tty);
	return ret;
}

void tty_open_ctty_file(struct task *t, struct file *f)
{
	bool master;
	struct tty *tty = pty_file_tty(f, &master);

	if (tty && !master && f->inode && f->inode->rdev != DEV_TTY)
		tty_open_ctty(t, tty, f);
}

/* TIOCSCTTY: a session leader takes tty (arg 1 and CAP_SYS_ADMIN: even
 * from another session). */
static long tiocsctty(struct tty *tty, struct file *f, long arg)
{
	struct task *t = current_task();
	struct kernel *k = tty->k;
	struct thread_group *tg = t->tg;
	bool admin = creds_capable(&t->creds, KCAP_SYS_ADMIN);
	long ret = 0;

	pthread_mutex_lock(&k->lock);
	if (is_session_leader(tg) && tty->session == tg->sid)
		goto out; /* already ours */
	if (!is_session_leader(tg) || tg->tty) {
		ret = -EPERM;
		goto out;
	}
	if (tty->session != TTY_NONE) {
		if (arg != 1 || !admin) {
			ret = -EPERM;
			goto out;
		}
		session_clear_tty_locked(k, tty->session); /* steal it */
	}
	if (!flags_readable(file_getfl(f)) && !admin) {
		ret = -EPERM;
		goto out;
	}
	tty_set_ctty_locked(tty, tg);
out:
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* TIOCNOTTY: the caller gives its controlling terminal up; a session leader
 * takes it from the whole session, with SIGHUP and SIGCONT to the
 * foreground group (Linux's disassociate_ctty(0)). */
static long tiocnotty(struct tty *tty)
{
	struct task *t = current_task();
	struct kernel *k = tty->k;
	struct thread_group *tg = t->tg;
	long ret = 0;

	pthread_mutex_lock(&k->lock);
	if (tg->tty != tty) {
		ret = -ENOTTY;
	} else {
		if (is_session_leader(tg)) {
			if (tty->pgrp != TTY_NONE) {
				siginfo_t info;
				siginfo_user(&info, SIGHUP, t);
				kill_pgrp_info_locked(k, tty->pgrp, &info);
				siginfo_user(&info, SIGCONT, t);
				kill_pgrp_info_locked(k, tty->pgrp, &info);
			}
			tg->has_tty_old_pgrp = false;
			tty->session = tty->pgrp = TTY_NONE;
			session_clear_tty_locked(k, tg->sid);
		}
		tg->tty = NULL;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

void tty_session_leader_exit_locked(struct thread_group *tg)
{
	struct tty *tty = tg->tty;
	struct kernel *k = tg->k;

	if (tty) {
		/* A pty's foreground group gets SIGHUP; Linux hangs other
		 * terminals up, whose foreground group then gets SIGHUP and
		 * SIGCONT: the host terminal is never hung up by a guest. */
		if (tty->pgrp != TTY_NONE) {
			tty_kill_pgrp_locked(k, tty->pgrp, SIGHUP);
			if (!tty->pty)
				tty_kill_pgrp_locked(k, tty->pgrp, SIGCONT);
		}
		tty->session = tty->pgrp = TTY_NONE;
	} else if (tg->has_tty_old_pgrp) {
		tty_kill_pgrp_locked(k, tg->tty_old_pgrp, SIGHUP);
		tty_kill_pgrp_locked(k, tg->tty_old_pgrp, SIGCONT);
	}
	tg->has_tty_old_pgrp = false;
	session_clear_tty_locked(k, tg->sid);
}

void tty_hangup(struct tty *tty)
{
	struct kernel *k = tty->k;
	struct thread_group *tg;
	siginfo_t info;

	pthread_mutex_lock(&k->lock);
	if (tty->session != TTY_NONE) {
		list_for_each_entry(tg, &k->groups, knode) {
			if (tg->sid != tty->session || (tg->flags & (TG_ZOMBIE | TG_REAPED)))
				continue;
			if (tg->tty == tty)
				tg->tty = NULL;
			if (!is_session_leader(tg))
				continue;
			siginfo_kernel(&info, SIGHUP);
			signal_send_tg_locked(tg, &info);
			siginfo_kernel(&info, SIGCONT);
			signal_send_tg_locked(tg, &info);
			if (tty->pgrp != TTY_NONE) {
				tg->has_tty_old_pgrp = true;
				tg->tty_old_pgrp = tty->pgrp;
			}
		}
	}
	tty->session = tty->pgrp = TTY_NONE;
	pthread_mutex_unlock(&k->lock);
}

void tty_forget(struct tty *tty)
{
	struct kernel *k = tty->k;
	struct thread_group *tg;

	pthread_mutex_lock(&k->lock);
	list_for_each_entry(tg, &k->groups, knode)
		if (tg->tty == tty)
			tg->tty = NULL;
	tty->session = tty->pgrp = TTY_NONE;
	pthread_mutex_unlock(&k->lock);
	pthread_mutex_destroy(&tty->resize);
}

/* --- process groups --------------------------------------------------------------- */

/* The session of the process group or process pgrp (Linux's
 * session_of_pgrp over find_vpid): its sid; TTY_NONE when the id is in use
 * but names neither; -ESRCH when nothing uses it. k->lock held. */
static int session_of_pgrp_locked(struct kernel *k, int pgrp)
{
	struct thread_group *tg;
	bool used = false;

	if (pgrp == 0)
		return -ESRCH; /* the init's group is outside the namespace */
	list_for_each_entry(tg, &k->groups, knode) {
		if (tg->flags & TG_REAPED)
			continue;
		if (tg->pgid == pgrp)
			return tg->sid;
		used = used || tg->sid == pgrp;
	}
	tg = kernel_find_tg_locked(k, pgrp, true);
	if (tg)
		return tg->sid;
	return used ? TTY_NONE : -ESRCH;
}

static long tiocspgrp(struct tty *tty, int pgrp)
{
	struct task *t = current_task();
	struct kernel *k = tty->k;
	struct thread_group *tg = t->tg;
	int ret = tty_check_change(tty, SIGTTOU);
	int sid;

	if (ret == -EIO)
		return -ENOTTY;
	if (ret)
		return ret;
	if (pgrp < 0)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	if (tg->tty != tty || tty->session != tg->sid) {
		ret = -ENOTTY;
	} else {
		sid = session_of_pgrp_locked(k, pgrp);
		if (sid == -ESRCH)
			ret = -ESRCH;
		else if (sid != tg->sid)
			ret = -EPERM;
		else
			tty->pgrp = pgrp;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* TIOCGPGRP and TIOCGSID: the caller's own terminal, or through the master. */
static long tiocgid(struct tty *tty, bool master, bool sid, int *out)
{
	struct task *t = current_task();
	struct kernel *k = tty->k;
	long ret = 0;

	pthread_mutex_lock(&k->lock);
	if (!master && t->tg->tty != tty)
		ret = -ENOTTY;
	else if (sid)
		ret = tty->session == TTY_NONE ? -ENOTTY : (*out = tty->session, 0);
	else
		*out = tty->pgrp == TTY_NONE ? 0 : tty->pgrp;
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* --- termios ----------------------------------------------------------------------- */

/* struct termio, the old System V form (16-bit flags, 8 control characters). */
struct ktermio {
	uint16_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[8];
};

static long set_termios(struct tty *tty, unsigned long cmd, const void *arg)
{
	struct ktermios kt;
	int ret = tty_check_change(tty, SIGTTOU);
	int when;

	if (ret)
		return ret;
	ret = tty->ops->get_termios(tty, &kt);
	if (ret)
		return ret;
	switch (cmd) {
	case TCSETA:
	case TCSETAW:
	case TCSETAF: {
		const struct ktermio *o = arg;
		kt.c_iflag = (kt.c_iflag & 0xffff0000u) | o->c_iflag;
		kt.c_oflag = (kt.c_oflag & 0xffff0000u) | o->c_oflag;
		kt.c_cflag = (kt.c_cflag & 0xffff0000u) | o->c_cflag;
		kt.c_lflag = (kt.c_lflag & 0xffff0000u) | o->c_lflag;
		kt.c_line = o->c_line;
		memcpy(kt.c_cc, o->c_cc, sizeof(o->c_cc));
		break;
	}
	case TTY_TCSETS2:
	case TTY_TCSETSW2:
	case TTY_TCSETSF2:
		memcpy(&kt, arg, KTERMIOS2_SIZE);
		break;
	default:
		memcpy(&kt, arg, KTERMIOS_SIZE);
		break;
	}
	tty_termios_speeds(&kt);
	switch (cmd) {
	case TCSETSW:
	case TCSETAW:
	case TTY_TCSETSW2:
		when = TTY_SET_DRAIN;
		break;
	case TCSETSF:
	case TCSETAF:
	case TTY_TCSETSF2:
		when = TTY_SET_FLUSH;
		break;
	default:
		when = TTY_SET_NOW;
		break;
	}
	return tty->ops->set_termios(tty, &kt, when);
}

static long get_termios(struct tty *tty, unsigned long cmd, void *arg)
{
	struct ktermios kt;
	int ret = tty->ops->get_termios(tty, &kt);

	if (ret)
		return ret;
	if (cmd == TCGETA) {
		struct ktermio o = {
			.c_iflag = (uint16_t)kt.c_iflag,
			.c_oflag = (uint16_t)kt.c_oflag,
			.c_cflag = (uint16_t)kt.c_cflag,
			.c_lflag = (uint16_t)kt.c_lflag,
			.c_line = kt.c_line,
		};
		memcpy(o.c_cc, kt.c_cc, sizeof(o.c_cc));
		memcpy(arg, &o, KTERMIO_SIZE);
	} else {
		memcpy(arg, &kt, cmd == TCGETS ? KTERMIOS_SIZE : KTERMIOS2_SIZE);
	}
	return 0;
}

static long set_softcar(struct tty *tty, int on)
{
	struct ktermios kt;
	int ret = tty->ops->get_termios(tty, &kt);

	if (ret)
		return ret;
	kt.c_cflag = (kt.c_cflag & ~(uint32_t)CLOCAL) | (on ? CLOCAL : 0);
	return tty->ops->set_termios(tty, &kt, TTY_SET_NOW);
}

/* TIOCSWINSZ: a new size signals the foreground group. */
static long set_winsize(struct tty *tty, const struct winsize *ws)
{
	struct winsize old;
	long ret;

	pthread_mutex_lock(&tty->resize);
	ret = tty->ops->get_winsize(tty, &old);
	if (ret == 0 && memcmp(&old, ws, sizeof(old)) != 0) {
		ret = tty->ops->set_winsize(tty, ws);
		if (ret == 0)
			tty_signal_fg(tty, SIGWINCH);
	}
	pthread_mutex_unlock(&tty->resize);
	return ret;
}

uint32_t tty_encode_dev(uint64_t rdev)
{
	uint32_t ma = major(rdev), mi = minor(rdev);

	return (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);
}

long tty_ioctl(struct tty *tty, struct file *f, bool master, unsigned long cmd, void *arg)
{
	struct task *t = current_task();
	long v = *(long *)arg;
	long ret;

	switch (cmd) {
	/* job control */
	case TIOCSCTTY:
		return tiocsctty(tty, f, v);
	case TIOCNOTTY:
		return master ? -ENOTTY : tiocnotty(tty);
	case TIOCGPGRP:
		return tiocgid(tty, master, false, arg);
	case TIOCGSID:
		return tiocgid(tty, master, true, arg);
	case TIOCSPGRP:
		return tiocspgrp(tty, *(int *)arg);
	/* termios and window size */
	case TCGETS:
	case TCGETA:
	case TTY_TCGETS2:
		return get_termios(tty, cmd, arg);
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
	case TCSETA:
	case TCSETAW:
	case TCSETAF:
	case TTY_TCSETS2:
	case TTY_TCSETSW2:
	case TTY_TCSETSF2:
		return set_termios(tty, cmd, arg);
	case TIOCGWINSZ:
		return tty->ops->get_winsize(tty, arg);
	case TIOCSWINSZ:
		return set_winsize(tty, arg);
	case TIOCGSOFTCAR: {
		struct ktermios kt;
		ret = tty->ops->get_termios(tty, &kt);
		if (ret == 0)
			*(int *)arg = (kt.c_cflag & CLOCAL) ? 1 : 0;
		return ret;
	}
	case TIOCSSOFTCAR:
		return set_softcar(tty, *(int *)arg);
	/* exclusive mode, line discipline, device */
	case TIOCEXCL:
	case TIOCNXCL:
		tty->exclusive = cmd == TIOCEXCL;
		return 0;
	case TIOCGEXCL:
		*(int *)arg = tty->exclusive;
		return 0;
	case TIOCGETD:
		*(int *)arg = N_TTY;
		return 0;
	case TIOCSETD:
		ret = tty_check_change(tty, SIGTTOU);
		if (ret)
			return ret;
		return *(int *)arg == N_TTY ? 0 : -EINVAL;
	case TIOCGDEV:
		*(uint32_t *)arg = tty_encode_dev(tty->rdev);
		return 0;
	/* what changes the line: only from the foreground */
	case TCSBRK:
	case TCSBRKP:
	case TIOCSBRK:
	case TCFLSH:
	case TCXONC:
		ret = tty_check_change(tty, SIGTTOU);
		if (ret)
			return ret;
		break;
	case TIOCSTI:
		/* Faking input needs CAP_SYS_ADMIN (Linux with
		 * dev.tty.legacy_tiocsti=0). */
		if (!t || !creds_capable(&t->creds, KCAP_SYS_ADMIN))
			return -EIO;
		break;
	default:
		break;
	}
	return tty->ops->ioctl(tty, f, master, cmd, arg);
}

/* --- files ---------------------------------------------------------------------------- */

struct tty *tty_of_file(struct file *f, bool *master)
{
	struct tty *tty = pty_file_tty(f, master);

	if (tty)
		return tty;
	*master = false;
	return hosttty_file_tty(f);
}
