/*
 * check_main.c - runs every suite; exits non-zero on any failure.
 * CK_RUN_SUITE=stats (or CK_RUN_CASE=...) runs a part, as Check allows.
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	Suite *(*const suites[])(void) = {
		stats_suite,
		stopping_suite,
		cli_suite,
		fluid_suite,
		measure_suite,
		slowclock_suite,
		calibration_suite,
		csvio_suite,
		procfs_suite,
		reportline_suite,
		serve_suite,
		put_net_suite,
		net_suite,
		sweep_suite,
		predict_suite,
		estimate_suite,
		summary_suite,
		predict_math_suite,
		series_suite,
		pin_suite,
		vec_suite,
		switchlog_suite,
		dclock_suite,
		outfile_suite,
		safetext_suite,
		csvout_suite,
		plot_suite,
		ticksfile_suite,
		peer_suite,
		msg_suite,
		siphash_suite,
		udp_gate_suite,
		rpc_wire_suite,
		ctl_wire_suite,
		remote_suite,
	};
	/*
	 * Hermetic: no test reads or writes the user's calibration store;
	 * fixtures that need a store of their own set XDG_CACHE_HOME again.
	 */
	char cache[64];
	const char *d = tu_mkdtemp();
	if (!d) {
		perror("check_displace: a temporary directory");
		return EXIT_FAILURE;
	}
	snprintf(cache, sizeof cache, "%s", d);
	setenv("XDG_CACHE_HOME", cache, 1);
	/*
	 * A failed assertion that shows a command's whole output can pass
	 * Check's default 4 KiB message limit, and Check then exits the test
	 * with status 2 ("Message string too long"), hiding the failure behind
	 * an "early exit": let such messages through.
	 */
	check_set_max_msg_size(1u << 21);
	SRunner *sr = srunner_create(NULL);
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	tu_rmtree(cache);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
