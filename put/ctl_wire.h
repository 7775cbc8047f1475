/*
 * ctl_wire.h - the control exchange of the peer's fluids ('displace serve
 * --fluid-cpus LIST'), pure: frames encoded and read as bytes come, and
 * every body checked. No sockets and no processes: the peer
 * (put/serve_ctl.c), the coordinator (coordinator/remote.c), the tests
 * and a fuzzer (fuzz/fuzz_ctl_wire.c) all use it.
 *
 * A control connection is a stream to the peer's hello port (tcp, or its
 * unix socket) that starts with a hello of kind NET_CONTROL (put/net.h):
 * msg_bytes CTL_VERSION, reply_bytes 0, cookie 0. The ack echoes both
 * sizes; its status is NET_HELLO_OK, NET_HELLO_NO_FLUIDS (the peer was not
 * started with --fluid-cpus), NET_HELLO_BUSY (another control connection
 * is open: the fluids are one resource) or NET_HELLO_BAD_CONTROL (another
 * control version; the ack's msg_bytes is the peer's).
 *
 * Then frames both ways, each an 8-byte head, big-endian,
 *
 *   offset 0  u16 type         enum ctl_type
 *          2  u16 zero
 *          4  u32 body bytes   at most CTL_MAX_REQUEST (to the peer) or
 *                              CTL_MAX_BODY (from it)
 *
 * and a body of printable ASCII (0x20 to 0x7e): space-separated key=value
 * fields, a fluid's report line, or an error message.
 *
 *   to the peer    CAL    cpus=LIST run_ns=N sched=S chunk_loops=N
 *                         calibrate: a fluid alone on each CPU for run_ns
 *                  START  cpus=LIST max_ns=N sched=S chunk_loops=N
 *                         start a fluid on each CPU for a co-run; it stops
 *                         by itself after max_ns
 *                  STOP   (empty) stop them
 *   from the peer  INFO    cpus=LIST use_steal=0|1, once, after the ack
 *                  STARTED (empty) the fluids of START have begun their
 *                          windows: the co-run's PUT may start
 *                  REPORT  one fluid's report line ("fluid cpu=N ..."), one
 *                          per CPU of the request, in its order
 *                  DONE    n=N, after the reports of a CAL or a STOP
 *                  ERROR   why a request failed; after a malformed frame
 *                          or a request out of turn the peer closes
 *
 * CAL and START are taken only while no fluid runs, STOP only after START
 * (before STARTED too: it stops the fluids, whose reports follow).
 * LIST is a CPU list ("1,3-4"), each CPU one of the peer's --fluid-cpus.
 */
#ifndef CTL_WIRE_H
#define CTL_WIRE_H

#include "common/cli.h"

#include <stddef.h>
#include <stdint.h>

#define CTL_VERSION 1
#define CTL_HEAD_BYTES 8
#define CTL_MAX_REQUEST 512u   /* a request's body: a few fields */
#define CTL_MAX_BODY 32768u    /* a report line: a fluid's histogram can be long */
#define CTL_MAX_CPUS 64        /* CPUs in one request */
#define CTL_MIN_RUN_NS 10000000ull      /* CAL: 10 ms to 60 s */
#define CTL_MAX_CAL_NS 60000000000ull
#define CTL_MIN_MAX_NS 1000000000ull    /* START: a limit of 1 s to 1 h */
#define CTL_MAX_MAX_NS 3600000000000ull
#define CTL_MAX_CHUNK_LOOPS 1000000000ull

enum ctl_type {
	CTL_CAL = 1,
	CTL_START = 2,
	CTL_STOP = 3,
	CTL_INFO = 16,
	CTL_STARTED = 17,
	CTL_REPORT = 18,
	CTL_DONE = 19,
	CTL_ERROR = 20,
};

/* ctl_type_name - "CAL", "REPORT", ...; "?" for another number */
const char *ctl_type_name(unsigned type);

/*
 * ctl_frame - a frame of type with body (NUL-terminated, printable) into
 * out[0..cap): its length, or -EMSGSIZE if it does not fit or the body is
 * above CTL_MAX_BODY, -EINVAL for a byte that is not printable
 */
int ctl_frame(uint8_t *out, size_t cap, unsigned type, const char *body);

/* Frames read as they come, in any pieces: zero it, then set max_body. */
struct ctl_reader {
	uint32_t max_body;       /* CTL_MAX_REQUEST on the peer, CTL_MAX_BODY on the coordinator */
	uint8_t head[CTL_HEAD_BYTES];
	unsigned head_got;
	unsigned type;           /* of the frame being read, or just read */
	uint32_t len, got;       /* its body bytes, and how many came */
	char body[CTL_MAX_BODY + 1]; /* NUL-terminated once whole */
};

/* ctl_reader_init - ready for the first frame, bodies up to max_body bytes */
void ctl_reader_init(struct ctl_reader *r, uint32_t max_body);
/* ctl_reader_mid - part of a frame came and the rest has not */
int ctl_reader_mid(const struct ctl_reader *r);
/*
 * ctl_reader_feed - take bytes up to the end of the next frame; *used is
 * the bytes taken. 1: a frame is whole (r->type, r->body, r->len; feed the
 * rest after handling it); 0: all n bytes were taken; -EPROTO: not a
 * control frame that can be taken (an unknown type, a non-zero pad, a body
 * too long or not printable), with the reason in *why
 */
int ctl_reader_feed(struct ctl_reader *r, const uint8_t *p, size_t n, size_t *used, const char **why);

/* A request to the peer, read or to be sent. */
struct ctl_req {
	unsigned type;           /* CTL_CAL, CTL_START or CTL_STOP */
	struct cli_cpus cpus;    /* CAL, START: 1 to CTL_MAX_CPUS */
	uint64_t run_ns;         /* CAL */
	uint64_t max_ns;         /* START */
	char sched[8];           /* CAL, START: idle, nice or normal */
	uint64_t chunk_loops;    /* CAL, START */
};

/*
 * ctl_req_parse - the request in a whole frame: each key once, no other
 * key, every value in range. -EINVAL with the reason in why
 */
int ctl_req_parse(unsigned type, const char *body, struct ctl_req *q, char *why, size_t whylen);
/* ctl_req_format - the body of request q into buf; -EMSGSIZE */
int ctl_req_format(const struct ctl_req *q, char *buf, size_t len);

/* What the peer says once, after the ack. */
struct ctl_info {
	struct cli_cpus cpus;    /* its --fluid-cpus */
	int use_steal;           /* its task-clock minus CPU time is steal (IRQ_TIME_ACCOUNTING off) */
};

/* ctl_info_parse - an INFO body; -EINVAL with the reason in why */
int ctl_info_parse(const char *body, struct ctl_info *info, char *why, size_t whylen);
/* ctl_info_format - the INFO body of info into buf; -EMSGSIZE */
int ctl_info_format(const struct ctl_info *info, char *buf, size_t len);
/* ctl_done_parse - a DONE body, "n=N" with N at most CTL_MAX_CPUS; -EINVAL */
int ctl_done_parse(const char *body, unsigned *n);

#endif
