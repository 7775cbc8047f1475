/* outfile.c - every written file: a temporary file renamed into place, or a safe append */
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* the directory path is in: "." for a bare name */
static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n;
	if (!slash)
		n = snprintf(dir, len, ".");
	else if (slash == path)
		n = snprintf(dir, len, "/");
	else
		n = snprintf(dir, len, "%.*s", (int)(slash - path), path);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* what st (of lstat or fstat) may be: a regular file, and for appending one with a single link */
static int acceptable(const struct stat *st, int append)
{
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	/* appending through a second link would write into a file someone else named */
	if (append && st->st_nlink > 1)
		return -EMLINK;
	return 0;
}

static int check(const char *path, int append)
{
	char dir[PATH_MAX];
	struct stat st;
	if (!path || !*path)
		return -ENOENT;
	if (strlen(path) >= PATH_MAX - 8)
		return -ENAMETOOLONG;
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;
	if (!lstat(path, &st)) {
		int rc = acceptable(&st, append);
		if (rc)
			return rc;
		if (append)
			return access(path, W_OK) ? -errno : 0;
	} else if (errno != ENOENT) {
		return -errno;
	}
	int rc = dir_of(path, dir, sizeof dir);
	if (rc)
		return rc;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

int outfile_check(const char *path)
{
	return check(path, 0);
}

static mode_t file_mode(void)
{
	/* as a plain open(2) with 0666 would make it */
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

int outfile_create(struct outfile *o, const char *path)
{
	char dir[PATH_MAX];
	memset(o, 0, sizeof *o);
	o->fd = -1;
	int rc = check(path, 0);
	if (rc || (rc = dir_of(path, dir, sizeof dir)))
		return rc;
	snprintf(o->path, sizeof o->path, "%s", path);
	/*
	 * Unnamed until complete: nothing is left behind if the process is
	 * killed. Linking it in later goes through /proc/self/fd.
	 */
	if (!access("/proc/self/fd", X_OK)) {
		o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		if (o->fd >= 0)
			return 0;
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return -errno;
	}
	/* a file system without O_TMPFILE: a fresh name, made with O_EXCL (mkostemp) */
	snprintf(o->tmp, sizeof o->tmp, "%s.XXXXXX", path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	o->named = 1;
	if (fchmod(o->fd, file_mode())) {
		rc = -errno;
		outfile_abort(o);
		return rc;
	}
	return 0;
}

/* give the unnamed temporary file a fresh name beside path: path.XXXXXX */
static int link_tmp(struct outfile *o)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			return -errno;
		char sfx[7];
		for (int i = 0; i < 6; i++)
			sfx[i] = set[r[i] % (sizeof set - 1)];
		sfx[6] = '\0';
		int n = snprintf(o->tmp, sizeof o->tmp, "%s.%s", o->path, sfx);
		if (n < 0 || (size_t)n >= sizeof o->tmp)
			return -ENAMETOOLONG;
		/* linkat never follows or replaces what is at the new name */
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW)) {
			o->named = 1;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int outfile_commit(struct outfile *o)
{
	sigset_t stop, old;
	int rc = 0;
	if (o->fd < 0)
		return -EBADF;
	if (fsync(o->fd))
		rc = -errno;
	/* between the link and the rename a name exists: a stop signal waits until it has gone */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (!rc && !o->named)
		rc = link_tmp(o);
	if (close(o->fd) && !rc)
		rc = -errno;
	o->fd = -1;
	if (!rc && rename(o->tmp, o->path))
		rc = -errno;
	if (rc && o->named)
		unlink(o->tmp);
	o->named = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int outfile_write(const char *path, const void *data, size_t len)
{
	struct outfile o;
	const char *p = data;
	int rc = outfile_create(&o, path);
	if (rc)
		return rc;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(o.fd, p + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			outfile_abort(&o);
			return rc;
		}
		done += (size_t)w;
	}
	return outfile_commit(&o);
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->named)
		unlink(o->tmp);
	o->fd = -1;
	o->named = 0;
}

int outfile_append(struct outfile *o, const char *path, int *created)
{
	struct stat st;
	int fd = -1, rc;
	memset(o, 0, sizeof *o);
	o->fd = -1;
	*created = 0;
	if ((rc = check(path, 1)))
		return rc;
	/* O_NONBLOCK: a FIFO put there since the check must not hang the open */
	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
		if (fd >= 0)
			*created = 1;
		else if (errno != EEXIST)
			break;
	}
	if (fd < 0)
		return errno == EEXIST ? -EAGAIN : -errno;
	/* what was opened, not what was checked, decides */
	if (fstat(fd, &st))
		rc = -errno;
	else
		rc = acceptable(&st, 1);
	int fl = rc ? 0 : fcntl(fd, F_GETFL);
	if (!rc && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)))
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	o->fd = fd;
	o->append = 1;
	snprintf(o->path, sizeof o->path, "%s", path);
	return 0;
}

void outfile_close(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

const char *outfile_strerror(int rc)
{
	switch (rc) {
	case -ELOOP:
		return "it is a symbolic link (refused: it could point anywhere)";
	case -EINVAL:
		return "not a regular file";
	case -EMLINK:
		return "it has more than one hard link (refused)";
	default:
		return strerror(-rc);
	}
}
