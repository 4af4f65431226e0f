/* Level 5 detection (see confidential.h, and ../shared/docs/microvm.md §10). */
#include "config.h"
#include "platform/microvm/confidential.h"
#include "platform/microvm/detect.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KVM_CAP_VM_TYPES_NR 235 /* Linux 6.8; older headers lack it */
#define VM_TYPE_SNP	    4
#define VM_TYPE_TDX	    5

/* Is the module parameter (under h->root) "Y" or "1"? */
static bool param_on(const struct cc_host *h, const char *path)
{
	char *p = xasprintf("%s%s", h->root, path), buf[8] = "";
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	free(p);
	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1';
}

static bool exists(const struct cc_host *h, const char *path)
{
	char *p = xasprintf("%s%s", h->root, path);
	bool ret = access(p, F_OK) == 0;

	free(p);
	return ret;
}

/* Does the guest kernel's config set option (=y)? */
static bool guest_has(const struct cc_host *h, const char *option)
{
	FILE *f = h->guest_config ? fopen(h->guest_config, "re") : NULL;
	char *line = NULL, *want = xasprintf("%s=y", option);
	size_t cap = 0;
	bool found = false;

	while (f && getline(&line, &cap, f) > 0)
		if (strncmp(line, want, strlen(want)) == 0)
			found = true;
	if (f)
		fclose(f);
	free(line);
	free(want);
	return found;
}

static bool qemu_has(const struct cc_host *h, const char *object)
{
	const char *p = h->qemu_objects;
	size_t len = strlen(object);

	/* One name per line, indented. */
	while (p && (p = strstr(p, object))) {
		bool start = p == h->qemu_objects || p[-1] == ' ' || p[-1] == '\n';
		bool end = p[len] == '\0' || p[len] == '\n' || p[len] == ' ';
		if (start && end)
			return true;
		p += len;
	}
	return false;
}

static void missing(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void missing(struct strbuf *b, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf_printf(b, "%s%s", b->len ? ", " : "", buf);
}

int cc_check(const struct cc_host *h, const char **tech, struct rung_error *err)
{
	struct strbuf b = {0};
	bool amd = strcmp(h->vendor, "AuthenticAMD") == 0,
	     intel = strcmp(h->vendor, "GenuineIntel") == 0;
	int ret;

	*tech = amd ? "SEV-SNP" : "TDX";
	if (h->kvm_error)
		missing(&b, "no usable KVM (%s)", h->kvm_error);
	if (amd) {
		if (!h->has_sev_leaf || !(h->sev_eax & (1u << 4)))
			missing(&b, "AMD CPU without SEV-SNP (CPUID 8000001F[4]=0)");
		if (!exists(h, "/sys/module/kvm_amd/parameters/sev_snp"))
			missing(&b, "kvm_amd has no sev_snp parameter");
		else if (!param_on(h, "/sys/module/kvm_amd/parameters/sev_snp"))
			missing(&b, "kvm_amd.sev_snp is off");
		if (!exists(h, "/dev/sev"))
			missing(&b, "no /dev/sev (the PSP driver)");
		if (h->vm_types >= 0 && !(h->vm_types & (1 << VM_TYPE_SNP)))
			missing(&b, "KVM VM types mask %#llx has no SNP",
				(unsigned long long)h->vm_types);
		if (!qemu_has(h, "sev-snp-guest"))
			missing(&b, "QEMU has no sev-snp-guest object");
		if (!guest_has(h, "CONFIG_AMD_MEM_ENCRYPT"))
			missing(&b, "the guest kernel lacks CONFIG_AMD_MEM_ENCRYPT");
	} else if (intel) {
		if (!exists(h, "/sys/module/kvm_intel/parameters/tdx"))
			missing(&b, "kvm_intel has no tdx parameter");
		else if (!param_on(h, "/sys/module/kvm_intel/parameters/tdx"))
			missing(&b, "kvm_intel.tdx is off");
		if (h->vm_types >= 0 && !(h->vm_types & (1 << VM_TYPE_TDX)))
			missing(&b, "KVM VM types mask %#llx has no TDX",
				(unsigned long long)h->vm_types);
		if (!qemu_has(h, "tdx-guest"))
			missing(&b, "QEMU has no tdx-guest object");
		if (!guest_has(h, "CONFIG_INTEL_TDX_GUEST"))
			missing(&b, "the guest kernel lacks CONFIG_INTEL_TDX_GUEST");
	} else {
		missing(&b, "a %s CPU (neither AMD SEV-SNP nor Intel TDX)",
			*h->vendor ? h->vendor : "unknown");
	}
	if (b.len) {
		ret = rung_error_make(err, 0, "level 5 unsupported on this host: %s", b.buf);
		strbuf_release(&b);
		return ret;
	}
	return 0;
}

/* The output of `qemu -object help` (malloc'd), or NULL. */
static char *qemu_objects(void)
{
	char *qemu = vm_qemu_binary(), *out = NULL;
	int p[2];
	pid_t pid;

	if (!qemu || pipe2(p, O_CLOEXEC) < 0) {
		free(qemu);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl(qemu, qemu, "-object", "help", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0) {
		struct strbuf b = {0};
		char buf[4096];
		ssize_t n;
		while ((n = read(p[0], buf, sizeof(buf))) > 0 && b.len < (1u << 20))
			strbuf_append(&b, buf, (size_t)n);
		waitpid(pid, NULL, 0);
		out = b.buf;
	}
	close(p[0]);
	free(qemu);
	return out;
}

/* The config of the newest /boot/vmlinuz-* (the kernel rung boots), or NULL. */
static char *guest_config(void)
{
	DIR *d = opendir("/boot");
	struct dirent *e;
	char *best = NULL;

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, "config-", 7) == 0 &&
		    (!best || strverscmp(e->d_name + 7, best + 7) > 0)) {
			free(best);
			best = xstrdup(e->d_name);
		}
	if (d)
		closedir(d);
	if (best) {
		char *p = xasprintf("/boot/%s", best);
		free(best);
		return p;
	}
	return NULL;
}

void cc_probe(struct cc_host *h)
{
	struct rung_error err = {0};
	unsigned a, b, c, d;
	int fd;

	memset(h, 0, sizeof(*h));
	h->root = "";
	h->vm_types = -1;
	if (__get_cpuid(0, &a, &b, &c, &d)) {
		memcpy(h->vendor, &b, 4);
		memcpy(h->vendor + 4, &d, 4);
		memcpy(h->vendor + 8, &c, 4);
	}
	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x8000001f) {
		__get_cpuid(0x8000001f, &a, &b, &c, &d);
		h->has_sev_leaf = true;
		h->sev_eax = a;
	}
	if (vm_kvm_usable(&err) < 0)
		h->kvm_error = rung_error_string(&err);
	rung_error_release(&err);
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		int vm = ioctl(fd, KVM_CREATE_VM, 0);
		if (vm >= 0) {
			int types = ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_VM_TYPES_NR);
			h->vm_types = types >= 0 ? types : 0;
			close(vm);
		}
		close(fd);
	}
	h->qemu_objects = qemu_objects();
	h->guest_config = guest_config();
}

void cc_host_release(struct cc_host *h)
{
	free(h->kvm_error);
	free(h->qemu_objects);
	free(h->guest_config);
	h->kvm_error = h->qemu_objects = h->guest_config = NULL;
}
