# Unit tests (Check), one program per subject. They print TAP (CK_TAP_LOG_FILE_NAME=-).
UNIT_TESTS = \
	tests/unit/test_rbtree

check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

UNIT_LDADD = $(RUNG_LIBS) $(CHECK_LIBS)
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)

tests_unit_test_rbtree_SOURCES = tests/unit/test_rbtree.c
tests_unit_test_rbtree_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rbtree_LDADD = $(UNIT_LDADD)
