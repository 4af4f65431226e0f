/*
 * The host terminal as the guest's (rung do on a terminal): the guest's
 * stdio on the terminal, /dev/console and /dev/tty are files of one
 * guest tty whose session and foreground group are the guest's, whose
 * termios and window size are the host terminal's, and whose job control
 * (SIGTTIN, SIGTTOU) the sentry does. The host's keyboard signals to rung
 * reach the guest's foreground group through rung's signal thread.
 *
 * How the guest sees it: `rung do`'s program is a job that a shell started
 * on the terminal: it leads a process group of its own (pgid 1), in the
 * session it has outside (sid 0 seen from inside, as in a container), and
 * the terminal is that session's controlling terminal with the program's
 * group in the foreground. An init that leads a session of its own (a
 * container's, kernel_process.new_session) has it as its session's
 * controlling terminal, as runc's init does (setsid, TIOCSCTTY).
 * The stdio that is the terminal is /dev/console in the guest (ttyname,
 * /proc/self/fd); /dev/tty opens the caller's controlling terminal.
 */
#ifndef RUNG_HOSTTTY_H
#define RUNG_HOSTTTY_H

#include <stdbool.h>

#include "sentry/fs/hostjob.h" /* host_stop_self */
#include "sentry/vfs/vfs.h"

struct file;
struct kernel;
struct task;
struct thread_group;

/* Is the caller a job of a job-control shell on terminal fd: a process
 * group of its own, not the session's leader's? Before confinement. */
bool hosttty_job_control(int fd);
/*
 * fd (rung's own descriptor on its controlling terminal, kept) is the
 * guest's host terminal; job_control: rung stops on the host when the
 * guest's init stops (see hosttty_init_job). Before confinement.
 */
int hosttty_setup(struct kernel *k, int fd, bool job_control);

/* A guest file for host descriptor hostfd (taken): a terminal file when it
 * is the host terminal, else a plain host file. t: a task of the guest
 * (for /dev/console's path). */
struct file *hosttty_stdio_file(struct task *t, int hostfd);
/* Open /dev/console (the host terminal) or, for /dev/tty, a new file of
 * the terminal; -ENXIO without one. */
int hosttty_open_console(struct inode *inode, int flags, struct file **out);
/* The init's session gets the host terminal as its controlling terminal. */
void hosttty_attach_init(struct thread_group *tg);

/* Host signals to rung (its signal thread). SIGINT, SIGQUIT, SIGTSTP: to
 * the foreground group of the guest session the terminal controls; false
 * when no guest session has it. */
bool hosttty_forward_signal(int sig);
/* SIGWINCH: the host terminal's new size for the guest. */
void hosttty_resized(void);
/* SIGCONT: rung runs again; a guest init it stopped for goes on too. */
void hosttty_continued(struct kernel *k);
/* kernel_config.init_job_stop: the guest's init stopped (why CLD_STOPPED,
 * by sig) or continued; rung, a job on the host, stops with it. */
void hosttty_init_job(struct kernel *k, int why, int sig);

#endif
