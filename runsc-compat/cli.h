/* The command line: global options, and one entry point per subcommand. */
#ifndef RUNG_CLI_H
#define RUNG_CLI_H

#include <stdbool.h>

#include "lib/log.h"

struct rung_error;

struct global_args {
	const char *root;
	const char *log;
	enum rung_log_format log_format;
	bool debug;
	const char *platform;
	bool strace;
	bool systemd_cgroup;
	bool file_access_direct; /* --file-access=direct (default) or gofer */
	const char *network;	 /* --network: sandbox (default), host, none */
	const char *egress;	 /* --egress: the default egress policy (NULL: built in) */
	const char *isolation;	 /* --isolation (isolation.h); NULL: not given */
	bool allow_emulation;	 /* the VM levels may run under TCG (--allow-emulation) */
	const char *vm_kernel;	 /* --kernel: the VM levels' guest kernel */
	const char *vm_fs;	 /* --vm-fs: the VM levels' root share, 9p or virtiofs */
};

/* Which of the caller's fds 0-2 were open when rung started (main.c). */
extern bool rung_stdio_open[3];

typedef int (*command_fn)(struct global_args *g, int argc, char **argv, struct rung_error *err);

struct command {
	const char *name;
	command_fn fn;
	const char *summary;
};

int cmd_do(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_create(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_start(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_state(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_kill(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_delete(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_run(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_list(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_exec(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_ps(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_pause(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_spec(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_features(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_update(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_events(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_install(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_refused(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_help(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_setup_vm(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_compat(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_check(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_gofer(struct global_args *g, int argc, char **argv, struct rung_error *err);
int cmd_netkeep(struct global_args *g, int argc, char **argv, struct rung_error *err);

/* Print the syscall table, as text or as the Markdown of docs/syscalls.md. */
void print_syscall_table(bool markdown);

#endif
