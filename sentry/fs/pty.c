/*
 * Pseudo-terminal pairs, with the line discipline of the slave in the
 * sentry (Linux's drivers/tty/pty.c and n_tty.c, whose behaviour this
 * follows, echoes included).
 *
 * Data paths:
 *   master write -> flip (raw bytes) -> line discipline -> rbuf -> slave read
 *                                       (echoes, signals) -> out
 *   slave write -> output processing (OPOST) -> out -> master read
 * The line discipline takes bytes from the flip buffer as long as it has
 * room (4095 bytes, as N_TTY_BUF_SIZE gives), so a master writer blocks only
 * when both are full. Everything is under pty->lock; signals (ISIG, hang-up)
 * take the kernel's task lock inside it.
 *
 * The input buffer is a ring indexed by free-running counters:
 *   rtail <= canon_head <= rhead
 * [rtail, canon_head) holds finished lines (canonical mode: each ends in a
 * byte flagged RF_DELIM; RF_EOF marks an EOF that is not returned),
 * [canon_head, rhead) the line being edited. In non-canonical mode all of
 * [rtail, rhead) is readable.
 */
#include "config.h"
#include "sentry/fs/pty.h"
#include "sentry/fs/devices.h"
#include "sentry/fs/devpts.h"
#include "sentry/fs/file.h"
#include "sentry/fs/tty.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/util.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>

#define N_TTY_BUF    4096 /* the line discipline's buffer */
#define N_TTY_MASK   (N_TTY_BUF - 1)
#define PTY_FLIP     65536 /* master writes waiting for the line discipline */
#define PTY_OUT	     65536 /* slave output waiting for the master */
#define PTY_OUT_KEEP 4096  /* what a keyboard signal's flush leaves (the master's own buffer) */

#define RF_DELIM 0x1 /* a line ends here */
#define RF_EOF	 0x2 /* ... with an EOF character, which is not read */

#define TIOCSIG_ _IOW('T', 0x36, int)

/* A byte ring. */
struct ring {
	uint8_t *buf;
	size_t cap, head, len;
};

struct pty {
	int refs;
	struct tty tty; /* the slave's terminal: session, foreground group */
	struct devpts *fs;
	struct super_block *sb; /* keeps fs while the number is ours */
	int index;

	pthread_mutex_t lock;
	struct ktermios termios;
	struct winsize ws;
	bool locked;	   /* TIOCSPTLCK: the slave cannot be opened */
	bool master_open;  /* false once the master closed: the slave is hung up */
	bool other_closed; /* every slave file closed (since one was opened) */
	unsigned slaves;   /* open slave files */

	/* The slave's line discipline. */
	uint8_t rbuf[N_TTY_BUF], rflags[N_TTY_BUF];
	size_t rtail, canon_head, rhead;
	bool lnext, erasing;
	bool stopped, tco_stopped; /* output stopped (^S, TCOOFF) */
	unsigned column, canon_column;

	struct ring flip, out;
	struct waitq srq, swq; /* the slave waits to read, to write */
	struct waitq mrq, mwq; /* the master waits to read, to write */
};

#define L(p, f)	 (((p)->termios.c_lflag & (f)) != 0)
#define I(p, f)	 (((p)->termios.c_iflag & (f)) != 0)
#define O(p, f)	 (((p)->termios.c_oflag & (f)) != 0)
#define CC(p, i) ((p)->termios.c_cc[i])

static const struct file_ops ptm_fops, pts_fops;
static const struct tty_ops pty_tty_ops;

/* --- rings ------------------------------------------------------------------------ */

static void ring_init(struct ring *r, size_t cap)
{
	r->buf = xmalloc(cap);
	r->cap = cap;
	r->head = r->len = 0;
}

static size_t ring_space(const struct ring *r)
{
	return r->cap - r->len;
}

static size_t ring_put(struct ring *r, const void *src, size_t n)
{
	size_t done = 0;

	while (done < n && r->len < r->cap) {
		size_t tail = (r->head + r->len) % r->cap;
		size_t k = MIN(n - done, MIN(r->cap - r->len, r->cap - tail));
		memcpy(r->buf + tail, (const uint8_t *)src + done, k);
		r->len += k;
		done += k;
	}
	return done;
}

static void ring_putc(struct ring *r, uint8_t c)
{
	ring_put(r, &c, 1);
}

static size_t ring_get(struct ring *r, void *dst, size_t n)
{
	size_t done = 0;

	while (done < n && r->len) {
		size_t k = MIN(n - done, MIN(r->len, r->cap - r->head));
		memcpy((uint8_t *)dst + done, r->buf + r->head, k);
		r->head = (r->head + k) % r->cap;
		r->len -= k;
		done += k;
	}
	if (!r->len)
		r->head = 0;
	return done;
}

/* Drop all but the first keep bytes. */
static void ring_truncate(struct ring *r, size_t keep)
{
	if (r->len > keep)
		r->len = keep;
}

/* --- lifetime --------------------------------------------------------------------- */

struct pty *pty_get(struct pty *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void pty_put(struct pty *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	tty_forget(&p->tty);
	devpts_free_index(p->fs, p->index);
	sb_put(p->sb);
	free(p->flip.buf);
	free(p->out.buf);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* A slave's termios as Linux starts it (tty_std_termios, pty flavour). */
static void std_termios(struct ktermios *t)
{
	static const uint8_t cc[TTY_NCCS] = {
		[VINTR] = 003,	[VQUIT] = 034, [VERASE] = 0177,	 [VKILL] = 025,	   [VEOF] = 004,
		[VTIME] = 0,	[VMIN] = 1,    [VSWTC] = 0,	 [VSTART] = 021,   [VSTOP] = 023,
		[VSUSP] = 032,	[VEOL] = 0,    [VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027,
		[VLNEXT] = 026, [VEOL2] = 0,
	};

	memset(t, 0, sizeof(*t));
	t->c_iflag = ICRNL | IXON;
	t->c_oflag = OPOST | ONLCR;
	t->c_cflag = B38400 | CS8 | CREAD;
	t->c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN;
	memcpy(t->c_cc, cc, sizeof(cc));
	t->c_ispeed = t->c_ospeed = 38400;
}

/* --- output (Linux's do_output_char) ------------------------------------------------ */

static bool is_continuation(struct pty *p, uint8_t c)
{
	return I(p, IUTF8) && (c & 0xc0) == 0x80;
}

static bool is_cntrl(uint8_t c)
{
	return c < 32 || c == 127;
}

/* Put c on the output, processed by OPOST rules. Returns the bytes it took
 * there, or -1 when there is no room for them. */
static int out_char(struct pty *p, uint8_t c)
{
	size_t space = ring_space(&p->out);
	unsigned spaces;

	if (!O(p, OPOST)) {
		if (!space)
			return -1;
		ring_putc(&p->out, c);
		return 1;
	}
	switch (c) {
	case '\n':
		if (O(p, ONLRET))
			p->column = 0;
		if (O(p, ONLCR)) {
			if (space < 2)
				return -1;
			p->canon_column = p->column = 0;
			ring_put(&p->out, "\r\n", 2);
			return 2;
		}
		p->canon_column = p->column;
		break;
	case '\r':
		if (O(p, ONOCR) && p->column == 0)
			return 0;
		if (O(p, OCRNL)) {
			c = '\n';
			if (O(p, ONLRET))
				p->canon_column = p->column = 0;
			break;
		}
		p->canon_column = p->column = 0;
		break;
	case '\t':
		spaces = 8 - (p->column & 7);
		if ((p->termios.c_oflag & TABDLY) == XTABS) {
			if (space < spaces)
				return -1;
			p->column += spaces;
			ring_put(&p->out, "        ", spaces);
			return (int)spaces;
		}
		p->column += spaces;
		break;
	case '\b':
		if (p->column > 0)
			p->column--;
		break;
	default:
		if (!is_cntrl(c)) {
			if (O(p, OLCUC))
				c = (uint8_t)toupper(c);
			if (!is_continuation(p, c))
				p->column++;
		}
		break;
	}
	if (!space)
		return -1;
	ring_putc(&p->out, c);
	return 1;
}

/* --- echoes ---------------------------------------------------------------------------- */

static void echo_raw(struct pty *p, uint8_t c)
{
	out_char(p, c);
}

/* Echo c, control characters as ^X with ECHOCTL. */
static void echo_char(struct pty *p, uint8_t c)
{
	if (L(p, ECHOCTL) && is_cntrl(c) && c != '\t') {
		if (ring_space(&p->out) < 2)
			return;
		ring_putc(&p->out, '^');
		ring_putc(&p->out, c ^ 0100);
		p->column += 2;
		return;
	}
	echo_raw(p, c);
}

static void finish_erasing(struct pty *p)
{
	if (p->erasing) {
		echo_raw(p, '/');
		p->erasing = false;
	}
}

/* Back over a tab: num_chars columns since the line's start (+ its first
 * column) or since the previous tab. */
static void echo_erase_tab(struct pty *p, unsigned num_chars, bool after_tab)
{
	unsigned num_bs;

	num_chars &= 7;
	if (!after_tab)
		num_chars += p->canon_column;
	num_bs = 8 - (num_chars & 7);
	while (num_bs-- && ring_space(&p->out)) {
		ring_putc(&p->out, '\b');
		if (p->column > 0)
			p->column--;
	}
}

/* --- the line discipline: input --------------------------------------------------------- */

static size_t read_cnt(struct pty *p)
{
	return p->rhead - p->rtail;
}

static uint8_t read_buf(struct pty *p, size_t i)
{
	return p->rbuf[i & N_TTY_MASK];
}

static void put_queue(struct pty *p, uint8_t c, uint8_t flags)
{
	if (read_cnt(p) >= N_TTY_BUF)
		p->rhead--; /* a full line being edited: its last byte gives way */
	p->rbuf[p->rhead & N_TTY_MASK] = c;
	p->rflags[p->rhead & N_TTY_MASK] = flags;
	p->rhead++;
}

/* Throw unread input away (Linux's reset_buffer_flags). */
static void reset_input(struct pty *p)
{
	p->rtail = p->canon_head = p->rhead = 0;
	p->erasing = p->lnext = false;
	waitq_wake_events(&p->mwq, POLLOUT | POLLWRNORM);
}

/* Is c the (enabled) control character i? */
static bool is_cc(struct pty *p, int i, uint8_t c)
{
	return c && CC(p, i) == c;
}

static bool input_available(struct pty *p, bool poll)
{
	size_t amt = 1;

	if (L(p, ICANON))
		return p->canon_head != p->rtail;
	if (poll && CC(p, VTIME) == 0 && CC(p, VMIN))
		amt = CC(p, VMIN);
	return read_cnt(p) >= amt;
}

static void start_output(struct pty *p)
{
	if (p->stopped && !p->tco_stopped) {
		p->stopped = false;
		waitq_wake_events(&p->swq, POLLOUT | POLLWRNORM);
	}
}

/* ERASE, WERASE and KILL in canonical mode, with their echoes (Linux's eraser). */
static void eraser(struct pty *p, uint8_t c)
{
	enum { ERASE, WERASE, KILL } kill_type;
	unsigned seen_alnums = 0;
	size_t head;

	if (p->rhead == p->canon_head)
		return; /* nothing to erase */
	if (is_cc(p, VERASE, c)) {
		kill_type = ERASE;
	} else if (is_cc(p, VWERASE, c)) {
		kill_type = WERASE;
	} else {
		if (!L(p, ECHO)) {
			p->rhead = p->canon_head;
			return;
		}
		if (!L(p, ECHOK) || !L(p, ECHOKE) || !L(p, ECHOE)) {
			p->rhead = p->canon_head;
			finish_erasing(p);
			echo_char(p, CC(p, VKILL));
			if (L(p, ECHOK))
				echo_raw(p, '\n');
			return;
		}
		kill_type = KILL;
	}
	while (p->rhead != p->canon_head) {
		size_t cnt;
		head = p->rhead;
		do {
			head--;
			c = read_buf(p, head);
		} while (is_continuation(p, c) && head != p->canon_head);
		if (is_continuation(p, c))
			break; /* never half a character */
		if (kill_type == WERASE) {
			if (isalnum(c) || c == '_')
				seen_alnums++;
			else if (seen_alnums)
				break;
		}
		cnt = p->rhead - head;
		p->rhead = head;
		if (L(p, ECHO)) {
			if (L(p, ECHOPRT)) {
				if (!p->erasing) {
					echo_raw(p, '\\');
					p->erasing = true;
				}
				echo_char(p, c);
				while (--cnt > 0) {
					head++;
					echo_raw(p, read_buf(p, head));
					if (p->column > 0)
						p->column--;
				}
			} else if (kill_type == ERASE && !L(p, ECHOE)) {
				echo_char(p, CC(p, VERASE));
			} else if (c == '\t') {
				unsigned num_chars = 0;
				bool after_tab = false;
				size_t tail = p->rhead;
				while (tail != p->canon_head) {
					tail--;
					c = read_buf(p, tail);
					if (c == '\t') {
						after_tab = true;
						break;
					} else if (is_cntrl(c)) {
						if (L(p, ECHOCTL))
							num_chars += 2;
					} else if (!is_continuation(p, c)) {
						num_chars++;
					}
				}
				echo_erase_tab(p, num_chars, after_tab);
			} else {
				if (is_cntrl(c) && L(p, ECHOCTL)) {
					echo_raw(p, '\b');
					echo_raw(p, ' ');
					echo_raw(p, '\b');
				}
				if (!is_cntrl(c) || L(p, ECHOCTL)) {
					echo_raw(p, '\b');
					echo_raw(p, ' ');
					echo_raw(p, '\b');
				}
			}
		}
		if (kill_type == ERASE)
			break;
	}
	if (p->rhead == p->canon_head && L(p, ECHO))
		finish_erasing(p);
}

/* INTR, QUIT, SUSP: the foreground group's signal; unless NOFLSH, unread
 * input and the output the master has not taken in go. */
static void receive_signal(struct pty *p, int sig, uint8_t c)
{
	tty_signal_fg(&p->tty, sig);
	if (!L(p, NOFLSH)) {
		ring_truncate(&p->out, PTY_OUT_KEEP);
		reset_input(p);
		waitq_wake_events(&p->swq, POLLOUT | POLLWRNORM);
	}
	if (I(p, IXON))
		start_output(p);
	if (L(p, ECHO))
		echo_char(p, c);
}

/* The end of a line (newline, EOL, EOL2, EOF): readers may take it. */
static void end_line(struct pty *p, uint8_t c, uint8_t flags)
{
	put_queue(p, c, RF_DELIM | flags);
	p->canon_head = p->rhead;
}

/* An ordinary character: echoed and queued (Linux's n_tty_receive_char). */
static void receive_plain(struct pty *p, uint8_t c)
{
	if (I(p, IXON) && I(p, IXANY))
		start_output(p);
	if (L(p, ECHO)) {
		finish_erasing(p);
		if (p->canon_head == p->rhead)
			p->canon_column = p->column;
		echo_char(p, c);
	}
	put_queue(p, c, 0);
}

/* One byte from the master through the line discipline. */
static void receive_char(struct pty *p, uint8_t c)
{
	if (I(p, ISTRIP))
		c &= 0x7f;
	if (I(p, IUCLC) && L(p, IEXTEN))
		c = (uint8_t)tolower(c);
	if (p->lnext) {
		p->lnext = false;
		receive_plain(p, c);
		goto done;
	}
	if (I(p, IXON)) {
		if (is_cc(p, VSTART, c)) {
			start_output(p); /* (not what TCOOFF stopped) */
			goto done;
		}
		if (is_cc(p, VSTOP, c)) {
			p->stopped = true;
			goto done;
		}
	}
	if (L(p, ISIG)) {
		if (is_cc(p, VINTR, c)) {
			receive_signal(p, SIGINT, c);
			goto done;
		}
		if (is_cc(p, VQUIT, c)) {
			receive_signal(p, SIGQUIT, c);
			goto done;
		}
		if (is_cc(p, VSUSP, c)) {
			receive_signal(p, SIGTSTP, c);
			goto done;
		}
	}
	if (p->stopped && !p->tco_stopped && I(p, IXON) && I(p, IXANY))
		start_output(p);
	if (c == '\r') {
		if (I(p, IGNCR))
			goto done;
		if (I(p, ICRNL))
			c = '\n';
	} else if (c == '\n' && I(p, INLCR)) {
		c = '\r';
	}
	if (L(p, ICANON)) {
		if (is_cc(p, VERASE, c) || is_cc(p, VKILL, c) ||
		    (is_cc(p, VWERASE, c) && L(p, IEXTEN))) {
			eraser(p, c);
			goto done;
		}
		if (is_cc(p, VLNEXT, c) && L(p, IEXTEN)) {
			p->lnext = true;
			if (L(p, ECHO)) {
				finish_erasing(p);
				if (L(p, ECHOCTL)) {
					echo_raw(p, '^');
					echo_raw(p, '\b');
				}
			}
			goto done;
		}
		if (is_cc(p, VREPRINT, c) && L(p, ECHO) && L(p, IEXTEN)) {
			size_t tail = p->canon_head;
			finish_erasing(p);
			echo_char(p, c);
			echo_raw(p, '\n');
			while (tail != p->rhead)
				echo_char(p, read_buf(p, tail++));
			goto done;
		}
		if (c == '\n') {
			if (L(p, ECHO) || L(p, ECHONL))
				echo_raw(p, '\n');
			end_line(p, c, 0);
			goto done;
		}
		if (is_cc(p, VEOF, c)) {
			end_line(p, 0, RF_EOF);
			goto done;
		}
		if (is_cc(p, VEOL, c) || (is_cc(p, VEOL2, c) && L(p, IEXTEN))) {
			if (L(p, ECHO)) {
				if (p->canon_head == p->rhead)
					p->canon_column = p->column;
				echo_char(p, c);
			}
			end_line(p, c, 0);
			goto done;
		}
	}
	if (L(p, ECHO)) {
		finish_erasing(p);
		if (c == '\n') {
			echo_raw(p, '\n');
		} else {
			if (p->canon_head == p->rhead)
				p->canon_column = p->column;
			echo_char(p, c);
		}
	}
	put_queue(p, c, 0);
done:
	return;
}

/* Move what the master wrote through the line discipline while it has
 * room (in canonical mode a line longer than the buffer keeps taking
 * bytes, its last one giving way, so that a newline can end it). */
static void ldisc_receive(struct pty *p)
{
	size_t before = p->out.len;
	bool took = false;

	while (p->flip.len) {
		uint8_t c;
		if (read_cnt(p) >= N_TTY_BUF - 1 && !(L(p, ICANON) && p->canon_head == p->rtail))
			break;
		ring_get(&p->flip, &c, 1);
		receive_char(p, c);
		took = true;
	}
	if (took) {
		waitq_wake_events(&p->mwq, POLLOUT | POLLWRNORM);
		if (input_available(p, false))
			waitq_wake_events(&p->srq, POLLIN | POLLRDNORM);
	}
	if (p->out.len > before)
		waitq_wake_events(&p->mrq, POLLIN | POLLRDNORM);
}

/* A termios change as the line discipline sees it (Linux's n_tty_set_termios). */
static void ldisc_set_termios(struct pty *p, const struct ktermios *old)
{
	if ((old->c_lflag ^ p->termios.c_lflag) & ICANON) {
		memset(p->rflags, 0, sizeof(p->rflags));
		if (!L(p, ICANON) || !read_cnt(p)) {
			p->canon_head = p->rtail;
		} else {
			/* What was typed raw is one line now. */
			p->rflags[(p->rhead - 1) & N_TTY_MASK] = RF_DELIM;
			p->canon_head = p->rhead;
		}
		p->erasing = p->lnext = false;
	}
	if (!I(p, IXON) && (old->c_iflag & IXON) && !p->tco_stopped)
		start_output(p);
	ldisc_receive(p);
	waitq_wake_events(&p->srq, POLLIN | POLLRDNORM);
	waitq_wake_events(&p->swq, POLLOUT | POLLWRNORM);
}

/* --- reading and writing ------------------------------------------------------------- */

/* Sleep on wq with p->lock held (dropped meanwhile) until woken, the
 * deadline (CLOCK_MONOTONIC ns, 0: none) or a signal: 0, -ETIMEDOUT, -EINTR. */
static int pty_wait(struct pty *p, struct waitq *wq, uint64_t deadline)
{
	struct task *t = current_task();
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (!t)
		return -EINTR;
	snap = waiter_prepare(wq, &w, t);
	pthread_mutex_unlock(&p->lock);
	ret = task_block(t, snap, deadline);
	waiter_finish(wq, &w);
	pthread_mutex_lock(&p->lock);
	return ret;
}

static bool interrupted(void)
{
	struct task *t = current_task();

	return t && task_interrupted(t);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Copy one line (or what fits of it) in canonical mode. */
static size_t canon_copy(struct pty *p, uint8_t *dst, size_t len)
{
	size_t n = MIN(len, p->canon_head - p->rtail), i, copy;

	for (i = 0; i < n; i++)
		if (p->rflags[(p->rtail + i) & N_TTY_MASK] & RF_DELIM)
			break;
	if (i < n) {
		/* The line's end: its delimiter too, unless it is an EOF. */
		bool eof = p->rflags[(p->rtail + i) & N_TTY_MASK] & RF_EOF;
		copy = eof ? i : i + 1;
		for (size_t j = 0; j < copy; j++)
			dst[j] = read_buf(p, p->rtail + j);
		p->rflags[(p->rtail + i) & N_TTY_MASK] = 0;
		p->rtail += i + 1;
		return copy;
	}
	for (size_t j = 0; j < n; j++)
		dst[j] = read_buf(p, p->rtail + j);
	p->rtail += n;
	return n;
}

static size_t raw_copy(struct pty *p, uint8_t *dst, size_t len)
{
	size_t n = MIN(len, read_cnt(p));

	for (size_t j = 0; j < n; j++)
		dst[j] = read_buf(p, p->rtail + j);
	p->rtail += n;
	if (p->canon_head < p->rtail)
		p->canon_head = p->rtail;
	return n;
}

/* Linux's n_tty_read: canonical lines, or VMIN/VTIME in non-canonical mode. */
static long pts_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct pty *p = f->priv;
	uint64_t deadline = 0, interbyte = 0;
	size_t done = 0, minimum = 0;
	bool expired = false;
	long ret;

	pthread_mutex_lock(&p->lock);
	if (!p->master_open) {
		pthread_mutex_unlock(&p->lock);
		return 0; /* hung up */
	}
	pthread_mutex_unlock(&p->lock);
	ret = tty_check_change(&p->tty, SIGTTIN);
	if (ret)
		return ret;
	if (!len)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (!L(p, ICANON)) {
		minimum = CC(p, VMIN);
		if (minimum) {
			interbyte = CC(p, VTIME) * 100000000ull;
		} else {
			if (CC(p, VTIME))
				deadline = now_ns() + CC(p, VTIME) * 100000000ull;
			else
				expired = true;
			minimum = 1;
		}
	}
	while (done < len) {
		if (!input_available(p, false)) {
			int r;
			if (!p->master_open) {
				ret = -EIO;
				break;
			}
			if (expired)
				break;
			if (file_getfl(f) & O_NONBLOCK) {
				ret = -EAGAIN;
				break;
			}
			if (interrupted()) {
				ret = -ERESTARTSYS;
				break;
			}
			r = pty_wait(p, &p->srq, deadline);
			if (r == -ETIMEDOUT)
				expired = true;
			continue;
		}
		if (L(p, ICANON)) {
			done += canon_copy(p, (uint8_t *)buf + done, len - done);
		} else {
			done += raw_copy(p, (uint8_t *)buf + done, len - done);
		}
		ldisc_receive(p);
		waitq_wake_events(&p->mwq, POLLOUT | POLLWRNORM);
		if (done >= minimum)
			break;
		if (interbyte)
			deadline = now_ns() + interbyte;
	}
	pthread_mutex_unlock(&p->lock);
	return done ? (long)done : ret;
}

/* Linux's n_tty_write on the slave: output processing into the master's input. */
static long pts_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct pty *p = f->priv;
	const uint8_t *b = buf;
	size_t done = 0;
	bool tostop;
	long ret = 0;

	pthread_mutex_lock(&p->lock);
	if (!p->master_open) {
		pthread_mutex_unlock(&p->lock);
		return -EIO;
	}
	tostop = L(p, TOSTOP);
	pthread_mutex_unlock(&p->lock);
	if (tostop) {
		ret = tty_check_change(&p->tty, SIGTTOU);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&p->lock);
	while (done < len) {
		size_t before = p->out.len;
		if (interrupted()) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!p->master_open) {
			ret = -EIO;
			break;
		}
		while (!p->stopped && done < len) {
			if (O(p, OPOST)) {
				if (out_char(p, b[done]) < 0)
					break;
				done++;
			} else {
				size_t n = ring_put(&p->out, b + done, len - done);
				if (!n)
					break;
				done += n;
			}
		}
		if (p->out.len > before)
			waitq_wake_events(&p->mrq, POLLIN | POLLRDNORM);
		if (done == len)
			break;
		if (file_getfl(f) & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		pty_wait(p, &p->swq, 0);
	}
	pthread_mutex_unlock(&p->lock);
	return done ? (long)done : ret;
}

/* The master reads the slave's output: whatever is there (it is raw). */
static long ptm_read(struct file *f, void *buf, size_t len, int64_t *pos)
{
	struct pty *p = f->priv;
	long ret;

	if (!len)
		return 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (p->out.len) {
			ret = (long)ring_get(&p->out, buf, len);
			waitq_wake_events(&p->swq, POLLOUT | POLLWRNORM);
			break;
		}
		if (p->other_closed) {
			ret = -EIO;
			break;
		}
		if (file_getfl(f) & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (interrupted()) {
			ret = -ERESTARTSYS;
			break;
		}
		pty_wait(p, &p->mrq, 0);
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/* The master types: into the flip buffer, then through the line discipline. */
static long ptm_write(struct file *f, const void *buf, size_t len, int64_t *pos)
{
	struct pty *p = f->priv;
	size_t done = 0;
	long ret = 0;

	pthread_mutex_lock(&p->lock);
	while (done < len) {
		if (interrupted()) {
			ret = -ERESTARTSYS;
			break;
		}
		done += ring_put(&p->flip, (const uint8_t *)buf + done, len - done);
		ldisc_receive(p);
		if (done == len)
			break;
		if (file_getfl(f) & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		pty_wait(p, &p->mwq, 0);
	}
	pthread_mutex_unlock(&p->lock);
	return done ? (long)done : ret;
}

static unsigned pts_poll(struct file *f, struct poll_table *pt)
{
	struct pty *p = f->priv;
	unsigned mask = 0;

	poll_wait(pt, &p->srq);
	poll_wait(pt, &p->swq);
	pthread_mutex_lock(&p->lock);
	if (!p->master_open) {
		mask = POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | POLLWRNORM;
	} else {
		if (input_available(p, true))
			mask |= POLLIN | POLLRDNORM;
		if (!p->stopped && ring_space(&p->out))
			mask |= POLLOUT | POLLWRNORM;
	}
	pthread_mutex_unlock(&p->lock);
	return mask;
}

static unsigned ptm_poll(struct file *f, struct poll_table *pt)
{
	struct pty *p = f->priv;
	unsigned mask = 0;

	poll_wait(pt, &p->mrq);
	poll_wait(pt, &p->mwq);
	pthread_mutex_lock(&p->lock);
	if (p->out.len)
		mask |= POLLIN | POLLRDNORM;
	if (p->other_closed)
		mask |= POLLHUP;
	if (ring_space(&p->flip))
		mask |= POLLOUT | POLLWRNORM;
	pthread_mutex_unlock(&p->lock);
	return mask;
}

/* --- ioctls and termios ------------------------------------------------------------ */

static long pts_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	struct pty *p = f->priv;
	bool hung;

	pthread_mutex_lock(&p->lock);
	hung = !p->master_open;
	pthread_mutex_unlock(&p->lock);
	if (hung)
		return cmd == TIOCSPGRP ? -ENOTTY : -EIO;
	return tty_ioctl(&p->tty, f, false, cmd, arg);
}

static long ptm_ioctl(struct file *f, unsigned long cmd, void *arg)
{
	struct pty *p = f->priv;

	return tty_ioctl(&p->tty, f, true, cmd, arg);
}

#define PTY_OF(tty) ((struct pty *)((char *)(tty)-offsetof(struct pty, tty)))

static int pty_get_termios(struct tty *tty, struct ktermios *kt)
{
	struct pty *p = PTY_OF(tty);

	pthread_mutex_lock(&p->lock);
	*kt = p->termios;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int pty_set_termios(struct tty *tty, const struct ktermios *kt, int when)
{
	struct pty *p = PTY_OF(tty);
	struct ktermios old;

	pthread_mutex_lock(&p->lock);
	if (when == TTY_SET_FLUSH)
		reset_input(p);
	old = p->termios;
	p->termios = *kt;
	/* A pty has 8-bit characters without parity, and always reads. */
	p->termios.c_cflag &= ~(uint32_t)(CSIZE | PARENB);
	p->termios.c_cflag |= CS8 | CREAD;
	ldisc_set_termios(p, &old);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int pty_get_winsize(struct tty *tty, struct winsize *ws)
{
	struct pty *p = PTY_OF(tty);

	pthread_mutex_lock(&p->lock);
	*ws = p->ws;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int pty_set_winsize(struct tty *tty, const struct winsize *ws)
{
	struct pty *p = PTY_OF(tty);

	pthread_mutex_lock(&p->lock);
	p->ws = *ws;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/* Bytes a read could take now (TIOCINQ): complete lines in canonical mode,
 * their EOF characters not counted. */
static int inq(struct pty *p)
{
	size_t n;

	if (!L(p, ICANON))
		return (int)read_cnt(p);
	n = p->canon_head - p->rtail;
	for (size_t i = p->rtail; i != p->canon_head; i++)
		if ((p->rflags[i & N_TTY_MASK] & (RF_DELIM | RF_EOF)) == (RF_DELIM | RF_EOF))
			n--;
	return (int)n;
}

/* TCFLSH: the slave's input is what the master typed; its output is what
 * the master has not read (and the other way round for the master). */
static long flush(struct pty *p, bool master, long queue)
{
	bool in, out;

	if (queue != TCIFLUSH && queue != TCOFLUSH && queue != TCIOFLUSH)
		return -EINVAL;
	in = queue != TCOFLUSH;
	out = queue != TCIFLUSH;
	if (master ? out : in) {
		p->flip.len = 0;
		reset_input(p);
	}
	if (master ? in : out) {
		p->out.len = 0;
		waitq_wake_events(&p->swq, POLLOUT | POLLWRNORM);
	}
	return 0;
}

/* TCXONC on the slave: TCOOFF/TCOON stop and restart its output, TCIOFF
 * and TCION send STOP and START to the master. */
static long flow(struct pty *p, bool master, long action)
{
	switch (action) {
	case TCOOFF:
		if (!master)
			p->stopped = p->tco_stopped = true;
		return 0;
	case TCOON:
		if (!master && p->tco_stopped) {
			p->tco_stopped = false;
			start_output(p);
		}
		return 0;
	case TCIOFF:
	case TCION: {
		uint8_t c = CC(p, action == TCIOFF ? VSTOP : VSTART);
		if (!master && c) {
			ring_putc(&p->out, c);
			waitq_wake_events(&p->mrq, POLLIN | POLLRDNORM);
		}
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static long pty_driver_ioctl(struct tty *tty, struct file *f, bool master, unsigned long cmd,
			     void *arg)
{
	struct pty *p = PTY_OF(tty);
	long v = 0, ret = 0;

	memcpy(&v, arg, sizeof(v));
	pthread_mutex_lock(&p->lock);
	switch (cmd) {
	case FIONREAD:
		*(int *)arg = master ? (int)p->out.len : inq(p);
		break;
	case TIOCOUTQ:
		*(int *)arg = 0; /* a pty keeps nothing back from the other side */
		break;
	case TCFLSH:
		ret = flush(p, master, v);
		break;
	case TCXONC:
		ret = flow(p, master, v);
		break;
	case TCSBRK:
	case TCSBRKP:
	case TIOCSBRK:
	case TIOCCBRK:
		break; /* nothing waits to be sent, and a pty has no break */
	case TIOCSTI:
		if (master) {
			ring_putc(&p->out, *(uint8_t *)arg);
			waitq_wake_events(&p->mrq, POLLIN | POLLRDNORM);
		} else {
			ring_putc(&p->flip, *(uint8_t *)arg);
			ldisc_receive(p);
		}
		break;
	case TIOCGPTN:
		ret = master ? (*(unsigned *)arg = (unsigned)p->index, 0) : -ENOTTY;
		break;
	case TIOCSPTLCK:
		ret = master ? (p->locked = *(int *)arg != 0, 0) : -ENOTTY;
		break;
	case TIOCGPTLCK:
		ret = master ? (*(int *)arg = p->locked, 0) : -ENOTTY;
		break;
	case TIOCSIG_:
		if (!master)
			ret = -ENOTTY;
		else if (v != SIGINT && v != SIGQUIT && v != SIGTSTP)
			ret = -EINVAL;
		else
			tty_signal_fg(&p->tty, (int)v);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

static int pty_reopen(struct tty *tty, int flags, struct file **out)
{
	return pty_open_slave(PTY_OF(tty), NULL, flags, out);
}

static void pty_tty_get(struct tty *tty)
{
	pty_get(PTY_OF(tty));
}

static void pty_tty_put(struct tty *tty)
{
	pty_put(PTY_OF(tty));
}

static const struct tty_ops pty_tty_ops = {
	.get_termios = pty_get_termios,
	.set_termios = pty_set_termios,
	.get_winsize = pty_get_winsize,
	.set_winsize = pty_set_winsize,
	.ioctl = pty_driver_ioctl,
	.reopen = pty_reopen,
	.get = pty_tty_get,
	.put = pty_tty_put,
};

/* --- files ------------------------------------------------------------------------- */

static int pty_fstat(struct file *f, struct kstat *st)
{
	if (!f->inode)
		return -EBADF;
	inode_stat(f->inode, st);
	return 0;
}

static int pty_setfl(struct file *f, int flags)
{
	f->flags = flags;
	return 0;
}

static int64_t pty_llseek(struct file *f, int64_t off, int whence)
{
	return -ESPIPE;
}

static void pts_release(struct file *f)
{
	struct pty *p = f->priv;

	pthread_mutex_lock(&p->lock);
	if (--p->slaves == 0) {
		p->other_closed = true;
		waitq_wake_events(&p->mrq, POLLIN | POLLHUP);
	}
	pthread_mutex_unlock(&p->lock);
	pty_put(p);
}

/* The master closes: the slave hangs up, its node goes. */
static void ptm_release(struct file *f)
{
	struct pty *p = f->priv;
	const unsigned hup = POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | POLLWRNORM;

	pthread_mutex_lock(&p->lock);
	p->master_open = false;
	waitq_wake_events(&p->srq, hup);
	waitq_wake_events(&p->swq, hup);
	pthread_mutex_unlock(&p->lock);
	tty_hangup(&p->tty);
	devpts_remove_node(p->fs, p->index);
	pty_put(p);
}

static const struct file_ops pts_fops = {
	.read = pts_read,
	.write = pts_write,
	.llseek = pty_llseek,
	.fstat = pty_fstat,
	.ioctl = pts_ioctl,
	.setfl = pty_setfl,
	.poll = pts_poll,
	.release = pts_release,
};

static const struct file_ops ptm_fops = {
	.read = ptm_read,
	.write = ptm_write,
	.llseek = pty_llseek,
	.fstat = pty_fstat,
	.ioctl = ptm_ioctl,
	.setfl = pty_setfl,
	.poll = ptm_poll,
	.release = ptm_release,
};

struct tty *pty_file_tty(struct file *f, bool *master)
{
	*master = f->ops == &ptm_fops;
	if (f->ops != &ptm_fops && f->ops != &pts_fops)
		return NULL;
	return &((struct pty *)f->priv)->tty;
}

/* What a terminal file description keeps of the open flags. */
static int file_flags(int flags)
{
	return flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
}

int pty_open_master(struct devpts *fs, struct inode *ptmx, int flags, struct file **out)
{
	struct task *t = current_task();
	struct pty *p;
	struct inode *node;
	struct file *f;
	int ret;

	if (!t)
		return -ENXIO;
	p = xzalloc(sizeof(*p));
	p->refs = 1; /* the master's */
	pthread_mutex_init(&p->lock, NULL);
	std_termios(&p->termios);
	p->locked = true;
	p->master_open = true;
	ring_init(&p->flip, PTY_FLIP);
	ring_init(&p->out, PTY_OUT);
	waitq_init(&p->srq);
	waitq_init(&p->swq);
	waitq_init(&p->mrq);
	waitq_init(&p->mwq);
	p->fs = fs;
	tty_init(&p->tty, t->k, &pty_tty_ops, 0);
	p->tty.pty = true;
	ret = devpts_new_node(fs, p, &t->creds, &p->index, &node);
	if (ret < 0) {
		free(p->flip.buf);
		free(p->out.buf);
		pthread_mutex_destroy(&p->lock);
		pthread_mutex_destroy(&p->tty.resize);
		free(p);
		return ret;
	}
	p->sb = sb_get(devpts_sb(fs));
	p->tty.rdev = makedev(PTY_SLAVE_MAJOR, p->index);
	inode_put(node); /* the directory keeps it */
	f = file_alloc(&ptm_fops, file_flags(flags), p);
	f->inode = inode_get(ptmx);
	*out = f;
	return 0;
}

int pty_open_slave(struct pty *p, struct inode *node, int flags, struct file **out)
{
	struct task *t = current_task();
	struct file *f;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	if (!p->master_open || p->locked)
		ret = -EIO;
	else if (p->tty.exclusive && !(t && creds_capable(&t->creds, KCAP_SYS_ADMIN)))
		ret = -EBUSY;
	else {
		p->slaves++;
		p->other_closed = false;
	}
	pthread_mutex_unlock(&p->lock);
	if (ret)
		return ret;
	f = file_alloc(&pts_fops, file_flags(flags), pty_get(p));
	if (node)
		f->inode = inode_get(node);
	*out = f;
	return 0;
}

int pty_open_peer(struct file *master, int flags, struct file **out)
{
	struct task *t = current_task();
	struct pty *p;
	struct file *f;
	bool is_master;
	char name[16];
	int ret;

	if (!tty_of_file(master, &is_master))
		return -ENOTTY;
	if (!is_master)
		return -EIO;
	p = master->priv;
	ret = pty_open_slave(p, NULL, flags, &f);
	if (ret)
		return ret;
	/* Its path is /dev/pts/N next to the ptmx the master came from. */
	snprintf(name, sizeof(name), "%d", p->index);
	if (t && master->path.dentry && master->path.mnt) {
		struct path dir = {.mnt = master->path.mnt,
				   .dentry = dentry_get_parent(master->path.dentry)};
		struct dentry *d = NULL;
		if (vfs_lookup_child(t, &dir, name, &d) == 0 && d->inode && d->inode->priv == p &&
		    d->inode->sb == master->inode->sb) {
			struct path at = {.mnt = master->path.mnt, .dentry = d};
			file_set_path(f, &at);
		}
		if (d)
			dentry_put(d);
		dentry_put(dir.dentry);
	}
	if (!f->inode) {
		file_put(f);
		return -EIO; /* the node is gone: the master is closing */
	}
	if (t && !(flags & O_NOCTTY))
		tty_open_ctty(t, &p->tty, f);
	*out = f;
	return 0;
}
