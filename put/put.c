/* put.c - the table of workloads */
#include "put/put.h"

#include <string.h>

const struct put_workload *const put_workloads[] = {
	&put_spin,
	&put_exec,
	&put_tcp,
	&put_tcp_stream,
	&put_udp,
	&put_unix,
	&put_rpc,
	NULL,
};

const struct put_workload *put_find(const char *name)
{
	for (size_t i = 0; put_workloads[i]; i++)
		if (!strcmp(put_workloads[i]->name, name))
			return put_workloads[i];
	return NULL;
}
