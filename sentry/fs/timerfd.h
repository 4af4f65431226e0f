/*
 * timerfd: each guest timerfd is a host timerfd on the same clock (the
 * guest sees the host's clocks), so expirations, intervals, absolute times
 * and TFD_TIMER_CANCEL_ON_SET are the host kernel's, exactly. Readiness and
 * waiting go through the host poller (sentry/fs/hostpoll.h), where the
 * descriptor stays registered for good: every expiration is an edge for
 * epoll, as on Linux.
 */
#ifndef RUNG_TIMERFD_H
#define RUNG_TIMERFD_H

#include <stdbool.h>
#include <time.h>

struct file;

/* A new timerfd on clock (flags: O_NONBLOCK); -errno from the host. */
int timerfd_file_new(int clock, int flags, struct file **out);
bool file_is_timerfd(struct file *f);
/* timerfd_settime/gettime on a timerfd file (values already validated). */
int timerfd_file_settime(struct file *f, int flags, const struct itimerspec *new,
			 struct itimerspec *old);
int timerfd_file_gettime(struct file *f, struct itimerspec *cur);

#endif
