/* variant: see variant.h. */
#define _GNU_SOURCE
#include "variant.h"
#include "digest.h"
#include "cache_layout.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void list_add(char ***list, int *n, char *s)
{
	*list = xrealloc(*list, sizeof(**list) * (size_t)(*n + 2));
	(*list)[(*n)++] = s;
	(*list)[*n] = NULL;
}

char *variant_series_dir(const char *patch_dir, const char *version)
{
	const char *dot = version ? strchr(version, '.') : NULL;
	size_t len = dot ? strspn(dot + 1, "0123456789") + (size_t)(dot + 1 - version) : 0;
	char *dir = xasprintf("%s/%.*s", patch_dir, (int)len, version ? version : "");
	char *series = xasprintf("%s/series", dir);

	if (!len || !path_exists(series)) {
		free(dir);
		dir = xstrdup(patch_dir);
	}
	free(series);
	return dir;
}

/* Does a relative name stay inside its folder: not absolute, no ".." part? */
static int stays_inside(const char *name, size_t len)
{
	if (len == 0 || name[0] == '/')
		return 0;
	for (size_t i = 0; i + 1 < len; i++)
		if (name[i] == '.' && name[i + 1] == '.' && (i == 0 || name[i - 1] == '/') &&
		    (i + 2 == len || name[i + 2] == '/'))
			return 0;
	return 1;
}

/* Is the series entry (relative to patch_dir) a file inside root, symbolic links followed? A
 * missing file passes here: reading it says that it is missing. */
static int inside_root(const char *patch_dir, const char *entry, const char *root)
{
	char *full, *real, *top;
	int inside = 1;

	if (entry[0] == '/')
		return 0;
	full = xasprintf("%s/%s", patch_dir, entry);
	real = realpath(full, NULL);
	top = realpath(root, NULL);
	if (real && top) {
		size_t n = strlen(top);

		inside = !strncmp(real, top, n) && (real[n] == '/' || real[n] == 0);
	}
	free(top);
	free(real);
	free(full);
	return inside;
}

char **variant_series(const char *patch_dir, const char *root, char *err, size_t errlen)
{
	char *path = xasprintf("%s/series", patch_dir), *text = read_file(path, NULL);
	char **list = xcalloc(1, sizeof(*list));
	int n = 0;

	if (!text && errno != ENOENT) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		free(path);
		free(list);
		return NULL;
	}
	for (char *line = text, *next; line && *line; line = next) {
		char *end, *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		while (*line == ' ' || *line == '\t')
			line++;
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = 0;
		if (*line && !inside_root(patch_dir, line, root)) {
			snprintf(err, errlen, "%s: '%s' is not a patch inside the patches folder %s "
				 "(an absolute name, or '..' out of it); keep the series' patches there",
				 path, line, root);
			free_strings(list);
			free(text);
			free(path);
			return NULL;
		}
		if (*line)
			list_add(&list, &n, xasprintf("%s/%s", patch_dir, line));
	}
	free(text);
	free(path);
	return list;
}

char **variant_patched_files(const char *patch_text)
{
	char **list = xcalloc(1, sizeof(*list));
	int n = 0;

	for (const char *p = patch_text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *s, *e;

		if (strncmp(p, "+++ ", 4))
			continue;
		s = p + 4;
		if (!strncmp(s, "b/", 2))
			s += 2;
		e = s;
		while (*e && *e != '\n' && *e != '\t')
			e++;
		if (e > s && strncmp(s, "/dev/null", 9))
			list_add(&list, &n, strndup(s, (size_t)(e - s)));
	}
	return list;
}

/* Stamp: the hash of each patch's text, in series order. Only the text decides the tree, so a
 * copy of kernel-patch/ elsewhere gives the same stamp. */
static int series_stamp(char **patches, char out[17], char *err, size_t errlen)
{
	struct digest h;

	digest_init(&h);
	for (int i = 0; patches[i]; i++) {
		size_t len;
		char *text = read_file(patches[i], &len);

		if (!text) {
			snprintf(err, errlen, "cannot read patch '%s' named in the series: %s",
				 patches[i], strerror(errno));
			digest_tag(&h, out);	/* ends it */
			return -1;
		}
		digest_add(&h, text, len + 1);
		free(text);
	}
	digest_tag(&h, out);
	return 0;
}

/* What went wrong, from patch's output: the file being patched and the first line that says
 * how ("Hunk #1 FAILED at 1279."). */
static void patch_problem(const char *log_path, char *buf, size_t len)
{
	static const char *const marks[] = { "FAILED", "can't find file", "malformed",
					     "Reversed", "No file to patch", "Only garbage" };
	char *log = read_file(log_path, NULL);
	const char *file = "?";

	snprintf(buf, len, "see %s", log_path);
	for (char *line = log, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!strncmp(line, "patching file ", 14))
			file = line + 14;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strstr(line, marks[i])) {
				snprintf(buf, len, "%s: %s", file, line);
				free(log);
				return;
			}
	}
	free(log);
}

/* A copy of the tree with cp -al and a patch each take seconds; one that takes this long is
 * stuck (a hung disk), and its group is killed. */
enum { TOOL_TIMEOUT = 1800 };

static int run_tool(const char *const *argv, const char *log, char *err, size_t errlen)
{
	struct spawn_result res = { 0 };

	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log,
					   .timeout = TOOL_TIMEOUT }, &res)) {
		snprintf(err, errlen, "cannot run '%s': %s; apt-get install %s", argv[0],
			 strerror(errno), argv[0]);
		return -1;
	}
	if (res.timed_out) {
		snprintf(err, errlen, "'%s' did not finish within %d s (see %s); is the disk stuck?",
			 argv[0], TOOL_TIMEOUT, log);
		return -1;
	}
	return res.status;
}

/* Gives a file a new inode and a fresh mtime, so Kbuild sees it changed and the pristine tree
 * it may be hard-linked to is left alone. */
static void renew_file(const char *path)
{
	size_t len;
	char *data = read_file(path, &len);

	if (data) {
		unlink(path);
		write_file_atomic(path, data, len);
	}
	free(data);
}

/* patch -p1 would write a file wherever such a name points. */
char *variant_name_outside_tree(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *s, *e;

		/* a context diff names the old file on its "*** " line, and patch may use it */
		if (strncmp(p, "+++ ", 4) && strncmp(p, "--- ", 4) &&
		    (strncmp(p, "*** ", 4) || !strncmp(p, "****", 4)))
			continue;
		s = p + 4;
		e = s;
		while (*e && *e != '\n' && *e != '\t')
			e++;
		if (!strncmp(s, "/dev/null", 9))
			continue;
		/* -p1 strips the first part ("a/", "b/") */
		while (s < e && *s != '/')
			s++;
		if (s < e)
			s++;
		if (!stays_inside(s, (size_t)(e - s)))
			return strndup(p + 4, (size_t)(e - p - 4));
	}
	return NULL;
}

char *variant_not_unified(const char *text)
{
	int files = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "***************", 15))
			return xstrdup("a context diff (its '***************' hunks)");
		files += !strncmp(p, "+++ ", 4);
	}
	return files ? NULL : xstrdup("no unified diff (no '+++ ' file header)");
}

/* Applies the series to a fresh copy in tmp. Returns the files the patches touch. */
static char **make_tree(char **patches, const char *pristine, const char *tmp, const char *log,
			char *err, size_t errlen)
{
	const char *cp[] = { "cp", "-al", pristine, tmp, NULL };
	char **touched = xcalloc(1, sizeof(*touched));
	int ntouched = 0;

	remove_tree(tmp);
	unlink(log);
	if (run_tool(cp, log, err, errlen)) {
		if (!*err)
			snprintf(err, errlen, "cannot copy '%s' to '%s' (see %s); is the disk full?",
				 pristine, tmp, log);
		goto fail;
	}
	for (int i = 0; patches[i]; i++) {
		char *abs = realpath(patches[i], NULL), *text;
		const char *argv[] = { "patch", "-p1", "-N", "--no-backup-if-mismatch",
				       "--reject-file=-", "-d", tmp, "-i", abs, NULL };
		char **files, *outside;
		int rc;

		if (!abs) {
			snprintf(err, errlen, "cannot find patch '%s' named in the series", patches[i]);
			goto fail;
		}
		text = read_file(abs, NULL);
		outside = text ? variant_not_unified(text) : NULL;
		if (outside) {
			snprintf(err, errlen, "patch '%s' is %s; the series takes unified diffs (git "
				 "format-patch, diff -u): rewrite it as one", patches[i], outside);
			free(outside);
			free(text);
			free(abs);
			goto fail;
		}
		outside = text ? variant_name_outside_tree(text) : NULL;
		free(text);
		if (outside) {
			snprintf(err, errlen, "patch '%s' names '%s', outside the kernel tree (an "
				 "absolute name or '..'); refused before patch ran", patches[i],
				 outside);
			free(outside);
			free(abs);
			goto fail;
		}
		rc = run_tool(argv, log, err, errlen);
		if (rc) {
			char why[512];

			if (rc > 0) {
				patch_problem(log, why, sizeof(why));
				snprintf(err, errlen, "patch '%s' does not apply: %s; fix the patch or "
					 "its series", patches[i], why);
			}
			free(abs);
			goto fail;
		}
		text = read_file(abs, NULL);
		files = variant_patched_files(text);
		for (int f = 0; files[f]; f++)
			list_add(&touched, &ntouched, xstrdup(files[f]));
		free_strings(files);
		free(text);
		free(abs);
	}
	return touched;
fail:
	free_strings(touched);
	remove_tree(tmp);
	return NULL;
}

/* stamp file: first line the stamp, then one touched file per line */
static char **read_stamp(const char *path, char stamp[17])
{
	char *text = read_file(path, NULL), **files = xcalloc(1, sizeof(*files));
	int n = 0, first = 1;

	stamp[0] = 0;
	for (char *line = text, *next; line && *line; line = next, first = 0) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (first)
			snprintf(stamp, 17, "%s", line);
		else if (*line)
			list_add(&files, &n, xstrdup(line));
	}
	free(text);
	return files;
}

static int write_stamp(const char *path, const char *stamp, char **files)
{
	struct strbuf sb = { 0 };
	int rc;

	sb_printf(&sb, "%s\n", stamp);
	for (int i = 0; files[i]; i++)
		sb_printf(&sb, "%s\n", files[i]);
	rc = write_file_atomic(path, sb.s, sb.len);
	sb_free(&sb);
	return rc;
}

/* Is a file one that Kconfig's $(shell) commands run, or that decides the environment Kbuild
 * gives conf: anything under scripts/, a script, an arch's tools, the top Makefile? */
static int kconfig_runs(const char *file)
{
	size_t len = strlen(file);

	return !strncmp(file, "scripts/", 8) || !strcmp(file, "Makefile") ||
	       (len > 3 && !strcmp(file + len - 3, ".sh")) || strstr(file, "/tools/");
}

/* Does any patch of the series touch such a file (see own_kconfig)? */
static int series_touches_kconfig(char *const *patches)
{
	int touches = 0;

	for (int i = 0; patches[i] && !touches; i++) {
		char *text = read_file(patches[i], NULL), **files = variant_patched_files(text);

		for (int f = 0; files[f] && !touches; f++)
			touches = kconfig_runs(files[f]);
		free_strings(files);
		free(text);
	}
	return touches;
}

int variant_prepare(const char *patch_dir, const char *root, const char *name,
		    const struct tree *pristine, const char *cache_dir, struct variant_tree *vt,
		    char *err, size_t errlen)
{
	char **patches, **old_files = NULL, **touched = NULL;
	char *dir = NULL, *final = NULL, *tmp = NULL, *old = NULL, *stamp_path = NULL, *log = NULL;
	char old_stamp[17];
	int rc = -1;

	*vt = (struct variant_tree){ 0 };
	err[0] = 0;
	patches = variant_series(patch_dir, root, err, errlen);
	if (!patches)
		return -1;
	if (!patches[0]) {
		vt->path = xstrdup(pristine->path);
		rc = 0;
		goto out;
	}
	if (series_stamp(patches, vt->stamp, err, errlen))
		goto out;
	vt->own_kconfig = series_touches_kconfig(patches);
	dir = cache_variant_trees(cache_dir, pristine->tag);
	final = xasprintf("%s/%s", dir, name);
	tmp = xasprintf("%s.new", final);
	old = xasprintf("%s.old", final);
	stamp_path = xasprintf("%s.stamp", final);
	log = xasprintf("%s.log", final);
	old_files = read_stamp(stamp_path, old_stamp);
	/* A KSRC tree may have changed since the copy was made: always copy it afresh. */
	if (path_exists(final) && pristine->identity && !strcmp(old_stamp, vt->stamp)) {
		vt->path = final;
		final = NULL;
		rc = 0;
		goto out;
	}
	fprintf(stderr, "kcmp-matrix: making the %s tree (%s + %s/series)\n", name, pristine->tag,
		patch_dir);
	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	touched = make_tree(patches, pristine->path, tmp, log, err, errlen);
	if (!touched)
		goto out;
	/* Files the previous series touched are plain hard links now: give them, and the ones
	 * this series touched, a fresh mtime so the reused build directory recompiles them. */
	for (int i = 0; old_files[i]; i++) {
		char *p = xasprintf("%s/%s", tmp, old_files[i]);

		renew_file(p);
		free(p);
	}
	remove_tree(old);
	if ((path_exists(final) && rename(final, old)) || rename(tmp, final) ||
	    write_stamp(stamp_path, vt->stamp, touched)) {
		snprintf(err, errlen, "cannot move '%s' into place: %s", tmp, strerror(errno));
		goto out;
	}
	remove_tree(old);
	vt->path = final;
	final = NULL;
	rc = 0;
out:
	free_strings(patches);
	free_strings(old_files);
	free_strings(touched);
	free(dir);
	free(final);
	free(tmp);
	free(old);
	free(stamp_path);
	free(log);
	return rc;
}

void variant_tree_free(struct variant_tree *vt)
{
	free(vt->path);
	*vt = (struct variant_tree){ 0 };
}
