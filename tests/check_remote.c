/* check_remote.c - placeholder */
#include "tests/suites.h"
Suite *remote_suite(void)
{
	return suite_create("remote");
}
