/* fluidhost.c - the fluids of 'displace serve --fluid-cpus', on the server's loop */
#include "coordinator/fluidhost.h"
#include "calib/reportline.h"
#include "coordinator/context.h"
#include "coordinator/experiment.h"
#include "coordinator/spawn.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/*
 * One request's fluids. Two alternate: a job's children are released when
 * it reports, and their handles close on a later turn of the loop, so the
 * next request starts in the other slot.
 */
struct job {
	struct child kids[CTL_MAX_CPUS];
	int cpu[CTL_MAX_CPUS];
	int n, ndone, quiet; /* quiet: start failed, nobody waits for a report */
	int nready;          /* the fluids whose windows have begun (a co-run's, fluid --ready) */
	serve_fluids_ready_fn ready;
	serve_fluids_done_fn done;
	void *arg;
};

static struct {
	char fluid_path[PATH_MAX];
	struct serve_fluids ops;
	struct job jobs[2];
	int last;              /* the slot of the latest job */
	int use_steal;
} host;

/* every handle of every child of j is closed: the slot can be used again */
static int slot_free(const struct job *j)
{
	for (int i = 0; i < j->n; i++)
		if (j->kids[i].open_handles > 0)
			return 0;
	return 1;
}

static void stop_job(struct job *j);

static void on_kid_done(struct child *c)
{
	struct job *j = c->data;
	const char *lines[CTL_MAX_CPUS];
	char err[512] = "", st[64], line1[256];
	/* a co-run's fluid that ended before its window began: the others stop too, and its error goes at once */
	if (j->ready && j->nready < j->n)
		stop_job(j);
	if (++j->ndone < j->n)
		return;
	for (int i = 0; i < j->n && !err[0]; i++) {
		struct child *k = &j->kids[i];
		lines[i] = k->exit_status == 0 && !k->term_signal ? child_last_line(&k->outb, "fluid cpu=") : NULL;
		if (lines[i])
			continue;
		child_status_text(k, st, sizeof st);
		child_first_err_line(k, line1, sizeof line1);
		snprintf(err, sizeof err, "the fluid on the peer's CPU %d failed (%s)%s%s", j->cpu[i], st,
			 line1[0] ? ": " : "", line1);
	}
	if (!j->quiet)
		j->done(j->arg, lines, err[0] ? 0 : j->n, err[0] ? err : NULL);
	for (int i = 0; i < j->n; i++)
		child_release(&j->kids[i]);
}

/* a co-run's fluid says its window begins: once all have, the client may start its PUT */
static void on_kid_line(struct child *c)
{
	struct job *j = c->data;
	/* its first line, once: each later line is a new one after it */
	if (c->line_seen != sizeof FLUID_READY_LINE - 1 || !fluid_said_ready(c->outb.p))
		return;
	if (++j->nready == j->n && j->ready && !j->quiet)
		j->ready(j->arg);
}

/*
 * EOF on its stdin stops a fluid, and it sees one that came before it was
 * ready to look. A SIGTERM as well raced a request's stop against the
 * fluid's start: one that came before its handler killed it, and the peer
 * answered "the fluid failed (killed by TERM)" (check_serve, 1 run in 10).
 * A fluid that ignores the EOF still ends at its time limit.
 */
static void stop_job(struct job *j)
{
	for (int i = 0; i < j->n; i++)
		child_close_stdin(&j->kids[i]);
}

static int host_start(void *ctx, uv_loop_t *loop, const struct ctl_req *q, serve_fluids_ready_fn ready,
		      serve_fluids_done_fn done, void *arg, char *err, size_t errlen)
{
	(void)ctx;
	int slot = 1 - host.last;
	struct job *j = &host.jobs[slot];
	if (!slot_free(j)) {
		snprintf(err, errlen, "the fluids of the request before last are still closing; try again");
		return -EBUSY;
	}
	memset(j, 0, sizeof *j);
	j->ready = q->type != CTL_CAL ? ready : NULL;
	j->done = done;
	j->arg = arg;
	host.last = slot;
	struct exp_fluid_opts o = { .sched = q->sched, .chunk_loops = q->chunk_loops, .ready = q->type != CTL_CAL };
	/* a co-run's fluids stop by themselves at max_ns, should STOP never come */
	uint64_t run_ns = q->type == CTL_CAL ? q->run_ns : q->max_ns;
	for (int i = 0; i < q->cpus.n; i++) {
		char *argv[16], bufs[5][32];
		exp_fluid_argv(host.fluid_path, &o, q->cpus.cpu[i], run_ns, argv, bufs);
		j->cpu[i] = q->cpus.cpu[i];
		int rc = child_spawn(loop, &j->kids[i], "fluid", argv, on_kid_done, j);
		if (!rc && o.ready)
			j->kids[i].on_line = on_kid_line;
		j->n = i + 1;
		if (rc) {
			snprintf(err, errlen, "cannot start the fluid '%s': %s", host.fluid_path, uv_strerror(rc));
			/* the ones started stop, and report to nobody */
			j->quiet = 1;
			j->ndone++;
			stop_job(j);
			if (j->ndone == j->n)
				child_release(&j->kids[i]);
			return -ENOEXEC;
		}
	}
	return 0;
}

static void host_stop(void *ctx)
{
	(void)ctx;
	stop_job(&host.jobs[host.last]);
}

int fluidhost_get(const struct cli_cpus *cpus, const struct serve_fluids **out, char *err, size_t errlen)
{
	struct context ctx;
	char on[256];
	context_read(&ctx);
	for (int i = 0; i < cpus->n; i++)
		if (ctx.online.n && !cli_cpus_contains(&ctx.online, cpus->cpu[i])) {
			cli_format_cpulist(&ctx.online, on, sizeof on);
			snprintf(err, errlen, "CPU %d is not online (online: %s)", cpus->cpu[i], on);
			return -EINVAL;
		}
	if (exp_find_helper("fluid", host.fluid_path, sizeof host.fluid_path)) {
		snprintf(err, errlen, "cannot find the helper 'fluid' next to displace or in ../libexec/displace; rebuild "
				      "with 'make' or reinstall");
		return -ENOENT;
	}
	/* with IRQ time accounting, CPU time also leaves out interrupts: task-clock minus it is not steal */
	host.ops = (struct serve_fluids){ .start = host_start, .stop = host_stop,
					  .use_steal = strcmp(ctx.irq_time_acct, "y") != 0 };
	*out = &host.ops;
	return 0;
}
