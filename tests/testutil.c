/* testutil.c - running the real binaries from tests */
#include "tests/testutil.h"
#include "calib/reportline.h"
#include "common/pin.h"
#include "calib/csvio.h"

#include <check.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *tu_bin(const char *name)
{
	static char buf[4][512];
	static int k;
	const char *dir = getenv("DISPLACE_BIN");
	char *b = buf[k++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir && *dir ? dir : "bin", name);
	return b;
}

int tu_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

pid_t tu_start_hog(int cpu)
{
	return tu_start_neighbour(cpu, 100);
}

pid_t tu_start_neighbour(int cpu, int duty_pct)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (pin_to_cpu(cpu))
			_exit(1);
		/* bounded, whatever happens to the test: it dies with it, and after 60 s */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(60);
		const long period_ns = 10000000, busy_ns = period_ns / 100 * duty_pct;
		for (;;) {
			struct timespec t0, t;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do
				clock_gettime(CLOCK_MONOTONIC, &t);
			while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < busy_ns);
			struct timespec rest = { 0, period_ns - busy_ns };
			if (rest.tv_nsec > 0)
				nanosleep(&rest, NULL);
		}
	}
	return pid;
}

void tu_stop_hog(pid_t pid)
{
	kill(pid, SIGKILL);
	tu_wait(pid);
}

size_t tu_read_all(int fd, char *buf, size_t len)
{
	size_t used = 0;
	for (;;) {
		char tmp[4096];
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t take = (size_t)r;
		if (used + take > len - 1)
			take = len - 1 - used;
		memcpy(buf + used, tmp, take);
		used += take;
	}
	buf[used] = '\0';
	return used;
}

int tu_run(char *const argv[], char *out, size_t len, char *err, size_t errlen)
{
	int po[2], pe[2];
	if (pipe(po) || pipe(pe))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* drain both pipes together so neither can fill and block the child */
	size_t uo = 0, ue = 0;
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char tmp[4096];
			ssize_t r = read(fds[i].fd, tmp, sizeof tmp);
			if (r <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			char *dst = i == 0 ? out : err;
			size_t dlen = i == 0 ? len : errlen;
			size_t *used = i == 0 ? &uo : &ue;
			if (!dst || dlen == 0)
				continue;
			size_t take = (size_t)r;
			if (*used + take > dlen - 1)
				take = dlen - 1 - *used;
			memcpy(dst + *used, tmp, take);
			*used += take;
		}
	}
	if (out && len)
		out[uo] = '\0';
	if (err && errlen)
		err[ue] = '\0';
	return tu_wait(pid);
}

pid_t tu_start(char *const argv[], int *in_fd, int *out_fd)
{
	int pi[2], po[2];
	if (pipe(pi) || pipe(po))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pi[0], 0);
		dup2(po[1], 1);
		close(pi[1]);
		close(po[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pi[0]);
	close(po[1]);
	*in_fd = pi[1];
	*out_fd = po[0];
	return pid;
}

const char *tu_kv(const char *line, const char *key, char *buf, size_t len)
{
	return report_field(line, key, buf, len);
}

const char *tu_mkdtemp(void)
{
	static char dir[64];
	strcpy(dir, "/tmp/displace-test-XXXXXX");
	return mkdtemp(dir);
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

int tu_rmtree(const char *dir)
{
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int tu_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		p += w;
		len -= (size_t)w;
	}
	return close(fd) ? -errno : 0;
}

static int csv_collect(const struct csvio_row *row, void *ctx)
{
	struct tu_csv *t = ctx;
	size_t *nf = realloc(t->nfields, (t->nrows + 1) * sizeof *nf);
	if (!nf)
		return -ENOMEM;
	t->nfields = nf;
	char ***f = realloc(t->field, (t->nrows + 1) * sizeof *f);
	if (!f)
		return -ENOMEM;
	t->field = f;
	char **copy = calloc(row->n, sizeof *copy);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < row->n; i++)
		if (!(copy[i] = strdup(row->field[i])))
			return -ENOMEM;
	t->field[t->nrows] = copy;
	t->nfields[t->nrows++] = row->n;
	return 0;
}

int tu_csv_load(const char *path, struct tu_csv *t, unsigned long *err_line)
{
	unsigned long line = 0;
	memset(t, 0, sizeof *t);
	int rc = csvio_read(path, csv_collect, t, &line);
	if (err_line)
		*err_line = line;
	return rc;
}

const char *tu_csv_get(const struct tu_csv *t, size_t row, const char *name)
{
	if (t->nrows == 0 || row >= t->nrows)
		return NULL;
	for (size_t c = 0; c < t->nfields[0]; c++)
		if (!strcmp(t->field[0][c], name))
			return c < t->nfields[row] ? t->field[row][c] : NULL;
	return NULL;
}

void tu_csv_free(struct tu_csv *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->nfields[r]; c++)
			free(t->field[r][c]);
		free(t->field[r]);
	}
	free(t->field);
	free(t->nfields);
	memset(t, 0, sizeof *t);
}

long tu_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = tu_read_all(fd, buf, len);
	close(fd);
	return (long)n;
}

int tu_file_lines(const char *path)
{
	static char text[1 << 20];
	long n = tu_read_file(path, text, sizeof text);
	return n > 0 ? tu_count_lines(text, "") : 0;
}

int tu_count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, prefix, pl))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* a failed run may have warned about the host before its error */
void tu_expect_error(int want, const char *msg, char **argv)
{
	static char out[1 << 16], err[1 << 16];
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == want, "%s %s: exit %d, wanted %d (%s)", argv[1], argv[2], st, want, err);
	int warnings = tu_count_lines(err, "displace: warning: ");
	ck_assert_msg(tu_count_lines(err, "displace: ") - warnings == 1, "not one error line: %s", err);
	if (want == 2)
		ck_assert_msg(warnings == 0 && tu_count_lines(err, "") == 2 && tu_count_lines(err, "try 'displace ") == 1,
			      "not the error and the hint to --help: %s", err);
	const char *line = err;
	while (!strncmp(line, "displace: warning: ", 19))
		line = strchr(line, '\n') + 1;
	const char *hit = strstr(line, msg);
	ck_assert_msg(!strncmp(line, "displace: ", 10) && hit && hit < strchr(line, '\n'),
		      "no '%s' in the error line of: %s", msg, err);
	ck_assert_str_eq(out, "");
}

/* in_dir - dir/name in one of a few static buffers, so that one call can take two paths */
static const char *in_dir(const char *dir, const char *name)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

static char case_dir[64];

void tu_case_dir_setup(void)
{
	const char *d = tu_mkdtemp();
	if (!d)
		abort();
	snprintf(case_dir, sizeof case_dir, "%s", d);
	setenv("XDG_CACHE_HOME", case_dir, 1);
}

void tu_case_dir_teardown(void)
{
	tu_rmtree(case_dir);
}

const char *tu_case_path(const char *name)
{
	return in_dir(case_dir, name);
}

/* made and removed by the runner, in the parent: a test's forked child inherits the name */
static char scratch_dir[64];

void tu_scratch_setup(void)
{
	const char *d = tu_mkdtemp();
	ck_assert_ptr_nonnull(d);
	snprintf(scratch_dir, sizeof scratch_dir, "%s", d);
}

void tu_scratch_teardown(void)
{
	tu_rmtree(scratch_dir);
}

const char *tu_scratch_path(const char *name)
{
	return in_dir(scratch_dir, name);
}

void *tu_interrupt_json(pid_t pid, int in, int outfd, int sig, const char *signame, char *out, size_t len)
{
	kill(pid, sig);
	tu_read_all(outfd, out, len);
	close(outfd);
	close(in);
	ck_assert_int_eq(tu_wait(pid), 1);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	ck_assert_msg(root, "JSON: %s: %.300s", je.text, out);
	ck_assert(json_is_true(json_object_get(root, "interrupted")));
	ck_assert_str_eq(json_string_value(json_object_get(root, "interrupted_by")), signame);
	return root;
}
