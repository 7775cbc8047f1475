/*
 * put_unix.c - unix: like tcp, over an AF_UNIX stream socket: each
 * operation sends m bytes and blocks for an r-byte reply. Against tcp it
 * shows what the IP stack costs.
 */
#include "put/net.h"
#include "put/net_stream.h"
#include "put/put.h"

static int unix_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	return net_stream_parse(NET_STREAM_UNIX, argc, argv, state, err, errlen);
}

const struct put_workload put_unix = {
	.name = "unix",
	.flags = PUT_SIZED | PUT_PIPELINE | PUT_REPLIES | PUT_FLOWS,
	.check_size = net_check_size_hook,
	.peer = "unix",
	.summary = "send m bytes on an AF_UNIX stream socket, then block for an r-byte reply",
	.usage = "[--size BYTES] [--reply BYTES] [--peer PATH] [--timeout D] [--flows K]",
	.help = "  --size BYTES     message size m, 1 byte to 16 MiB (default 1000;\n"
		"                   k=1000, Ki=1024)\n"
		"  --reply BYTES    reply size r, 1 byte to 16 MiB (default 1)\n"
		"  --peer PATH      the peer's socket (default /tmp/displace-7777.sock)\n"
		"  --timeout D      fail if a send or reply takes longer (default 30s)\n"
		NET_PIPE_HELP NET_FLOWS_HELP,
	.parse = unix_parse,
	.setup = net_stream_setup,
	.run = net_stream_run,
	.report = net_stream_report,
	.teardown = net_stream_teardown,
};
