/* Unit tests: level 5 detection (platform/microvm/confidential.c) on fake
 * hosts: a sysfs and /dev tree in a temporary directory, CPUID, KVM, QEMU
 * and guest-kernel facts given directly. Each missing piece must be named. */
#include "config.h"
#include "platform/microvm/confidential.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static char config_path[128];

static void put(const char *path, const char *content)
{
	char *p = xasprintf("%s%s", root, path), *dir = xstrdup(p);
	FILE *f;

	for (char *s = dir + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(dir, 0755);
			*s = '/';
		}
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	fclose(f);
	free(p);
	free(dir);
}

static void setup(void)
{
	strcpy(root, "/tmp/rung-cc-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(config_path, sizeof(config_path), "%s/config", root);
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		(void)0;
	free(cmd);
}

/* A host where SEV-SNP would work: every fact in place. */
static void amd_host(struct cc_host *h)
{
	memset(h, 0, sizeof(*h));
	h->root = root;
	strcpy(h->vendor, "AuthenticAMD");
	h->has_sev_leaf = true;
	h->sev_eax = (1u << 1) | (1u << 3) | (1u << 4);
	h->vm_types = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 4);
	h->qemu_objects = (char *)"List of user creatable objects:\n  sev-guest\n  sev-snp-guest\n";
	h->guest_config = config_path;
	put("/sys/module/kvm_amd/parameters/sev_snp", "Y\n");
	put("/dev/sev", "");
	put("/config", "CONFIG_AMD_MEM_ENCRYPT=y\n# CONFIG_INTEL_TDX_GUEST is not set\n");
}

static void intel_host(struct cc_host *h)
{
	memset(h, 0, sizeof(*h));
	h->root = root;
	strcpy(h->vendor, "GenuineIntel");
	h->vm_types = (1 << 0) | (1 << 5);
	h->qemu_objects = (char *)"  tdx-guest\n";
	h->guest_config = config_path;
	put("/sys/module/kvm_intel/parameters/tdx", "Y\n");
	put("/config", "CONFIG_INTEL_TDX_GUEST=y\n");
}

/* cc_check's message (malloc'd), or NULL when it passed. */
static char *check(const struct cc_host *h, const char **tech)
{
	struct rung_error err = {0};
	char *msg;

	if (cc_check(h, tech, &err) == 0)
		return NULL;
	msg = xstrdup(err.msg);
	rung_error_release(&err);
	return msg;
}

START_TEST(test_snp_host_passes)
{
	struct cc_host h;
	const char *tech;

	amd_host(&h);
	ck_assert_ptr_null(check(&h, &tech));
	ck_assert_str_eq(tech, "SEV-SNP");
}
END_TEST

START_TEST(test_tdx_host_passes)
{
	struct cc_host h;
	const char *tech;

	intel_host(&h);
	ck_assert_ptr_null(check(&h, &tech));
	ck_assert_str_eq(tech, "TDX");
}
END_TEST

/* Bookworm's case on an SEV (not SNP) machine: every missing piece named. */
START_TEST(test_amd_missing_everything)
{
	struct cc_host h;
	const char *tech;
	char *msg, *sev;

	amd_host(&h);
	h.sev_eax = (1u << 1) | (1u << 3);
	h.vm_types = 1;
	h.qemu_objects = (char *)"  sev-guest\n";
	sev = xasprintf("%s/dev/sev", root);
	unlink(sev);
	free(sev);
	sev = xasprintf("%s/sys/module/kvm_amd/parameters/sev_snp", root);
	unlink(sev);
	free(sev);
	put("/config", "# CONFIG_AMD_MEM_ENCRYPT is not set\n");
	msg = check(&h, &tech);
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(strncmp(msg, "level 5 unsupported on this host: ", 34) == 0, "%s", msg);
	ck_assert_msg(strstr(msg, "CPUID 8000001F[4]=0"), "%s", msg);
	ck_assert_msg(strstr(msg, "kvm_amd has no sev_snp parameter"), "%s", msg);
	ck_assert_msg(strstr(msg, "no /dev/sev"), "%s", msg);
	ck_assert_msg(strstr(msg, "mask 0x1 has no SNP"), "%s", msg);
	/* "sev-guest" alone is not "sev-snp-guest" (and not a prefix match). */
	ck_assert_msg(strstr(msg, "QEMU has no sev-snp-guest"), "%s", msg);
	ck_assert_msg(strstr(msg, "lacks CONFIG_AMD_MEM_ENCRYPT"), "%s", msg);
	ck_assert_msg(!strstr(msg, "KVM ("), "%s", msg);
	free(msg);
}
END_TEST

/* One piece at a time: only it is named. */
START_TEST(test_amd_one_missing)
{
	struct cc_host h;
	const char *tech;
	char *msg;

	amd_host(&h);
	put("/sys/module/kvm_amd/parameters/sev_snp", "N\n");
	msg = check(&h, &tech);
	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(msg, "level 5 unsupported on this host: kvm_amd.sev_snp is off");
	free(msg);

	amd_host(&h);
	h.kvm_error = (char *)"/dev/kvm: No such file or directory";
	msg = check(&h, &tech);
	ck_assert_str_eq(msg, "level 5 unsupported on this host: no usable KVM (/dev/kvm: No such "
			      "file or directory)");
	free(msg);

	/* An unknown VM-types mask (an older kernel) is not held against it. */
	amd_host(&h);
	h.vm_types = -1;
	ck_assert_ptr_null(check(&h, &tech));
}
END_TEST

START_TEST(test_intel_missing)
{
	struct cc_host h;
	const char *tech;
	char *msg;

	intel_host(&h);
	put("/sys/module/kvm_intel/parameters/tdx", "N\n");
	h.qemu_objects = NULL;
	put("/config", "# CONFIG_INTEL_TDX_GUEST is not set\n");
	msg = check(&h, &tech);
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(strstr(msg, "kvm_intel.tdx is off"), "%s", msg);
	ck_assert_msg(strstr(msg, "QEMU has no tdx-guest"), "%s", msg);
	ck_assert_msg(strstr(msg, "lacks CONFIG_INTEL_TDX_GUEST"), "%s", msg);
	free(msg);
}
END_TEST

START_TEST(test_other_vendor)
{
	struct cc_host h;
	const char *tech;
	char *msg;

	amd_host(&h);
	strcpy(h.vendor, "HygonGenuine");
	msg = check(&h, &tech);
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(strstr(msg, "a HygonGenuine CPU"), "%s", msg);
	free(msg);
}
END_TEST

/* This host, whatever it is: cc_probe gathers facts and cc_check answers. */
START_TEST(test_probe_this_host)
{
	struct cc_host h;
	const char *tech;
	char *msg;

	cc_probe(&h);
	msg = check(&h, &tech);
	if (msg)
		ck_assert_msg(strncmp(msg, "level 5 unsupported on this host: ", 34) == 0, "%s",
			      msg);
	free(msg);
	cc_host_release(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("confidential");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_snp_host_passes);
	tcase_add_test(tc, test_tdx_host_passes);
	tcase_add_test(tc, test_amd_missing_everything);
	tcase_add_test(tc, test_amd_one_missing);
	tcase_add_test(tc, test_intel_missing);
	tcase_add_test(tc, test_other_vendor);
	tcase_add_test(tc, test_probe_this_host);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
