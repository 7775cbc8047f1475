/*
 * serve_rpc.c - the peer's ONC RPC service: its own thread on a socket
 * bound here, libtirpc's descriptors polled with an eventfd that stops
 * it, and a dispatcher that decodes DISPLACE_SINK's argument in pieces
 * and discards it. The design notes are in put/serve.h.
 */
#include "put/serve_int.h"
#include "common/dclock.h"

#include "displace_rpc.h"

/* xdrproc_t is variadic; casting through void (*)(void) says the mismatch is meant */
#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define SERVE_RPC_CHUNK_BYTES (64u * 1024) /* a multiple of 4: XDR padding only at the end */
#define SERVE_RPC_JOIN_NS 1000000000ull

/* the RPC dispatcher has no user pointer; one server per process */
static struct serve *rpc_srv;

bool serve_rpc_busy(void)
{
	return rpc_srv != NULL;
}

/*
 * The argument of DISPLACE_SINK, opaque<> on the wire (length, bytes,
 * padding to 4), decoded in pieces and discarded; *count gets its length.
 * Decoding it as xdr_displace_payload would allocate the whole message.
 */
static bool_t xdr_discard_payload(XDR *x, u_int *count)
{
	static char chunk[SERVE_RPC_CHUNK_BYTES]; /* only the RPC thread decodes */
	u_int len;
	if (x->x_op == XDR_FREE)
		return TRUE;
	if (x->x_op != XDR_DECODE || !xdr_u_int(x, &len) || len > DISPLACE_RPC_MAX_BYTES)
		return FALSE;
	for (u_int left = len; left;) {
		u_int k = left < sizeof chunk ? left : (u_int)sizeof chunk;
		if (!xdr_opaque(x, chunk, k))
			return FALSE;
		left -= k;
	}
	*count = len;
	return TRUE;
}

static void rpc_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct serve *s = rpc_srv;
	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XDRPROC(xdr_void), NULL);
		return;
	case DISPLACE_SINK: {
		u_int n = 0;
		if (!svc_getargs(x, XDRPROC(xdr_discard_payload), (caddr_t)&n)) {
			atomic_fetch_add(&s->rpc_bad, 1);
			serve_log(s, "rpc: a DISPLACE_SINK call that does not decode");
			svcerr_decode(x);
			return;
		}
		atomic_fetch_add(&s->rpc_calls, 1);
		svc_sendreply(x, XDRPROC(xdr_u_int), (caddr_t)&n);
		svc_freeargs(x, XDRPROC(xdr_discard_payload), (caddr_t)&n);
		return;
	}
	default:
		svcerr_noproc(x);
	}
}

/*
 * The RPC thread: poll libtirpc's descriptors and the stop eventfd, and
 * let libtirpc serve what is ready. svc_getreq_poll may accept a
 * connection and so add a descriptor while it runs: the copy has spare
 * entries (fd -1) past the eventfd.
 */
static void *rpc_main(void *arg)
{
	struct serve *s = arg;
	struct pollfd *p = NULL;
	size_t cap = 0;
	for (;;) {
		int n = svc_max_pollfd;
		size_t need = (size_t)n + 1 + 8;
		if (need > cap) {
			struct pollfd *q = realloc(p, need * sizeof *p);
			if (!q)
				break;
			p = q;
			cap = need;
		}
		if (n)
			memcpy(p, svc_pollfd, (size_t)n * sizeof *p);
		for (size_t i = (size_t)n; i < cap; i++)
			p[i] = (struct pollfd){ .fd = -1 };
		p[n] = (struct pollfd){ .fd = s->rpc_efd, .events = POLLIN };
		int r = poll(p, (nfds_t)n + 1, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || p[n].revents)
			break;
		p[n].fd = -1;
		svc_getreq_poll(p, r);
	}
	free(p);
	atomic_store(&s->rpc_done, 1);
	return NULL;
}

int serve_rpc_open(struct serve *s, unsigned port, char *err, size_t errlen)
{
	char name[80];
	s->rpc_addr = s->cfg.listen;
	net_addr_set_port(&s->rpc_addr, port);
	net_format_addr(&s->rpc_addr, name, sizeof name);
	s->rpc_fd = socket(s->rpc_addr.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (s->rpc_fd < 0 || setsockopt(s->rpc_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(s->rpc_fd, (struct sockaddr *)&s->rpc_addr.ss, s->rpc_addr.len) || listen(s->rpc_fd, SOMAXCONN)) {
		int e = errno;
		snprintf(err, errlen, "cannot bind rpc %s: %s", name, strerror(e));
		return -e;
	}
	socklen_t len = sizeof s->rpc_addr.ss;
	if (getsockname(s->rpc_fd, (struct sockaddr *)&s->rpc_addr.ss, &len)) {
		int e = errno;
		snprintf(err, errlen, "cannot read the rpc address: %s", strerror(e));
		return -e;
	}
	s->rpc_addr.len = len;
	s->rpc_efd = eventfd(0, EFD_CLOEXEC);
	if (s->rpc_efd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot make an eventfd: %s", strerror(e));
		return -e;
	}
	s->rpc_xprt = svc_vc_create(s->rpc_fd, 0, 0);
	if (!s->rpc_xprt) {
		snprintf(err, errlen, "cannot make the rpc transport on %s", name);
		return -ENOMEM;
	}
	s->rpc_fd = -1; /* the transport owns it now */
	/* no netconfig: registered here only, never with rpcbind or the portmapper */
	if (!svc_reg(s->rpc_xprt, DISPLACE_PROG, DISPLACE_VERS, rpc_dispatch, NULL)) {
		snprintf(err, errlen, "cannot register the rpc program on %s", name);
		return -EPROTO;
	}
	s->rpc_registered = 1;
	rpc_srv = s;
	return 0;
}

int serve_rpc_start(struct serve *s, char *err, size_t errlen)
{
	int rc;
	if (s->rpc_xprt && (rc = pthread_create(&s->rpc_thread, NULL, rpc_main, s))) {
		snprintf(err, errlen, "cannot start the rpc thread: %s", strerror(rc));
		return -rc;
	}
	s->rpc_running = s->rpc_xprt != NULL;
	return 0;
}

void serve_rpc_close(struct serve *s)
{
	int clean = 1;
	if (s->rpc_running) {
		uint64_t one = 1;
		if (write(s->rpc_efd, &one, sizeof one) < 0)
			clean = 0;
		/*
		 * libtirpc may sit up to 35 s in a read from a stalled client:
		 * wait a second, then cancel the thread and leave libtirpc as it is.
		 */
		uint64_t until = dclock_mono_ns() + SERVE_RPC_JOIN_NS;
		while (!atomic_load(&s->rpc_done) && dclock_mono_ns() < until)
			usleep(2000);
		if (!atomic_load(&s->rpc_done)) {
			pthread_cancel(s->rpc_thread);
			clean = 0;
		}
		pthread_join(s->rpc_thread, NULL);
		s->rpc_running = 0;
	}
	if (clean && s->rpc_registered)
		svc_unreg(DISPLACE_PROG, DISPLACE_VERS);
	if (clean && s->rpc_xprt)
		svc_destroy(s->rpc_xprt);
	s->rpc_registered = 0;
	s->rpc_xprt = NULL;
	if (s->rpc_fd >= 0)
		close(s->rpc_fd);
	if (s->rpc_efd >= 0)
		close(s->rpc_efd);
	s->rpc_fd = s->rpc_efd = -1;
	if (rpc_srv == s && clean)
		rpc_srv = NULL;
}
