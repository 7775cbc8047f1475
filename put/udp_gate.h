/*
 * udp_gate.h - the peer's udp admission, pure: no socket, no clock of its
 * own, no printing. It says what a datagram from a source means and what
 * to send back, so that the peer (serve_udp.c), the tests and the fuzz
 * harness (fuzz/fuzz_hello.c) run the same code.
 *
 * The rule: nothing sent to an unproven source is larger than what it
 * sent. A first hello gets an ack of its own size with a cookie (status
 * NET_HELLO_COOKIE), a keyed hash of the source address and port, the
 * sizes and the time (a 30 s epoch; the current and the previous one are
 * accepted), so the gate keeps no state for it. A hello that echoes the
 * cookie proves the address: the source enters the table, and from then
 * on each datagram of its message size gets a reply of its reply size.
 *
 * The table holds at most max_sources sources, max_per_addr of them from
 * one address (IPv4) or one /64 (IPv6). A newcomer may take the place of
 * the source silent the longest, only if that one has been silent for
 * live_ms; a live source is never pushed out. Sources silent for idle_ms
 * are forgotten (udp_gate_expire).
 */
#ifndef UDP_GATE_H
#define UDP_GATE_H

#include "put/net.h"
#include "put/siphash.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define UDP_GATE_COOKIE_EPOCH_MS 30000u

struct udp_gate_config {
	uint64_t idle_ms;      /* a source silent this long is forgotten */
	uint64_t live_ms;      /* one active within this is never replaced by a newcomer */
	unsigned max_sources;  /* sources in the table, 1 or more */
	unsigned max_per_addr; /* of them from one address, 1 or more */
};

enum udp_gate_action {
	UDP_GATE_DROP,  /* send nothing */
	UDP_GATE_ACK,   /* send ack_len bytes of ack */
	UDP_GATE_REPLY, /* a message: send reply_bytes bytes */
};

struct udp_gate_result {
	enum udp_gate_action action;
	uint8_t ack[NET_HELLO_BYTES];
	size_t ack_len;       /* never above the datagram's length */
	uint32_t reply_bytes; /* with UDP_GATE_REPLY */
	int bad;              /* a bad client: count it, and log why */
	char why[160];        /* what happened, for the log ("" if nothing to say) */
};

struct udp_gate;

/* udp_gate_new - an empty table keyed with key; -ENOMEM, -EINVAL for a limit of 0 */
int udp_gate_new(const struct udp_gate_config *c, const uint8_t key[SIPHASH_KEY_BYTES], struct udp_gate **out);
/* udp_gate_free - free it (NULL is fine) */
void udp_gate_free(struct udp_gate *g);
/*
 * udp_gate_datagram - what the datagram d of n bytes from from, at
 * now_ms (a monotonic clock), means: r says what to send back to from
 */
void udp_gate_datagram(struct udp_gate *g, const struct sockaddr *from, uint64_t now_ms, const uint8_t *d, size_t n,
		       struct udp_gate_result *r);
/* udp_gate_expire - forget the sources silent for idle_ms; how many remain */
unsigned udp_gate_expire(struct udp_gate *g, uint64_t now_ms);
/* udp_gate_count - the sources in the table */
unsigned udp_gate_count(const struct udp_gate *g);

#endif
