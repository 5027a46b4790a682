/* rules: see rules.h. */
#define _GNU_SOURCE
#include "rules.h"
#include "conf_file.h"
#include "rules_expr.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expr_free(struct expr *e)
{
	if (!e)
		return;
	expr_free(e->l);
	expr_free(e->r);
	free(e);
}

/* A recursive-descent parser over one line's text: or := and ('||' and)*, and := unary
 * ('&&' unary)*, unary := '!' unary | '(' or ')' | SYMBOL [('=' | '!=') (y|m|n)] | y | m | n. */
struct parser {
	const char *p;
	const struct rules *r;
	char *err;
	size_t errlen;
	const char *where;	/* "path:line" */
};

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static struct expr *mkexpr(enum expr_op op, struct expr *l, struct expr *r)
{
	struct expr *e = xcalloc(1, sizeof(*e));

	e->op = op;
	e->l = l;
	e->r = r;
	return e;
}

static struct expr *parse_or(struct parser *ps);

/* SYMBOL=VALUE or SYMBOL!=VALUE after a symbol, as in Kconfig ("depends on DRM=y"). */
static struct expr *parse_comparison(struct parser *ps, struct expr *e)
{
	const char *s = ps->p;
	int ne = s[0] == '!' && s[1] == '=';

	if (s[0] != '=' && !ne)
		return e;
	s += ne ? 2 : 1;
	if (!strchr("ymn", *s) || !*s || isalnum((unsigned char)s[1]) || s[1] == '_') {
		snprintf(ps->err, ps->errlen, "%s: expected y, m or n after '%s' at '%s'", ps->where,
			 ne ? "!=" : "=", ps->p);
		free(e);
		return NULL;
	}
	e->op = ne ? E_NE : E_EQ;
	e->value = *s;
	ps->p = s + 1;
	return e;
}

static struct expr *parse_word(struct parser *ps)
{
	const char *s = ps->p;
	size_t n = 0;
	struct expr *e;

	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	if (n == 0) {
		snprintf(ps->err, ps->errlen, "%s: expected a symbol, y, m or n at '%s'", ps->where,
			 *s ? s : "end of line");
		return NULL;
	}
	ps->p += n;
	e = mkexpr(E_CONST, NULL, NULL);
	if (n == 1 && (s[0] == 'y' || s[0] == 'm' || s[0] == 'n')) {
		e->value = s[0];
		return e;
	}
	e->op = E_SYM;
	for (int i = 0; i < ps->r->nsym; i++)
		if (strlen(ps->r->names[i]) == n && !strncmp(ps->r->names[i], s, n)) {
			e->sym = i;
			return parse_comparison(ps, e);
		}
	e->op = E_ARCH;
	e->arch = 1;
	for (int i = 0; i < ps->r->narch_sym; i++)
		if (strlen(ps->r->arch_sym[i]) == n && !strncmp(ps->r->arch_sym[i], s, n)) {
			e->sym = i;
			return parse_comparison(ps, e);
		}
	snprintf(ps->err, ps->errlen, "%s: unknown symbol '%.*s' (rules may name only the matrix "
		 "symbols listed in matrix/matrix.conf, and the arch symbols their 'arch-symbol' "
		 "lines declare before)", ps->where, (int)n, s);
	free(e);
	return NULL;
}

static struct expr *parse_unary(struct parser *ps)
{
	struct expr *e;

	skip_space(ps);
	if (*ps->p == '!') {
		ps->p++;
		e = parse_unary(ps);
		return e ? mkexpr(E_NOT, e, NULL) : NULL;
	}
	if (*ps->p == '(') {
		ps->p++;
		e = parse_or(ps);
		if (!e)
			return NULL;
		skip_space(ps);
		if (*ps->p != ')') {
			snprintf(ps->err, ps->errlen, "%s: missing ')'", ps->where);
			expr_free(e);
			return NULL;
		}
		ps->p++;
		return e;
	}
	return parse_word(ps);
}

static struct expr *parse_binary(struct parser *ps, const char *tok, enum expr_op op,
				 struct expr *(*next)(struct parser *))
{
	struct expr *e = next(ps);

	while (e) {
		struct expr *r;

		skip_space(ps);
		if (strncmp(ps->p, tok, 2))
			break;
		ps->p += 2;
		r = next(ps);
		if (!r) {
			expr_free(e);
			return NULL;
		}
		e = mkexpr(op, e, r);
	}
	return e;
}

static struct expr *parse_and(struct parser *ps)
{
	return parse_binary(ps, "&&", E_AND, parse_unary);
}

static struct expr *parse_or(struct parser *ps)
{
	return parse_binary(ps, "||", E_OR, parse_and);
}

static struct expr *parse_expr(const struct rules *r, const char *text, const char *where,
			       char *err, size_t errlen)
{
	struct parser ps = { text, r, err, errlen, where };
	struct expr *e = parse_or(&ps);

	if (!e)
		return NULL;
	skip_space(&ps);
	if (*ps.p) {
		snprintf(err, errlen, "%s: unexpected '%s' after the expression", where, ps.p);
		expr_free(e);
		return NULL;
	}
	return e;
}

/* Splits "... if EXPR" at the word "if": returns EXPR's parse, or NULL with *ok=1 if none. */
static struct expr *parse_if(const struct rules *r, const struct conf_line *l, int at,
			     const char *where, int *ok, char *err, size_t errlen)
{
	struct expr *e;

	*ok = 1;
	if (at >= l->nword)
		return NULL;
	if (strcmp(l->word[at], "if") || at + 1 >= l->nword) {
		snprintf(err, errlen, "%s: expected 'if EXPR' after '%s'", where, l->word[at - 1]);
		*ok = 0;
		return NULL;
	}
	e = parse_expr(r, conf_rest(l, at + 1), where, err, errlen);
	*ok = e != NULL;
	return e;
}

static int symbol_index(const struct rules *r, const char *name)
{
	for (int i = 0; i < r->nsym; i++)
		if (!strcmp(r->names[i], name))
			return i;
	return -1;
}

/* "arch-symbol NAME": a symbol of the arch's Kconfig the lines after it may name. */
static int parse_arch_symbol(struct rules *r, const struct conf_line *l, const char *where,
			     char *err, size_t errlen)
{
	const char *name = l->nword == 2 ? l->word[1] : "";
	int plain = *name != 0;

	for (const char *c = name; *c; c++)
		plain &= isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_';
	if (!plain || symbol_index(r, name) >= 0) {
		snprintf(err, errlen, "%s: expected 'arch-symbol SYMBOL', a Kconfig symbol that is not "
			 "a matrix symbol", where);
		return -1;
	}
	for (int i = 0; i < r->narch_sym; i++)
		if (!strcmp(r->arch_sym[i], name)) {
			snprintf(err, errlen, "%s: arch symbol '%s' declared twice", where, name);
			return -1;
		}
	if (r->narch_sym == MAX_ARCH_SYMBOLS) {
		snprintf(err, errlen, "%s: at most %d arch symbols", where, MAX_ARCH_SYMBOLS);
		return -1;
	}
	r->arch_sym[r->narch_sym++] = xstrdup(name);
	return 0;
}

/* One indented line inside "config SYM". */
static int parse_attribute(struct rules *r, struct rule_symbol *s, const struct conf_line *l,
			   const char *where, char *err, size_t errlen)
{
	const char *kw = l->word[0];
	int ok = 1;

	if ((!strcmp(kw, "tristate") || !strcmp(kw, "bool")) && l->nword == 1) {
		s->tristate = kw[0] == 't';
	} else if (!strcmp(kw, "prompt")) {
		s->has_prompt = 1;
		s->prompt_if = parse_if(r, l, 1, where, &ok, err, errlen);
	} else if (!strcmp(kw, "default")) {
		struct rule_default d = { 0 };

		if (l->nword < 2 || strlen(l->word[1]) != 1 || !strchr("ymn", l->word[1][0])) {
			snprintf(err, errlen, "%s: expected 'default y', 'default m' or 'default n'",
				 where);
			return -1;
		}
		d.value = l->word[1][0];
		d.cond = parse_if(r, l, 2, where, &ok, err, errlen);
		s->defaults = xrealloc(s->defaults, sizeof(d) * (size_t)(s->ndefault + 1));
		s->defaults[s->ndefault++] = d;
	} else if (!strcmp(kw, "depends")) {
		if (l->nword < 3 || strcmp(l->word[1], "on")) {
			snprintf(err, errlen, "%s: expected 'depends on EXPR'", where);
			return -1;
		}
		s->depends = parse_expr(r, conf_rest(l, 2), where, err, errlen);
		ok = s->depends != NULL;
	} else if (!strcmp(kw, "selected-by")) {
		struct rule_select sel = { 0 };

		if (l->nword < 2 || (sel.by = symbol_index(r, l->word[1])) < 0) {
			snprintf(err, errlen, "%s: expected 'selected-by SYMBOL' naming a matrix symbol, "
				 "got '%s'", where, conf_rest(l, 1));
			return -1;
		}
		sel.cond = parse_if(r, l, 2, where, &ok, err, errlen);
		s->selects = xrealloc(s->selects, sizeof(sel) * (size_t)(s->nselect + 1));
		s->selects[s->nselect++] = sel;
	} else if (!strcmp(kw, "absent") && l->nword == 1) {
		s->absent = 1;
	} else {
		snprintf(err, errlen, "%s: unknown attribute '%s' (expected tristate, bool, prompt, "
			 "default, depends on, selected-by or absent)", where, conf_rest(l, 0));
		return -1;
	}
	return ok ? 0 : -1;
}

/* A word that may name an observable or a state: it becomes a JSON key, a TSV column and a
 * kernel command line value. */
static int plain_word(const char *w)
{
	if (!*w || strlen(w) >= MAX_STATE)
		return 0;
	for (; *w; w++)
		if (!(islower((unsigned char)*w) || isdigit((unsigned char)*w) || *w == '_'))
			return 0;
	return 1;
}

static int parse_observable(struct rules *r, const struct conf_line *l, const char *where,
			    char *err, size_t errlen)
{
	if (l->nword != 2 || !plain_word(l->word[1])) {
		snprintf(err, errlen, "%s: expected 'observable NAME' (NAME in lower case letters, "
			 "digits and _)", where);
		return -1;
	}
	for (int i = 0; i < r->nobs; i++)
		if (!strcmp(r->obs[i].name, l->word[1])) {
			snprintf(err, errlen, "%s: second 'observable %s' block", where, l->word[1]);
			return -1;
		}
	if (r->nobs == MAX_OBSERVABLES) {
		snprintf(err, errlen, "%s: more than %d observables", where, MAX_OBSERVABLES);
		return -1;
	}
	r->obs[r->nobs++] = (struct rule_observable){ .name = xstrdup(l->word[1]) };
	return 0;
}

/* "STATE when EXPR", or the last line's "STATE". */
static int parse_state(struct rules *r, struct rule_observable *o, const struct conf_line *l,
		       const char *where, char *err, size_t errlen)
{
	struct rule_state st = { 0 };

	if (o->nstate && !o->states[o->nstate - 1].when) {
		snprintf(err, errlen, "%s: a line after '%s', the state without 'when' that ends "
			 "observable %s", where, o->states[o->nstate - 1].state, o->name);
		return -1;
	}
	if (!plain_word(l->word[0]) || (l->nword > 1 && (l->nword < 3 ||
							 strcmp(l->word[1], "when")))) {
		snprintf(err, errlen, "%s: expected 'STATE when EXPR' or a last 'STATE' (STATE in "
			 "lower case letters, digits and _)", where);
		return -1;
	}
	if (l->nword > 1 && !(st.when = parse_expr(r, conf_rest(l, 2), where, err, errlen)))
		return -1;
	st.state = xstrdup(l->word[0]);
	o->states = xrealloc(o->states, sizeof(*o->states) * (size_t)(o->nstate + 1));
	o->states[o->nstate++] = st;
	return 0;
}

/* Every observable ends with its state otherwise, and there is at least one. */
static int check_observables(const struct rules *r, char *err, size_t errlen)
{
	if (r->nobs == 0) {
		snprintf(err, errlen, "%s: no 'observable NAME' block; the rules must say what the "
			 "guest observes", r->path);
		return -1;
	}
	for (int i = 0; i < r->nobs; i++) {
		const struct rule_observable *o = &r->obs[i];

		if (!o->nstate || o->states[o->nstate - 1].when) {
			snprintf(err, errlen, "%s: observable %s does not end with a state without "
				 "'when' (the state otherwise)", r->path, o->name);
			return -1;
		}
	}
	return 0;
}

int rules_parse(const char *path, const char *text, int nsym, const char *const *names,
		struct rules *r, char *err, size_t errlen)
{
	struct rule_symbol *cur = NULL;
	struct rule_observable *cur_obs = NULL;
	struct conf_file cf;
	int rc = 0;

	*r = (struct rules){ .path = xstrdup(path), .nsym = nsym, .names = names };
	if (conf_parse(path, text, &cf, err, errlen)) {
		rules_free(r);
		return -1;
	}
	for (int i = 1; i < cf.nline && rc == 0; i++) {
		const struct conf_line *l = &cf.line[i];
		char where[512];
		int s;

		snprintf(where, sizeof(where), "%s:%d", path, l->lineno);
		if (l->indented) {
			if (cur_obs) {
				rc = parse_state(r, cur_obs, l, where, err, errlen);
			} else if (!cur) {
				snprintf(err, errlen, "%s: indented line outside a 'config' or "
					 "'observable' block", where);
				rc = -1;
			} else {
				rc = parse_attribute(r, cur, l, where, err, errlen);
			}
			continue;
		}
		cur = NULL;
		cur_obs = NULL;
		if (!strcmp(l->word[0], "config") && l->nword == 2) {
			if ((s = symbol_index(r, l->word[1])) < 0) {
				snprintf(err, errlen, "%s: unknown symbol '%s' (not in matrix/matrix.conf's "
					 "symbols)", where, l->word[1]);
				rc = -1;
			} else if (r->sym[s].defined) {
				snprintf(err, errlen, "%s: second 'config %s' block", where, l->word[1]);
				rc = -1;
			} else {
				cur = &r->sym[s];
				cur->defined = 1;
			}
		} else if (!strcmp(l->word[0], "arch-symbol")) {
			rc = parse_arch_symbol(r, l, where, err, errlen);
		} else if (!strcmp(l->word[0], "observable")) {
			rc = parse_observable(r, l, where, err, errlen);
			if (rc == 0)
				cur_obs = &r->obs[r->nobs - 1];
		} else {
			snprintf(err, errlen, "%s: unknown line '%s' (expected 'config SYMBOL', "
				 "'arch-symbol SYMBOL' or 'observable NAME')", where, conf_rest(l, 0));
			rc = -1;
		}
	}
	for (int s = 0; s < nsym && rc == 0; s++)
		if (!r->sym[s].defined) {
			snprintf(err, errlen, "%s: no 'config %s' block; every matrix symbol needs one "
				 "(write 'absent' in it if the tree lacks the symbol)", path, names[s]);
			rc = -1;
		}
	if (rc == 0)
		rc = check_observables(r, err, errlen);
	conf_free(&cf);
	if (rc)
		rules_free(r);
	return rc;
}

int rules_load(const char *path, int nsym, const char *const *names, struct rules *r, char *err,
	       size_t errlen)
{
	char *text = conf_read_text(path, err, errlen);
	int rc;

	if (!text)
		return -1;
	rc = rules_parse(path, text, nsym, names, r, err, errlen);
	free(text);
	return rc;
}

void rules_free(struct rules *r)
{
	for (int i = 0; i < MAX_SYMBOLS; i++) {
		struct rule_symbol *s = &r->sym[i];

		expr_free(s->prompt_if);
		expr_free(s->depends);
		for (int j = 0; j < s->ndefault; j++)
			expr_free(s->defaults[j].cond);
		for (int j = 0; j < s->nselect; j++)
			expr_free(s->selects[j].cond);
		free(s->defaults);
		free(s->selects);
	}
	for (int i = 0; i < r->narch_sym; i++)
		free(r->arch_sym[i]);
	for (int i = 0; i < r->nobs; i++) {
		for (int j = 0; j < r->obs[i].nstate; j++) {
			free(r->obs[i].states[j].state);
			expr_free(r->obs[i].states[j].when);
		}
		free(r->obs[i].states);
		free(r->obs[i].name);
	}
	free(r->path);
	*r = (struct rules){ 0 };
}
