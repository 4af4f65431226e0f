/* The guest kernel and initramfs, built once and cached (see assets.h). */
#include "config.h"
#include "platform/microvm/assets.h"
#include "platform/microvm/cpio.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RUNG_VM_KERNEL_DEFAULT
#define RUNG_VM_KERNEL_DEFAULT ""
#endif

/* The modules the agent needs, by name; their dependencies come along. */
static const char *const wanted_modules[] = {
	"virtio_mmio", "virtio_pci", "virtio_console", "9pnet_virtio",
	"9p",	       "overlay",    "virtio_net",     "virtiofs",
};

char *vm_cache_dir(void)
{
	const char *env = getenv("RUNG_VM_CACHE"), *home = getenv("HOME"),
		   *xdg = getenv("XDG_CACHE_HOME");

	if (env && *env)
		return xstrdup(env);
	if (geteuid() == 0)
		return xstrdup("/var/cache/rung/vm");
	if (xdg && *xdg)
		return xasprintf("%s/rung/vm", xdg);
	return xasprintf("%s/.cache/rung/vm", home && *home ? home : "/tmp");
}

static int mkdir_p(const char *path)
{
	char *buf = xstrdup(path);
	int ret = 0;

	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			ret = -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		ret = -errno;
	free(buf);
	return ret;
}

/* FNV-1a, continued from h: names the initramfs after the agent and the
 * module list it carries. */
static uint64_t fnv1a_from(uint64_t h, const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t initramfs_hash(void)
{
	uint64_t h = fnv1a_from(0xcbf29ce484222325ull, rung_agent_start,
				(size_t)(rung_agent_end - rung_agent_start));

	for (size_t i = 0; i < ARRAY_SIZE(wanted_modules); i++)
		h = fnv1a_from(h, (const unsigned char *)wanted_modules[i],
			       strlen(wanted_modules[i]) + 1);
	return h;
}

/* Map a whole file read-only. */
static int map_file(const char *path, unsigned char **data, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		close(fd);
		return -EINVAL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	*data = p;
	*len = (size_t)st.st_size;
	return 0;
}

/* Run `tool -dc` with in as stdin and out as stdout; 0 when it wrote something. */
static int run_decompressor(const char *tool, int in, int out)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(in, 0);
		dup2(out, 1);
		if (null >= 0)
			dup2(null, 2);
		if (strcmp(tool, "xz") == 0)
			execlp("xz", "xz", "-dc", "--single-stream", (char *)NULL);
		else
			execlp(tool, tool, "-dc", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	/* gzip exits 2 for the trailing bytes after the stream ("trailing
	 * garbage ignored"); what counts is the output, checked by the caller. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return 0;
}

/* Which tool decompresses data (by its magic number), or NULL. */
static const char *decompressor(const unsigned char *p, size_t len)
{
	if (len >= 6 && memcmp(p,
			       "\xfd"
			       "7zXZ\0",
			       6) == 0)
		return "xz";
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return "gzip";
	if (len >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return "zstd";
	return NULL;
}

/* Decompress data into the file path (via a temporary, renamed at the end). */
static int decompress_to(const unsigned char *data, size_t len, const char *path,
			 struct rung_error *err)
{
	const char *tool = decompressor(data, len);
	cleanup_free char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	cleanup_close int in = -1;
	cleanup_close int out = -1;
	char magic[4];
	int ret;

	if (!tool)
		return rung_error_make(err, 0, "unknown compression for `%s`", path);
	in = memfd_create("rung-payload", MFD_CLOEXEC);
	if (in < 0 || write_all(in, data, len) != (ssize_t)len || lseek(in, 0, SEEK_SET) < 0)
		return rung_error_make(err, errno, "buffer the compressed payload");
	out = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return rung_error_make(err, errno, "create `%s`", tmp);
	ret = run_decompressor(tool, in, out);
	if (ret < 0) {
		unlink(tmp);
		return rung_error_make(err, -ret, "run `%s -dc` (is it installed?)", tool);
	}
	if (pread(out, magic, 4, 0) != 4) {
		unlink(tmp);
		return rung_error_make(err, 0, "`%s -dc` produced nothing", tool);
	}
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return rung_error_make(err, errno, "rename to `%s`", path);
	}
	return 0;
}

/*
 * The vmlinux inside a bzImage: the boot protocol header (at 0x1f1) says
 * where the compressed payload starts (setup sectors, payload_offset at
 * 0x248) and how long it is (payload_length at 0x24c, protocol >= 2.08).
 */
static int extract_vmlinux(const char *bzimage, const char *out, struct rung_error *err)
{
	unsigned char *p;
	size_t len, off;
	uint32_t poff, plen;
	uint16_t version;
	unsigned setup;
	int ret = map_file(bzimage, &p, &len);

	if (ret < 0)
		return rung_error_make(err, -ret, "read the kernel `%s`", bzimage);
	if (len > 4 && memcmp(p,
			      "\x7f"
			      "ELF",
			      4) == 0) {
		/* Already an ELF vmlinux: used as it is (a copy, so that the cache owns it). */
		ret = 0;
		{
			cleanup_free char *tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
			int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || write_all(fd, p, len) != (ssize_t)len || rename(tmp, out) < 0)
				ret = rung_error_make(err, errno, "copy the kernel to `%s`", out);
			if (fd >= 0)
				close(fd);
		}
		munmap(p, len);
		return ret;
	}
	if (len < 0x264 || memcmp(p + 0x202, "HdrS", 4) != 0) {
		munmap(p, len);
		return rung_error_make(err, 0, "`%s` is neither an ELF kernel nor a bzImage",
				       bzimage);
	}
	memcpy(&version, p + 0x206, 2);
	setup = p[0x1f1] ? p[0x1f1] : 4;
	memcpy(&poff, p + 0x248, 4);
	memcpy(&plen, p + 0x24c, 4);
	off = (size_t)(setup + 1) * 512 + poff;
	if (version < 0x208 || off >= len || plen > len - off) {
		munmap(p, len);
		return rung_error_make(err, 0, "`%s`: unsupported boot protocol %#x", bzimage,
				       version);
	}
	ret = decompress_to(p + off, plen, out, err);
	munmap(p, len);
	if (ret < 0)
		return rung_error_wrap(err, "extract the vmlinux of `%s`", bzimage);
	{
		unsigned char magic[4] = {0};
		int fd = open(out, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, magic, 4) != 4 ||
		    memcmp(magic,
			   "\x7f"
			   "ELF",
			   4) != 0) {
			if (fd >= 0)
				close(fd);
			unlink(out);
			return rung_error_make(err, 0, "`%s`: the payload is not an ELF kernel",
					       bzimage);
		}
		close(fd);
	}
	return 0;
}

/* --- the kernel ---------------------------------------------------------------------- */

/* The newest /boot/vmlinuz-RELEASE whose /lib/modules/RELEASE/modules.dep exists. */
static char *find_boot_kernel(char **release)
{
	DIR *d = opendir("/boot");
	struct dirent *e;
	char *best = NULL;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char *dep;
		if (strncmp(e->d_name, "vmlinuz-", 8) != 0)
			continue;
		dep = xasprintf("/lib/modules/%s/modules.dep", e->d_name + 8);
		if (access(dep, R_OK) == 0 && (!best || strverscmp(e->d_name + 8, best) > 0)) {
			free(best);
			best = xstrdup(e->d_name + 8);
		}
		free(dep);
	}
	closedir(d);
	if (!best)
		return NULL;
	*release = best;
	return xasprintf("/boot/vmlinuz-%s", best);
}

char *vm_kernel_source(const char *kernel, char **release)
{
	if (!kernel || !*kernel)
		kernel = getenv("RUNG_VM_KERNEL");
	if (!kernel || !*kernel)
		kernel = *RUNG_VM_KERNEL_DEFAULT ? RUNG_VM_KERNEL_DEFAULT : NULL;
	if (kernel) {
		*release = xstrdup("custom");
		return xstrdup(kernel);
	}
	return find_boot_kernel(release);
}

/* --- the initramfs ------------------------------------------------------------------- */

struct moddep {
	char **names, **paths; /* module name (with '_'), path relative to the modules dir */
	char **deps;	       /* the rest of its modules.dep line */
	size_t n;
};

static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *name = xstrdup(base), *dot = strstr(name, ".ko");

	if (dot)
		*dot = '\0';
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

static int moddep_load(const char *dir, struct moddep *md)
{
	cleanup_free char *path = xasprintf("%s/modules.dep", dir);
	cleanup_file FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, alloc = 0;

	memset(md, 0, sizeof(*md));
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		line[strcspn(line, "\n")] = '\0';
		colon[1 + strcspn(colon + 1, "\n")] = '\0';
		if (md->n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			md->names = xrealloc(md->names, alloc * sizeof(char *));
			md->paths = xrealloc(md->paths, alloc * sizeof(char *));
			md->deps = xrealloc(md->deps, alloc * sizeof(char *));
		}
		md->names[md->n] = module_name(line);
		md->paths[md->n] = xstrdup(line);
		md->deps[md->n++] = xstrdup(colon + 1);
	}
	free(line);
	return 0;
}

static void moddep_release(struct moddep *md)
{
	for (size_t i = 0; i < md->n; i++) {
		free(md->names[i]);
		free(md->paths[i]);
		free(md->deps[i]);
	}
	free(md->names);
	free(md->paths);
	free(md->deps);
}

static ssize_t moddep_find_path(const struct moddep *md, const char *path)
{
	for (size_t i = 0; i < md->n; i++)
		if (strcmp(md->paths[i], path) == 0)
			return (ssize_t)i;
	return -1;
}

/* Append module i to order after its dependencies (depth first, once each). */
static void module_order(const struct moddep *md, size_t i, bool *seen, size_t *order, size_t *n,
			 int depth)
{
	char *deps, *save = NULL;

	if (seen[i] || depth > 64)
		return;
	seen[i] = true;
	deps = xstrdup(md->deps[i]);
	for (char *d = strtok_r(deps, " ", &save); d; d = strtok_r(NULL, " ", &save)) {
		ssize_t j = moddep_find_path(md, d);
		if (j >= 0)
			module_order(md, (size_t)j, seen, order, n, depth + 1);
	}
	free(deps);
	order[(*n)++] = i;
}

/* The contents of a module, decompressed if needed (malloc'd). */
static int module_read(const char *path, unsigned char **data, size_t *len, struct rung_error *err)
{
	unsigned char *p;
	size_t plen;
	int ret = map_file(path, &p, &plen);

	if (ret < 0)
		return rung_error_make(err, -ret, "read `%s`", path);
	if (!decompressor(p, plen)) {
		*data = xmalloc(plen);
		memcpy(*data, p, plen);
		*len = plen;
		munmap(p, plen);
		return 0;
	}
	{
		int out = memfd_create("rung-module", MFD_CLOEXEC), in;
		struct stat st;
		in = memfd_create("rung-module-in", MFD_CLOEXEC);
		if (in < 0 || out < 0 || write_all(in, p, plen) != (ssize_t)plen ||
		    lseek(in, 0, SEEK_SET) < 0 ||
		    run_decompressor(decompressor(p, plen), in, out) < 0 || fstat(out, &st) < 0 ||
		    st.st_size == 0) {
			munmap(p, plen);
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
			return rung_error_make(err, 0, "decompress `%s`", path);
		}
		munmap(p, plen);
		*len = (size_t)st.st_size;
		*data = xmalloc(*len);
		ret = pread(out, *data, *len, 0) == (ssize_t)*len ? 0 : -EIO;
		close(in);
		close(out);
		if (ret < 0) {
			free(*data);
			return rung_error_make(err, EIO, "decompress `%s`", path);
		}
	}
	return 0;
}

/* Write the initramfs: the agent as /init, the modules and their load order. */
static int build_initramfs(const char *release, const char *out, struct rung_error *err)
{
	cleanup_free char *moddir = release ? xasprintf("/lib/modules/%s", release) : NULL;
	cleanup_free char *tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
	cleanup_free char *order_txt = xstrdup("");
	struct moddep md = {0};
	size_t *order = NULL, norder = 0;
	bool *seen = NULL;
	FILE *f;
	int ret = 0;

	f = fopen(tmp, "we");
	if (!f)
		return rung_error_make(err, errno, "create `%s`", tmp);
	static const char *const dirs[] = {"dev", "proc", "sys", "rootfs", "modules", "tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		ret = ret ?: cpio_add(f, dirs[i], S_IFDIR | 0755, 0, NULL, 0);
	ret = ret ?: cpio_add(f, "dev/console", S_IFCHR | 0600, makedev(5, 1), NULL, 0);
	ret = ret
		      ?: cpio_add(f, "init", S_IFREG | 0755, 0, rung_agent_start,
				  (size_t)(rung_agent_end - rung_agent_start));
	if (ret == 0 && moddir && moddep_load(moddir, &md) == 0) {
		seen = xzalloc(md.n * sizeof(bool));
		order = xmalloc(md.n * sizeof(size_t));
		for (size_t w = 0; w < ARRAY_SIZE(wanted_modules); w++)
			for (size_t i = 0; i < md.n; i++)
				if (strcmp(md.names[i], wanted_modules[w]) == 0)
					module_order(&md, i, seen, order, &norder, 0);
		for (size_t k = 0; k < norder && ret == 0; k++) {
			size_t i = order[k];
			cleanup_free char *src = xasprintf("%s/%s", moddir, md.paths[i]);
			cleanup_free char *dst = xasprintf("modules/%s.ko", md.names[i]);
			unsigned char *data = NULL;
			size_t len = 0;
			char *line;
			ret = module_read(src, &data, &len, err);
			if (ret < 0)
				break;
			ret = cpio_add(f, dst, S_IFREG | 0644, 0, data, len);
			free(data);
			line = xasprintf("%s%s.ko\n", order_txt, md.names[i]);
			free(order_txt);
			order_txt = line;
		}
		if (ret == 0)
			ret = cpio_add(f, "modules/order", S_IFREG | 0644, 0, order_txt,
				       strlen(order_txt));
	}
	ret = ret ?: cpio_finish(f);
	if (fclose(f) != 0 && ret == 0)
		ret = -EIO;
	free(seen);
	free(order);
	moddep_release(&md);
	if (ret == 0 && rename(tmp, out) < 0)
		ret = -errno;
	if (ret < 0) {
		unlink(tmp);
		if (!err->msg)
			rung_error_make(err, -ret, "write the initramfs `%s`", out);
		return -1;
	}
	return 0;
}

/* --- the cache ------------------------------------------------------------------------- */

int vm_assets_get(const char *kernel, bool progress, struct vm_assets *out, struct rung_error *err)
{
	cleanup_free char *cache = vm_cache_dir();
	cleanup_free char *src = NULL;
	cleanup_free char *release = NULL;
	cleanup_free char *dir = NULL;
	cleanup_free char *lockpath = NULL;
	cleanup_close int lock = -1;
	struct stat st;
	uint64_t agent = initramfs_hash();
	char *vmlinux, *initrd;

	memset(out, 0, sizeof(*out));
	src = vm_kernel_source(kernel, &release);
	if (!src)
		return rung_error_make(
			err, 0,
			"no guest kernel: install linux-image-amd64 (a /boot/vmlinuz-* "
			"with its /lib/modules), or give --kernel");
	if (stat(src, &st) < 0)
		return rung_error_make(err, errno, "guest kernel `%s`", src);
	/* One directory per kernel file version: a reinstalled kernel is rebuilt. */
	dir = xasprintf("%s/%s-%lx-%lx", cache, release, (unsigned long)st.st_size,
			(unsigned long)st.st_mtime);
	if (mkdir_p(dir) < 0)
		return rung_error_make(err, errno, "create the VM cache `%s`", dir);
	lockpath = xasprintf("%s/lock", dir);
	lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		return rung_error_make(err, errno, "lock `%s`", lockpath);
	vmlinux = xasprintf("%s/vmlinux", dir);
	initrd = xasprintf("%s/initramfs-%016llx.cpio", dir, (unsigned long long)agent);
	if (access(vmlinux, R_OK) != 0) {
		if (progress)
			fprintf(stderr, "rung: extracting the guest kernel from %s ...\n", src);
		if (extract_vmlinux(src, vmlinux, err) < 0)
			goto fail;
	}
	if (access(initrd, R_OK) != 0) {
		if (progress)
			fprintf(stderr, "rung: building the initramfs (rung-agent%s%s) ...\n",
				strcmp(release, "custom") ? ", modules of " : "",
				strcmp(release, "custom") ? release : "");
		if (build_initramfs(strcmp(release, "custom") ? release : NULL, initrd, err) < 0)
			goto fail;
	}
	out->kernel = vmlinux;
	out->initrd = initrd;
	out->release = steal_pointer(&release);
	return 0;
fail:
	free(vmlinux);
	free(initrd);
	return -1;
}

void vm_assets_release(struct vm_assets *a)
{
	free(a->kernel);
	free(a->initrd);
	free(a->release);
	memset(a, 0, sizeof(*a));
}
