# The gofer: server (a `rung gofer` process), its client library, and their tests.
librung_a_SOURCES += \
	gofer/client.h \
	gofer/gofer.h \
	gofer/main.c \
	gofer/protocol.h
