/* rung check [--format table|json]: which isolation levels this host can
 * run, and for each one that it cannot, why. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "platform/microvm/assets.h"
#include "platform/microvm/confidential.h"
#include "platform/microvm/detect.h"
#include "platform/platform.h"
#include "lib/error.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct level {
	int n;
	const char *name, *status; /* "usable", "emulated" (TCG only), "unusable" */
	char *detail;
};

static void vm_level(struct global_args *g, struct level *l)
{
	struct rung_error err = {0};
	char *qemu = vm_qemu_binary(), *release = NULL,
	     *kernel = vm_kernel_source(g->vm_kernel, &release);

	if (!qemu) {
		l->status = "unusable";
		l->detail = xstrdup("no qemu-system-x86_64 (apt-get install qemu-system-x86)");
	} else if (!kernel) {
		l->status = "unusable";
		l->detail =
			xstrdup("no guest kernel (apt-get install linux-image-amd64, or --kernel)");
	} else if (vm_kvm_usable(&err) == 0) {
		l->status = "usable";
		l->detail = xasprintf("KVM, kernel %s", kernel);
	} else {
		char *why = rung_error_string(&err);
		l->status = "emulated";
		l->detail =
			xasprintf("TCG only, with --allow-emulation (no usable KVM: %s); kernel %s",
				  why, kernel);
		free(why);
	}
	rung_error_release(&err);
	free(qemu);
	free(kernel);
	free(release);
}

int cmd_check(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct level levels[4] = {{2, "sentry"}, {3, "microvm"}, {4, "vm"}, {5, "confidential"}};
	const struct platform_ops *p = platform_lookup(g->platform);
	struct rung_error perr = {0};
	struct cc_host h;
	const char *tech;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--format=json") == 0 ||
		    (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
		     strcmp(argv[++i], "json") == 0))
			json = true;
		else if (strcmp(argv[i], "--format=table") != 0 && strcmp(argv[i], "table") != 0)
			return rung_error_make(err, 0, "check: usage: check [--format table|json]");
	}
	if (p && p->probe(&perr) == 0) {
		levels[0].status = "usable";
		levels[0].detail = xasprintf("platform %s", p->name);
	} else {
		char *why = perr.msg ? rung_error_string(&perr) : xstrdup("unknown platform");
		levels[0].status = "unusable";
		levels[0].detail = xasprintf("platform %s: %s", p ? p->name : g->platform, why);
		free(why);
	}
	rung_error_release(&perr);
	vm_level(g, &levels[1]);
	vm_level(g, &levels[2]);
	cc_probe(&h);
	if (cc_check(&h, &tech, &perr) == 0) {
		levels[3].status = "unusable";
		levels[3].detail =
			xasprintf("%s is available, but rung does not start confidential "
				  "VMs yet",
				  tech);
	} else {
		levels[3].status = "unusable";
		levels[3].detail = xstrdup(perr.msg);
	}
	rung_error_release(&perr);
	cc_host_release(&h);

	if (json) {
		struct json_object *arr = json_object_new_array();
		for (int i = 0; i < 4; i++) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "level", json_object_new_int(levels[i].n));
			json_object_object_add(o, "isolation",
					       json_object_new_string(levels[i].name));
			json_object_object_add(o, "status",
					       json_object_new_string(levels[i].status));
			json_object_object_add(o, "detail",
					       json_object_new_string(levels[i].detail));
			json_object_array_add(arr, o);
		}
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
		json_object_put(arr);
	} else {
		printf("%-5s %-13s %-9s %s\n", "LEVEL", "ISOLATION", "STATUS", "DETAIL");
		for (int i = 0; i < 4; i++)
			printf("%-5d %-13s %-9s %s\n", levels[i].n, levels[i].name,
			       levels[i].status, levels[i].detail);
	}
	for (int i = 0; i < 4; i++)
		free(levels[i].detail);
	return 0;
}
