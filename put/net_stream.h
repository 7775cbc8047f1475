/*
 * net_stream.h - the stream client behind the tcp, tcp-stream and unix
 * workloads: setup connects and sends the hello, and each operation is a
 * send of exactly msg_bytes (a loop of blocking send calls) and, unless
 * the reply size is 0, a blocking receive of the whole reply.
 */
#ifndef NET_STREAM_H
#define NET_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum net_stream_kind {
	NET_STREAM_TCP,        /* tcp: request and reply, TCP_NODELAY */
	NET_STREAM_TCP_ONEWAY, /* tcp-stream: sends only, TCP_NODELAY */
	NET_STREAM_UNIX,       /* unix: request and reply over AF_UNIX */
};

/* net_stream_parse - the workload's options (see each workload's help); -EINVAL with err */
int net_stream_parse(enum net_stream_kind kind, int argc, char **argv, void **state, char *err, size_t errlen);
/* net_stream_setup - fill the buffers, connect, set the options, send the hello */
int net_stream_setup(void *state, char *err, size_t errlen);
/* net_stream_run - exactly ops operations */
int net_stream_run(void *state, uint64_t ops, char *err, size_t errlen);
/* net_stream_report - msg_bytes, reply_bytes, peer, byte and call counts */
void net_stream_report(void *state, FILE *f);
/* net_stream_teardown - close and free */
void net_stream_teardown(void *state);

#endif
