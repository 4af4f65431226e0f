# The gofer: server (a `rung gofer` process), its client library, and their tests.
librung_a_SOURCES += \
	gofer/client.c gofer/client.h \
	gofer/gofer.h \
	gofer/handles.c gofer/handles.h \
	gofer/main.c \
	gofer/ops_create.c \
	gofer/ops_file.c \
	gofer/ops_node.c \
	gofer/ops_xattr.c \
	gofer/protocol.h \
	gofer/seccomp.c \
	gofer/serve.h \
	gofer/server.c gofer/server.h \
	gofer/spawn.c \
	gofer/wire.c gofer/wire.h

# Tests: Check programs that re-exec themselves as the gofer (see tests/gofer/gofer_test.h).
GOFER_TESTS = \
	tests/gofer/test_gofer_roundtrip \
	tests/gofer/test_gofer_escape \
	tests/gofer/test_gofer_robust \
	tests/gofer/test_gofer_seccomp

check_PROGRAMS += $(GOFER_TESTS)
TESTS += $(GOFER_TESTS)

GOFER_TEST_LDADD = $(RUNG_LIBS) $(CHECK_LIBS)
GOFER_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)

tests_gofer_test_gofer_roundtrip_SOURCES = tests/gofer/test_gofer_roundtrip.c tests/gofer/gofer_test.h
tests_gofer_test_gofer_roundtrip_CFLAGS = $(GOFER_TEST_CFLAGS)
tests_gofer_test_gofer_roundtrip_LDADD = $(GOFER_TEST_LDADD)

tests_gofer_test_gofer_escape_SOURCES = tests/gofer/test_gofer_escape.c tests/gofer/gofer_test.h
tests_gofer_test_gofer_escape_CFLAGS = $(GOFER_TEST_CFLAGS)
tests_gofer_test_gofer_escape_LDADD = $(GOFER_TEST_LDADD)

tests_gofer_test_gofer_robust_SOURCES = tests/gofer/test_gofer_robust.c tests/gofer/gofer_test.h
tests_gofer_test_gofer_robust_CFLAGS = $(GOFER_TEST_CFLAGS)
tests_gofer_test_gofer_robust_LDADD = $(GOFER_TEST_LDADD)

tests_gofer_test_gofer_seccomp_SOURCES = tests/gofer/test_gofer_seccomp.c
tests_gofer_test_gofer_seccomp_CFLAGS = $(GOFER_TEST_CFLAGS)
tests_gofer_test_gofer_seccomp_LDADD = $(GOFER_TEST_LDADD)
