/*
 * put_tcp.c - tcp: each operation sends m bytes on a TCP connection and
 * blocks for an r-byte reply, the set-up of Woodside et al. section 4.2.
 * The peer is 'put serve' (put/serve_stream.c); the client is put/net_stream.c.
 */
#include "put/net.h"
#include "put/net_stream.h"
#include "put/put.h"

static int tcp_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	return net_stream_parse(NET_STREAM_TCP, argc, argv, state, err, errlen);
}

const struct put_workload put_tcp = {
	.name = "tcp",
	.flags = PUT_SIZED | PUT_PIPELINE | PUT_REPLIES | PUT_FLOWS,
	.check_size = net_check_size_hook,
	.peer = "tcp",
	.summary = "send m bytes on a TCP connection, then block for an r-byte reply",
	.usage = "[--size BYTES] [--reply BYTES] [--peer ADDR[:PORT]] [--timeout D] [--flows K]",
	.help = "  --size BYTES     message size m, 1 byte to 16 MiB (default 1000;\n"
		"                   k=1000, Ki=1024)\n"
		"  --reply BYTES    reply size r, 1 byte to 16 MiB (default 1)\n"
		"  --peer ADDR      the peer, IPv4[:PORT] or [IPv6][:PORT]\n"
		"                   (default 127.0.0.1:7777)\n"
		"  --timeout D      fail if a send or reply takes longer (default 30s)\n"
		"  The socket has TCP_NODELAY, so each message leaves as it is sent.\n"
		NET_PIPE_HELP NET_FLOWS_HELP,
	.parse = tcp_parse,
	.setup = net_stream_setup,
	.run = net_stream_run,
	.report = net_stream_report,
	.teardown = net_stream_teardown,
};
