# Unit tests (Check), one program per subject. They print TAP (CK_TAP_LOG_FILE_NAME=-).
UNIT_TESTS = \
	tests/unit/test_rbtree \
	tests/unit/test_memfile \
	tests/unit/test_memacct \
	tests/unit/test_cow \
	tests/unit/test_mm \
	tests/unit/test_pagecache \
	tests/unit/test_elf \
	tests/unit/test_cpuid \
	tests/unit/test_stack \
	tests/unit/test_syscall_table \
	tests/unit/test_stub_filter \
	tests/unit/test_systrap_filter \
	tests/unit/test_vdso \
	tests/unit/test_sentry_filter \
	tests/unit/test_ktimer \
	tests/unit/test_log \
	tests/unit/test_error \
	tests/unit/test_util \
	tests/unit/test_fds \
	tests/unit/test_overlay_index \
	tests/unit/test_posix_acl \
	tests/unit/test_creds \
	tests/unit/test_unix \
	tests/unit/test_netstack \
	tests/unit/test_dns_relay \
	tests/unit/test_egress \
	tests/unit/test_resolvconf \
	tests/unit/test_seccomp \
	tests/unit/test_level1

check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

UNIT_LDADD = $(RUNG_LIBS) $(CHECK_LIBS)
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)

tests_unit_test_rbtree_SOURCES = tests/unit/test_rbtree.c
tests_unit_test_rbtree_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rbtree_LDADD = $(UNIT_LDADD)

tests_unit_test_memacct_SOURCES = tests/unit/test_memacct.c tests/unit/unit.h
tests_unit_test_memacct_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_memacct_LDADD = $(UNIT_LDADD)

tests_unit_test_egress_SOURCES = tests/unit/test_egress.c tests/unit/unit.h
tests_unit_test_egress_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_egress_LDADD = $(UNIT_LDADD)

tests_unit_test_resolvconf_SOURCES = tests/unit/test_resolvconf.c tests/unit/unit.h
tests_unit_test_resolvconf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_resolvconf_LDADD = $(UNIT_LDADD)

tests_unit_test_memfile_SOURCES = tests/unit/test_memfile.c tests/unit/unit.h
tests_unit_test_memfile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_memfile_LDADD = $(UNIT_LDADD)

tests_unit_test_cow_SOURCES = tests/unit/test_cow.c tests/unit/unit.h
tests_unit_test_cow_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cow_LDADD = $(UNIT_LDADD)

tests_unit_test_mm_SOURCES = tests/unit/test_mm.c tests/unit/unit.h
tests_unit_test_mm_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mm_LDADD = $(UNIT_LDADD)

tests_unit_test_pagecache_SOURCES = tests/unit/test_pagecache.c tests/unit/unit.h
tests_unit_test_pagecache_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_pagecache_LDADD = $(UNIT_LDADD)

tests_unit_test_cpuid_SOURCES = tests/unit/test_cpuid.c tests/unit/unit.h
tests_unit_test_cpuid_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cpuid_LDADD = $(UNIT_LDADD)

tests_unit_test_elf_SOURCES = tests/unit/test_elf.c tests/unit/unit.h
tests_unit_test_elf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_elf_LDADD = $(UNIT_LDADD)

tests_unit_test_stack_SOURCES = tests/unit/test_stack.c tests/unit/unit.h
tests_unit_test_stack_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_LDADD = $(UNIT_LDADD)

tests_unit_test_syscall_table_SOURCES = tests/unit/test_syscall_table.c tests/unit/unit.h
tests_unit_test_syscall_table_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_syscall_table_LDADD = $(UNIT_LDADD)

tests_unit_test_stub_filter_SOURCES = tests/unit/test_stub_filter.c tests/unit/unit.h \
	tests/unit/bpf.h
tests_unit_test_stub_filter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stub_filter_LDADD = $(UNIT_LDADD)

tests_unit_test_systrap_filter_SOURCES = tests/unit/test_systrap_filter.c tests/unit/unit.h \
	tests/unit/bpf.h
tests_unit_test_systrap_filter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_systrap_filter_LDADD = $(UNIT_LDADD)

tests_unit_test_vdso_SOURCES = tests/unit/test_vdso.c tests/unit/unit.h
tests_unit_test_vdso_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_vdso_LDADD = $(UNIT_LDADD)

tests_unit_test_log_SOURCES = tests/unit/test_log.c tests/unit/unit.h
tests_unit_test_log_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_log_LDADD = $(UNIT_LDADD)

tests_unit_test_error_SOURCES = tests/unit/test_error.c tests/unit/unit.h
tests_unit_test_error_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_error_LDADD = $(UNIT_LDADD)

tests_unit_test_util_SOURCES = tests/unit/test_util.c tests/unit/unit.h
tests_unit_test_util_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_util_LDADD = $(UNIT_LDADD)

tests_unit_test_fds_SOURCES = tests/unit/test_fds.c tests/unit/unit.h
tests_unit_test_fds_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fds_LDADD = $(UNIT_LDADD)

tests_unit_test_overlay_index_SOURCES = tests/unit/test_overlay_index.c tests/unit/unit.h
tests_unit_test_overlay_index_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_overlay_index_LDADD = $(UNIT_LDADD)

tests_unit_test_posix_acl_SOURCES = tests/unit/test_posix_acl.c tests/unit/unit.h
tests_unit_test_posix_acl_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_posix_acl_LDADD = $(UNIT_LDADD)

tests_unit_test_ktimer_SOURCES = tests/unit/test_ktimer.c tests/unit/unit.h
tests_unit_test_ktimer_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ktimer_LDADD = $(UNIT_LDADD)

tests_unit_test_sentry_filter_SOURCES = tests/unit/test_sentry_filter.c
tests_unit_test_sentry_filter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sentry_filter_LDADD = $(UNIT_LDADD)

tests_unit_test_dns_relay_SOURCES = tests/unit/test_dns_relay.c tests/unit/unit.h
tests_unit_test_dns_relay_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_dns_relay_LDADD = $(UNIT_LDADD)

tests_unit_test_netstack_SOURCES = tests/unit/test_netstack.c tests/unit/unit.h
tests_unit_test_netstack_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_netstack_LDADD = $(UNIT_LDADD)

tests_unit_test_unix_SOURCES = tests/unit/test_unix.c tests/unit/unit.h
tests_unit_test_unix_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_unix_LDADD = $(UNIT_LDADD)

tests_unit_test_creds_SOURCES = tests/unit/test_creds.c tests/unit/unit.h
tests_unit_test_creds_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_creds_LDADD = $(UNIT_LDADD)

tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c tests/unit/unit.h
tests_unit_test_seccomp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_seccomp_LDADD = $(UNIT_LDADD)

tests_unit_test_level1_SOURCES = tests/unit/test_level1.c tests/unit/unit.h
tests_unit_test_level1_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_level1_LDADD = $(UNIT_LDADD)
