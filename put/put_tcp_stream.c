/*
 * put_tcp_stream.c - tcp-stream: each operation sends m bytes on a TCP
 * connection, with no reply. A send blocks only when the socket buffer is
 * full, so this is the cost of streaming rather than of a round trip.
 */
#include "put/net.h"
#include "put/net_stream.h"
#include "put/put.h"

static int tcp_stream_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	return net_stream_parse(NET_STREAM_TCP_ONEWAY, argc, argv, state, err, errlen);
}

const struct put_workload put_tcp_stream = {
	.name = "tcp-stream",
	.flags = PUT_SIZED | PUT_PIPELINE | PUT_FLOWS,
	.check_size = net_check_size_hook,
	.peer = "tcp",
	.summary = "send m bytes on a TCP connection, with no reply",
	.usage = "[--size BYTES] [--peer ADDR[:PORT]] [--timeout D] [--flows K]",
	.help = "  --size BYTES     message size m, 1 byte to 16 MiB (default 1000;\n"
		"                   k=1000, Ki=1024)\n"
		"  --peer ADDR      the peer, IPv4[:PORT] or [IPv6][:PORT]\n"
		"                   (default 127.0.0.1:7777)\n"
		"  --timeout D      fail if a send blocks longer (default 30s)\n"
		"  The socket has TCP_NODELAY; the hello asks the peer for no replies.\n"
		NET_PIPE_HELP NET_FLOWS_HELP,
	.parse = tcp_stream_parse,
	.setup = net_stream_setup,
	.run = net_stream_run,
	.report = net_stream_report,
	.teardown = net_stream_teardown,
};
