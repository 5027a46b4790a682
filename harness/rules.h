/* rules: a variant's Kconfig logic for the matrix symbols, and the prediction it makes.
 *
 * A rules file (matrix/rules/<variant>.rules) restates, for each matrix symbol, the parts of its
 * Kconfig entry that decide its value, so a reviewer can check it against the tree by eye:
 *
 *   format 1
 *   config KCMP                    one block per matrix symbol
 *       tristate                   its Kconfig type (bool when the line is missing)
 *       prompt if EXPERT           the request is honoured while the condition holds
 *                                  ("prompt" alone: always; no prompt line: never)
 *       default y|m [if EXPR]      value when the request is not honoured (none: n)
 *       depends on EXPR            caps the value at EXPR's (n when false; selects still win)
 *       selected-by DRM [if EXPR]  at least DRM's value (capped by EXPR); a bool selected by
 *                                  an m symbol is y
 *       absent                     the symbol does not exist in this variant's tree
 *   arch-symbol HAS_IOMEM          a symbol of the arch's own Kconfig that the lines after it
 *                                  may name: its value is the arch's (arches.conf's kconfig
 *                                  line, which the run checks against each base config), so
 *                                  one rules file predicts every arch
 *   observable kcmp                one block per thing the guest observes and reports as
 *       works when KCMP            "name=state"; its lines are tried in order: the first
 *       enosys                     whose EXPR is y (a system call is never in a module)
 *                                  gives the state a correct kernel shows; the last line,
 *                                  with no "when", is the state otherwise
 *
 * Observables are the question's: the harness knows only their names and states, from here.
 * The first one declared is the headline, the one the table shows in each cell.
 * EXPR is built from matrix symbols, y, m, n, SYM=VALUE and SYM!=VALUE (y or n: a comparison
 * is y or n), !, &&, || and parentheses, with Kconfig's tristate
 * logic (n < m < y; ! is y minus the value, && the least, || the most). An "if" holds when its
 * EXPR is not n. Every matrix symbol must have a block. Values are 'y', 'm', 'n', or 0 for a
 * symbol that does not exist. The kernels are built with MODULES=y, so an m stays m.
 */
#ifndef KCMPM_RULES_H
#define KCMPM_RULES_H

#include <stddef.h>

enum { MAX_SYMBOLS = 8, MAX_OBSERVABLES = 8, MAX_STATE = 24, MAX_ARCH_SYMBOLS = 8 };

/* A requested value that is no value: the symbol is left out of the cell's config fragment, as
 * a .config from before the symbol existed leaves it, so Kconfig's default (or a select)
 * decides, prompt or no prompt. Written "unset" in names and patterns (KCMP=unset), "·" in the
 * tables. */
enum { VALUE_UNSET = 'u' };

struct expr;

struct rule_default {
	char value;		/* 'y', 'm' or 'n' */
	struct expr *cond;	/* NULL: always */
};

struct rule_select {
	int by;			/* index of the selecting symbol */
	struct expr *cond;	/* NULL: always */
};

struct rule_symbol {
	int defined;		/* a config block was seen */
	int absent;
	int tristate;		/* 0: bool */
	int has_prompt;
	struct expr *prompt_if;	/* NULL with has_prompt: always visible */
	struct expr *depends;	/* NULL: no dependency */
	int ndefault;
	struct rule_default *defaults;
	int nselect;
	struct rule_select *selects;
};

struct rule_state {
	char *state;
	struct expr *when;	/* NULL: the observable's last line, its state otherwise */
};

struct rule_observable {
	char *name;
	int nstate;
	struct rule_state *states;
};

struct rules {
	char *path;
	int nsym;
	const char *const *names;	/* the matrix symbols, owned by the caller */
	struct rule_symbol sym[MAX_SYMBOLS];
	int narch_sym;
	char *arch_sym[MAX_ARCH_SYMBOLS];	/* its arch-symbol lines */
	int nobs;
	struct rule_observable obs[MAX_OBSERVABLES];
};

/* A prediction: each symbol's value and one line saying why, and the state of each observable
 * (in the rules' order) that the predicted values imply. */
struct prediction {
	char value[MAX_SYMBOLS];
	char why[MAX_SYMBOLS][96];
	char observe[MAX_OBSERVABLES][MAX_STATE];
};

/* Loads a rules file for the given matrix symbols. Returns -1 with "path:line: ..." in err. */
int rules_load(const char *path, int nsym, const char *const *names, struct rules *r, char *err,
	       size_t errlen);
/* Parses rules from text (path used in messages). */
int rules_parse(const char *path, const char *text, int nsym, const char *const *names,
		struct rules *r, char *err, size_t errlen);
void rules_free(struct rules *r);

/* Predicts what Kconfig makes of a request (requested[i] is 'y', 'm', 'n' or VALUE_UNSET) on
 * an arch whose symbols have the values arch_kconfig gives ("NAME=VALUE" words, NULL-terminated;
 * a symbol not among them is n). Returns -1 with a message in err on a dependency cycle. */
int rules_predict(const struct rules *r, const char *requested, char *const *arch_kconfig,
		  struct prediction *p, char *err, size_t errlen);
/* The value "NAME=VALUE" words give to name: 'y', 'm' or 'n'; 0 when they do not name it. */
char rules_arch_value(char *const *arch_kconfig, const char *name);
/* Did a default decide the value a prediction's why line explains (rules_predict's words: the
 * symbol left unset, or its prompt hidden, and no select above it)? Returns how the default
 * came to apply ("left unset", "prompt hidden" or "no prompt") with its length in *len, or
 * NULL when a request, a select, a dependency or absence decided. */
const char *rules_why_default(const char *why, size_t *len);
/* The state of observable i that the given values (e.g. the resolved .config's) imply. */
const char *rules_observe(const struct rules *r, int i, const char *values);

#endif
