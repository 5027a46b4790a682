/* rules_expr: the parsed form of a rules file's expressions (rules.h's EXPR), which the
 * parser (rules.c) makes and the prediction (predict.c) evaluates.
 */
#ifndef KCMPM_RULES_EXPR_H
#define KCMPM_RULES_EXPR_H

enum expr_op { E_CONST, E_SYM, E_EQ, E_NE, E_NOT, E_AND, E_OR };

struct expr {
	enum expr_op op;
	int sym;		/* E_SYM, E_EQ, E_NE */
	char value;		/* E_CONST, and what E_EQ and E_NE compare with: 'y', 'm' or 'n' */
	struct expr *l, *r;
};

#endif
