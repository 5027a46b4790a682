/* util: see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <dirent.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void vmessage(const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);

	fputs("kcmp-matrix: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	exit(EXIT_HARNESS);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void free_strings(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

static char *xvasprintf(const char *fmt, va_list ap, int *len)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);

	if (n < 0)
		die("out of memory");
	if (len)
		*len = n;
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap, NULL);
	va_end(ap);
	return s;
}

char *read_file(const char *path, size_t *len)
{
	struct strbuf sb = { 0 };
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			sb_free(&sb);
			return NULL;
		}
		sb_add(&sb, buf, (size_t)n);
	}
	close(fd);
	sb_add(&sb, "", 0);
	if (len)
		*len = sb.len;
	return sb.s;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes in progress in any thread, and a fatal signal that came meanwhile (see util.h). */
static volatile sig_atomic_t writes_in_progress, deferred_signal;
static void (*deferred_exit)(int sig);

void exit_guard_set(void (*exit_fn)(int sig))
{
	deferred_exit = exit_fn;
}

int exit_guard_defer(int sig)
{
	if (!deferred_exit || __atomic_load_n(&writes_in_progress, __ATOMIC_SEQ_CST) == 0)
		return 0;
	deferred_signal = sig;
	return 1;
}

/* Set once the process is about to exit (exit_guard_close): no new write may start. */
static volatile sig_atomic_t writes_closed;

static void write_begin(void)
{
	__atomic_add_fetch(&writes_in_progress, 1, __ATOMIC_SEQ_CST);
	/* counted first, then the check: exit_guard_close either waits for this write or this
	 * thread sees the close, never neither */
	if (__atomic_load_n(&writes_closed, __ATOMIC_SEQ_CST)) {
		__atomic_sub_fetch(&writes_in_progress, 1, __ATOMIC_SEQ_CST);
		for (;;)
			pause();	/* the exit ends this thread */
	}
}

void exit_guard_close(void)
{
	/* a write that cannot end (a disk that hangs) does not hold the exit for ever */
	double give_up = now_seconds() + 30;

	__atomic_store_n(&writes_closed, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&writes_in_progress, __ATOMIC_SEQ_CST) > 0 &&
	       now_seconds() < give_up)
		usleep(10000);
}

static void write_end(void)
{
	if (__atomic_sub_fetch(&writes_in_progress, 1, __ATOMIC_SEQ_CST) == 0 && deferred_signal &&
	    deferred_exit)
		deferred_exit(deferred_signal);
}

/* The data in a new temporary file beside path, written and synced: its name (caller frees),
 * or NULL with errno set and nothing left behind. */
static char *write_temp_beside(const char *path, const char *data, size_t len)
{
	/* the thread in the name too: each arch's thread writes files (run.c) */
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)gettid());
	/* a name only this write may have made: one already there (a killed run's, or a link
	 * planted to send the data elsewhere) is removed, not followed, and made afresh */
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0644);
	int err;

	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, 0644);
	if (fd < 0)
		goto fail;
	if (write_all(fd, data, len) || fsync(fd)) {
		err = errno;
		close(fd);
		errno = err;
		goto fail;
	}
	if (close(fd))
		goto fail;
	return tmp;
fail:
	err = errno;
	unlink(tmp);
	free(tmp);
	errno = err;
	return NULL;
}

static int write_file_guarded(const char *path, const char *data, size_t len)
{
	char *tmp = write_temp_beside(path, data, len);
	int err;

	if (!tmp)
		return -1;
	if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		free(tmp);
		errno = err;
		return -1;
	}
	free(tmp);
	return 0;
}

int write_files_as_one(const char *dir, const char *const *names, char *const *texts, int n,
		       const char *mark)
{
	char **tmp = xcalloc((size_t)n, sizeof(*tmp));
	char *mark_path = xasprintf("%s/%s", dir, mark);
	int rc = -1, err = 0, i;

	/* one guarded write: SIGINT and SIGTERM wait for the whole set, not for one file */
	write_begin();
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		tmp[i] = write_temp_beside(path, texts[i], strlen(texts[i]));
		free(path);
		if (!tmp[i])
			goto out;	/* nothing renamed: the old set stands whole */
	}
	/* from the first rename to the last the set is two runs' (a SIGKILL can land there):
	 * the mark says so until the last is in place */
	if (write_file_guarded(mark_path, "a run is putting its tables in place\n", 38))
		goto out;
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		int renamed = rename(tmp[i], path) == 0;

		free(path);
		if (!renamed)
			goto out;	/* the mark stays: the set is mixed */
		free(tmp[i]);
		tmp[i] = NULL;
	}
	rc = unlink(mark_path);
out:
	err = errno;
	for (i = 0; i < n; i++) {
		if (tmp[i])
			unlink(tmp[i]);
		free(tmp[i]);
	}
	free(tmp);
	free(mark_path);
	write_end();
	errno = err;
	return rc;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	int rc;

	write_begin();
	rc = write_file_guarded(path, data, len);
	write_end();
	return rc;
}

int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	int r;

	if (!data)
		return -1;
	r = write_file_atomic(to, data, len);
	free(data);
	return r;
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int remove_tree(const char *path)
{
	if (!path_exists(path))
		return 0;
	return nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS);
}

int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->s = xrealloc(sb->s, sb->cap);
	}
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = 0;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap, &n);
	va_end(ap);
	sb_add(sb, s, (size_t)n);
	free(s);
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	*sb = (struct strbuf){ 0 };
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int copy_dir_files(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int rc = 0;

	if (!d || mkdir_p(to)) {
		if (d)
			closedir(d);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		char *src = xasprintf("%s/%s", from, e->d_name), *dst;
		struct stat st;

		if (lstat(src, &st) == 0 && S_ISREG(st.st_mode)) {
			dst = xasprintf("%s/%s", to, e->d_name);
			rc = copy_file(src, dst);
			free(dst);
		}
		free(src);
	}
	closedir(d);
	return rc;
}

static int stale_temps;

static int remove_if_temp(const char *path, const struct stat *st, int type, struct FTW *f)
{
	const char *dot = strrchr(path + f->base, '.');
	size_t digits = dot ? strspn(dot + 1, "0123456789") : 0;

	(void)st;
	if (type == FTW_F && dot && digits > 0 && !dot[1 + digits] && dot - (path + f->base) > 4 &&
	    !strncmp(dot - 4, ".tmp", 4) && unlink(path) == 0)
		stale_temps++;
	return 0;
}

int remove_stale_temps(const char *dir)
{
	stale_temps = 0;
	if (path_exists(dir))
		nftw(dir, remove_if_temp, 16, FTW_PHYS);
	return stale_temps;
}

char *absolute_path(const char *path)
{
	char *cwd;
	char *abs;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot find the working directory:");
	abs = xasprintf("%s/%s", cwd, path);
	free(cwd);
	return abs;
}

char *url_path_escape(const char *path)
{
	/* RFC 3986: a path keeps its unreserved characters, sub-delims, ':', '@' and '/' */
	static const char keep[] = "-._~!$&'()*+,;=:@/";
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s", "");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (isalnum(*c) || (*c < 128 && strchr(keep, *c)))
			sb_printf(&sb, "%c", *c);
		else
			sb_printf(&sb, "%%%02X", *c);
	}
	return sb.s;
}
