/* matrix: see matrix.h. */
#define _GNU_SOURCE
#include "matrix.h"
#include "arches.h"
#include "conf_file.h"
#include "matrix_conf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (matrix_conf_load(dir, path, m, &arches, &variants, err, errlen))
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

