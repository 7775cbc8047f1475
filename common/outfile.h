/*
 * outfile.h - every file displace and put write: never through a symbolic
 * link, never over something that is not a regular file.
 *
 * A new file (or one replaced whole: the store, a plot, put's --op-times)
 * is written to a temporary file in the target's own directory and renamed
 * into place when complete, so a reader sees the old file or the new one,
 * never half of one. The temporary file has no name until then (O_TMPFILE;
 * where the file system lacks it, a name made with O_EXCL), so a process
 * killed while writing leaves nothing behind. An appended file (the result
 * CSVs) is opened with O_NOFOLLOW and must be a regular file with one link.
 *
 * A symlink planted where a root-run command writes (a shared /tmp) can
 * therefore neither redirect the write nor truncate its target. The
 * directories leading to the file are the caller's: none is created here.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct outfile {
	int fd;               /* -1 when closed */
	int named;            /* the temporary file has a name (tmp), not O_TMPFILE */
	int append;           /* opened by outfile_append: the file itself */
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/*
 * outfile_check - whether path could be written, before any work is done:
 * 0, -ELOOP (a symbolic link), -EISDIR (a directory), -EINVAL (another
 * file that is not a regular one: a FIFO, a device), or the errno of its
 * directory (-ENOENT, -EACCES, -ENOTDIR ...). Creates nothing.
 */
int outfile_check(const char *path);
/*
 * outfile_create - a new, empty temporary file beside path, to take its
 * place at outfile_commit; o->fd is open for writing. 0, the errors of
 * outfile_check, or -errno.
 */
int outfile_create(struct outfile *o, const char *path);
/*
 * outfile_commit - flush the temporary file to disk and rename it over
 * path, then close it (also on failure, when the temporary file is
 * removed). SIGINT, SIGTERM and SIGHUP wait until it is done. 0 or -errno.
 */
int outfile_commit(struct outfile *o);
/* outfile_write - path's whole new content is data (len bytes): create, write, commit. 0 or -errno */
int outfile_write(const char *path, const void *data, size_t len);
/* outfile_abort - close and remove the temporary file: path is left as it was */
void outfile_abort(struct outfile *o);
/*
 * outfile_append - open path for reading and appending: a new file is
 * created (*created = 1), an existing one must be a regular file with one
 * link, not a symbolic link (outfile_check's errors, and -EMLINK for more
 * than one link). 0 or -errno.
 */
int outfile_append(struct outfile *o, const char *path, int *created);
/* outfile_close - close an appended file (safe on a closed one) */
void outfile_close(struct outfile *o);
/*
 * outfile_strerror - the reason for an error of these functions, as a
 * message says it: "it is a symbolic link", or strerror for the others
 */
const char *outfile_strerror(int rc);

#endif
