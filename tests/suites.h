/* suites.h - one Suite per module; check_main.c runs them all */
#ifndef SUITES_H
#define SUITES_H

#include <check.h>

Suite *stats_suite(void);
Suite *cli_suite(void);
Suite *fluid_suite(void);
Suite *measure_suite(void);
Suite *slowclock_suite(void);
Suite *store_suite(void);
Suite *procfs_suite(void);
Suite *report_suite(void);

#endif
