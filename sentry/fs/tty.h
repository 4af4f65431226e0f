/*
 * Terminals: what every guest terminal shares (Linux's tty_struct and
 * tty_io.c/tty_jobctrl.c/tty_ioctl.c): the session it controls and its
 * foreground process group, job control (SIGTTIN, SIGTTOU), the ioctls
 * every terminal answers, and hang-ups. A driver provides termios, window
 * size and data: the pty pairs of sentry/fs/pty.c (line discipline in the
 * sentry) and the host terminal of sentry/fs/hosttty.c (passed through).
 *
 * Locking: tty->session and tty->pgrp, like thread_group->tty, are under
 * the kernel's task lock (k->lock). A driver's own lock may be held when
 * k->lock is taken, never the other way round.
 *
 * Lifetime: thread_group->tty holds no reference. Whatever frees a tty
 * first calls tty_forget(), which clears every group's pointer to it.
 */
#ifndef RUNG_TTY_H
#define RUNG_TTY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>

struct file;
struct inode;
struct kernel;
struct task;
struct thread_group;

/* The kernel's struct termios2 (struct termios is its first 36 bytes). */
#define TTY_NCCS 19
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[TTY_NCCS];
	uint32_t c_ispeed, c_ospeed;
};
#define KTERMIOS_SIZE  36 /* TCGETS, TCSETS* */
#define KTERMIOS2_SIZE 44 /* TCGETS2, TCSETS2* */
#define KTERMIO_SIZE   18 /* struct termio: TCGETA, TCSETA* */

/* A process id that is none (0 is a real group in the sandbox: the init's,
 * which comes from outside the pid namespace). */
#define TTY_NONE (-1)

/* How set_termios applies (the TCSETS* flavours). */
#define TTY_SET_NOW   0
#define TTY_SET_DRAIN 1 /* after the output is written */
#define TTY_SET_FLUSH 2 /* after that, discarding unread input */

struct tty;

struct tty_ops {
	int (*get_termios)(struct tty *tty, struct ktermios *kt);
	int (*set_termios)(struct tty *tty, const struct ktermios *kt, int when);
	int (*get_winsize)(struct tty *tty, struct winsize *ws);
	int (*set_winsize)(struct tty *tty, const struct winsize *ws);
	/* The driver's own ioctls (arg: the sentry's copy); master: the file
	 * is a pty master. -ENOTTY for what it does not know. */
	long (*ioctl)(struct tty *tty, struct file *f, bool master, unsigned long cmd, void *arg);
	/* A new file on the terminal for /dev/tty, or -errno. */
	int (*reopen)(struct tty *tty, int flags, struct file **out);
	/* References on the driver's object (NULL: it is never freed). */
	void (*get)(struct tty *tty);
	void (*put)(struct tty *tty);
};

struct tty {
	struct kernel *k;
	const struct tty_ops *ops;
	uint64_t rdev;		/* the device it is (TIOCGDEV) */
	bool pty;		/* a pty slave (the rules on a leader's exit differ) */
	pthread_mutex_t resize; /* orders TIOCSWINSZ: compare, set, SIGWINCH */
	int session;		/* under k->lock: the session it controls, or TTY_NONE */
	int pgrp;		/* under k->lock: the foreground group, or TTY_NONE */
	bool exclusive;		/* TIOCEXCL: no more opens but by CAP_SYS_ADMIN */
};

void tty_init(struct tty *tty, struct kernel *k, const struct tty_ops *ops, uint64_t rdev);

/*
 * The ioctls of every terminal (job control, termios, window size, line
 * discipline, break, ...), then the driver's. arg is the sentry's copy of
 * the argument (or the value itself, as a long, for requests that take
 * one). master: f is the master of a pty whose slave tty is.
 */
long tty_ioctl(struct tty *tty, struct file *f, bool master, unsigned long cmd, void *arg);

/*
 * Linux's tty_check_change: may the calling task use its controlling
 * terminal tty for what sig guards (SIGTTIN: reading, SIGTTOU: writing with
 * TOSTOP, changing settings)? 0; -EIO (orphaned, or SIGTTIN ignored or
 * blocked); -ERESTARTSYS after sending sig to the caller's process group.
 */
int tty_check_change(struct tty *tty, int sig);

/* Send sig (from the kernel) to process group pgrp; k->lock held. */
void tty_kill_pgrp_locked(struct kernel *k, int pgrp, int sig);
/* The same for the terminal's foreground group, if it has one. */
void tty_signal_fg(struct tty *tty, int sig);
/* The foreground group now, or TTY_NONE. */
int tty_fg_pgrp(struct tty *tty);

/*
 * Opening a terminal file without O_NOCTTY: a session leader without a
 * controlling terminal gets this one if no session has it (and the file
 * is open for reading).
 */
void tty_open_ctty(struct task *t, struct tty *tty, struct file *f);
/* The same for any file open() made: only a pty slave's node gives a
 * controlling terminal (not /dev/tty, /dev/console or a master). */
void tty_open_ctty_file(struct task *t, struct file *f);
/* /dev/tty: a new file of the caller's controlling terminal (its inode:
 * the node opened), or -ENXIO. */
int tty_open_current(struct inode *inode, int flags, struct file **out);
/* Make tty the controlling terminal of tg's session; k->lock held. */
void tty_set_ctty_locked(struct tty *tty, struct thread_group *tg);

/*
 * The terminal hangs up (a pty's master closed): every process of its
 * session loses it, the session's leader gets SIGHUP and SIGCONT, and
 * the foreground group then gets SIGHUP when the leader exits.
 */
void tty_hangup(struct tty *tty);
/* tty goes away: no group keeps pointing at it. */
void tty_forget(struct tty *tty);

/* A session leader's process exits (Linux's disassociate_ctty(1)); k->lock held. */
void tty_session_leader_exit_locked(struct thread_group *tg);

/* The terminal a guest file is (a pty side, the host terminal), or NULL;
 * *master tells a pty's master. */
struct tty *tty_of_file(struct file *f, bool *master);

/* The drivers' halves of tty_of_file (sentry/fs/pty.c, hosttty.c). */
struct tty *pty_file_tty(struct file *f, bool *master);
struct tty *hosttty_file_tty(struct file *f);

/* A device number as the kernel's interfaces give it (new_encode_dev:
 * TIOCGDEV, /proc/pid/stat's tty_nr). */
uint32_t tty_encode_dev(uint64_t rdev);
/* The speed (bits/s) of a CBAUD code of c_cflag, 0 for none. */
uint32_t tty_baud(uint32_t code);
/* The speed fields the kernel derives from c_cflag (TCSETS). */
void tty_termios_speeds(struct ktermios *kt);

#endif
