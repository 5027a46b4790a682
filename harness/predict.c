/* predict: what Kconfig makes of a request, by a variant's rules (rules.h's rules_predict,
 * rules_observe and rules_why_default): each symbol's value as scripts/kconfig/symbol.c's
 * sym_calc_value computes it (request, visibility, default, selects, dependencies), with one
 * line of why, and the state of each observable those values imply.
 */
#define _GNU_SOURCE
#include "rules.h"
#include "rules_expr.h"

#include <stdio.h>
#include <string.h>

/* Evaluation state: values computed so far, and which are in progress (cycle detection). */
struct eval {
	const struct rules *r;
	const char *requested;
	char *const *arch_kconfig;	/* the arch's symbols, "NAME=VALUE" */
	struct prediction *p;
	char state[MAX_SYMBOLS];	/* 0 not started, 1 in progress, 2 done */
	int cycle;
};

static char sym_value(struct eval *ev, int s);

char rules_arch_value(char *const *arch_kconfig, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; arch_kconfig && arch_kconfig[i]; i++)
		if (!strncmp(arch_kconfig[i], name, n) && arch_kconfig[i][n] == '=')
			return arch_kconfig[i][n + 1];
	return 0;
}

/* The value of an expression's symbol: a matrix symbol's as resolved, an arch symbol's as the
 * arch has it (n when it has none, as Kconfig takes a symbol the arch does not define). */
static char operand(struct eval *ev, const struct expr *e)
{
	char v;

	if (!e->arch)
		return sym_value(ev, e->sym);
	v = rules_arch_value(ev->arch_kconfig, ev->r->arch_sym[e->sym]);
	return v ? v : 'n';
}

/* Kconfig's tristate logic: n < m < y as 0 < 1 < 2; ! is 2 - x, && the least, || the most. */
static int level(char value)
{
	return value == 'y' ? 2 : value == 'm' ? 1 : 0;
}

static int expr_level(struct eval *ev, const struct expr *e)
{
	int l, r;

	switch (e->op) {
	case E_CONST:
		return level(e->value);
	case E_SYM:
	case E_ARCH:
		return level(operand(ev, e));
	case E_EQ:
	case E_NE:
		return (level(operand(ev, e)) == level(e->value)) == (e->op == E_EQ) ? 2 : 0;
	case E_NOT:
		return 2 - expr_level(ev, e->l);
	case E_AND:
	case E_OR:
		l = expr_level(ev, e->l);
		r = expr_level(ev, e->r);
		return (e->op == E_AND) == (l < r) ? l : r;
	}
	return 0;
}

static int cond_level(struct eval *ev, const struct expr *cond)
{
	return cond ? expr_level(ev, cond) : 2;
}

static int min_level(int a, int b)
{
	return a < b ? a : b;
}

/* The value Kconfig gives symbol s, as sym_calc_value computes it: a visible symbol takes the
 * request, capped by its visibility (prompt condition and dependencies); a hidden one its first
 * default whose condition holds, capped the same way. Selects raise the result to the highest
 * selector's value (capped by the select's condition), and a bool that comes out m is y: a bool
 * selected by a module is built in. */
static char resolve(struct eval *ev, int s, char *why, size_t whylen)
{
	const struct rule_symbol *rs = &ev->r->sym[s];
	const char *name = ev->r->names[s];
	int dep, vis, unset, value, rev = 0, by = -1;

	if (rs->absent) {
		snprintf(why, whylen, "%s: not in this tree", name);
		return 0;
	}
	for (int i = 0; i < rs->nselect; i++) {
		int lv = min_level(level(sym_value(ev, rs->selects[i].by)),
				   cond_level(ev, rs->selects[i].cond));

		if (lv > rev) {
			rev = lv;
			by = rs->selects[i].by;
		}
	}
	dep = cond_level(ev, rs->depends);
	vis = rs->has_prompt ? min_level(cond_level(ev, rs->prompt_if), dep) : 0;
	/* a symbol left unset has no request to honour: its default decides, visible or not */
	unset = ev->requested[s] == VALUE_UNSET;
	if (vis && !unset) {
		value = min_level(level(ev->requested[s]), vis);
		if (value < level(ev->requested[s]))
			snprintf(why, whylen, "%s=%c: requested %c, capped at %c by its dependencies",
				 name, "nmy"[value], ev->requested[s], "nmy"[value]);
		else
			snprintf(why, whylen, "%s=%c: as requested", name, ev->requested[s]);
	} else {
		int i = 0;

		while (i < rs->ndefault && !cond_level(ev, rs->defaults[i].cond))
			i++;
		value = i < rs->ndefault ? min_level(min_level(level(rs->defaults[i].value),
							       cond_level(ev, rs->defaults[i].cond)),
						     dep) : 0;
		const char *how = vis ? "left unset" : rs->has_prompt ? "prompt hidden" : "no prompt";

		if (rs->depends && !dep)
			snprintf(why, whylen, "%s=n: its dependencies are not met", name);
		else if (i < rs->ndefault)
			snprintf(why, whylen, "%s=%c: %s, default %c%s", name, "nmy"[value], how,
				 rs->defaults[i].value, rs->defaults[i].cond ? " (its condition holds)"
									     : "");
		else
			snprintf(why, whylen, "%s=n: %s, no default", name, how);
	}
	if (rev > value) {
		value = rev;
		snprintf(why, whylen, "%s=%c: selected by %s=%c%s", name,
			 "nmy"[!rs->tristate && value == 1 ? 2 : value], ev->r->names[by],
			 "nmy"[rev], !rs->tristate && rev == 1 ? "; a bool selected by a module is "
								 "built in" : "");
	}
	if (!rs->tristate && value == 1)
		value = 2;
	return "nmy"[value];
}

static char sym_value(struct eval *ev, int s)
{
	if (ev->state[s] == 2)
		return ev->p->value[s];
	if (ev->state[s] == 1) {
		ev->cycle = 1;
		return 'n';
	}
	ev->state[s] = 1;
	ev->p->value[s] = resolve(ev, s, ev->p->why[s], sizeof(ev->p->why[s]));
	ev->state[s] = 2;
	return ev->p->value[s];
}

/* The first state whose condition is y; the last line's otherwise. */
static const char *observe(struct eval *ev, const struct rule_observable *o)
{
	for (int i = 0; i < o->nstate; i++)
		if (!o->states[i].when || expr_level(ev, o->states[i].when) == 2)
			return o->states[i].state;
	return o->states[o->nstate - 1].state;
}

int rules_predict(const struct rules *r, const char *requested, char *const *arch_kconfig,
		  struct prediction *p, char *err, size_t errlen)
{
	struct eval ev = { .r = r, .requested = requested, .arch_kconfig = arch_kconfig, .p = p };

	*p = (struct prediction){ 0 };
	for (int s = 0; s < r->nsym; s++)
		sym_value(&ev, s);
	if (ev.cycle) {
		snprintf(err, errlen, "%s: the rules select or depend on each other in a cycle",
			 r->path);
		return -1;
	}
	for (int i = 0; i < r->nobs; i++)
		snprintf(p->observe[i], sizeof(p->observe[i]), "%s", observe(&ev, &r->obs[i]));
	return 0;
}

const char *rules_why_default(const char *why, size_t *len)
{
	static const char *const hows[] = { "left unset", "prompt hidden", "no prompt" };
	const char *at = strstr(why, ": ");

	if (!at)
		return NULL;
	at += 2;
	for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		size_t n = strlen(hows[i]);

		if (!strncmp(at, hows[i], n) && (!strncmp(at + n, ", default ", 10) ||
						 !strcmp(at + n, ", no default"))) {
			*len = n;
			return at;
		}
	}
	return NULL;
}

const char *rules_observe(const struct rules *r, int i, const char *values)
{
	struct prediction p = { 0 };
	struct eval ev = { .r = r, .p = &p };

	/* Values are given, not computed: mark every symbol done. */
	for (int s = 0; s < r->nsym; s++) {
		p.value[s] = values[s];
		ev.state[s] = 2;
	}
	return observe(&ev, &r->obs[i]);
}
