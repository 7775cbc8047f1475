/* context.c - the facts about this host that decide how far OS accounting can be trusted */
#include "coordinator/context.h"
#include "calib/procfs.h"
#include "fluid/spin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* the line that starts at p, cut to fit buf */
static void copy_line(char *buf, size_t len, const char *p)
{
	size_t n = strcspn(p, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

static void read_line(const char *path, char *buf, size_t len, const char *fallback)
{
	char *text;
	if (procfs_read_file(path, &text) == 0) {
		copy_line(buf, len, text);
		free(text);
		if (buf[0])
			return;
	}
	snprintf(buf, len, "%s", fallback);
}

/* The kernel config: /proc/config.gz through gzip, else /boot/config-<release>. */
static char *read_kernel_config(const char *release, char *source, size_t len)
{
	char path[256];
	snprintf(path, sizeof path, "/boot/config-%s", release);
	char *text;
	if (procfs_read_file(path, &text) == 0) {
		snprintf(source, len, "%s", path);
		return text;
	}
	if (access("/proc/config.gz", R_OK) == 0) {
		FILE *p = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
		if (p) {
			size_t cap = 1 << 18, used = 0;
			char *buf = malloc(cap);
			while (buf) {
				if (used + 1 >= cap) {
					char *nb = realloc(buf, cap * 2);
					if (!nb) {
						free(buf);
						buf = NULL;
						break;
					}
					buf = nb;
					cap *= 2;
				}
				size_t r = fread(buf + used, 1, cap - used - 1, p);
				if (r == 0)
					break;
				used += r;
			}
			int st = pclose(p);
			if (buf && st == 0 && used > 0) {
				buf[used] = '\0';
				snprintf(source, len, "/proc/config.gz");
				return buf;
			}
			free(buf);
		}
	}
	snprintf(source, len, "none found");
	return NULL;
}

static void hypervisor_name(char *buf, size_t len)
{
	snprintf(buf, len, "none");
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
		char sig[13] = { 0 };
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		static const struct {
			const char *sig, *name;
		} known[] = {
			{ "KVMKVMKVM", "KVM" },	       { "Microsoft Hv", "Hyper-V" }, { "VMwareVMware", "VMware" },
			{ "XenVMMXenVMM", "Xen" },     { "TCGTCGTCGTCG", "QEMU-TCG" }, { " lrpepyh  vr", "Parallels" },
			{ "ACRNACRNACRN", "ACRN" },    { "bhyve bhyve ", "bhyve" },
		};
		snprintf(buf, len, "unknown hypervisor");
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			if (!strncmp(sig, known[i].sig, strlen(known[i].sig)))
				snprintf(buf, len, "%s", known[i].name);
		return;
	}
#endif
	char t[32];
	read_line("/sys/hypervisor/type", t, sizeof t, "");
	if (t[0])
		snprintf(buf, len, "%s", t);
}

static void cpu_model(char *buf, size_t len)
{
	char *text;
	snprintf(buf, len, "unknown");
	if (procfs_read_file("/proc/cpuinfo", &text))
		return;
	const char *p = strstr(text, "model name");
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		copy_line(buf, len, p);
	}
	free(text);
}

void context_read(struct context *c)
{
	struct utsname u;
	memset(c, 0, sizeof *c);
	if (uname(&u) == 0) {
		snprintf(c->host, sizeof c->host, "%s", u.nodename);
		snprintf(c->kernel, sizeof c->kernel, "%s", u.release);
	} else {
		strcpy(c->host, "unknown");
		strcpy(c->kernel, "unknown");
	}
	cpu_model(c->cpu_model, sizeof c->cpu_model);
	char *cfg = read_kernel_config(c->kernel, c->config_source, sizeof c->config_source);
	const char *v;
	c->hz = cfg && (v = procfs_config_lookup(cfg, "CONFIG_HZ")) ? atoi(v) : 0;
	snprintf(c->irq_time_acct, sizeof c->irq_time_acct, "%s",
		 cfg && (v = procfs_config_lookup(cfg, "CONFIG_IRQ_TIME_ACCOUNTING")) ? v : "unknown");
	snprintf(c->paravirt_time_acct, sizeof c->paravirt_time_acct, "%s",
		 cfg && (v = procfs_config_lookup(cfg, "CONFIG_PARAVIRT_TIME_ACCOUNTING")) ? v : "unknown");
	if (!cfg)
		strcpy(c->tick_accounting, "unknown");
	else if ((v = procfs_config_lookup(cfg, "CONFIG_VIRT_CPU_ACCOUNTING_GEN")) && !strcmp(v, "y"))
		strcpy(c->tick_accounting, "virt-gen");
	else if ((v = procfs_config_lookup(cfg, "CONFIG_TICK_CPU_ACCOUNTING")) && !strcmp(v, "y"))
		strcpy(c->tick_accounting, "tick");
	else
		strcpy(c->tick_accounting, "unknown");
	free(cfg);
	hypervisor_name(c->hypervisor, sizeof c->hypervisor);
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", c->clocksource,
		  sizeof c->clocksource, "unknown");
	char num[32];
	read_line("/proc/sys/kernel/perf_event_paranoid", num, sizeof num, "");
	c->perf_event_paranoid = num[0] ? atoi(num) : -100;
	read_line("/proc/sys/kernel/task_delayacct", num, sizeof num, "");
	c->task_delayacct = num[0] ? atoi(num) : -1;
	c->user_hz = sysconf(_SC_CLK_TCK);
	char online[256];
	read_line("/sys/devices/system/cpu/online", online, sizeof online, "");
	if (!online[0] || cli_parse_cpulist(online, NULL, &c->online)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c->online.n = 0;
		for (long i = 0; i < n && i < CLI_MAX_CPUS; i++)
			c->online.cpu[c->online.n++] = (int)i;
	}
}

void context_cpu_siblings(int cpu, struct cli_cpus *out)
{
	char path[128], buf[256];
	out->n = 0;
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	read_line(path, buf, sizeof buf, "");
	if (buf[0])
		cli_parse_cpulist(buf, NULL, out);
}

void context_print(const struct context *c, FILE *f)
{
	char online[256];
	cli_format_cpulist(&c->online, online, sizeof online);
	fprintf(f, "host        %s, %s, CPUs %s\n", c->host, c->cpu_model, online);
	fprintf(f, "kernel      %s, HZ=%s%d, %s CPU time accounting\n", c->kernel, c->hz ? "" : "unknown ", c->hz,
		!strcmp(c->tick_accounting, "tick") ? "tick-based" : c->tick_accounting);
	fprintf(f, "accounting  IRQ_TIME_ACCOUNTING=%s, PARAVIRT_TIME_ACCOUNTING=%s (config: %s)\n", c->irq_time_acct,
		c->paravirt_time_acct, c->config_source);
	fprintf(f, "platform    hypervisor %s, clocksource %s, perf_event_paranoid %d\n", c->hypervisor,
		c->clocksource, c->perf_event_paranoid);
}

json_t *context_json(const struct context *c)
{
	char online[256];
	cli_format_cpulist(&c->online, online, sizeof online);
	json_t *o = json_object();
	json_object_set_new(o, "host", json_string(c->host));
	json_object_set_new(o, "kernel", json_string(c->kernel));
	json_object_set_new(o, "cpu_model", json_string(c->cpu_model));
	json_object_set_new(o, "cpus_online", json_string(online));
	json_object_set_new(o, "hz", c->hz ? json_integer(c->hz) : json_null());
	json_object_set_new(o, "irq_time_accounting", json_string(c->irq_time_acct));
	json_object_set_new(o, "paravirt_time_accounting", json_string(c->paravirt_time_acct));
	json_object_set_new(o, "tick_accounting", json_string(c->tick_accounting));
	json_object_set_new(o, "hypervisor", json_string(c->hypervisor));
	json_object_set_new(o, "clocksource", json_string(c->clocksource));
	json_object_set_new(o, "perf_event_paranoid",
			    c->perf_event_paranoid == -100 ? json_null() : json_integer(c->perf_event_paranoid));
	json_object_set_new(o, "fluid_variant", json_string(SPIN_VARIANT));
	return o;
}

void context_variant(char *buf, size_t len, unsigned long long chunk_loops)
{
	snprintf(buf, len, "%s/c%llu", SPIN_VARIANT, chunk_loops);
}
