/* rung features: what this runtime supports, in runc's JSON shape. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "lib/error.h"

#include <stdio.h>

int cmd_features(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	printf("{\n"
	       "  \"ociVersionMin\": \"1.0.0\",\n"
	       "  \"ociVersionMax\": \"1.1.0\",\n"
	       "  \"hooks\": [\"prestart\", \"createRuntime\", \"createContainer\", "
	       "\"poststart\", \"poststop\"],\n"
	       "  \"mountOptions\": [\"ro\", \"rw\", \"nosuid\", \"nodev\", \"noexec\", \"bind\", "
	       "\"rbind\", \"mode\"],\n"
	       "  \"linux\": {\n"
	       "    \"namespaces\": [\"pid\", \"network\", \"mount\", \"ipc\", \"uts\"],\n"
	       "    \"capabilities\": [\"CAP_CHOWN\", \"CAP_DAC_OVERRIDE\", \"CAP_FOWNER\", "
	       "\"CAP_FSETID\", \"CAP_KILL\", \"CAP_SETGID\", \"CAP_SETUID\", \"CAP_SETPCAP\", "
	       "\"CAP_NET_BIND_SERVICE\", \"CAP_NET_RAW\", \"CAP_SYS_CHROOT\", \"CAP_MKNOD\", "
	       "\"CAP_AUDIT_WRITE\", \"CAP_SETFCAP\", \"CAP_SYS_ADMIN\"],\n"
	       "    \"cgroup\": {\"v1\": true, \"v2\": true, \"systemd\": false, "
	       "\"systemdUser\": false},\n"
	       "    \"seccomp\": {\"enabled\": true, \"actions\": [\"SCMP_ACT_ALLOW\", "
	       "\"SCMP_ACT_ERRNO\", \"SCMP_ACT_KILL\", \"SCMP_ACT_KILL_PROCESS\", "
	       "\"SCMP_ACT_KILL_THREAD\", \"SCMP_ACT_LOG\", \"SCMP_ACT_TRACE\", "
	       "\"SCMP_ACT_TRAP\"], "
	       "\"operators\": [\"SCMP_CMP_EQ\", \"SCMP_CMP_GE\", \"SCMP_CMP_GT\", "
	       "\"SCMP_CMP_LE\", \"SCMP_CMP_LT\", \"SCMP_CMP_MASKED_EQ\", \"SCMP_CMP_NE\"], "
	       "\"archs\": [\"SCMP_ARCH_X86\", \"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X32\"], "
	       "\"knownFlags\": [\"SECCOMP_FILTER_FLAG_TSYNC\", "
	       "\"SECCOMP_FILTER_FLAG_SPEC_ALLOW\", "
	       "\"SECCOMP_FILTER_FLAG_LOG\"], \"supportedFlags\": [\"SECCOMP_FILTER_FLAG_TSYNC\", "
	       "\"SECCOMP_FILTER_FLAG_SPEC_ALLOW\", \"SECCOMP_FILTER_FLAG_LOG\"]},\n"
	       "    \"apparmor\": {\"enabled\": false},\n"
	       "    \"selinux\": {\"enabled\": false}\n"
	       "  },\n"
	       "  \"annotations\": {\"dev.rung.isolation\": \"sentry\"}\n"
	       "}\n");
	return 0;
}
