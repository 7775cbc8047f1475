/*
 * put_exec.c - exec: run a command (fork and exec, no shell) once per
 * operation. With --ops-per-run K the command itself does K operations,
 * and the cost is reported per operation.
 *
 * The command's stdin and stdout are /dev/null (stdout must not mix with
 * the report line); its stderr is put's.
 */
#include "common/cli.h"
#include "put/put.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct exec {
	char **argv;        /* the command, NULL-terminated (points into put's argv) */
	uint64_t per_run;
	int first_status;   /* the first non-zero exit status, or 0 */
	uint64_t failed_runs;
	int exec_failed;
	posix_spawn_file_actions_t fa;
	int fa_ready;
};

static int exec_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	struct exec *x = calloc(1, sizeof *x);
	if (!x)
		return -ENOMEM;
	x->per_run = 1;
	int i;
	for (i = 1; i < argc; i++) {
		int missing;
		const char *v;
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-')
			break;
		if ((v = cli_opt_value(argc, argv, &i, "--ops-per-run", &missing))) {
			if (cli_parse_u64(v, 1, UINT64_MAX / 1024, &x->per_run)) {
				snprintf(err, errlen, "invalid value '%s' for --ops-per-run", v);
				free(x);
				return -EINVAL;
			}
			continue;
		}
		snprintf(err, errlen, missing ? "option '%s' needs a value" : "unknown option '%s'", argv[i]);
		free(x);
		return -EINVAL;
	}
	if (i >= argc) {
		snprintf(err, errlen, "no command given (usage: exec [--ops-per-run K] -- CMD [ARGS...])");
		free(x);
		return -EINVAL;
	}
	x->argv = argv + i;
	*state = x;
	return 0;
}

static int exec_setup(void *state, char *err, size_t errlen)
{
	struct exec *x = state;
	if (posix_spawn_file_actions_init(&x->fa)) {
		snprintf(err, errlen, "cannot prepare spawn: out of memory");
		return -ENOMEM;
	}
	x->fa_ready = 1;
	posix_spawn_file_actions_addopen(&x->fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&x->fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	return 0;
}

static int exec_run(void *state, uint64_t ops, char *err, size_t errlen)
{
	struct exec *x = state;
	for (uint64_t i = 0; i < ops; i++) {
		pid_t pid;
		/* glibc's posix_spawn reports a failed exec as its return value */
		int rc = posix_spawnp(&pid, x->argv[0], &x->fa, NULL, x->argv, environ);
		if (rc) {
			snprintf(err, errlen, "cannot execute '%s': %s", x->argv[0], strerror(rc));
			x->exec_failed = 1;
			return -rc;
		}
		int st;
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				snprintf(err, errlen, "waitpid: %s", strerror(errno));
				return -errno;
			}
		int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (status) {
			x->failed_runs++;
			if (!x->first_status)
				x->first_status = status;
		}
	}
	return 0;
}

static void exec_report(void *state, FILE *f)
{
	struct exec *x = state;
	fprintf(f, " cmd_status=%d cmd_failed_runs=%" PRIu64 " ops_per_run=%" PRIu64, x->first_status,
		x->failed_runs, x->per_run);
}

static uint64_t exec_ops_scale(void *state)
{
	return ((struct exec *)state)->per_run;
}

static int exec_exit_status(void *state)
{
	return ((struct exec *)state)->exec_failed ? 127 : 0;
}

static void exec_teardown(void *state)
{
	struct exec *x = state;
	if (x->fa_ready)
		posix_spawn_file_actions_destroy(&x->fa);
	free(x);
}

const struct put_workload put_exec = {
	.name = "exec",
	.flags = PUT_COMMAND,
	.ops_policy = PUT_OPS_ONE,
	.summary = "run a command once per operation (fork and exec, no shell)",
	.usage = "[--ops-per-run K] -- CMD [ARGS...]",
	.help = "  --ops-per-run K  the command does K operations per run; costs are per\n"
		"                   operation (default 1)\n"
		"  -- CMD ARGS...   the command, looked up in PATH; its stdin and stdout are\n"
		"                   /dev/null, its stderr is shown\n",
	.parse = exec_parse,
	.setup = exec_setup,
	.run = exec_run,
	.report = exec_report,
	.teardown = exec_teardown,
	.ops_scale = exec_ops_scale,
	.exit_status = exec_exit_status,
	.counts_children = 1,
};
