/* util: messages, allocation that cannot fail, small file helpers.
 *
 * Convention: functions named x... either succeed or end the program with exit status 2 (the
 * harness itself could not run). Everything else returns 0/-1 (or NULL) and leaves errno set,
 * so the caller decides. warn() and die() print the program name; a format ending in ':' has
 * strerror(errno) appended, as in samurai.
 */
#ifndef KCMPM_UTIL_H
#define KCMPM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Exit statuses of kcmp-matrix, documented in the README. */
enum exit_status {
	EXIT_ALL_PASS = 0,
	EXIT_SOME_FAIL = 1,
	EXIT_HARNESS = 2,	/* bad input, missing tool, or the harness could not run */
};

void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Frees a NULL-terminated array of strings and the strings (NULL is fine). */
void free_strings(char **v);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads a whole file into a NUL-terminated buffer; *len (if given) gets its length. */
char *read_file(const char *path, size_t *len);
/* Writes data to path through a temporary file, fsync and rename: readers see old or new. */
/* A fatal signal (SIGINT, SIGTERM) that arrives while write_file_atomic() is writing waits
 * for the write to end, so an interrupted run leaves whole files and no temporary ones: the
 * signal handler asks exit_guard_defer(sig), which says 1 when a write is in progress (the
 * handler then returns), and the last write to end calls the function given to
 * exit_guard_set() with the signal. */
void exit_guard_set(void (*exit_fn)(int sig));
int exit_guard_defer(int sig);
/* On the way out of a process whose signals a thread takes (spawn.h): waits for the writes in
 * progress in other threads to end, and makes any later one wait for the exit instead. */
void exit_guard_close(void);

int write_file_atomic(const char *path, const char *data, size_t len);
/* Writes files dir/names[i] with the texts texts[i] as one set: all are written to temporary
 * files first (a failure there leaves the old set whole), then renamed into place while the
 * file dir/mark exists, which is removed after the last rename. A mark found by a reader means
 * a SIGKILL landed among the renames: the set holds two writes' files. SIGINT and SIGTERM wait
 * for the whole set (as for write_file_atomic). 0, or -1 with errno set. */
int write_files_as_one(const char *dir, const char *const *names, char *const *texts, int n,
		       const char *mark);
/* Removes the temporary files write_file_atomic leaves when the process is killed mid-write
 * (name.tmp.<pid>) anywhere under dir; a missing dir is fine. Returns how many. */
int remove_stale_temps(const char *dir);
/* Copies a file atomically (same guarantees as write_file_atomic). */
int copy_file(const char *from, const char *to);
/* Copies every regular file directly in directory from into to (created), each atomically. */
int copy_dir_files(const char *from, const char *to);
/* mkdir -p. */
int mkdir_p(const char *path);
/* Removes a directory tree; a missing path is not an error. */
int remove_tree(const char *path);
int path_exists(const char *path);

/* A growable string. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

/* Seconds on the monotonic clock. */
double now_seconds(void);

/* path made absolute against the working directory (unchanged when it is); caller frees. */
char *absolute_path(const char *path);

/* A file path as the path of a URL: every byte that RFC 3986 does not allow there (a space,
 * '%', '#', '?', bytes past ASCII) percent-encoded. Caller frees. */
char *url_path_escape(const char *path);

#endif
