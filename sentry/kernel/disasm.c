/*
 * One instruction decoded with capstone, which is dlopen()ed by the sentry
 * only: linked into rung, its relocated tables (~1.5 MiB of dirty pages)
 * would be paid by every rung process (the gofer, each CLI command), and
 * its load time by every command's start.
 */
#include "config.h"
#include "sentry/kernel/disasm.h"
#include "platform/platform.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	cs.option = (cs_err(*)(csh, cs_opt_type, size_t))dlsym(h, "cs_option");
	cs.disasm = (size_t(*)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **))dlsym(
		h, "cs_disasm");
	cs.free = (void (*)(cs_insn *, size_t))dlsym(h, "cs_free");
	cs.close = (cs_err(*)(csh *))dlsym(h, "cs_close");
	/* open last: it is what says the rest is there */
	if (cs.option && cs.disasm && cs.free && cs.close)
		cs.open = (cs_err(*)(cs_arch, cs_mode, csh *))dlsym(h, "cs_open");
}

void disasm_preload(void)
{
	pthread_once(&cs_once, load);
}

unsigned disasm_one(const uint8_t *code, size_t n, uint64_t rip, char *text, int size)
{
	cs_insn *insn = NULL;
	unsigned access = 0;
	csh h;

	snprintf(text, (size_t)size, "?");
	disasm_preload();
	if (!cs.open || cs.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	if (cs.disasm(h, code, n, rip, 1, &insn) == 1) {
		snprintf(text, (size_t)size, "%.31s%s%.*s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", size - 33, insn->op_str);
		for (uint8_t i = 0; insn->detail && i < insn->detail->x86.op_count; i++) {
			const cs_x86_op *op = &insn->detail->x86.operands[i];
			if (op->type != X86_OP_MEM)
				continue;
			if (op->access & CS_AC_READ)
				access |= ACCESS_READ;
			if (op->access & CS_AC_WRITE)
				access |= ACCESS_WRITE;
		}
		/* push/call/ret and friends touch the stack without a memory operand. */
		if (!access && insn->detail) {
			for (uint8_t i = 0; i < insn->detail->regs_write_count; i++)
				if (insn->detail->regs_write[i] == X86_REG_RSP)
					access = ACCESS_READ | ACCESS_WRITE;
		}
		cs.free(insn, 1);
	} else {
		snprintf(text, (size_t)size, "(undecodable)");
	}
	cs.close(&h);
	return access;
}
