/* config.json fields rung cannot honour, refused by name (spec_check.h). */
#include "config.h"
#include "runsc-compat/spec_check.h"
#include "runsc-compat/cgroup.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields refused when set to anything but null or their zero value. */
static const struct {
	const char *path; /* dotted, from the top of config.json */
	const char *why;
} refused[] = {
	{"solaris", "config.json for Solaris"},
	{"windows", "config.json for Windows"},
	{"vm", "rung is not a virtual-machine runtime"},
	{"zos", "config.json for z/OS"},
	{"domainname", "the sandbox has no NIS domain name of its own yet"},
	{"hooks.startContainer", "these run inside the container; the sandbox cannot run them yet"},
	{"process.commandLine", "a Windows field"},
	{"process.scheduler", "no scheduling policies for guest processes"},
	{"process.ioPriority", "no I/O priorities for guest processes"},
	{"process.execCPUAffinity", "no CPU affinity for guest processes"},
	{"linux.devices", "the guest's /dev is the sandbox's own; no host device nodes"},
	{"linux.intelRdt", "no Intel RDT"},
	{"linux.timeOffsets", "no time namespace offsets"},
	{"linux.memoryPolicy", "no NUMA memory policy"},
	{"linux.netDevices", "no network devices moved into the sandbox"},
};

/* The member at a dotted path, or NULL when a step is missing or null. */
static struct json_object *at(struct json_object *o, const char *path)
{
	char *copy = xstrdup(path), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		struct json_object *v;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
			o = NULL;
		else
			o = v;
	}
	free(copy);
	return o;
}

/* Set to something: not 0, false, "", [] or {}. */
static bool set(struct json_object *v, const char *path)
{
	if (!v)
		return false;
	switch (json_object_get_type(v)) {
	case json_type_int:
		return json_object_get_int64(v) != 0;
	case json_type_boolean:
		return json_object_get_boolean(v);
	case json_type_string:
		return json_object_get_string_len(v) > 0;
	case json_type_array:
		return json_object_array_length(v) > 0;
	case json_type_object:
		return json_object_object_length(v) > 0;
	default:
		return true;
	}
}

static int refuse(struct rung_error *err, const char *field, const char *why)
{
	return rung_error_make(err, EINVAL, "config: `%s` is not supported by rung (%s)", field,
			       why);
}

static int check(struct json_object *o, bool host_devices, struct rung_error *err)
{
	struct json_object *v, *mounts = at(o, "mounts");

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (!(host_devices && strcmp(refused[i].path, "linux.devices") == 0) &&
		    set(at(o, refused[i].path), refused[i].path))
			return refuse(err, refused[i].path, refused[i].why);
	/* personality: only the native domain, which is what the guest has. */
	v = at(o, "linux.personality");
	if (v) {
		struct json_object *d = at(v, "domain");
		if (!d || strcmp(json_object_get_string(d), "LINUX") != 0 ||
		    set(at(v, "flags"), ""))
			return refuse(err, "linux.personality",
				      "the guest runs x86-64 programs with the LINUX domain only");
	}
	if (mounts && json_object_is_type(mounts, json_type_array))
		for (size_t i = 0; i < json_object_array_length(mounts); i++) {
			struct json_object *m = json_object_array_get_idx(mounts, i);
			static const char *const idmap[] = {"uidMappings", "gidMappings"};
			for (size_t k = 0; k < ARRAY_SIZE(idmap); k++)
				if (set(at(m, idmap[k]), idmap[k])) {
					char field[64];
					snprintf(field, sizeof(field), "mounts[%zu].%s", i,
						 idmap[k]);
					return refuse(err, field, "no id-mapped mounts");
				}
		}
	v = at(o, "linux.resources");
	if (v && json_object_is_type(v, json_type_object))
		return cgroup_check_resources(
			json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			"linux.resources", err);
	return 0;
}

int spec_check_supported(const char *bundle, bool host_devices, struct rung_error *err)
{
	char *path = xasprintf("%s/config.json", bundle);
	struct json_object *o = json_object_from_file(path);
	int ret;

	free(path);
	if (!o) /* spec_load already said why */
		return rung_error_make(err, EINVAL, "cannot load `%s/config.json`", bundle);
	ret = check(o, host_devices, err);
	json_object_put(o);
	return ret;
}
