/* put.c - the table of workloads */
#include "put/put.h"

#include <stdio.h>
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

void put_names(unsigned flags, const char *sep, const char *last, char *buf, size_t len)
{
	size_t n = 0, k = 0, used = 0;
	for (size_t i = 0; put_workloads[i]; i++)
		n += (put_workloads[i]->flags & flags) == flags;
	buf[0] = '\0';
	for (size_t i = 0; put_workloads[i] && used < len; i++) {
		if ((put_workloads[i]->flags & flags) != flags)
			continue;
		const char *before = k == 0 ? "" : k + 1 == n ? last : sep;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", before, put_workloads[i]->name);
		k++;
	}
}
