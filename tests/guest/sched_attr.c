/* sched_setattr and sched_getattr (sizes, flags, fair and real-time
 * policies, as sched_setscheduler and setpriority see them) and
 * get_robust_list (what glibc registered for the thread). */
#include "guest.h"

#include <sched.h>
#include <sys/resource.h>

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static long setattr(struct attr *a)
{
	return syscall(SYS_sched_setattr, 0, a, 0);
}

int main(void)
{
	struct attr a = {0}, big[4];
	uint64_t head = 0;
	size_t len = 0;

	CHECK(syscall(SYS_sched_getattr, 0, &a, 48, 0) == 0 && a.size == 48 && a.policy == 0 &&
		      a.nice == getpriority(PRIO_PROCESS, 0) && a.priority == 0,
	      "sched_getattr: SCHED_OTHER, the nice value, the size asked for");
	CHECK_ERRNO(syscall(SYS_sched_getattr, 0, &a, 40, 0), EINVAL, "sched_getattr of a size below 48");
	CHECK_ERRNO(syscall(SYS_sched_getattr, 0, &a, 48, 1), EINVAL, "sched_getattr with a flag");
	CHECK_ERRNO(syscall(SYS_sched_getattr, 4000000, &a, 48, 0), ESRCH, "sched_getattr of no such pid");

	a = (struct attr){.size = 48, .policy = SCHED_OTHER, .nice = 5};
	CHECK(setattr(&a) == 0 && getpriority(PRIO_PROCESS, 0) == 5, "sched_setattr sets nice 5");
	a = (struct attr){.size = 48, .policy = SCHED_BATCH, .nice = 6};
	CHECK(setattr(&a) == 0 && sched_getscheduler(0) == SCHED_BATCH &&
		      getpriority(PRIO_PROCESS, 0) == 6,
	      "SCHED_BATCH, nice 6");
	a = (struct attr){.size = 48, .policy = SCHED_RR, .priority = 3};
	CHECK(setattr(&a) == 0 && sched_getscheduler(0) == SCHED_RR, "SCHED_RR, priority 3");
	memset(&a, 0, sizeof(a));
	CHECK(syscall(SYS_sched_getattr, 0, &a, 48, 0) == 0 && a.policy == SCHED_RR &&
		      a.priority == 3,
	      "sched_getattr reads it back");
	a = (struct attr){.size = 48, .policy = SCHED_RR, .priority = 0};
	CHECK_ERRNO(setattr(&a), EINVAL, "SCHED_RR with priority 0");
	a = (struct attr){.size = 48, .policy = 77};
	CHECK_ERRNO(setattr(&a), EINVAL, "an unknown policy");
	a = (struct attr){.size = 48, .policy = SCHED_OTHER, .flags = 1ull << 40};
	CHECK_ERRNO(setattr(&a), EINVAL, "an unknown flag");
	a = (struct attr){.size = 48, .policy = SCHED_OTHER};
	CHECK_ERRNO(syscall(SYS_sched_setattr, 0, &a, 1), EINVAL, "sched_setattr's flags argument");
	memset(big, 0, sizeof(big));
	big[0].size = sizeof(big);
	big[3].size = 1; /* a byte the kernel does not know, not zero */
	CHECK_ERRNO(setattr(big), E2BIG, "a larger struct with unknown bytes set");
	CHECK_EQ(big[0].size, 56, "... E2BIG writes back the size it knows");
	a = (struct attr){.size = 0, .policy = SCHED_OTHER, .nice = 2};
	CHECK(setattr(&a) == 0 && getpriority(PRIO_PROCESS, 0) == 2, "size 0 means the first version");
	a = (struct attr){.size = 48, .flags = 0x08 /* KEEP_POLICY */, .nice = 1};
	CHECK(setattr(&a) == 0 && sched_getscheduler(0) == SCHED_OTHER, "SCHED_FLAG_KEEP_POLICY");
	a = (struct attr){.size = 48, .policy = SCHED_OTHER, .flags = 0x01};
	CHECK(setattr(&a) == 0 && sched_getscheduler(0) == (SCHED_OTHER | SCHED_RESET_ON_FORK),
	      "SCHED_FLAG_RESET_ON_FORK");

	CHECK(syscall(SYS_get_robust_list, 0, &head, &len) == 0 && head != 0 && len == 24,
	      "get_robust_list: the list glibc registered");
	CHECK_ERRNO(syscall(SYS_get_robust_list, 4000000, &head, &len), ESRCH,
		    "get_robust_list of no such thread");
	CHECK_ERRNO(syscall(SYS_get_robust_list, 0, NULL, &len), EFAULT,
		    "get_robust_list into a bad pointer");
	return GUEST_DONE();
}
