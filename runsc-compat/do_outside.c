/* rung do's supervisor serving its sandbox's requests (do_outside.h). */
#include "config.h"
#include "runsc-compat/do_outside.h"
#include "sentry/fs/hostjob.h"
#include "sentry/kernel/outside.h"
#include "sentry/net/keeper.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The sandbox asks to stop with sig, as a job: it is stopped (an init
 * cannot stop itself), then this process, as the shell sees its job stop;
 * a SIGCONT continues both. false: the sandbox ended meanwhile (*status). */
static bool stop_both(pid_t child, int sig, int *status)
{
	pid_t r;

	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		sig = SIGSTOP;
	kill(child, SIGSTOP);
	do
		r = waitpid(child, status, WUNTRACED);
	while (r < 0 && errno == EINTR);
	if (r == child && !WIFSTOPPED(*status))
		return false;
	host_stop_now(sig);
	kill(child, SIGCONT);
	return true;
}

/* A keeper request: interfaces in req[1..n), descriptors netns, sock and
 * log in fds (nfds of them, closed by the caller). The answer: its pid or
 * -errno. Once per sandbox. */
static int32_t keeper(struct do_outside *o, const char *req, size_t n, const int *fds, size_t nfds)
{
	int ifs[OUTSIDE_MAX_IFS];
	size_t nifs = (n - 1) / sizeof(int32_t);
	pid_t pid;

	if (o->keeper_started || nfds != 3 || (n - 1) % sizeof(int32_t) || !nifs ||
	    nifs > OUTSIDE_MAX_IFS)
		return -EINVAL;
	for (size_t i = 0; i < nifs; i++) {
		int32_t idx;
		memcpy(&idx, req + 1 + i * sizeof(idx), sizeof(idx));
		if (idx <= 0)
			return -EINVAL;
		ifs[i] = idx;
	}
	o->keeper_started = true;
	pid = net_keeper_spawn(ifs, nifs, NULL, fds[1], fds[0], fds[2]);
	if (pid > 0)
		o->keeper = pid;
	return pid;
}

int do_outside_serve(struct do_outside *o, int *status)
{
	char req[1 + OUTSIDE_MAX_IFS * sizeof(int32_t)];
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec v = {req, sizeof(req)};
	struct msghdr mh = {.msg_iov = &v,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	int fds[4];
	size_t nfds = 0;
	ssize_t n = recvmsg(o->fd, &mh, MSG_CMSG_CLOEXEC);
	int ret = 1;

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return 1;
		close(o->fd);
		o->fd = -1;
		return 0;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
				if (nfds < ARRAY_SIZE(fds))
					fds[nfds++] = fd;
				else
					close(fd);
			}
	if (req[0] == OUTSIDE_STOP && n == 2) {
		if (!stop_both(o->sandbox, (unsigned char)req[1], status))
			ret = -1;
		else if (write(o->fd, req, 1) != 1)
			log_debug("supervisor: the sandbox is not waiting to go on");
	} else if (req[0] == OUTSIDE_KEEPER) {
		char ans[1 + sizeof(int32_t)] = {OUTSIDE_KEEPER};
		int32_t r = keeper(o, req, (size_t)n, fds, nfds);
		memcpy(ans + 1, &r, sizeof(r));
		if (write(o->fd, ans, sizeof(ans)) != sizeof(ans))
			log_debug("supervisor: the sandbox did not wait for its keeper");
	} else {
		log_warning("supervisor: an unknown request from the sandbox (%zd bytes)", n);
	}
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

void do_outside_reap(struct do_outside *o)
{
	if (o->keeper > 0 && waitpid(o->keeper, NULL, WNOHANG) == o->keeper)
		o->keeper = 0;
}

void do_outside_wait(struct do_outside *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
	}
	while (o->keeper > 0 && waitpid(o->keeper, NULL, 0) < 0 && errno == EINTR)
		;
	o->keeper = 0;
}
