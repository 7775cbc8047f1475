/*
 * serve_ctl.c - the peer's control connection ('displace serve
 * --fluid-cpus LIST'): its requests read and checked (put/ctl_wire.h),
 * the fluids started and stopped through the front end's serve_fluids,
 * and their report lines sent back.
 *
 * One control connection at a time (the fluids are one resource); a
 * request names only CPUs of --fluid-cpus; each is taken only in its turn
 * (CAL or START while no fluid runs, STOP after START). Anything else is
 * a protocol error: one log line, an ERROR frame, and the connection is
 * closed, which stops its fluids. A control connection is not idle while
 * its fluids run; their own limit (START's max_ns) bounds that time.
 */
#include "put/serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ctl_state {
	CS_IDLE,     /* no fluid runs: CAL or START may come */
	CS_CAL,      /* a calibration runs: its reports follow */
	CS_STARTING, /* a co-run's fluids start: STARTED goes once their windows have begun */
	CS_CORUN,    /* a co-run's fluids run: STOP may come */
	CS_ENDED,    /* they ended by themselves before STOP; their reports were sent, STOP is taken and ignored */
	CS_STOPPING, /* STOP came: the reports follow */
};

struct serve_ctl {
	struct serve_conn *conn; /* the control connection, or NULL */
	enum ctl_state state;
	int live;                /* fluids started and not yet reported (maybe for a connection gone) */
	struct ctl_reader rd;
	uint8_t frame[CTL_HEAD_BYTES + CTL_MAX_BODY];
};

int serve_ctl_open(struct serve *s, char *err, size_t errlen)
{
	if (!s->cfg.fluids || !s->cfg.fluid_cpus.n)
		return 0;
	if (!(s->ctl = calloc(1, sizeof *s->ctl))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

void serve_ctl_free(struct serve *s)
{
	free(s->ctl);
	s->ctl = NULL;
}

/* one frame on the control connection; a frame that cannot be made is an ERROR instead */
static void send_frame(struct serve *s, unsigned type, const char *body, bool close_after)
{
	struct serve_ctl *k = s->ctl;
	int n = ctl_frame(k->frame, sizeof k->frame, type, body);
	if (n < 0)
		n = ctl_frame(k->frame, sizeof k->frame, CTL_ERROR, "the peer could not frame its answer");
	struct serve_conn *c = k->conn;
	if (!c)
		return;
	if (close_after)
		k->conn = NULL; /* it closes once this is written: nothing more goes to it */
	serve_conn_send(c, k->frame, (size_t)n, close_after);
}

/* a malformed frame or a request out of turn: logged, answered with ERROR, and the connection closed */
static void protocol_error(struct serve *s, const char *why)
{
	struct serve_ctl *k = s->ctl;
	s->st.bad_clients++;
	serve_log(s, "control %s: %s; closing", serve_conn_name(k->conn), why);
	if (k->live)
		s->cfg.fluids->stop(s->cfg.fluids->ctx);
	send_frame(s, CTL_ERROR, why, true);
}

enum net_hello_status serve_ctl_hello(struct serve *s, struct serve_conn *c, const struct net_hello *h)
{
	struct serve_ctl *k = s->ctl;
	if (!k)
		return NET_HELLO_NO_FLUIDS;
	if (h->msg_bytes != CTL_VERSION)
		return NET_HELLO_BAD_CONTROL;
	if (h->status || h->reply_bytes || h->cookie)
		return NET_HELLO_BAD_FORM;
	if (k->conn || k->live)
		return NET_HELLO_BUSY;
	k->conn = c;
	k->state = CS_IDLE;
	ctl_reader_init(&k->rd, CTL_MAX_REQUEST);
	s->st.controls++;
	return NET_HELLO_OK;
}

void serve_ctl_opened(struct serve *s)
{
	struct ctl_info info = { .cpus = s->cfg.fluid_cpus, .use_steal = s->cfg.fluids->use_steal };
	char body[256];
	if (ctl_info_format(&info, body, sizeof body))
		snprintf(body, sizeof body, "cpus=none");
	send_frame(s, CTL_INFO, body, false);
}

/* every fluid of the request reported (or failed) */
static void on_fluids_done(void *arg, const char *const *lines, int n, const char *err)
{
	struct serve *s = arg;
	struct serve_ctl *k = s->ctl;
	char done[32];
	k->live = 0;
	if (!k->conn)
		return; /* the connection is gone: nobody wants these */
	enum ctl_state was = k->state;
	k->state = was == CS_CORUN ? CS_ENDED : CS_IDLE;
	if (!err && was == CS_STARTING)
		err = "the peer's fluids ended before their windows began";
	if (err) {
		send_frame(s, CTL_ERROR, err, false);
		return;
	}
	for (int i = 0; i < n && k->conn; i++)
		send_frame(s, CTL_REPORT, lines[i], false);
	snprintf(done, sizeof done, "n=%d", n);
	if (k->conn)
		send_frame(s, CTL_DONE, done, false);
}

/*
 * A co-run's fluids have begun their windows: STARTED tells the client to
 * start its PUT. Sent sooner, a SCHED_IDLE fluid still setting up could
 * get no CPU until the PUT ended, and its window would miss the run
 */
static void on_fluids_ready(void *arg)
{
	struct serve *s = arg;
	struct serve_ctl *k = s->ctl;
	if (!k->conn || k->state != CS_STARTING)
		return;
	k->state = CS_CORUN;
	send_frame(s, CTL_STARTED, "", false);
}

/* one whole request */
static void handle(struct serve *s)
{
	struct serve_ctl *k = s->ctl;
	const struct serve_fluids *fl = s->cfg.fluids;
	struct ctl_req q;
	char why[320], list[160];
	if (ctl_req_parse(k->rd.type, k->rd.body, &q, why, sizeof why)) {
		protocol_error(s, why);
		return;
	}
	if (q.type == CTL_STOP) {
		if (k->state == CS_ENDED) {
			k->state = CS_IDLE; /* the reports went when the fluids ended */
		} else if (k->state == CS_CORUN || k->state == CS_STARTING) {
			k->state = CS_STOPPING;
			fl->stop(fl->ctx);
		} else {
			protocol_error(s, "STOP while no co-run's fluids run");
		}
		return;
	}
	if (k->state != CS_IDLE || k->live) {
		snprintf(why, sizeof why, "%s while fluids run", ctl_type_name(q.type));
		protocol_error(s, why);
		return;
	}
	for (int i = 0; i < q.cpus.n; i++)
		if (!cli_cpus_contains(&s->cfg.fluid_cpus, q.cpus.cpu[i])) {
			cli_format_cpulist(&s->cfg.fluid_cpus, list, sizeof list);
			snprintf(why, sizeof why, "CPU %d is not one of the peer's --fluid-cpus %s", q.cpus.cpu[i], list);
			protocol_error(s, why);
			return;
		}
	if (fl->start(fl->ctx, &s->loop, &q, on_fluids_ready, on_fluids_done, s, why, sizeof why)) {
		/* the peer's own failure (a helper missing): said, and the connection stays */
		serve_log(s, "control %s: cannot start the fluids: %s", serve_conn_name(k->conn), why);
		send_frame(s, CTL_ERROR, why, false);
		return;
	}
	k->live = 1;
	s->st.fluid_runs++;
	if (q.type == CTL_CAL) {
		k->state = CS_CAL;
	} else {
		k->state = CS_STARTING;
	}
}

void serve_ctl_read(struct serve *s, const uint8_t *p, size_t n)
{
	struct serve_ctl *k = s->ctl;
	while (n && k->conn) {
		size_t used;
		const char *why = "";
		int rc = ctl_reader_feed(&k->rd, p, n, &used, &why);
		p += used;
		n -= used;
		if (rc < 0) {
			protocol_error(s, why);
			return;
		}
		if (rc == 0)
			return;
		handle(s);
	}
}

bool serve_ctl_mid(const struct serve *s)
{
	return s->ctl && ctl_reader_mid(&s->ctl->rd);
}

bool serve_ctl_running(const struct serve *s)
{
	return s->ctl && s->ctl->live;
}

void serve_ctl_gone(struct serve *s, const struct serve_conn *c)
{
	struct serve_ctl *k = s->ctl;
	if (!k || k->conn != c)
		return;
	k->conn = NULL;
	k->state = CS_IDLE;
	/* nobody will stop them or read their reports: stop them now (their done is ignored) */
	if (k->live)
		s->cfg.fluids->stop(s->cfg.fluids->ctx);
}
