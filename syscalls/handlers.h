/* Every system call handler rung implements, by area. */
#ifndef RUNG_HANDLERS_H
#define RUNG_HANDLERS_H

#include "syscalls/syscall.h"

#define SYSCALL(name) long sys_##name(struct task *t, const struct syscall_args *a)

/* sys_rw.c */
SYSCALL(read);
SYSCALL(write);
SYSCALL(readv);
SYSCALL(writev);
SYSCALL(pread64);
SYSCALL(pwrite64);
SYSCALL(lseek);

/* sys_fd.c */
SYSCALL(close);
SYSCALL(dup);
SYSCALL(dup2);
SYSCALL(dup3);
SYSCALL(fcntl);
SYSCALL(ioctl);
SYSCALL(fstat);
SYSCALL(newfstatat);

/* sys_mm.c */
SYSCALL(brk);
SYSCALL(mmap);
SYSCALL(munmap);
SYSCALL(mprotect);
SYSCALL(mremap);
SYSCALL(madvise);

/* sys_process.c */
SYSCALL(exit);
SYSCALL(exit_group);
SYSCALL(getpid);
SYSCALL(gettid);
SYSCALL(getppid);
SYSCALL(getuid);
SYSCALL(geteuid);
SYSCALL(getgid);
SYSCALL(getegid);
SYSCALL(set_tid_address);
SYSCALL(set_robust_list);
SYSCALL(arch_prctl);
SYSCALL(prlimit64);
SYSCALL(getrlimit);
SYSCALL(setrlimit);
SYSCALL(uname);
SYSCALL(getcwd);
SYSCALL(sched_getaffinity);
SYSCALL(sched_yield);
SYSCALL(getrandom);

/* sys_time.c */
SYSCALL(clock_gettime);
SYSCALL(clock_getres);
SYSCALL(gettimeofday);
SYSCALL(time);
SYSCALL(nanosleep);
SYSCALL(clock_nanosleep);
SYSCALL(getcpu);

/* sys_signal.c */
SYSCALL(rt_sigaction);
SYSCALL(rt_sigprocmask);

#endif
