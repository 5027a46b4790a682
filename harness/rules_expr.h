/* rules_expr: the parsed form of a rules file's expressions (rules.h's EXPR), which the
 * parser (rules.c) makes and the prediction (predict.c) evaluates.
 */
#ifndef KCMPM_RULES_EXPR_H
#define KCMPM_RULES_EXPR_H

/* E_ARCH: one of the rules' arch symbols (struct rules' arch_sym[sym]), valued by the arch */
enum expr_op { E_CONST, E_SYM, E_ARCH, E_EQ, E_NE, E_NOT, E_AND, E_OR };

struct expr {
	enum expr_op op;
	int sym;		/* E_SYM, E_ARCH, E_EQ, E_NE */
	int arch;		/* E_EQ, E_NE: sym is an arch symbol */
	char value;		/* E_CONST, and what E_EQ and E_NE compare with: 'y', 'm' or 'n' */
	struct expr *l, *r;
};

#endif
