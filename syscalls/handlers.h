/* Every system call handler rung implements, by area. */
#ifndef RUNG_HANDLERS_H
#define RUNG_HANDLERS_H

#include "syscalls/syscall.h"

#define SYSCALL(name) long sys_##name(struct task *t, const struct syscall_args *a)

/* sys_ptrace.c */
SYSCALL(ptrace);

/* sys_rw.c */
SYSCALL(read);
SYSCALL(write);
SYSCALL(readv);
SYSCALL(writev);
SYSCALL(pread64);
SYSCALL(pwrite64);
SYSCALL(lseek);
SYSCALL(preadv);
SYSCALL(pwritev);
SYSCALL(preadv2);
SYSCALL(pwritev2);

/* sys_fd.c */
SYSCALL(close);
SYSCALL(dup);
SYSCALL(dup2);
SYSCALL(dup3);
SYSCALL(fcntl);
SYSCALL(ioctl);
SYSCALL(flock);

/* sys_stat.c */
SYSCALL(fstat);
SYSCALL(stat);
SYSCALL(lstat);
SYSCALL(newfstatat);
SYSCALL(statx);
SYSCALL(statfs);
SYSCALL(fstatfs);
SYSCALL(access);
SYSCALL(faccessat);
SYSCALL(faccessat2);
SYSCALL(readlink);
SYSCALL(readlinkat);

/* sys_mm.c */
SYSCALL(brk);
SYSCALL(mmap);
SYSCALL(munmap);
SYSCALL(mprotect);
SYSCALL(mremap);
SYSCALL(madvise);
SYSCALL(msync);

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
SYSCALL(sethostname);
SYSCALL(setdomainname);
SYSCALL(sched_yield);
SYSCALL(getrandom);

/* sys_open.c */
SYSCALL(open);
SYSCALL(openat);
SYSCALL(openat2);
SYSCALL(creat);
SYSCALL(close_range);
SYSCALL(pipe);
SYSCALL(pipe2);
SYSCALL(memfd_create);
/* sys_numa.c */
SYSCALL(set_mempolicy);
SYSCALL(get_mempolicy);
SYSCALL(mbind);
SYSCALL(set_mempolicy_home_node);
SYSCALL(migrate_pages);
/* sys_pkeys.c */
SYSCALL(pkey_alloc);
SYSCALL(pkey_free);
SYSCALL(pkey_mprotect);
/* sys_mlock.c */
SYSCALL(mlock);
SYSCALL(mlock2);
SYSCALL(munlock);
SYSCALL(mlockall);
SYSCALL(munlockall);
SYSCALL(mincore);
SYSCALL(personality);
SYSCALL(sched_setattr);
SYSCALL(sched_getattr);
SYSCALL(readahead);
SYSCALL(sync_file_range);
SYSCALL(get_robust_list);
/* sys_pidfd.c, sys_signal.c */
SYSCALL(clone3);
SYSCALL(process_vm_readv);
SYSCALL(process_vm_writev);
SYSCALL(pidfd_open);
SYSCALL(pidfd_getfd);
SYSCALL(pidfd_send_signal);
/* sys_ipc.c */
SYSCALL(shmget);
SYSCALL(shmat);
SYSCALL(shmdt);
SYSCALL(shmctl);
SYSCALL(semget);
SYSCALL(semop);
SYSCALL(semtimedop);
SYSCALL(semctl);
SYSCALL(msgget);
SYSCALL(msgsnd);
SYSCALL(msgrcv);
SYSCALL(msgctl);
SYSCALL(mq_open);
SYSCALL(mq_unlink);
SYSCALL(mq_timedsend);
SYSCALL(mq_timedreceive);
SYSCALL(mq_notify);
SYSCALL(mq_getsetattr);
/* sys_keys.c */
SYSCALL(add_key);
SYSCALL(request_key);
SYSCALL(keyctl);

/* sys_dir.c */
SYSCALL(getdents64);
SYSCALL(getdents);
SYSCALL(chdir);
SYSCALL(fchdir);
SYSCALL(getcwd);
SYSCALL(chroot);
SYSCALL(mount);
SYSCALL(umount2);
SYSCALL(pivot_root);
SYSCALL(open_tree);
SYSCALL(move_mount);
SYSCALL(fsopen);
SYSCALL(fsconfig);
SYSCALL(fsmount);
SYSCALL(fspick);
SYSCALL(mount_setattr);
SYSCALL(unshare);
SYSCALL(setns);
SYSCALL(umask);

/* sys_namei.c */
SYSCALL(mkdir);
SYSCALL(mkdirat);
SYSCALL(rmdir);
SYSCALL(unlink);
SYSCALL(unlinkat);
SYSCALL(rename);
SYSCALL(renameat);
SYSCALL(renameat2);
SYSCALL(link);
SYSCALL(linkat);
SYSCALL(symlink);
SYSCALL(symlinkat);
SYSCALL(mknod);
SYSCALL(mknodat);

/* sys_attr.c */
SYSCALL(chmod);
SYSCALL(fchmod);
SYSCALL(fchmodat);
SYSCALL(fchmodat2);
SYSCALL(chown);
SYSCALL(lchown);
SYSCALL(fchown);
SYSCALL(fchownat);
SYSCALL(utimensat);
SYSCALL(utimes);
SYSCALL(futimesat);
SYSCALL(utime);
SYSCALL(truncate);
SYSCALL(ftruncate);
SYSCALL(fallocate);
SYSCALL(fsync);
SYSCALL(fadvise64);
SYSCALL(fdatasync);
SYSCALL(sync);
SYSCALL(syncfs);

/* sys_xattr.c */
SYSCALL(getxattr);
SYSCALL(lgetxattr);
SYSCALL(fgetxattr);
SYSCALL(setxattr);
SYSCALL(lsetxattr);
SYSCALL(fsetxattr);
SYSCALL(listxattr);
SYSCALL(llistxattr);
SYSCALL(flistxattr);
SYSCALL(removexattr);
SYSCALL(lremovexattr);
SYSCALL(fremovexattr);
SYSCALL(setxattrat);
SYSCALL(getxattrat);
SYSCALL(listxattrat);
SYSCALL(removexattrat);

/* sys_copy.c */
SYSCALL(sendfile);
SYSCALL(copy_file_range);

/* sys_splice.c */
SYSCALL(splice);
SYSCALL(tee);
SYSCALL(vmsplice);

/* sys_exec.c */
SYSCALL(execve);
SYSCALL(execveat);

/* sys_time.c */
SYSCALL(clock_gettime);
SYSCALL(clock_getres);
SYSCALL(gettimeofday);
SYSCALL(time);
SYSCALL(nanosleep);
SYSCALL(clock_nanosleep);
SYSCALL(getcpu);
SYSCALL(futex);

/* sys_futex2.c */
SYSCALL(futex_waitv);
SYSCALL(futex_wake);
SYSCALL(futex_wait);
SYSCALL(futex_requeue);

/* sys_lsm.c */
SYSCALL(lsm_list_modules);
SYSCALL(lsm_get_self_attr);
SYSCALL(lsm_set_self_attr);

/* sys_timer.c */
SYSCALL(alarm);
SYSCALL(getitimer);
SYSCALL(setitimer);
SYSCALL(timer_create);
SYSCALL(timer_settime);
SYSCALL(timer_gettime);
SYSCALL(timer_getoverrun);
SYSCALL(timer_delete);
/* sys_poll.c */
SYSCALL(poll);
SYSCALL(ppoll);
SYSCALL(select);
SYSCALL(pselect6);
SYSCALL(epoll_create);
SYSCALL(epoll_create1);
SYSCALL(epoll_ctl);
SYSCALL(epoll_wait);
SYSCALL(epoll_pwait);
SYSCALL(epoll_pwait2);
SYSCALL(eventfd);
SYSCALL(eventfd2);
SYSCALL(inotify_init);
SYSCALL(inotify_init1);
SYSCALL(inotify_add_watch);
SYSCALL(inotify_rm_watch);
SYSCALL(timerfd_create);
SYSCALL(timerfd_settime);
SYSCALL(timerfd_gettime);

/* sys_signal.c */
SYSCALL(rt_sigaction);
SYSCALL(rt_sigprocmask);
SYSCALL(kill);
SYSCALL(tgkill);
SYSCALL(tkill);
SYSCALL(rt_sigpending);
SYSCALL(rt_sigsuspend);
SYSCALL(pause);
SYSCALL(rt_sigtimedwait);
SYSCALL(rt_sigreturn);
SYSCALL(sigaltstack);
SYSCALL(restart_syscall);
SYSCALL(rt_sigqueueinfo);
SYSCALL(rt_tgsigqueueinfo);

/* sys_signalfd.c */
SYSCALL(signalfd);
SYSCALL(signalfd4);
SYSCALL(clone);
SYSCALL(fork);
SYSCALL(vfork);
SYSCALL(wait4);
SYSCALL(waitid);
SYSCALL(setpgid);
SYSCALL(getpgid);
SYSCALL(getpgrp);
SYSCALL(setsid);
SYSCALL(getsid);

/* sys_prctl.c */
SYSCALL(prctl);

/* sys_seccomp.c */
SYSCALL(seccomp);
/* prctl's PR_SET_SECCOMP (arg2 the mode, arg3 the program) and PR_GET_SECCOMP. */
long seccomp_prctl(struct task *t, int option, uint64_t arg2, uint64_t arg3);

/* sys_landlock.c */
SYSCALL(landlock_create_ruleset);
SYSCALL(landlock_add_rule);
SYSCALL(landlock_restrict_self);

/* sys_kcmp.c */
SYSCALL(kcmp);

/* sys_ioprio.c */
SYSCALL(ioprio_set);
SYSCALL(ioprio_get);
SYSCALL(process_madvise);
SYSCALL(process_mrelease);
SYSCALL(move_pages);
SYSCALL(sysfs);
SYSCALL(ustat);
SYSCALL(adjtimex);
SYSCALL(clock_adjtime);
SYSCALL(remap_file_pages);
SYSCALL(io_setup);
SYSCALL(io_destroy);
SYSCALL(io_submit);
SYSCALL(io_getevents);
SYSCALL(io_pgetevents);
SYSCALL(io_cancel);

/* sys_socket.c */
SYSCALL(socket);
SYSCALL(socketpair);
SYSCALL(bind);
SYSCALL(connect);
SYSCALL(listen);
SYSCALL(accept);
SYSCALL(accept4);
SYSCALL(getsockname);
SYSCALL(getpeername);
SYSCALL(shutdown);
SYSCALL(setsockopt);
SYSCALL(getsockopt);
SYSCALL(sendto);
SYSCALL(recvfrom);
SYSCALL(sendmsg);
SYSCALL(recvmsg);
SYSCALL(sendmmsg);
SYSCALL(recvmmsg);

/* sys_creds.c */
SYSCALL(setuid);
SYSCALL(setgid);
SYSCALL(setreuid);
SYSCALL(setregid);
SYSCALL(setresuid);
SYSCALL(setresgid);
SYSCALL(getresuid);
SYSCALL(getresgid);
SYSCALL(setfsuid);
SYSCALL(setfsgid);
SYSCALL(getgroups);
SYSCALL(setgroups);
SYSCALL(capget);
SYSCALL(capset);

/* sys_prctl.c */
SYSCALL(prctl);

/* sys_sched.c */
SYSCALL(getpriority);
SYSCALL(setpriority);
SYSCALL(sched_setscheduler);
SYSCALL(sched_setparam);
SYSCALL(sched_getscheduler);
SYSCALL(sched_getparam);
SYSCALL(sched_get_priority_max);
SYSCALL(sched_get_priority_min);
SYSCALL(sched_rr_get_interval);
SYSCALL(sched_setaffinity);
SYSCALL(sched_getaffinity);
SYSCALL(membarrier);
SYSCALL(getrusage);
SYSCALL(times);
SYSCALL(sysinfo);

#endif
