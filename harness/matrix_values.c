/* matrix_values: see matrix_values.h. */
#define _GNU_SOURCE
#include "matrix_values.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names in matrix.conf become parts of paths under results/ and the cache (cells/<tree>/
 * <variant>/<arch>/...) and of make arguments, so they are plain words: letters, digits, '_',
 * '-', '.', not starting with '.' or '-'. */
int matrix_plain_name(const char *w)
{
	return strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
		       strlen(w) && w[0] != '.' && w[0] != '-';
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
	if (!*name || !matrix_plain_name(name)) {	/* a shard's matrix.json names trees too */
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
