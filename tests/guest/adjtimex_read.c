/*
 * Guest test: adjtimex and clock_adjtime read the clock discipline (mode
 * 0 and ADJ_OFFSET_SS_READ: the state, the time now) and refuse to change
 * it without CAP_SYS_TIME: the test drops the capability first (natively
 * too), and what it asks to set is the value already there.
 */
#include "guest.h"

#include <linux/capability.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

/* Drop CAP_SYS_TIME from the effective set; true when it is gone. */
static int drop_sys_time(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return 0;
	d[0].effective &= ~(1u << CAP_SYS_TIME);
	d[0].permitted &= ~(1u << CAP_SYS_TIME);
	if (syscall(SYS_capset, &h, d))
		return 0;
	memset(d, 0, sizeof(d));
	return syscall(SYS_capget, &h, d) == 0 && !(d[0].effective & (1u << CAP_SYS_TIME));
}

int main(void)
{
	struct timex tx, tx2;
	struct timespec now;
	int state;

	memset(&tx, 0, sizeof(tx));
	state = adjtimex(&tx);
	CHECK(state >= TIME_OK && state <= TIME_ERROR, "adjtimex(0) gives a clock state");
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK(tx.time.tv_sec >= now.tv_sec - 2 && tx.time.tv_sec <= now.tv_sec, "and the time");
	CHECK_EQ(tx.tick, 10000, "tick is 10000 us (USER_HZ 100)");
	CHECK(tx.constant >= 0 && tx.precision >= 1 && tx.tolerance > 0, "sane discipline fields");
	memset(&tx2, 0, sizeof(tx2));
	CHECK_EQ(syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx2), state,
		 "clock_adjtime(CLOCK_REALTIME) reads the same state");
	CHECK(tx2.tick == tx.tick && tx2.status == tx.status, "and the same fields");
	memset(&tx2, 0, sizeof(tx2));
	tx2.modes = ADJ_OFFSET_SS_READ;
	CHECK_EQ(adjtimex(&tx2), state, "ADJ_OFFSET_SS_READ reads");
	CHECK_ERRNO(syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &tx2), EOPNOTSUPP,
		    "clock_adjtime(CLOCK_MONOTONIC)");
	CHECK_ERRNO(syscall(SYS_clock_adjtime, CLOCK_BOOTTIME, &tx2), EOPNOTSUPP,
		    "clock_adjtime(CLOCK_BOOTTIME)");
	CHECK_ERRNO(syscall(SYS_clock_adjtime, 10, &tx2), EINVAL, "clock_adjtime(10)");
	CHECK_ERRNO(syscall(SYS_clock_adjtime, 100, &tx2), EINVAL, "clock_adjtime(100)");
	CHECK_ERRNO(syscall(SYS_clock_adjtime, CLOCK_REALTIME, (void *)8), EFAULT,
		    "clock_adjtime with a bad pointer");
	CHECK_ERRNO(adjtimex((struct timex *)8), EFAULT, "adjtimex with a bad pointer");
	memset(&tx2, 0, sizeof(tx2));
	tx2.modes = 0x8000; /* ADJ_ADJTIME without SINGLESHOT */
	CHECK_ERRNO(syscall(SYS_adjtimex, &tx2), EINVAL, "ADJ_ADJTIME alone");

	if (!drop_sys_time()) {
		printf("FAIL: cannot drop CAP_SYS_TIME: nothing set is tried\n");
		return 1;
	}
	tx2 = tx;
	tx2.modes = ADJ_TICK; /* the tick it has: no change even if it were allowed */
	CHECK_ERRNO(adjtimex(&tx2), EPERM, "ADJ_TICK without CAP_SYS_TIME");
	tx2 = tx;
	tx2.modes = ADJ_FREQUENCY;
	CHECK_ERRNO(syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx2), EPERM,
		    "clock_adjtime(ADJ_FREQUENCY) without CAP_SYS_TIME");
	memset(&tx2, 0, sizeof(tx2));
	tx2.modes = ADJ_OFFSET_SINGLESHOT; /* offset 0: nothing to slew */
	CHECK_ERRNO(adjtimex(&tx2), EPERM, "adjtime's offset without CAP_SYS_TIME");
	return GUEST_DONE();
}
