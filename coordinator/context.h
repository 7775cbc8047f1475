/* context.h - the facts about this host that decide how far OS accounting can be trusted */
#ifndef CONTEXT_H
#define CONTEXT_H

#include "common/cli.h"

#include <jansson.h>

struct context {
	char host[128];
	char kernel[128];
	char cpu_model[128];
	int hz;                      /* CONFIG_HZ, 0 if unknown */
	char irq_time_acct[16];      /* "y", "n" or "unknown" */
	char paravirt_time_acct[16];
	char tick_accounting[32];    /* tick, virt-gen or unknown */
	char hypervisor[32];         /* "none", "KVM", ... */
	char clocksource[32];
	int perf_event_paranoid;     /* -100 if unknown */
	int task_delayacct;          /* -1 if unknown */
	long user_hz;
	struct cli_cpus online;
	char config_source[300];     /* where the kernel config came from */
};

/* context_read - gather the context; never fails, unknowns are marked */
void context_read(struct context *c);
/* context_cpu_siblings - the SMT siblings of cpu, itself included (n = 0 if unknown) */
void context_cpu_siblings(int cpu, struct cli_cpus *out);
/* context_print - a few lines for the human output */
void context_print(const struct context *c, FILE *f);
/* context_json - the same as a JSON object */
json_t *context_json(const struct context *c);
/* context_variant - the fluid variant string calibrations are keyed on */
void context_variant(char *buf, size_t len, unsigned long long chunk_loops);

#endif
