/*
 * fluidhost.h - the fluids of 'displace serve --fluid-cpus LIST': the
 * struct serve_fluids that starts one fluid per requested CPU on the
 * server's loop (spawn.c), stops them, and hands their report lines back.
 * The server (put/serve_ctl.c) has checked every request against LIST:
 * the only program run is the fluid helper, on those CPUs.
 */
#ifndef FLUIDHOST_H
#define FLUIDHOST_H

#include "put/serve.h"

/*
 * fluidhost_get - check that every CPU of cpus is online and find the
 * fluid helper; the host in *out. 0, -EINVAL (a CPU not online) or -ENOENT
 * (no fluid helper), with the reason in err
 */
int fluidhost_get(const struct cli_cpus *cpus, const struct serve_fluids **out, char *err, size_t errlen);

#endif
