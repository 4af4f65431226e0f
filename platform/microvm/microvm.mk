# The VM levels: QEMU driving (platform/microvm/) and rung-agent, the guest's
# PID 1, built static and embedded in rung (agent_blob.S).
librung_a_SOURCES += \
	platform/microvm/agent_blob.S \
	platform/microvm/assets.c platform/microvm/assets.h \
	platform/microvm/confidential.c platform/microvm/confidential.h \
	platform/microvm/cpio.c platform/microvm/cpio.h \
	platform/microvm/detect.c platform/microvm/detect.h \
	platform/microvm/proto.h \
	platform/microvm/qemu.c platform/microvm/qemu.h \
	platform/microvm/qemu_privs.c platform/microvm/qemu_privs.h \
	platform/microvm/qmp.c platform/microvm/qmp.h \
	platform/microvm/virtiofsd.c platform/microvm/virtiofsd.h \
	platform/microvm/vm.c platform/microvm/vm.h \
	runsc-compat/compat.c runsc-compat/compat.h \
	runsc-compat/isolation.c runsc-compat/isolation.h \
	runsc-compat/vm_container.c \
	runsc-compat/vm_do.c \
	runsc-compat/vm_run.h

RUNG_AGENT_SRCS = \
	platform/microvm/agent/agent.h \
	platform/microvm/agent/main.c \
	platform/microvm/agent/net.c \
	platform/microvm/agent/setup.c \
	platform/microvm/agent/spawn.c \
	platform/microvm/proto.h

AGENT_CFLAGS = -D_GNU_SOURCE -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter

platform/microvm/rung-agent: $(RUNG_AGENT_SRCS:%=$(srcdir)/%)
	@mkdir -p platform/microvm
	$(AM_V_CC)$(CC) $(AGENT_CFLAGS) -static -s -o $@ $(filter %.c,$^)

platform/microvm/agent_blob.$(OBJEXT): platform/microvm/rung-agent

CLEANFILES += platform/microvm/rung-agent
EXTRA_DIST += $(RUNG_AGENT_SRCS)

# Level 5 detection on fake hosts (Check).
check_PROGRAMS += tests/unit/test_confidential
TESTS += tests/unit/test_confidential
tests_unit_test_confidential_SOURCES = tests/unit/test_confidential.c tests/unit/unit.h
tests_unit_test_confidential_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_confidential_LDADD = $(RUNG_LIBS) $(CHECK_LIBS)
