/* remote.c - the peer host's fluids: the coordinator's end of the control connection (put/ctl_wire.h) */
#include "coordinator/remote.h"
#include "common/cli.h"
#include "common/dclock.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* a frame the peer must answer within this, beyond the work it asked for */
#define REMOTE_ANSWER_NS 10000000000ull

int remote_control_addr(const char *kind, const char *peer_arg, struct net_addr *a)
{
	if (!kind || !peer_arg)
		return -EINVAL;
	if (!strcmp(kind, "unix"))
		return net_parse_unix(peer_arg, a);
	int rc = net_parse_hostport(peer_arg, NET_DEFAULT_PORT, a);
	if (rc)
		return rc;
	/* rpc is served on the port after the hello port */
	if (!strcmp(kind, "rpc")) {
		unsigned port = net_addr_port(a);
		if (port < NET_RPC_PORT_OFFSET + 1)
			return -EINVAL;
		net_addr_set_port(a, port - NET_RPC_PORT_OFFSET);
	}
	return 0;
}


static int send_frame(struct remote *r, unsigned type, const char *body, char *err, size_t errlen)
{
	uint8_t buf[CTL_HEAD_BYTES + CTL_MAX_REQUEST];
	uint64_t calls = 0;
	int n = ctl_frame(buf, sizeof buf, type, body);
	if (n < 0)
		return cli_fail(err, errlen, n, "cannot frame a %s request", ctl_type_name(type));
	int rc = net_send_all(r->fd, buf, (size_t)n, &calls);
	if (rc)
		return cli_fail(err, errlen, rc, "the peer host's fluids (%s): cannot send %s: %s", r->name, ctl_type_name(type),
			    strerror(-rc));
	return 0;
}

/*
 * The next whole frame from the peer, by the deadline (CLOCK_MONOTONIC);
 * an ERROR frame is the peer's failure, said in err: -EREMOTEIO
 */
static int read_frame(struct remote *r, uint64_t deadline, char *err, size_t errlen)
{
	uint8_t *buf = r->in;
	size_t *have = &r->in_have, *at = &r->in_at;
	for (;;) {
		while (*at < *have) {
			size_t used;
			const char *why = "";
			int rc = ctl_reader_feed(r->rd, buf + *at, *have - *at, &used, &why);
			*at += used;
			if (rc < 0)
				return cli_fail(err, errlen, -EPROTO, "the peer host's fluids (%s): %s", r->name, why);
			if (rc == 0)
				continue;
			if (r->rd->type == CTL_ERROR)
				return cli_fail(err, errlen, -EREMOTEIO, "the peer host's fluids (%s): %s", r->name, r->rd->body);
			return 0;
		}
		*at = *have = 0;
		uint64_t now = dclock_mono_ns();
		if (now >= deadline)
			return cli_fail(err, errlen, -ETIMEDOUT, "the peer host's fluids (%s) did not answer in time", r->name);
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		int w = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return cli_fail(err, errlen, -errno, "the peer host's fluids (%s): %s", r->name, strerror(errno));
		if (w == 0)
			continue;
		ssize_t n = recv(r->fd, buf, sizeof r->in, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return cli_fail(err, errlen, -ECONNRESET, "the peer host's fluids (%s): the peer closed the control connection",
				    r->name);
		if (n < 0)
			return cli_fail(err, errlen, -errno, "the peer host's fluids (%s): %s", r->name, strerror(errno));
		*have = (size_t)n;
	}
}

/* a frame of type want, or -EPROTO */
static int expect(struct remote *r, unsigned want, uint64_t deadline, char *err, size_t errlen)
{
	int rc = read_frame(r, deadline, err, errlen);
	if (!rc && r->rd->type != want)
		rc = cli_fail(err, errlen, -EPROTO, "the peer host's fluids (%s): a %s frame where %s was due", r->name,
			  ctl_type_name(r->rd->type), ctl_type_name(want));
	return rc;
}

static int hello(struct remote *r, char *err, size_t errlen)
{
	uint8_t b[NET_HELLO_BYTES];
	uint64_t calls = 0;
	struct net_hello h = { NET_HELLO_VERSION, NET_CONTROL, 0, CTL_VERSION, 0, 0 };
	net_hello_encode(b, &h);
	int rc = net_send_all(r->fd, b, sizeof b, &calls);
	if (!rc)
		rc = net_recv_all(r->fd, b, NET_HELLO_HEAD_BYTES, &calls);
	if (rc)
		return cli_fail(err, errlen, rc == -EAGAIN ? -ETIMEDOUT : rc, "%s: no answer to the control hello: %s", r->name,
			    rc == -EAGAIN ? "timed out" : rc == -ECONNRESET ? "the peer closed the connection" : strerror(-rc));
	if (net_hello_decode(b, NET_HELLO_HEAD_BYTES, &h) || h.kind != NET_ACK)
		return cli_fail(err, errlen, -EPROTO, "%s: the answer to the control hello is not a displace ack", r->name);
	if (h.status == NET_HELLO_BAD_VERSION)
		return cli_fail(err, errlen, -ECONNREFUSED, "%s: the peer speaks hello version %u, this coordinator %u: run the "
							 "same displace on both ends", r->name, h.version, NET_HELLO_VERSION);
	if ((rc = net_recv_all(r->fd, b + NET_HELLO_HEAD_BYTES, NET_HELLO_BYTES - NET_HELLO_HEAD_BYTES, &calls)))
		return cli_fail(err, errlen, rc, "%s: the control ack was cut short", r->name);
	if (h.status == NET_HELLO_BAD_CONTROL)
		return cli_fail(err, errlen, -ECONNREFUSED, "%s: the peer speaks control version %u, this coordinator %u: run the "
							 "same displace on both ends", r->name, h.msg_bytes, CTL_VERSION);
	if (h.status == NET_HELLO_NO_FLUIDS)
		return cli_fail(err, errlen, -ECONNREFUSED, "%s runs no fluids: start it as 'displace serve --fluid-cpus LIST'",
			    r->name);
	if (h.status != NET_HELLO_OK)
		return cli_fail(err, errlen, -ECONNREFUSED, "%s refused the control connection: %s", r->name,
			    net_hello_status_str(h.status));
	return 0;
}

int remote_open(struct remote *r, const struct net_addr *a, const char *cpus_arg, char *err, size_t errlen)
{
	struct ctl_info info;
	char why[256], list[160];
	memset(r, 0, sizeof *r);
	r->fd = -1;
	net_format_addr(a, r->name, sizeof r->name);
	if (!(r->rd = malloc(sizeof *r->rd)))
		return cli_fail(err, errlen, -ENOMEM, "out of memory");
	ctl_reader_init(r->rd, CTL_MAX_BODY);
	int rc = net_connect(a, SOCK_STREAM, &r->fd, err, errlen);
	if (!rc && (rc = net_set_timeouts(r->fd, REMOTE_ANSWER_NS, REMOTE_ANSWER_NS)))
		cli_fail(err, errlen, rc, "%s: cannot set the socket timeouts", r->name);
	if (!rc)
		rc = hello(r, err, errlen);
	if (!rc)
		rc = expect(r, CTL_INFO, dclock_mono_ns() + REMOTE_ANSWER_NS, err, errlen);
	if (!rc && ctl_info_parse(r->rd->body, &info, why, sizeof why))
		rc = cli_fail(err, errlen, -EPROTO, "%s: a malformed INFO: %s", r->name, why);
	if (rc) {
		remote_close(r);
		return rc;
	}
	r->offered = info.cpus;
	r->use_steal = info.use_steal;
	cli_format_cpulist(&r->offered, list, sizeof list);
	if (!strcmp(cpus_arg, "all")) {
		r->cpus = r->offered;
	} else if (cli_parse_cpulist(cpus_arg, NULL, &r->cpus) || r->cpus.n > CTL_MAX_CPUS) {
		remote_close(r);
		return cli_fail(err, errlen, -EINVAL, "invalid value '%s' for --remote-cpus ('all' or CPUs of the peer host, "
						  "which offers %s)", cpus_arg, list);
	}
	for (int i = 0; i < r->cpus.n; i++)
		if (!cli_cpus_contains(&r->offered, r->cpus.cpu[i])) {
			remote_close(r);
			return cli_fail(err, errlen, -EINVAL, "--remote-cpus %s: the peer host %s offers CPUs %s only (its "
							  "--fluid-cpus)", cpus_arg, r->name, list);
		}
	return 0;
}

static int request(struct remote *r, unsigned type, const struct exp_fluid_opts *f, uint64_t ns, char *err,
		   size_t errlen)
{
	struct ctl_req q = { .type = type, .cpus = r->cpus, .run_ns = ns, .max_ns = ns, .chunk_loops = f ? f->chunk_loops : 0 };
	char body[CTL_MAX_REQUEST];
	if (f)
		snprintf(q.sched, sizeof q.sched, "%s", f->sched);
	if (ctl_req_format(&q, body, sizeof body))
		return cli_fail(err, errlen, -EMSGSIZE, "a %s request too long for the control exchange", ctl_type_name(type));
	return send_frame(r, type, body, err, errlen);
}

/*
 * The reports of every measured CPU, then DONE; reps[i] is r->cpus.cpu[i]'s.
 * A report with stop=time is refused unless want_time, and the other way
 * round: a calibration runs its time, a co-run's fluid is stopped.
 */
static int reports(struct remote *r, uint64_t deadline, int want_time, struct fluid_report *reps, char *err,
		   size_t errlen)
{
	static struct fluid_report one;
	char why[128];
	unsigned n = 0, seen[CTL_MAX_CPUS] = { 0 };
	for (;;) {
		int rc = read_frame(r, deadline, err, errlen);
		if (rc)
			return rc;
		if (r->rd->type == CTL_DONE)
			break;
		if (r->rd->type != CTL_REPORT)
			return cli_fail(err, errlen, -EPROTO, "the peer host's fluids (%s): a %s frame among the reports", r->name,
				    ctl_type_name(r->rd->type));
		if (report_parse_fluid(r->rd->body, &one, why, sizeof why))
			return cli_fail(err, errlen, -EPROTO, "cannot parse the report of a fluid on the peer host: %s", why);
		int i = 0;
		while (i < r->cpus.n && r->cpus.cpu[i] != one.cpu)
			i++;
		if (i == r->cpus.n || seen[i]++)
			return cli_fail(err, errlen, -EPROTO, "the peer host's fluids (%s): a report of CPU %d, not asked for or "
							  "twice", r->name, one.cpu);
		if ((strcmp(one.stop, "time") == 0) != (want_time != 0))
			return cli_fail(err, errlen, want_time ? -ECHILD : -ETIMEDOUT,
				    want_time ? "the fluid on the peer host's CPU %d stopped early (stop=%s): something there "
						"stopped it"
					      : "the fluid on the peer host's CPU %d reached its time limit (stop=%s) before the "
						"run ended",
				    one.cpu, one.stop);
		if (reps)
			reps[i] = one;
		n++;
	}
	unsigned said;
	if (ctl_done_parse(r->rd->body, &said) || said != n || n != (unsigned)r->cpus.n)
		return cli_fail(err, errlen, -EPROTO, "the peer host's fluids (%s): %u reports for %d CPUs", r->name, n,
			    r->cpus.n);
	return 0;
}

int remote_cal_begin(struct remote *r, const struct exp_fluid_opts *f, uint64_t run_ns, char *err, size_t errlen)
{
	return request(r, CTL_CAL, f, run_ns, err, errlen);
}

int remote_cal_end(struct remote *r, uint64_t run_ns, struct fluid_report *reps, char *err, size_t errlen)
{
	return reports(r, dclock_mono_ns() + run_ns + REMOTE_ANSWER_NS, 1, reps, err, errlen);
}

int remote_start(struct remote *r, const struct exp_fluid_opts *f, uint64_t max_ns, char *err, size_t errlen)
{
	if (max_ns > CTL_MAX_MAX_NS)
		max_ns = CTL_MAX_MAX_NS;
	if (max_ns < CTL_MIN_MAX_NS)
		max_ns = CTL_MIN_MAX_NS;
	int rc = request(r, CTL_START, f, max_ns, err, errlen);
	/* STARTED comes once the peer's fluids have begun their windows */
	if (!rc && (rc = expect(r, CTL_STARTED, dclock_mono_ns() + REMOTE_ANSWER_NS, err, errlen)) == -ETIMEDOUT)
		cli_fail(err, errlen, rc, "the peer host's fluids (%s) did not begin their windows within %.0f s", r->name,
			 REMOTE_ANSWER_NS / 1e9);
	return rc;
}

int remote_stop(struct remote *r, struct fluid_report *reps, char *err, size_t errlen)
{
	int rc = request(r, CTL_STOP, NULL, 0, err, errlen);
	return rc ? rc : reports(r, dclock_mono_ns() + REMOTE_ANSWER_NS, 0, reps, err, errlen);
}

void remote_close(struct remote *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->rd);
	r->rd = NULL;
}
