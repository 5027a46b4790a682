/* matrix: see matrix.h. */
#define _GNU_SOURCE
#include "matrix.h"
#include "arches.h"
#include "conf_file.h"
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

/* Names in matrix.conf become parts of paths under results/ and the cache (cells/<tree>/
 * <variant>/<arch>/...) and of make arguments, so they are plain words: letters, digits, '_',
 * '-', '.', not starting with '.' or '-'. */
static int plain_name(const char *w)
{
	return strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
		       strlen(w) && w[0] != '.' && w[0] != '-';
}

/* Words 1 .. upto-1 of a line must be plain names. */
static int unsafe_words(const struct conf_line *l, int upto, const char *path, char *err,
			size_t errlen)
{
	for (int i = 1; i < upto; i++)
		if (!plain_name(l->word[i])) {
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
		plain &= plain_name(part);
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
		int ok = eq && eq != need && eq[1] && (*eq = 0, plain_name(need) && plain_name(eq + 1));

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

int matrix_use_flavour(struct matrix *m, const char *name, char *err, size_t errlen)
{
	struct strbuf known = { 0 };
	int nbase = 0, nfrag = 0;

	for (int i = 0; i < m->nflavour; i++) {
		const struct flavour *f = &m->flavour[i];

		if (strcmp(f->name, name)) {
			sb_printf(&known, "%s%s", known.len ? ", " : "", f->name);
			continue;
		}
		while (m->base[nbase])
			nbase++;
		while (f->fragments[nfrag])
			nfrag++;
		m->base = xrealloc(m->base, (size_t)(nbase + nfrag + 1) * sizeof(*m->base));
		for (int k = 0; k <= nfrag; k++)
			m->base[nbase + k] = f->fragments[k] ? xstrdup(f->fragments[k]) : NULL;
		m->flavour_in_use = f->name;
		sb_free(&known);
		return 0;
	}
	snprintf(err, errlen, "flavour '%s': matrix.conf declares no such flavour (%s%s)", name,
		 known.len ? "declared: " : "it declares none", known.len ? known.s : "");
	sb_free(&known);
	return -1;
}

/* Each of the selftest's needs names an observable the rules declare. */
static int selftest_needs_known(const struct matrix *m, const char *path, char *err,
				size_t errlen)
{
	for (int i = 0; m->selftest_needs && m->selftest_needs[i]; i++) {
		const char *w = m->selftest_needs[i];
		size_t n = strcspn(w, "=");
		int known = 0;

		for (int o = 0; o < m->nobs && !known; o++)
			known = strlen(m->obs[o]) == n && !strncmp(m->obs[o], w, n);
		if (!known) {
			snprintf(err, errlen, "%s:%d: selftest need '%s' names no observable of the "
				 "rules", path, m->selftest_lineno, w);
			return -1;
		}
	}
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

/* guest-config SYM...: the symbols whose value each guest is told. */
static int guest_config_line(struct matrix *m, const struct conf_line *l, const char *path,
			     char *err, size_t errlen)
{
	if (l->nword - 1 > MAX_GUEST_CONFIG) {
		snprintf(err, errlen, "%s:%d: at most %d guest-config symbols", path, l->lineno,
			 MAX_GUEST_CONFIG);
		return -1;
	}
	free_strings(m->guest_config);
	m->guest_config = conf_words(l, 1);
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
	if (!strcmp(kw, "syscalls")) {
		if (l->nword - 1 > MAX_SYSCALLS) {
			snprintf(err, errlen, "%s:%d: at most %d syscalls", path, l->lineno,
				 MAX_SYSCALLS);
			return -1;
		}
		free_strings(m->syscalls);
		m->syscalls = conf_words(l, 1);
		return 0;
	}
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
		return guest_config_line(m, l, path, err, errlen);
	snprintf(err, errlen, "%s:%d: unknown key '%s' (expected tree, symbols, arches, variants, "
		 "base, flavour, build-order, build-split, unset, guest-config, selftest, guest, "
		 "patches, arches-file, host-file or base-dir)", path, l->lineno, kw);
	return -1;
}

static int load_matrix_conf(const char *dir, const char *path, struct matrix *m, char ***arches,
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

/* host.conf: "program NAME PACKAGE" and "header FILE PACKAGE" lines. */
static int load_host(const char *path, struct matrix *m, char *err, size_t errlen)
{
	struct conf_file cf;

	if (conf_load(path, &cf, err, errlen))
		return -1;
	m->need = xcalloc((size_t)cf.nline, sizeof(*m->need));
	for (int i = 1; i < cf.nline; i++) {
		const struct conf_line *l = &cf.line[i];
		int header = !strcmp(l->word[0], "header");

		if (l->indented || l->nword != 3 || (!header && strcmp(l->word[0], "program"))) {
			snprintf(err, errlen, "%s:%d: expected 'program NAME PACKAGE' or 'header FILE "
				 "PACKAGE'", path, l->lineno);
			conf_free(&cf);
			return -1;
		}
		m->need[m->nneed++] = (struct host_need){ .header = header,
							  .name = xstrdup(l->word[1]),
							  .package = xstrdup(l->word[2]) };
	}
	conf_free(&cf);
	return 0;
}

/* The kind word of an xfail line: "build:TEXT", "test:NAME" or "warning:TEXT". */
/* Known failures are matched on the resolved values, which are never unset. */
static int pattern_names_unset(const struct matrix *m, const struct pattern *p, const char *what,
			       char *err, size_t errlen)
{
	for (int s = 0; s < m->nsym; s++)
		if (p->want[s] == VALUE_UNSET) {
			snprintf(err, errlen, "%s: %s=unset: an xfail pattern is matched on the "
				 "resolved values, and a resolved symbol is y, m or n", what, m->sym[s]);
			return -1;
		}
	return 0;
}

static int parse_xfail_kind(const char *word, struct xfail *x)
{
	static const struct { const char *prefix; enum xfail_kind kind; } kinds[] = {
		{ "build:", XFAIL_BUILD }, { "test:", XFAIL_TEST }, { "warning:", XFAIL_WARNING },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);

		if (!strncmp(word, kinds[i].prefix, n) && word[n]) {
			x->kind = kinds[i].kind;
			x->match = xstrdup(word + n);
			return 0;
		}
	}
	return -1;
}

/* kernel-patch/<variant>/xfail: "format 1", then "xfail PATTERN KIND REASON..." lines. A
 * missing file declares nothing. */
static int load_xfail(struct matrix *m, struct variant *v, char *err, size_t errlen)
{
	struct conf_file cf;

	if (!path_exists(v->xfail_path))
		return 0;
	if (conf_load(v->xfail_path, &cf, err, errlen))
		return -1;
	for (int i = 1; i < cf.nline; i++) {
		const struct conf_line *l = &cf.line[i];
		struct xfail x = { .lineno = l->lineno };
		char what[512];

		snprintf(what, sizeof(what), "%s:%d", v->xfail_path, l->lineno);
		if (l->indented || l->nword < 4 || strcmp(l->word[0], "xfail") ||
		    parse_xfail_kind(l->word[2], &x)) {
			snprintf(err, errlen, "%s: expected 'xfail PATTERN KIND REASON', KIND one of "
				 "build:TEXT (a build error holding TEXT), test:NAME (that guest test "
				 "alone fails), warning:TEXT (a kernel warning holding TEXT)", what);
			conf_free(&cf);
			return -1;
		}
		if (matrix_parse_pattern(m, l->word[1], what, &x.pattern, err, errlen) ||
		    pattern_names_unset(m, &x.pattern, what, err, errlen)) {
			free(x.match);
			conf_free(&cf);
			return -1;
		}
		x.reason = xstrdup(conf_rest(l, 3));
		v->xfail = xrealloc(v->xfail, sizeof(x) * (size_t)(v->nxfail + 1));
		v->xfail[v->nxfail++] = x;
	}
	conf_free(&cf);
	return 0;
}

/* Every variant observes the same things: the reports have one column per observable, and the
 * behaviour diff compares variants by them. */
static int same_observables(struct matrix *m, char *err, size_t errlen)
{
	const struct rules *first = &m->variant[0].rules;

	for (int v = 1; v < m->nvariant; v++) {
		const struct rules *r = &m->variant[v].rules;
		int same = r->nobs == first->nobs;

		for (int i = 0; same && i < r->nobs; i++)
			same = !strcmp(r->obs[i].name, first->obs[i].name);
		if (!same) {
			snprintf(err, errlen, "%s: its observables differ from %s's; every variant "
				 "must declare the same ones, in the same order", r->path, first->path);
			return -1;
		}
	}
	m->nobs = first->nobs;
	for (int i = 0; i < m->nobs; i++)
		m->obs[i] = first->obs[i].name;
	return 0;
}

/* The arches of matrix.conf's arches line, then those of its extra-arches line, marked extra,
 * from arches.conf. Returns 0, or -1 with why in err. */
static int load_arches(struct matrix *m, char **arches, const char *path, char *err,
		       size_t errlen)
{
	int n = 0, nextra = 0, rc;
	char **wanted;

	while (arches[n])
		n++;
	while (m->extra_arches && m->extra_arches[nextra])
		nextra++;
	wanted = xcalloc((size_t)(n + nextra + 1), sizeof(*wanted));
	memcpy(wanted, arches, (size_t)n * sizeof(*wanted));
	for (int i = 0; i < nextra; i++) {
		for (int k = 0; k < n; k++)
			if (!strcmp(arches[k], m->extra_arches[i])) {
				snprintf(err, errlen, "%s: arch '%s' is on both the arches and the "
					 "extra-arches line; list it on one", path, arches[k]);
				free(wanted);
				return -1;
			}
		wanted[n + i] = m->extra_arches[i];
	}
	rc = arches_load(m->arches_file, wanted, &m->arch, &m->narch, err, errlen);
	for (int i = n; rc == 0 && i < m->narch; i++)
		m->arch[i].extra = 1;
	free(wanted);
	return rc;
}

/* Every arch names its syscall table when the guest calls system calls by number. */
static int arches_name_syscall_tables(const struct matrix *m, char *err, size_t errlen)
{
	for (int a = 0; m->syscalls && m->syscalls[0] && a < m->narch; a++)
		if (!m->arch[a].syscall_table) {
			snprintf(err, errlen, "%s: arch '%s' has no 'syscall-table' line, which the "
				 "syscalls line of matrix.conf needs", m->arches_file,
				 m->arch[a].name);
			return -1;
		}
	return 0;
}

/* Every arch gives a value to each arch symbol a variant's rules name (rules.h): a prediction
 * never guesses one. Returns 0, or -1 with what is missing in err. */
static int arches_value_arch_symbols(const struct matrix *m, char *err, size_t errlen)
{
	for (int v = 0; v < m->nvariant; v++) {
		const struct rules *r = &m->variant[v].rules;

		for (int i = 0; i < r->narch_sym; i++)
			for (int a = 0; a < m->narch; a++)
				if (!rules_arch_value(m->arch[a].kconfig, r->arch_sym[i])) {
					snprintf(err, errlen, "%s: arch '%s' gives no value to %s, "
						 "which %s names; add %s=y|m|n to its kconfig line",
						 m->arches_file, m->arch[a].name, r->arch_sym[i],
						 r->path, r->arch_sym[i]);
					return -1;
				}
	}
	return 0;
}

int matrix_load(const char *dir, const char *patch_root, struct matrix *m, char *err,
		size_t errlen)
{
	char **arches = NULL, **variants = NULL;
	char *path = xasprintf("%s/matrix.conf", dir);
	int rc = -1;

	*m = (struct matrix){ 0 };
	if (load_matrix_conf(dir, path, m, &arches, &variants, err, errlen))
		goto out;
	if (!m->arches_file)
		m->arches_file = xasprintf("%s/arches.conf", dir);
	if (!m->host_file)
		m->host_file = xasprintf("%s/host.conf", dir);
	if (!m->base_dir)
		m->base_dir = xasprintf("%s/base", dir);
	if (patch_root) {
		free(m->patch_root);
		m->patch_root = xstrdup(patch_root);
	}
	if (load_arches(m, arches, path, err, errlen) || load_host(m->host_file, m, err, errlen))
		goto out;
	while (variants[m->nvariant])
		m->nvariant++;
	m->variant = xcalloc((size_t)m->nvariant, sizeof(*m->variant));
	for (int v = 0; v < m->nvariant; v++) {
		struct variant *var = &m->variant[v];

		var->name = xstrdup(variants[v]);
		var->rules_path = xasprintf("%s/rules/%s.rules", dir, var->name);
		if (rules_load(var->rules_path, m->nsym, (const char *const *)m->sym, &var->rules,
			       err, errlen))
			goto out;
		var->patch_dir = xasprintf("%s/%s", m->patch_root ? m->patch_root : "/nonexistent",
					   var->name);
		var->xfail_path = xasprintf("%s/xfail", var->patch_dir);
		if (load_xfail(m, var, err, errlen))
			goto out;
	}
	if (same_observables(m, err, errlen) || selftest_needs_known(m, path, err, errlen) ||
	    arches_value_arch_symbols(m, err, errlen) || arches_name_syscall_tables(m, err, errlen))
		goto out;
	if (!m->base)
		m->base = xcalloc(1, sizeof(*m->base));
	if (!m->guest_config)
		m->guest_config = xcalloc(1, sizeof(*m->guest_config));
	rc = 0;
out:
	free(path);
	free_strings(arches);
	free_strings(variants);
	if (rc)
		matrix_free(m);
	return rc;
}

void matrix_free(struct matrix *m)
{
	free_strings(m->extra_arches);
	free_strings(m->syscalls);
	for (int s = 0; s < m->nsym; s++)
		free(m->sym[s]);
	for (int i = 0; i < m->narch; i++) {
		struct arch *a = &m->arch[i];

		free(a->name);
		free(a->kernel_arch);
		free(a->cross_compile);
		free(a->make_target);
		free(a->image);
		free(a->console);
		free_strings(a->qemu);
		free_strings(a->append);
		free_strings(a->packages);
		free_strings(a->kconfig);
		free_strings(a->syscall_table);
		free_strings(a->marks.crash);
		free_strings(a->marks.warning);
	}
	free(m->arch);
	for (int i = 0; i < m->nflavour; i++) {
		free(m->flavour[i].name);
		free_strings(m->flavour[i].fragments);
	}
	for (int i = 0; i < m->nneed; i++) {
		free(m->need[i].name);
		free(m->need[i].package);
	}
	free(m->need);
	for (int t = 0; t < m->ntree; t++) {
		struct tree_decl *d = &m->tree[t];

		free(d->name);
		free(d->package);
		free(d->tarball);
		free(d->ksrc);
		free(d->version);
		free(d->path);
	}
	for (int v = 0; v < m->nvariant; v++) {
		free(m->variant[v].name);
		free(m->variant[v].rules_path);
		free(m->variant[v].patch_dir);
		free(m->variant[v].xfail_path);
		for (int i = 0; i < m->variant[v].nxfail; i++) {
			free(m->variant[v].xfail[i].reason);
			free(m->variant[v].xfail[i].match);
		}
		free(m->variant[v].xfail);
		if (m->variant[v].rules.path)
			rules_free(&m->variant[v].rules);
	}
	free(m->variant);
	free_strings(m->base);
	free_strings(m->guest_config);
	free(m->selftest_src);
	free_strings(m->selftest_needs);
	free(m->guest_src);
	free(m->patch_root);
	free(m->base_dir);
	free(m->arches_file);
	free(m->host_file);
	*m = (struct matrix){ 0 };
}

int matrix_parse_pattern(const struct matrix *m, const char *text, const char *what,
			 struct pattern *p, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *save = NULL;
	int rc = 0;

	*p = (struct pattern){ .arch = -1 };
	for (char *w = strtok_r(copy, ",", &save); w && !rc; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		int s = -1;

		if (eq)
			*eq = 0;
		if (eq && !strcmp(w, "ARCH") && (p->arch = matrix_arch_index(m, eq + 1)) >= 0)
			continue;
		if (eq)
			s = matrix_symbol_index(m, w);
		if (s < 0 || !matrix_value_from_name(eq + 1)) {
			snprintf(err, errlen, "%s: bad term '%s%s%s'; expected SYMBOL=y, SYMBOL=m, "
				 "SYMBOL=n, SYMBOL=unset or ARCH=name with names from matrix/, joined "
				 "by commas", what, w, eq ? "=" : "", eq ? eq + 1 : "");
			rc = -1;
			break;
		}
		p->want[s] = matrix_value_from_name(eq + 1);
	}
	free(copy);
	return rc;
}

int matrix_pattern_matches(const struct pattern *p, int nsym, const char *values, int arch)
{
	for (int i = 0; i < nsym; i++)
		if (p->want[i] && p->want[i] != values[i])
			return 0;
	return p->arch < 0 || p->arch == arch;
}

unsigned matrix_ncombo(const struct matrix *m)
{
	unsigned n = 1;

	for (int s = 0; s < m->nsym; s++)
		n *= (unsigned)strlen(m->values[s]);
	return n;
}

void matrix_set_type(struct matrix *m, int s, char type)
{
	snprintf(m->values[s], sizeof(m->values[s]), "%s%s", type == 't' ? "nmy" : "ny",
		 m->takes_unset[s] ? "u" : "");
}

void matrix_take_unset(struct matrix *m, int s, int on)
{
	m->takes_unset[s] = on;
	/* the values again from the type they hold (a tristate has m) */
	matrix_set_type(m, s, strchr(m->values[s], 'm') ? 't' : 'b');
}

int matrix_set_unset(struct matrix *m, const char *list, char *err, size_t errlen)
{
	char *copy = xstrdup(list), *save = NULL;
	int all = !strcmp(list, "all"), rc = 0;

	for (int s = 0; s < m->nsym; s++)
		matrix_take_unset(m, s, all);
	if (all || !strcmp(list, "none")) {
		free(copy);
		return 0;
	}
	for (char *w = strtok_r(copy, ", ", &save); w && !rc; w = strtok_r(NULL, ", ", &save)) {
		int s = matrix_symbol_index(m, w);

		if (s < 0) {
			snprintf(err, errlen, "--unset: '%s' is not a matrix symbol; give 'all', "
				 "'none' or symbols from matrix.conf's symbols line, joined by commas",
				 w);
			rc = -1;
		} else {
			matrix_take_unset(m, s, 1);
		}
	}
	free(copy);
	return rc;
}

void matrix_unset_in_pattern(struct matrix *m, const char *text)
{
	char *copy = xstrdup(text), *save = NULL;

	for (char *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		char *eq = strchr(w, '=');
		int s;

		if (!eq || strcmp(eq + 1, "unset"))
			continue;
		*eq = 0;
		s = matrix_symbol_index(m, w);
		if (s >= 0)
			matrix_take_unset(m, s, 1);
	}
	free(copy);
}

const char *matrix_value_name(char value)
{
	switch (value) {
	case 'y': return "y";
	case 'm': return "m";
	case 'n': return "n";
	case VALUE_UNSET: return "unset";
	}
	return "?";
}

char matrix_value_from_name(const char *name)
{
	if (!strcmp(name, "unset"))
		return VALUE_UNSET;
	return strlen(name) == 1 && strchr("ymn", *name) ? *name : 0;
}

static int find_name(char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

char *matrix_arch_packages(const struct arch *a)
{
	struct strbuf sb = { 0 };

	for (int i = 0; a->packages && a->packages[i]; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", a->packages[i]);
	if (!sb.s)
		sb_printf(&sb, "(the packages of %sgcc and %s: arches.conf names none)",
			  a->cross_compile, a->qemu[0]);
	return sb.s;
}

int matrix_arch_index(const struct matrix *m, const char *name)
{
	for (int i = 0; i < m->narch; i++)
		if (!strcmp(m->arch[i].name, name))
			return i;
	return -1;
}

int matrix_tree_index(const struct matrix *m, const char *name)
{
	for (int i = 0; i < m->ntree; i++)
		if (!strcmp(m->tree[i].name, name))
			return i;
	return -1;
}

int matrix_add_tree(struct matrix *m, const char *name, const char *package, const char *tarball,
		    const char *ksrc, char *err, size_t errlen)
{
	if (!*name || !plain_name(name)) {	/* a shard's matrix.json names trees too */
		snprintf(err, errlen, "tree name '%s' is not a plain name (letters, digits, '_', "
			 "'-', '.', not first)", name);
		return -1;
	}
	if (matrix_tree_index(m, name) >= 0) {
		snprintf(err, errlen, "tree '%s' is declared twice", name);
		return -1;
	}
	if (m->ntree == MAX_TREES) {
		snprintf(err, errlen, "at most %d trees", MAX_TREES);
		return -1;
	}
	m->tree[m->ntree++] = (struct tree_decl){ .name = xstrdup(name),
						  .package = package ? xstrdup(package) : NULL,
						  .tarball = tarball ? xstrdup(tarball) : NULL,
						  .ksrc = ksrc ? xstrdup(ksrc) : NULL };
	return 0;
}

void matrix_tree_found(struct matrix *m, int t, const char *version, const char *path)
{
	free(m->tree[t].version);
	free(m->tree[t].path);
	m->tree[t].version = version ? xstrdup(version) : NULL;
	m->tree[t].path = path ? xstrdup(path) : NULL;
}

int matrix_variant_index(const struct matrix *m, const char *name)
{
	for (int i = 0; i < m->nvariant; i++)
		if (!strcmp(m->variant[i].name, name))
			return i;
	return -1;
}

int matrix_symbol_index(const struct matrix *m, const char *name)
{
	return find_name(m->sym, m->nsym, name);
}
