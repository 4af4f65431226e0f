# Benchmarks: `make bench` runs bench/run against this build's rung. Pass
# options in BENCH_ARGS, e.g. `make bench BENCH_ARGS="--quick"` or
# `make bench BENCH_ARGS="--cpu 1 --json getpid"` or `make bench BENCH_ARGS=fs`.
# See bench/README.md.
EXTRA_DIST += bench/README.md bench/run bench/idle-memory bench/getpid.c bench/floor.c bench/fsops.c \
	bench/procs.c bench/nop.c bench/handoff.c bench/clock.c \
	bench/ladder.bash bench/ladder bench/report bench/setup bench/smoke bench/uml-run \
	bench/qemu-peer bench/timeit.c bench/forkbig.c bench/tcp.c bench/tcp-host

bench: rung
	RUNG=$(abs_top_builddir)/rung $(top_srcdir)/bench/run $(BENCH_ARGS)

# The isolation-ladder report (bench/ladder): every level and peer this
# machine runs, into bench/results/<date>.{json,md} and plots. `make
# bench-report BENCH_ARGS=--quick` for a quick one.
bench-report: rung
	RUNG=$(abs_top_builddir)/rung $(top_srcdir)/bench/ladder $(BENCH_ARGS)

.PHONY: bench bench-report
