/* worktree: see worktree.h. */
#define _GNU_SOURCE
#include "worktree.h"
#include "cache_layout.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has(char **list, const char *s)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* The remembered file list plus files, written back; one path per line. */
static int remember_files(struct worktree *w, char **files)
{
	char *path = xasprintf("%s/.kcmpm-files", w->path), *text = read_file(path, NULL);
	struct strbuf sb = { 0 };
	int n = 0, rc;

	w->files = xcalloc(1, sizeof(*w->files));
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (*line && !has(w->files, line)) {
			w->files = xrealloc(w->files, (size_t)(n + 2) * sizeof(*w->files));
			w->files[n++] = xstrdup(line);
			w->files[n] = NULL;
		}
	}
	for (int i = 0; files && files[i]; i++)
		if (!has(w->files, files[i])) {
			w->files = xrealloc(w->files, (size_t)(n + 2) * sizeof(*w->files));
			w->files[n++] = xstrdup(files[i]);
			w->files[n] = NULL;
		}
	sb_add(&sb, "", 0);
	for (int i = 0; i < n; i++)
		sb_printf(&sb, "%s\n", w->files[i]);
	rc = write_file_atomic(path, sb.s, sb.len);
	sb_free(&sb);
	free(text);
	free(path);
	return rc;
}

int worktree_prepare(struct worktree *w, const char *cache_dir, const struct tree *t,
		     const char *arch, char **files, char *err, size_t errlen)
{
	char *parent = cache_worktrees(cache_dir, t->tag);
	char *marker;

	*w = (struct worktree){ .path = xasprintf("%s/%s", parent, arch) };
	/* a KSRC tree can change between runs: copy it afresh (hard links keep the mtimes of
	 * unchanged files, so the build directory stays warm) */
	if (!t->identity)
		remove_tree(w->path);
	if (!path_exists(w->path)) {
		char *tmp = xasprintf("%s.tmp", w->path);
		const char *argv[] = { "cp", "-al", t->path, tmp, NULL };
		struct spawn_result res = { 0 };

		remove_tree(tmp);
		/* seconds of hard links; half an hour is a stuck disk */
		if (mkdir_p(parent) ||
		    spawn_run(&(struct spawn_req){ .argv = argv, .timeout = 1800 }, &res) ||
		    res.status || rename(tmp, w->path)) {
			snprintf(err, errlen, "cannot copy '%s' to '%s' with cp -al", t->path, tmp);
			free(tmp);
			free(parent);
			return -1;
		}
		free(tmp);
	}
	free(parent);
	if (remember_files(w, files)) {
		snprintf(err, errlen, "cannot write in '%s': %s", w->path, strerror(errno));
		return -1;
	}
	marker = xasprintf("%s/.kcmpm-variant", w->path);
	w->current = read_file(marker, NULL);
	free(marker);
	return 0;
}

/* Makes <worktree>/<rel> hold what <src>/<rel> holds (or not exist when it does not). */
static int switch_file(const struct worktree *w, const char *src, const char *rel)
{
	char *from = xasprintf("%s/%s", src, rel), *to = xasprintf("%s/%s", w->path, rel);
	size_t want_len, have_len;
	char *want = read_file(from, &want_len), *have = read_file(to, &have_len);
	int rc = 0;

	if (!want && errno == ENOENT) {
		if (have)
			rc = unlink(to);
	} else if (!want) {
		rc = -1;
	} else if (!have || have_len != want_len || memcmp(have, want, want_len)) {
		rc = write_file_atomic(to, want, want_len);
	}
	free(want);
	free(have);
	free(from);
	free(to);
	return rc;
}

int worktree_switch(struct worktree *w, const char *src, const char *id, char *err,
		    size_t errlen)
{
	char *marker = xasprintf("%s/.kcmpm-variant", w->path);
	int rc = 0;

	if (w->current && !strcmp(w->current, id)) {
		free(marker);
		return 0;
	}
	free(w->current);
	w->current = NULL;
	unlink(marker);
	for (int i = 0; w->files[i] && rc == 0; i++)
		if (switch_file(w, src, w->files[i])) {
			snprintf(err, errlen, "cannot switch '%s/%s' to '%s': %s", w->path,
				 w->files[i], src, strerror(errno));
			rc = -1;
		}
	if (rc == 0 && write_file_atomic(marker, id, strlen(id))) {
		snprintf(err, errlen, "cannot write '%s': %s", marker, strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		w->current = xstrdup(id);
	free(marker);
	return rc;
}

void worktree_free(struct worktree *w)
{
	for (int i = 0; w->files && w->files[i]; i++)
		free(w->files[i]);
	free(w->files);
	free(w->current);
	free(w->path);
	*w = (struct worktree){ 0 };
}
