/*
 * config.json fields rung knows and cannot honour. spec.c loads what rung
 * does; this refuses, at create, every field of the runtime spec that is
 * set to something rung would silently drop, with an error that names
 * the field (`linux.intelRdt` is not supported ...). Fields that only
 * matter to another host security module (apparmorProfile, selinuxLabel,
 * mountLabel) are accepted and left alone, as runc does on a host without
 * that module.
 */
#ifndef RUNG_SPEC_CHECK_H
#define RUNG_SPEC_CHECK_H

struct rung_error;

#include <stdbool.h>

/* Check bundle/config.json: 0, or < 0 with err naming the first field
 * refused. host_devices: linux.devices is honoured (isolation level 1). */
int spec_check_supported(const char *bundle, bool host_devices, struct rung_error *err);

#endif
