/*
 * udp_gate.c - the peer's udp admission: cookies that prove a source
 * address, and the table of proven sources. The rules are in udp_gate.h.
 */
#include "put/udp_gate.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source: the address in a comparable form, and its port. */
struct gate_key {
	uint8_t v6;        /* 0: IPv4 (v4-mapped IPv6 included), 1: IPv6 */
	uint8_t addr[16];  /* IPv4 in the first 4 bytes */
	uint16_t port;     /* network order, as it came */
};

struct gate_entry {
	struct gate_key k;
	uint32_t msg_bytes, reply_bytes;
	uint64_t last_ms; /* the last datagram from it */
	uint32_t next;    /* 1 + the next entry in its bucket (or in the free list); 0 ends */
	int used;
};

struct udp_gate {
	struct udp_gate_config c;
	uint8_t key[SIPHASH_KEY_BYTES];
	struct gate_entry *e; /* c.max_sources of them */
	uint32_t *bucket;     /* 1 + the first entry of each chain; 0 empty */
	uint32_t nbuckets;    /* a power of 2, at least twice max_sources */
	uint32_t free_head;   /* 1 + the first free entry */
	unsigned count;
	uint64_t none_stale_until; /* full and all live: no entry can be replaced before then */
};

static int gate_key_of(const struct sockaddr *sa, struct gate_key *k)
{
	memset(k, 0, sizeof *k);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		memcpy(k->addr, &in->sin_addr, 4);
		k->port = in->sin_port;
		return 0;
	}
	if (sa->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	/* an IPv4 client of a dual-stack socket is the same client as over IPv4 */
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memcpy(k->addr, in6->sin6_addr.s6_addr + 12, 4);
	} else {
		k->v6 = 1;
		memcpy(k->addr, &in6->sin6_addr, 16);
	}
	k->port = in6->sin6_port;
	return 0;
}

static int same_source(const struct gate_key *a, const struct gate_key *b)
{
	return a->v6 == b->v6 && a->port == b->port && !memcmp(a->addr, b->addr, sizeof a->addr);
}

/* the same address, for the per-address limit: IPv4 whole, IPv6 by its /64 (one host's share) */
static int same_addr(const struct gate_key *a, const struct gate_key *b)
{
	return a->v6 == b->v6 && !memcmp(a->addr, b->addr, a->v6 ? 8 : 4);
}

/* the key's bytes, in a fixed order, for hashing */
static size_t key_bytes(const struct gate_key *k, uint8_t *out)
{
	out[0] = k->v6;
	memcpy(out + 1, k->addr, 16);
	memcpy(out + 17, &k->port, 2);
	return 19;
}

/*
 * The chain of a source is its address's (IPv6: its /64's), whatever the
 * port: what one address holds is one chain, at most max_per_addr long,
 * so the per-address limit is a walk of that chain, not of the table.
 */
static uint32_t bucket_of(const struct udp_gate *g, const struct gate_key *k)
{
	uint8_t b[9] = { k->v6 };
	memcpy(b + 1, k->addr, 8);
	return (uint32_t)siphash24(g->key, b, k->v6 ? 9 : 5) & (g->nbuckets - 1);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The cookie of a source asking for these sizes in this epoch; never 0, which means "none". */
static uint64_t cookie_of(const struct udp_gate *g, const struct gate_key *k, uint64_t epoch, uint32_t msg,
			  uint32_t reply)
{
	uint8_t b[19 + 12];
	size_t n = key_bytes(k, b);
	put_be32(b + n, (uint32_t)epoch);
	put_be32(b + n + 4, msg);
	put_be32(b + n + 8, reply);
	uint64_t c = siphash24(g->key, b, n + 12);
	return c ? c : 1;
}

int udp_gate_new(const struct udp_gate_config *c, const uint8_t key[SIPHASH_KEY_BYTES], struct udp_gate **out)
{
	if (!c->max_sources || !c->max_per_addr || c->max_sources > (1u << 24))
		return -EINVAL;
	struct udp_gate *g = calloc(1, sizeof *g);
	if (!g)
		return -ENOMEM;
	g->c = *c;
	memcpy(g->key, key, SIPHASH_KEY_BYTES);
	g->nbuckets = 2;
	while (g->nbuckets < 2 * c->max_sources)
		g->nbuckets *= 2;
	g->e = calloc(c->max_sources, sizeof *g->e);
	g->bucket = calloc(g->nbuckets, sizeof *g->bucket);
	if (!g->e || !g->bucket) {
		udp_gate_free(g);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->max_sources; i++)
		g->e[i].next = i + 1 < c->max_sources ? i + 2 : 0;
	g->free_head = 1;
	*out = g;
	return 0;
}

void udp_gate_free(struct udp_gate *g)
{
	if (!g)
		return;
	free(g->e);
	free(g->bucket);
	free(g);
}

static struct gate_entry *find(const struct udp_gate *g, const struct gate_key *k)
{
	for (uint32_t i = g->bucket[bucket_of(g, k)]; i; i = g->e[i - 1].next)
		if (same_source(&g->e[i - 1].k, k))
			return &g->e[i - 1];
	return NULL;
}

static void remove_entry(struct udp_gate *g, struct gate_entry *x)
{
	uint32_t idx = (uint32_t)(x - g->e) + 1;
	for (uint32_t *link = &g->bucket[bucket_of(g, &x->k)]; *link; link = &g->e[*link - 1].next) {
		if (*link == idx) {
			*link = x->next;
			break;
		}
	}
	memset(x, 0, sizeof *x);
	x->next = g->free_head;
	g->free_head = idx;
	g->count--;
}

static struct gate_entry *insert(struct udp_gate *g, const struct gate_key *k)
{
	uint32_t idx = g->free_head;
	struct gate_entry *x = &g->e[idx - 1];
	uint32_t b = bucket_of(g, k);
	g->free_head = x->next;
	x->k = *k;
	x->used = 1;
	x->next = g->bucket[b];
	g->bucket[b] = idx;
	g->count++;
	return x;
}

/*
 * The source from k's address silent the longest, if it has been silent
 * for live_ms (else NULL); *n counts the sources from that address.
 */
static struct gate_entry *stalest_of_addr(struct udp_gate *g, const struct gate_key *k, uint64_t now_ms, unsigned *n)
{
	struct gate_entry *best = NULL;
	*n = 0;
	for (uint32_t i = g->bucket[bucket_of(g, k)]; i; i = g->e[i - 1].next) {
		struct gate_entry *x = &g->e[i - 1];
		if (!same_addr(&x->k, k))
			continue;
		++*n;
		if (now_ms - x->last_ms >= g->c.live_ms && (!best || x->last_ms < best->last_ms))
			best = x;
	}
	return best;
}

/*
 * The source silent the longest of all, if it has been silent for
 * live_ms; else NULL. A full table of live sources is walked once: until
 * the oldest of them could turn stale, none can, and newcomers are
 * refused without a walk.
 */
static struct gate_entry *stalest(struct udp_gate *g, uint64_t now_ms)
{
	if (now_ms < g->none_stale_until)
		return NULL;
	struct gate_entry *oldest = NULL;
	for (unsigned i = 0; i < g->c.max_sources; i++) {
		struct gate_entry *x = &g->e[i];
		if (x->used && (!oldest || x->last_ms < oldest->last_ms))
			oldest = x;
	}
	if (oldest && now_ms - oldest->last_ms >= g->c.live_ms)
		return oldest;
	/* activity only moves last_ms later, and a newcomer starts at now: a safe bound */
	g->none_stale_until = oldest ? oldest->last_ms + g->c.live_ms : 0;
	return NULL;
}

static void ack(struct udp_gate_result *r, size_t n, const struct net_hello *h, unsigned status, uint64_t cookie)
{
	struct net_hello a = { NET_HELLO_VERSION, NET_ACK, status, h->msg_bytes, h->reply_bytes, cookie };
	net_hello_encode(r->ack, &a);
	r->action = UDP_GATE_ACK;
	/* the full ack only to a full hello: never more than the source sent */
	r->ack_len = n >= NET_HELLO_BYTES ? NET_HELLO_BYTES : NET_HELLO_HEAD_BYTES;
}

/* A hello that echoes a good cookie: enter or refresh the source, making room if it may. */
static void admit(struct udp_gate *g, const struct gate_key *k, const struct net_hello *h, uint64_t now_ms,
		  struct udp_gate_result *r)
{
	struct gate_entry *x = find(g, k);
	if (!x) {
		unsigned from_addr;
		struct gate_entry *old = stalest_of_addr(g, k, now_ms, &from_addr);
		if (from_addr >= g->c.max_per_addr) {
			if (!old) {
				r->bad = 1;
				snprintf(r->why, sizeof r->why, "refused: %u udp clients from this address, the limit",
					 g->c.max_per_addr);
				ack(r, NET_HELLO_BYTES, h, NET_HELLO_BUSY, h->cookie);
				return;
			}
			remove_entry(g, old);
			snprintf(r->why, sizeof r->why, "took the place of a udp client from the same address, silent for %" PRIu64 " ms",
				 now_ms - old->last_ms);
		} else if (g->count >= g->c.max_sources) {
			old = stalest(g, now_ms);
			if (!old) {
				r->bad = 1;
				snprintf(r->why, sizeof r->why, "refused: %u udp clients, the limit, all active", g->c.max_sources);
				ack(r, NET_HELLO_BYTES, h, NET_HELLO_BUSY, h->cookie);
				return;
			}
			remove_entry(g, old);
			snprintf(r->why, sizeof r->why, "took the place of a udp client silent for %" PRIu64 " ms",
				 now_ms - old->last_ms);
		}
		x = insert(g, k);
	}
	x->msg_bytes = h->msg_bytes;
	x->reply_bytes = h->reply_bytes;
	x->last_ms = now_ms;
	ack(r, NET_HELLO_BYTES, h, NET_HELLO_OK, h->cookie);
}

static void hello(struct udp_gate *g, const struct gate_key *k, uint64_t now_ms, const uint8_t *d, size_t n,
		  struct udp_gate_result *r)
{
	struct net_hello h;
	net_hello_decode(d, n, &h);
	uint32_t max = k->v6 ? NET_UDP6_MAX_BYTES : NET_UDP4_MAX_BYTES;
	enum net_hello_status st = net_hello_check(&h, max, 1, max);
	if (st == NET_HELLO_OK && n != NET_HELLO_BYTES)
		st = NET_HELLO_BAD_FORM; /* this version's hello is 24 bytes, cookie included */
	if (st != NET_HELLO_OK) {
		r->bad = 1;
		snprintf(r->why, sizeof r->why, "hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s",
			 h.version, h.msg_bytes, h.reply_bytes, net_hello_status_str(st));
		/* a hello of another version gets the head only, which that version reads */
		ack(r, h.version == NET_HELLO_VERSION ? n : NET_HELLO_HEAD_BYTES, &h, st, 0);
		return;
	}
	uint64_t epoch = now_ms / UDP_GATE_COOKIE_EPOCH_MS;
	if (h.cookie && (h.cookie == cookie_of(g, k, epoch, h.msg_bytes, h.reply_bytes) ||
			 (epoch && h.cookie == cookie_of(g, k, epoch - 1, h.msg_bytes, h.reply_bytes)))) {
		admit(g, k, &h, now_ms, r);
		return;
	}
	/* no cookie, or a stale one: the same 24 bytes back, with a fresh cookie, and no state */
	ack(r, n, &h, NET_HELLO_COOKIE, cookie_of(g, k, epoch, h.msg_bytes, h.reply_bytes));
}

void udp_gate_datagram(struct udp_gate *g, const struct sockaddr *from, uint64_t now_ms, const uint8_t *d, size_t n,
		       struct udp_gate_result *r)
{
	struct gate_key k;
	memset(r, 0, sizeof *r);
	r->action = UDP_GATE_DROP;
	if (gate_key_of(from, &k))
		return;
	/* a hello is 16 (another version) to 24 bytes and starts with the magic */
	struct net_hello h;
	if (n >= NET_HELLO_HEAD_BYTES && n <= NET_HELLO_BYTES && !net_hello_decode(d, n, &h)) {
		hello(g, &k, now_ms, d, n, r);
		return;
	}
	struct gate_entry *x = find(g, &k);
	if (x && n == x->msg_bytes) {
		x->last_ms = now_ms;
		r->action = UDP_GATE_REPLY;
		r->reply_bytes = x->reply_bytes;
		return;
	}
	r->bad = 1;
	if (x)
		snprintf(r->why, sizeof r->why, "a %zu-byte datagram, but its hello said %" PRIu32 " bytes", n,
			 x->msg_bytes);
	else
		snprintf(r->why, sizeof r->why, "a %zu-byte datagram without a hello first", n);
}

unsigned udp_gate_expire(struct udp_gate *g, uint64_t now_ms)
{
	for (unsigned i = 0; i < g->c.max_sources; i++)
		if (g->e[i].used && now_ms - g->e[i].last_ms >= g->c.idle_ms)
			remove_entry(g, &g->e[i]);
	return g->count;
}

unsigned udp_gate_count(const struct udp_gate *g)
{
	return g->count;
}
