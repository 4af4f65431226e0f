/* One virtiofsd for a VM's root (see virtiofsd.h). */
#include "config.h"
#include "platform/microvm/virtiofsd.h"
#include "platform/microvm/detect.h"
#include "platform/microvm/qemu.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEGACY "/usr/lib/qemu/virtiofsd" /* C, from qemu-system-common 7.2 */

char *virtiofsd_binary(void)
{
	const char *env = getenv("RUNG_VIRTIOFSD");
	char *bin;

	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	if (access("/usr/libexec/virtiofsd", X_OK) == 0)
		return xstrdup("/usr/libexec/virtiofsd");
	bin = vm_find_program("virtiofsd");
	if (bin)
		return bin;
	return access(LEGACY, X_OK) == 0 ? xstrdup(LEGACY) : NULL;
}

int virtiofsd_spawn(const char *rundir, const struct qemu_share *share, bool debug, pid_t *pidp,
		    struct rung_error *err)
{
	char *bin = virtiofsd_binary(), *sock, *src;
	bool legacy;
	pid_t pid;
	int status;

	if (!bin)
		return rung_error_make(err, 0,
				       "--vm-fs virtiofs: no virtiofsd (apt-get install virtiofsd, "
				       "or qemu-system-common's " LEGACY
				       ", or set RUNG_VIRTIOFSD)");
	legacy = strcmp(bin, LEGACY) == 0;
	sock = xasprintf("%s/%s", rundir, VIRTIOFSD_SOCKET);
	unlink(sock);
	src = xasprintf("%s/share-%s", rundir, share->tag);
	pid = fork();
	if (pid < 0) {
		int e = errno;
		free(bin), free(sock), free(src);
		return rung_error_make(err, e, "fork virtiofsd");
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (qemu_bind_shares(rundir, share, 1) < 0 || chdir(rundir) < 0)
			_exit(126);
		dup2(null, 0);
		dup2(null, 1);
		if (!debug)
			dup2(null, 2);
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		{
			sigset_t none;
			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		/* Its own sandbox (namespaces, pivot_root into the share, seccomp)
		 * is the default in both; the Rust one names the share its way. */
		if (legacy)
			execl(bin, bin, "--socket-path=" VIRTIOFSD_SOCKET, "-o",
			      xasprintf("source=%s", src), "-o", "cache=auto", (char *)NULL);
		else
			execl(bin, bin, "--socket-path=" VIRTIOFSD_SOCKET, "--shared-dir", src,
			      "--cache", "auto", (char *)NULL);
		_exit(127);
	}
	/* Its socket appears once it listens; it dies at once on a bad start. */
	for (int i = 0; i < 2000; i++) {
		struct stat st;
		if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode)) {
			free(bin), free(sock), free(src);
			*pidp = pid;
			return 0;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			rung_error_make(err, 0, "%s exited (status %d) before it listened%s", bin,
					WIFEXITED(status) ? WEXITSTATUS(status)
							  : 128 + WTERMSIG(status),
					debug ? "" : " (--debug shows its log)");
			free(bin), free(sock), free(src);
			return -1;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rung_error_make(err, ETIMEDOUT, "%s did not listen on `%s`", bin, sock);
	free(bin), free(sock), free(src);
	return -1;
}

void virtiofsd_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
