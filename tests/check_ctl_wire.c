/*
 * check_ctl_wire.c - put/ctl_wire.c, the control exchange of the peer's
 * fluids, without sockets: frames read in any pieces, every malformed
 * head or body refused with a reason, requests checked field by field.
 */
#include "put/ctl_wire.h"
#include "tests/suites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct ctl_reader rd;

/* feed n bytes in pieces of step; the number of whole frames, or -EPROTO (why set) */
static int feed(const uint8_t *p, size_t n, size_t step, const char **why)
{
	int frames = 0;
	for (size_t off = 0; off < n;) {
		size_t k = n - off < step ? n - off : step, used;
		while (k) {
			int rc = ctl_reader_feed(&rd, p + off, k, &used, why);
			if (rc < 0)
				return rc;
			off += used;
			k -= used;
			frames += rc;
		}
	}
	return frames;
}

START_TEST(test_ctl_frames_read_whole_in_any_pieces)
{
	uint8_t buf[3 * (CTL_HEAD_BYTES + 128)];
	const char *bodies[] = { "cpus=1 run_ns=50000000 sched=idle chunk_loops=1000", "", "n=1" };
	unsigned types[] = { CTL_CAL, CTL_STOP, CTL_DONE };
	for (size_t step = 1; step <= sizeof buf; step += step < 12 ? 1 : 37) {
		size_t n = 0;
		for (int i = 0; i < 3; i++) {
			int w = ctl_frame(buf + n, sizeof buf - n, types[i], bodies[i]);
			ck_assert_int_gt(w, 0);
			n += (size_t)w;
		}
		ctl_reader_init(&rd, CTL_MAX_REQUEST);
		const char *why = NULL;
		/* one frame at a time: each is handled before the next is fed */
		size_t off = 0;
		for (int i = 0; i < 3; i++) {
			int rc = 0;
			while (rc == 0) {
				size_t k = n - off < step ? n - off : step, used;
				ck_assert_uint_gt(k, 0);
				rc = ctl_reader_feed(&rd, buf + off, k, &used, &why);
				off += used;
			}
			ck_assert_int_eq(rc, 1);
			ck_assert_uint_eq(rd.type, types[i]);
			ck_assert_str_eq(rd.body, bodies[i]);
		}
		ck_assert_uint_eq(off, n);
		ck_assert(!ctl_reader_mid(&rd));
	}
}
END_TEST

START_TEST(test_ctl_reader_refuses_malformed_heads_and_bodies)
{
	uint8_t b[CTL_HEAD_BYTES + 600];
	const char *why;
	/* an unknown type */
	ck_assert_int_eq(ctl_frame(b, sizeof b, 99, "x"), CTL_HEAD_BYTES + 1);
	ctl_reader_init(&rd, CTL_MAX_REQUEST);
	ck_assert_int_eq(feed(b, CTL_HEAD_BYTES + 1, 1, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "unknown type"));
	/* a pad that is not zero */
	ck_assert_int_gt(ctl_frame(b, sizeof b, CTL_STOP, ""), 0);
	b[3] = 1;
	ctl_reader_init(&rd, CTL_MAX_REQUEST);
	ck_assert_int_eq(feed(b, CTL_HEAD_BYTES, 3, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "pad"));
	/* a body above the reader's limit: refused at the head, before any body byte */
	memset(b, 0, sizeof b);
	b[1] = CTL_CAL;
	b[6] = (CTL_MAX_REQUEST + 1) >> 8;
	b[7] = (CTL_MAX_REQUEST + 1) & 0xff;
	ctl_reader_init(&rd, CTL_MAX_REQUEST);
	ck_assert_int_eq(feed(b, CTL_HEAD_BYTES, CTL_HEAD_BYTES, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "longer than the limit"));
	b[4] = 0xff; /* 4 GiB */
	ctl_reader_init(&rd, CTL_MAX_BODY);
	ck_assert_int_eq(feed(b, CTL_HEAD_BYTES, 1, &why), -EPROTO);
	/* a byte that is not printable ASCII: NUL, newline, high bit */
	const uint8_t bad[] = { 0, '\n', 0x80, 0x7f };
	for (size_t i = 0; i < sizeof bad; i++) {
		ck_assert_int_gt(ctl_frame(b, sizeof b, CTL_CAL, "cpus=1"), 0);
		b[CTL_HEAD_BYTES + 2] = bad[i];
		ctl_reader_init(&rd, CTL_MAX_REQUEST);
		ck_assert_int_eq(feed(b, CTL_HEAD_BYTES + 6, 2, &why), -EPROTO);
		ck_assert_ptr_nonnull(strstr(why, "printable"));
	}
	/* half a frame: the reader says so (the peer's stall timeout looks at it) */
	ck_assert_int_gt(ctl_frame(b, sizeof b, CTL_CAL, "cpus=1"), 0);
	ctl_reader_init(&rd, CTL_MAX_REQUEST);
	ck_assert_int_eq(feed(b, 5, 5, &why), 0);
	ck_assert(ctl_reader_mid(&rd));
	/* the writer refuses what the reader would: unprintable, too long */
	ck_assert_int_eq(ctl_frame(b, sizeof b, CTL_ERROR, "a\nb"), -EINVAL);
	ck_assert_int_eq(ctl_frame(b, 10, CTL_ERROR, "too long for 10"), -EMSGSIZE);
}
END_TEST

START_TEST(test_ctl_requests_round_trip)
{
	struct ctl_req q = { .type = CTL_START, .max_ns = 70000000000ull, .chunk_loops = 1000 }, back;
	char body[CTL_MAX_REQUEST], why[256];
	strcpy(q.sched, "idle");
	q.cpus.n = 3;
	q.cpus.cpu[0] = 1, q.cpus.cpu[1] = 2, q.cpus.cpu[2] = 5;
	ck_assert_int_eq(ctl_req_format(&q, body, sizeof body), 0);
	ck_assert_str_eq(body, "cpus=1-2,5 max_ns=70000000000 sched=idle chunk_loops=1000");
	ck_assert_int_eq(ctl_req_parse(CTL_START, body, &back, why, sizeof why), 0);
	ck_assert_int_eq(back.cpus.n, 3);
	ck_assert_int_eq(back.cpus.cpu[2], 5);
	ck_assert_uint_eq(back.max_ns, q.max_ns);
	ck_assert_str_eq(back.sched, "idle");
	ck_assert_int_eq(ctl_req_parse(CTL_STOP, "", &back, why, sizeof why), 0);
	ck_assert_int_eq(ctl_req_parse(CTL_CAL, "chunk_loops=1 sched=nice run_ns=10000000 cpus=0", &back, why, sizeof why),
			 0);
	ck_assert_uint_eq(back.run_ns, 10000000);
	struct ctl_info info = { .use_steal = 1 }, got;
	info.cpus.n = 1;
	info.cpus.cpu[0] = 3;
	ck_assert_int_eq(ctl_info_format(&info, body, sizeof body), 0);
	ck_assert_int_eq(ctl_info_parse(body, &got, why, sizeof why), 0);
	ck_assert_int_eq(got.cpus.cpu[0], 3);
	ck_assert_int_eq(got.use_steal, 1);
	unsigned n;
	ck_assert_int_eq(ctl_done_parse("n=2", &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(ctl_done_parse("n=65", &n), -EINVAL);
	ck_assert_int_eq(ctl_done_parse("n=2 n=2", &n), -EINVAL);
}
END_TEST

/* every way a request can be wrong, each with its reason */
START_TEST(test_ctl_requests_reject_each_bad_field)
{
	static const struct {
		unsigned type;
		const char *body, *why;
	} bad[] = {
		{ CTL_CAL, "cpus=1 run_ns=50000000 sched=idle", "no field 'chunk_loops'" },
		{ CTL_CAL, "cpus=1 run_ns=50000000 sched=idle chunk_loops=1000 cpus=2", "twice" },
		{ CTL_CAL, "cpus=1 run_ns=50000000 sched=idle chunk_loops=1000 path=/bin/sh", "unknown field" },
		{ CTL_CAL, "cpus=1 max_ns=5000000000 sched=idle chunk_loops=1000", "unknown field" },
		{ CTL_CAL, "cpus=1 run_ns=1000 sched=idle chunk_loops=1000", "run_ns" },
		{ CTL_CAL, "cpus=1 run_ns=60000000001 sched=idle chunk_loops=1000", "run_ns" },
		{ CTL_CAL, "cpus=1 run_ns=5e7 sched=idle chunk_loops=1000", "run_ns" },
		{ CTL_CAL, "cpus=1 run_ns=-50000000 sched=idle chunk_loops=1000", "run_ns" },
		{ CTL_CAL, "cpus=all run_ns=50000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_CAL, "cpus=1;rm run_ns=50000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_CAL, "cpus=0-64 run_ns=50000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_CAL, "cpus=3-1 run_ns=50000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_CAL, "cpus= run_ns=50000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_CAL, "cpus=1 run_ns=50000000 sched=fifo chunk_loops=1000", "sched" },
		{ CTL_CAL, "cpus=1 run_ns=50000000 sched=idle chunk_loops=0", "chunk_loops" },
		{ CTL_CAL, "cpus=1  run_ns=50000000 sched=idle chunk_loops=1000", "not key=value" },
		{ CTL_CAL, " cpus=1 run_ns=50000000 sched=idle chunk_loops=1000", "not key=value" },
		{ CTL_CAL, "=1 run_ns=50000000 sched=idle chunk_loops=1000", "not key=value" },
		{ CTL_START, "cpus=1 max_ns=999999999 sched=idle chunk_loops=1000", "max_ns" },
		{ CTL_START, "cpus=1 max_ns=3600000000001 sched=idle chunk_loops=1000", "max_ns" },
		{ CTL_STOP, "now=1", "unknown field" },
		{ CTL_REPORT, "fluid cpu=1", "not a request" },
		{ CTL_INFO, "cpus=1 use_steal=1", "not a request" },
	};
	char why[256];
	struct ctl_req q;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		ck_assert_msg(ctl_req_parse(bad[i].type, bad[i].body, &q, why, sizeof why) == -EINVAL, "accepted: %s",
			      bad[i].body);
		ck_assert_msg(strstr(why, bad[i].why), "'%s': %s", bad[i].body, why);
	}
	/* a body longer than any request */
	char big[CTL_MAX_REQUEST + 64];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(ctl_req_parse(CTL_CAL, big, &q, why, sizeof why), -EINVAL);
	struct ctl_info info;
	ck_assert_int_eq(ctl_info_parse("cpus=1", &info, why, sizeof why), -EINVAL);
	ck_assert_int_eq(ctl_info_parse("cpus=1 use_steal=2", &info, why, sizeof why), -EINVAL);
}
END_TEST

Suite *ctl_wire_suite(void)
{
	Suite *s = suite_create("ctl_wire");
	TCase *tc = tcase_create("frames");
	tcase_add_test(tc, test_ctl_frames_read_whole_in_any_pieces);
	tcase_add_test(tc, test_ctl_reader_refuses_malformed_heads_and_bodies);
	tcase_add_test(tc, test_ctl_requests_round_trip);
	tcase_add_test(tc, test_ctl_requests_reject_each_bad_field);
	suite_add_tcase(s, tc);
	return s;
}
