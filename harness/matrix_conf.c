/* matrix_conf: see matrix_conf.h. */
#define _GNU_SOURCE
#include "matrix_conf.h"
#include "conf_file.h"
#include "matrix_values.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* build-order SYM...: these symbols first, then the rest in symbol order. Needs "symbols"
 * before it. */
static int build_order(struct matrix *m, const struct conf_line *l, const char *path, char *err,
		       size_t errlen)
{
	int used[MAX_SYMBOLS] = { 0 }, k = 0;

	for (int i = 1; i < l->nword; i++) {
		int s = matrix_symbol_index(m, l->word[i]);

		if (s < 0 || used[s]) {
			snprintf(err, errlen, "%s:%d: build-order: '%s' is not a symbol listed once in "
				 "an earlier 'symbols' line", path, l->lineno, l->word[i]);
			return -1;
		}
		used[s] = 1;
		m->build_order[k++] = s;
	}
	for (int s = 0; s < m->nsym; s++)
		if (!used[s])
			m->build_order[k++] = s;
	return 0;
}

/* unset SYM...: these symbols also take the value unset (no line in the cell's fragment). */
static int unset_line(struct matrix *m, const struct conf_line *l, const char *path, char *err,
		      size_t errlen)
{
	for (int i = 1; i < l->nword; i++) {
		int s = matrix_symbol_index(m, l->word[i]);

		if (s < 0 || m->takes_unset[s]) {
			snprintf(err, errlen, "%s:%d: unset: '%s' is not a symbol listed once in an "
				 "earlier 'symbols' line", path, l->lineno, l->word[i]);
			return -1;
		}
		matrix_take_unset(m, s, 1);
	}
	return 0;
}

/* build-split SYM...: one kernel build directory per combination of these symbols' values. */
static int build_split(struct matrix *m, const struct conf_line *l, const char *path, char *err,
		       size_t errlen)
{
	m->nsplit = 0;
	for (int i = 1; i < l->nword; i++) {
		int s = matrix_symbol_index(m, l->word[i]), dup = 0;

		for (int k = 0; k < m->nsplit; k++)
			dup |= m->split[k] == s;
		if (s < 0 || dup) {
			snprintf(err, errlen, "%s:%d: build-split: '%s' is not a symbol listed once in "
				 "an earlier 'symbols' line", path, l->lineno, l->word[i]);
			return -1;
		}
		m->split[m->nsplit++] = s;
	}
	return 0;
}

/* Words 1 .. upto-1 of a line must be plain names. */
static int unsafe_words(const struct conf_line *l, int upto, const char *path, char *err,
			size_t errlen)
{
	for (int i = 1; i < upto; i++)
		if (!matrix_plain_name(l->word[i])) {
			snprintf(err, errlen, "%s:%d: '%s' is not a plain name (letters, digits, _ - "
				 "and ., not starting with . or -)", path, l->lineno, l->word[i]);
			return -1;
		}
	return 0;
}

static int unsafe_names(const struct conf_line *l, const char *path, char *err, size_t errlen)
{
	return unsafe_words(l, l->nword, path, err, errlen);
}

/* Where a key whose value is a path of the question's folder is kept; NULL for other keys. */
static char **folder_slot(struct matrix *m, const char *kw)
{
	const struct { const char *key; char **slot; } keys[] = {
		{ "guest", &m->guest_src }, { "patches", &m->patch_root },
		{ "arches-file", &m->arches_file }, { "host-file", &m->host_file },
		{ "base-dir", &m->base_dir },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(kw, keys[i].key))
			return keys[i].slot;
	return NULL;
}

/* Is each '/'-separated part of path a plain name (so no "..", nothing a shell would read)? */
static int plain_path(const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	int plain = 1;

	for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save))
		plain &= matrix_plain_name(part);
	free(copy);
	return plain;
}

/* "selftest PATH OBS=STATE ...": a kernel selftest, PATH in the kernel tree, run in the guest
 * where the prediction has every OBS=STATE named. */
static int selftest_line(struct matrix *m, const struct conf_line *l, const char *path, char *err,
			 size_t errlen)
{
	const char *src = l->word[1];
	size_t len = strlen(src);

	if (!plain_path(src) || src[0] == '/' || strstr(src, "//") || len < 3 || strcmp(src + len - 2, ".c")) {
		snprintf(err, errlen, "%s:%d: selftest '%s' must be a .c file's path inside the kernel "
			 "tree (e.g. tools/testing/selftests/kcmp/kcmp_test.c)", path, l->lineno, src);
		return -1;
	}
	for (int i = 2; i < l->nword; i++) {
		char *need = xstrdup(l->word[i]), *eq = strchr(need, '=');
		int ok = eq && eq != need && eq[1] && (*eq = 0, matrix_plain_name(need) && matrix_plain_name(eq + 1));

		free(need);
		if (!ok) {
			snprintf(err, errlen, "%s:%d: selftest needs OBSERVABLE=STATE words, not '%s'",
				 path, l->lineno, l->word[i]);
			return -1;
		}
	}
	free(m->selftest_src);
	free_strings(m->selftest_needs);
	m->selftest_src = xstrdup(src);
	m->selftest_needs = conf_words(l, 2);
	m->selftest_lineno = l->lineno;
	return 0;
}

/* A list line (arches, variants) names each word once: twice would run its cells twice. */
static int listed_twice(const struct conf_line *l, const char *path, char *err, size_t errlen)
{
	for (int i = 1; i < l->nword; i++)
		for (int k = 1; k < i; k++)
			if (!strcmp(l->word[i], l->word[k])) {
				snprintf(err, errlen, "%s:%d: %s '%s' is listed twice; list each once",
					 path, l->lineno, l->word[0], l->word[i]);
				return -1;
			}
	return 0;
}

/* "flavour NAME FRAGMENT...": base fragments a run adds when asked for NAME. */
static int flavour_line(struct matrix *m, const struct conf_line *l, const char *path, char *err,
			size_t errlen)
{
	if (l->nword < 3) {
		snprintf(err, errlen, "%s:%d: a flavour line is 'flavour NAME FRAGMENT...' (the "
			 "fragments base/FRAGMENT.config)", path, l->lineno);
		return -1;
	}
	for (int i = 0; i < m->nflavour; i++)
		if (!strcmp(m->flavour[i].name, l->word[1])) {
			snprintf(err, errlen, "%s:%d: flavour '%s' is declared twice; declare each "
				 "once", path, l->lineno, l->word[1]);
			return -1;
		}
	if (m->nflavour == MAX_FLAVOURS) {
		snprintf(err, errlen, "%s:%d: at most %d flavours", path, l->lineno, MAX_FLAVOURS);
		return -1;
	}
	m->flavour[m->nflavour].name = xstrdup(l->word[1]);
	m->flavour[m->nflavour++].fragments = conf_words(l, 2);
	return 0;
}

/* A folder line (guest, patches, arches-file, host-file, base-dir): PATH, absolute or relative
 * to dir; into *slot. */
static int folder_line(char **slot, const struct conf_line *l, const char *dir, const char *path,
		       char *err, size_t errlen)
{
	const char *rel = l->word[1];

	if (l->nword != 2) {
		snprintf(err, errlen, "%s:%d: expected '%s PATH' (absolute, or relative to the "
			 "folder of matrix.conf)", path, l->lineno, l->word[0]);
		return -1;
	}
	free(*slot);
	*slot = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
	return 0;
}

/* tree NAME PACKAGE /path/to/tarball: the one line whose last word is a path. */
static int tree_line(struct matrix *m, const struct conf_line *l, const char *path, char *err,
		     size_t errlen)
{
	char why[512];

	if (l->nword != 4 || l->word[3][0] != '/') {
		snprintf(err, errlen, "%s:%d: expected 'tree NAME PACKAGE /path/to/tarball'", path,
			 l->lineno);
		return -1;
	}
	if (unsafe_words(l, 3, path, err, errlen))
		return -1;
	if (matrix_add_tree(m, l->word[1], l->word[2], l->word[3], NULL, err, errlen)) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s:%d: %s", path, l->lineno, why);
		return -1;
	}
	return 0;
}

/* symbols SYM...: the matrix symbols, each once, bools until a tree or the rules say more. */
static int symbols_line(struct matrix *m, const struct conf_line *l, const char *path, char *err,
			size_t errlen)
{
	if (l->nword - 1 > MAX_SYMBOLS) {
		snprintf(err, errlen, "%s:%d: at most %d symbols", path, l->lineno, MAX_SYMBOLS);
		return -1;
	}
	for (int s = 0; s < l->nword - 1; s++) {
		if (matrix_symbol_index(m, l->word[s + 1]) >= 0) {
			snprintf(err, errlen, "%s:%d: symbol '%s' is listed twice; list each once",
				 path, l->lineno, l->word[s + 1]);
			return -1;
		}
		m->nsym = s + 1;
		m->sym[s] = xstrdup(l->word[s + 1]);
		m->build_order[s] = s;
		matrix_set_type(m, s, 'b');
	}
	return 0;
}

/* A line whose words after its key, at most max of them (what they are: what), replace
 * *list: guest-config SYM... (the symbols whose value each guest is told), syscalls NAME... */
static int bounded_list_line(char ***list, const struct conf_line *l, int max, const char *what,
			     const char *path, char *err, size_t errlen)
{
	if (l->nword - 1 > max) {
		snprintf(err, errlen, "%s:%d: at most %d %s", path, l->lineno, max, what);
		return -1;
	}
	free_strings(*list);
	*list = conf_words(l, 1);
	return 0;
}

/* One line of matrix.conf, by its key. Returns 0, or -1 with "file:line: what" in err. */
static int matrix_conf_line(struct matrix *m, const struct conf_line *l, const char *dir,
			    const char *path, char ***arches, char ***variants, char *err,
			    size_t errlen)
{
	const char *kw = l->word[0];
	char **slot;

	if (l->nword < 2 || l->indented) {
		snprintf(err, errlen, "%s:%d: expected 'KEY VALUE...'", path, l->lineno);
		return -1;
	}
	if ((slot = folder_slot(m, kw)))	/* paths of the question's folder */
		return folder_line(slot, l, dir, path, err, errlen);
	if (!strcmp(kw, "tree"))
		return tree_line(m, l, path, err, errlen);
	if (!strcmp(kw, "selftest"))	/* a path in the tree, and OBS=STATE words */
		return selftest_line(m, l, path, err, errlen);
	if (unsafe_names(l, path, err, errlen))
		return -1;
	if (!strcmp(kw, "symbols"))
		return symbols_line(m, l, path, err, errlen);
	if (!strcmp(kw, "arches") || !strcmp(kw, "variants") || !strcmp(kw, "extra-arches")) {
		char ***list = kw[0] == 'a' ? arches : kw[0] == 'v' ? variants : &m->extra_arches;

		if (listed_twice(l, path, err, errlen))
			return -1;
		free_strings(*list);
		*list = conf_words(l, 1);
		return 0;
	}
	if (!strcmp(kw, "syscalls"))
		return bounded_list_line(&m->syscalls, l, MAX_SYSCALLS, "syscalls", path, err,
					 errlen);
	if (!strcmp(kw, "base")) {
		free_strings(m->base);
		m->base = conf_words(l, 1);
		return 0;
	}
	if (!strcmp(kw, "flavour"))
		return flavour_line(m, l, path, err, errlen);
	if (!strcmp(kw, "build-order"))
		return build_order(m, l, path, err, errlen);
	if (!strcmp(kw, "build-split"))
		return build_split(m, l, path, err, errlen);
	if (!strcmp(kw, "unset"))
		return unset_line(m, l, path, err, errlen);
	if (!strcmp(kw, "guest-config"))
		return bounded_list_line(&m->guest_config, l, MAX_GUEST_CONFIG,
					 "guest-config symbols", path, err, errlen);
	snprintf(err, errlen, "%s:%d: unknown key '%s' (expected tree, symbols, arches, variants, "
		 "base, flavour, build-order, build-split, unset, guest-config, selftest, guest, "
		 "patches, arches-file, host-file or base-dir)", path, l->lineno, kw);
	return -1;
}

int matrix_conf_load(const char *dir, const char *path, struct matrix *m, char ***arches,
		     char ***variants, char *err, size_t errlen)
{
	struct conf_file cf;
	int rc = 0;

	if (conf_load(path, &cf, err, errlen))
		return -1;
	for (int i = 1; i < cf.nline && rc == 0; i++)
		rc = matrix_conf_line(m, &cf.line[i], dir, path, arches, variants, err, errlen);
	if (rc == 0 && (!m->ntree || !m->nsym || !*arches || !*variants)) {
		snprintf(err, errlen, "%s: needs 'tree', 'symbols', 'arches' and 'variants' lines",
			 path);
		rc = -1;
	}
	conf_free(&cf);
	return rc;
}
