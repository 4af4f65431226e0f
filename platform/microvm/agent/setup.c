/* rung-agent: kernel modules, the container's root and its mounts. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* /modules/order lists the initramfs's modules, dependencies first. */
void agent_load_modules(void)
{
	FILE *f = fopen("/modules/order", "re");
	char line[256];

	if (!f)
		return; /* a kernel with everything built in */
	while (fgets(line, sizeof(line), f)) {
		char path[300];
		int fd;
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		snprintf(path, sizeof(path), "/modules/%s", line);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			agent_log("insmod %s: %s", line, strerror(errno));
		close(fd);
	}
	fclose(f);
}

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return (mkdir(buf, mode) < 0 && errno != EEXIST) ? -1 : 0;
}

/* Mount a 9p share, retrying while its device is still being probed. */
static int mount_9p(const char *tag, const char *dir, bool ro, bool cached)
{
	char opts[256];

	snprintf(opts, sizeof(opts), "trans=virtio,version=9p2000.L,msize=512000,cache=%s,%s",
		 cached ? "loose" : "mmap", "access=client");
	for (int i = 0; i < 400; i++) {
		if (mount(tag, dir, "9p", ro ? MS_RDONLY : 0, opts) == 0)
			return 0;
		if (errno != ENOENT)
			return -1;
		usleep(5000);
	}
	return -1;
}

/* The root: 9p, or virtio-fs when the host serves it with virtiofsd. */
static int mount_root(const char *tag, const char *dir, bool ro, bool cached)
{
	const char *fs = records_get(&config.rec, "rootfs");

	if (!fs || strcmp(fs, "virtiofs") != 0)
		return mount_9p(tag, dir, ro, cached);
	for (int i = 0; i < 400; i++) {
		if (mount(tag, dir, "virtiofs", ro ? MS_RDONLY : 0, NULL) == 0)
			return 0;
		if (errno != ENOENT && errno != EINVAL)
			return -1;
		usleep(5000);
	}
	return -1;
}

static void loopback_up(void)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
}

int agent_configure(char *payload, size_t len, char *msg, size_t msglen)
{
	struct agent_config *c = &config;
	struct agent_mount *m = NULL;
	const char *root, *host;

	if (c->payload) {
		free(payload);
		snprintf(msg, msglen, "configured already");
		return -1;
	}
	c->payload = payload;
	if (records_parse(payload, len, &c->rec) < 0) {
		snprintf(msg, msglen, "malformed configuration");
		return -1;
	}
	for (size_t i = 0; i < c->rec.n; i++) {
		const char *k = c->rec.keys[i], *v = c->rec.vals[i];
		if (strcmp(k, "readonly") == 0) {
			c->readonly = true;
		} else if (strcmp(k, "overlay") == 0) {
			c->overlay = true;
		} else if (strcmp(k, "mount") == 0) {
			if (c->nmounts == sizeof(c->mounts) / sizeof(c->mounts[0]) || v[0] != '/') {
				snprintf(msg, msglen, "bad mount `%s`", v);
				return -1;
			}
			m = &c->mounts[c->nmounts++];
			m->dest = v;
		} else if (m && strcmp(k, "mtype") == 0) {
			m->type = v;
		} else if (m && strcmp(k, "msource") == 0) {
			m->source = v;
		} else if (m && strcmp(k, "mtag") == 0) {
			m->tag = v;
		} else if (m && strcmp(k, "mopt") == 0 &&
			   m->nopts < sizeof(m->opts) / sizeof(m->opts[0])) {
			m->opts[m->nopts++] = v;
		}
	}
	root = records_get(&c->rec, "root");
	if (!root) {
		snprintf(msg, msglen, "no root filesystem");
		return -1;
	}
	mkdir(AGENT_ROOT, 0755);
	if (c->overlay) {
		/* Writes go to a tmpfs layer in guest memory; the share stays read-only. */
		mkdir("/lower", 0755);
		mkdir("/upper", 0755);
		if (mount_root(root, "/lower", true, true) < 0 ||
		    mount("tmpfs", "/upper", "tmpfs", 0, "mode=0755") < 0 ||
		    mkdir("/upper/u", 0755) < 0 || mkdir("/upper/w", 0755) < 0 ||
		    mount("overlay", AGENT_ROOT, "overlay", 0,
			  "lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w") < 0) {
			snprintf(msg, msglen, "mount the root overlay: %s", strerror(errno));
			return -1;
		}
	} else if (mount_root(root, AGENT_ROOT, c->readonly, c->readonly) < 0) {
		snprintf(msg, msglen, "mount the root filesystem (%s `%s`): %s",
			 records_get(&c->rec, "rootfs") ? records_get(&c->rec, "rootfs") : "9p",
			 root, strerror(errno));
		return -1;
	}
	/* The shares of bind mounts, mounted now so that a failure shows at create. */
	for (size_t i = 0; i < c->nmounts; i++) {
		char dir[300];
		m = &c->mounts[i];
		if (!m->tag)
			continue;
		snprintf(dir, sizeof(dir), AGENT_SHARES "/%s", m->tag);
		if (mkdir_p(dir, 0755) < 0 || mount_9p(m->tag, dir, false, false) < 0) {
			snprintf(msg, msglen, "mount the share of `%s`: %s", m->dest,
				 strerror(errno));
			return -1;
		}
	}
	host = records_get(&c->rec, "hostname");
	if (host && sethostname(host, strlen(host)) < 0) {
		snprintf(msg, msglen, "sethostname: %s", strerror(errno));
		return -1;
	}
	loopback_up();
	return agent_net_configure(msg, msglen);
}

/* --- the container's mounts, in its init ---------------------------------------------------- */

static const struct {
	const char *name;
	unsigned long flag;
	bool clear;
} flags[] = {
	{"ro", MS_RDONLY, false},
	{"rw", MS_RDONLY, true},
	{"nosuid", MS_NOSUID, false},
	{"suid", MS_NOSUID, true},
	{"nodev", MS_NODEV, false},
	{"dev", MS_NODEV, true},
	{"noexec", MS_NOEXEC, false},
	{"exec", MS_NOEXEC, true},
	{"relatime", MS_RELATIME, false},
	{"strictatime", MS_STRICTATIME, false},
	{"noatime", MS_NOATIME, false},
	{"bind", MS_BIND, false},
	{"rbind", MS_BIND | MS_REC, false},
	{"private", 0, false},
	{"rprivate", 0, false},
	{"slave", 0, false},
	{"rslave", 0, false},
	{"shared", 0, false},
	{"rshared", 0, false},
};

static int do_mount(const struct agent_mount *m, char *msg, size_t msglen)
{
	char dest[4096], data[1024] = "", src[4096];
	unsigned long fl = 0;
	const char *type = m->type ? m->type : "none";
	struct stat st;
	bool file = false;

	for (size_t i = 0; i < m->nopts; i++) {
		bool known = false;
		for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
			if (strcmp(m->opts[i], flags[j].name) == 0) {
				fl = flags[j].clear ? fl & ~flags[j].flag : fl | flags[j].flag;
				known = true;
			}
		if (!known) {
			size_t l = strlen(data);
			snprintf(data + l, sizeof(data) - l, "%s%s", l ? "," : "", m->opts[i]);
		}
	}
	if (strcmp(type, "bind") == 0)
		fl |= MS_BIND;
	snprintf(dest, sizeof(dest), AGENT_ROOT "%s", m->dest);
	if (fl & MS_BIND) {
		if (!m->tag) {
			snprintf(msg, msglen, "mount `%s`: no share for its source", m->dest);
			return -1;
		}
		snprintf(src, sizeof(src), AGENT_SHARES "/%s%s%s", m->tag,
			 m->source && *m->source ? "/" : "", m->source ? m->source : "");
		file = stat(src, &st) == 0 && !S_ISDIR(st.st_mode);
	} else {
		snprintf(src, sizeof(src), "%s", m->source ? m->source : type);
	}
	if (file) {
		char parent[4096];
		int fd;
		snprintf(parent, sizeof(parent), "%s", dest);
		*strrchr(parent, '/') = '\0';
		mkdir_p(parent, 0755);
		fd = open(dest, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	} else {
		mkdir_p(dest, 0755);
	}
	if (strcmp(type, "cgroup") == 0 || strcmp(type, "cgroup2") == 0) {
		/* The guest's own cgroup tree (one per VM). */
		if (mount("cgroup2", dest, "cgroup2", fl & ~(MS_BIND | MS_REC), NULL) == 0)
			return 0;
		return 0; /* cgroups are optional in the guest kernel */
	}
	/* A new mount is read-only as a mount point when asked (a remount would
	 * make the superblock so, which sysfs and proc share with the agent's
	 * own: Docker's ro /sys made the agent's read-only too). */
	if (mount(src, dest, (fl & MS_BIND) ? NULL : type, (fl & MS_BIND) ? fl & ~MS_RDONLY : fl,
		  *data ? data : NULL) < 0) {
		snprintf(msg, msglen, "mount `%s` on `%s`: %s", src, m->dest, strerror(errno));
		return -1;
	}
	/* A bind mount takes its flags (ro above all) from a remount. */
	if ((fl & MS_BIND) && (fl & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)))
		mount(NULL, dest, NULL, MS_REMOUNT | MS_BIND | (fl & ~MS_REC), NULL);
	return 0;
}

/* The devices every container has (runc's list), made when /dev lacks them. */
static void default_devices(void)
{
	static const struct {
		const char *name;
		unsigned maj, min;
	} devs[] = {{"null", 1, 3},   {"zero", 1, 5},	 {"full", 1, 7},
		    {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};
	static const char *links[][2] = {{"/proc/self/fd", "fd"},
					 {"/proc/self/fd/0", "stdin"},
					 {"/proc/self/fd/1", "stdout"},
					 {"/proc/self/fd/2", "stderr"}};
	char path[300];
	struct stat st;

	if (stat(AGENT_ROOT "/dev", &st) < 0)
		return;
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		snprintf(path, sizeof(path), AGENT_ROOT "/dev/%s", devs[i].name);
		if (lstat(path, &st) == 0)
			continue;
		if (mknod(path, S_IFCHR | 0666, makedev(devs[i].maj, devs[i].min)) == 0)
			chmod(path, 0666);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), AGENT_ROOT "/dev/%s", links[i][1]);
		if (symlink(links[i][0], path) < 0)
			(void)0;
	}
	snprintf(path, sizeof(path), AGENT_ROOT "/dev/pts");
	if (stat(path, &st) == 0 && lstat(AGENT_ROOT "/dev/ptmx", &st) < 0)
		if (symlink("pts/ptmx", AGENT_ROOT "/dev/ptmx") < 0)
			(void)0;
}

int agent_enter_root(char *msg, size_t msglen)
{
	bool has_dev = false, has_proc = false;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(msg, msglen, "make / private: %s", strerror(errno));
		return -1;
	}
	/* rung do: a fresh /proc, /sys and /dev of our own first (nothing of the
	 * host's reaches the guest through the share), then its -v and --tmpfs. */
	if (records_get(&config.rec, "defaults")) {
		static const struct agent_mount defaults[] = {
			{.dest = "/proc", .type = "proc"},
			{.dest = "/sys", .type = "sysfs", .opts = {"ro"}, .nopts = 1},
			{.dest = "/dev", .type = "tmpfs", .opts = {"mode=755"}, .nopts = 1},
			{.dest = "/dev/pts",
			 .type = "devpts",
			 .opts = {"newinstance", "ptmxmode=0666"},
			 .nopts = 2},
			{.dest = "/dev/shm", .type = "tmpfs", .opts = {"mode=1777"}, .nopts = 1},
		};
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			if (do_mount(&defaults[i], msg, msglen) < 0 && i < 3)
				return -1;
		has_dev = true;
	}
	for (size_t i = 0; i < config.nmounts; i++) {
		has_dev |= strcmp(config.mounts[i].dest, "/dev") == 0;
		has_proc |= strcmp(config.mounts[i].dest, "/proc") == 0;
		if (do_mount(&config.mounts[i], msg, msglen) < 0)
			return -1;
	}
	if (has_dev)
		default_devices();
	agent_net_resolv();
	(void)has_proc;
	if (chdir(AGENT_ROOT) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0) {
		snprintf(msg, msglen, "enter the root: %s", strerror(errno));
		return -1;
	}
	return 0;
}
