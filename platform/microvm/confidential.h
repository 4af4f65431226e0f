/*
 * Level 5 (--isolation=confidential): can this host start a VM whose
 * memory the host cannot read (AMD SEV-SNP, Intel TDX)? Every condition is
 * checked and each one that fails is named, so that the refusal says
 * exactly what is missing. The host's facts are gathered into struct
 * cc_host first (cc_probe), so that tests can give fake ones.
 */
#ifndef RUNG_MICROVM_CONFIDENTIAL_H
#define RUNG_MICROVM_CONFIDENTIAL_H

#include <stdbool.h>
#include <stdint.h>

struct rung_error;

struct cc_host {
	const char *root;   /* prefix of /sys and /dev ("" for the host) */
	char vendor[13];    /* CPUID 0: "AuthenticAMD", "GenuineIntel", ... */
	bool has_sev_leaf;  /* CPUID 0x8000001F exists */
	uint32_t sev_eax;   /* its EAX: bit 1 SEV, 3 SEV-ES, 4 SEV-SNP */
	char *kvm_error;    /* why KVM cannot run guests, or NULL */
	int64_t vm_types;   /* KVM_CAP_VM_TYPES mask (bit 4 SNP, 5 TDX), -1 unknown */
	char *qemu_objects; /* `qemu-system-x86_64 -object help`, or NULL */
	char *guest_config; /* the guest kernel's config file (path), or NULL */
};

/* The facts of this host (guest_config: the kernel rung would boot). */
void cc_probe(struct cc_host *h);
void cc_host_release(struct cc_host *h);

/* 0 with *tech "SEV-SNP" or "TDX" when every condition holds; else -1 and
 * err says "level 5 unsupported on this host: " and each missing piece. */
int cc_check(const struct cc_host *h, const char **tech, struct rung_error *err);

#endif
