/* matrix_values: what the rest of the harness asks of a loaded matrix: its symbols' values
 * and their names, patterns over them, the combinations, and its trees', arches', variants'
 * and symbols' indices by name.
 */
#ifndef KCMPM_MATRIX_VALUES_H
#define KCMPM_MATRIX_VALUES_H

#include "matrix_model.h"

#include <stddef.h>

/* "y", "m", "n" or "unset" (VALUE_UNSET, rules.h) for a value. */
const char *matrix_value_name(char value);
/* The value a name stands for ('y', 'm', 'n' or VALUE_UNSET), or 0 for no value's name. */
char matrix_value_from_name(const char *name);

/* Names in matrix.conf become parts of paths under results/ and the cache and of make
 * arguments, so they are plain words: letters, digits, '_', '-', '.', not starting with '.' or
 * '-'. */
int matrix_plain_name(const char *w);

/* The arch's packages as one line, for "apt-get install ..." messages. Caller frees. */
char *matrix_arch_packages(const struct arch *a);

int matrix_arch_index(const struct matrix *m, const char *name);
int matrix_tree_index(const struct matrix *m, const char *name);
/* Declares a tree (KSRC: package and tarball NULL, ksrc its directory). Returns -1 with a message
 * when the name is taken or there are MAX_TREES already. */
int matrix_add_tree(struct matrix *m, const char *name, const char *package, const char *tarball,
		    const char *ksrc, char *err, size_t errlen);
/* Records what a tree turned out to be: its kernel version and where it is. */
void matrix_tree_found(struct matrix *m, int t, const char *version, const char *path);
int matrix_variant_index(const struct matrix *m, const char *name);
int matrix_symbol_index(const struct matrix *m, const char *name);

/* Parses a pattern; what names it in errors. Returns -1 with "what: bad term ..." in err. */
int matrix_parse_pattern(const struct matrix *m, const char *text, const char *what,
			 struct pattern *p, char *err, size_t errlen);
/* Does the pattern hold for these values ('y'/'n'/'m'/0) on this arch? */
int matrix_pattern_matches(const struct pattern *p, int nsym, const char *values, int arch);

/* How many combinations of values the symbols have: the product of their value counts. */
unsigned matrix_ncombo(const struct matrix *m);
/* Sets the values symbol s takes from its Kconfig type: 't' tristate, else bool (and unset,
 * when it takes that). */
void matrix_set_type(struct matrix *m, int s, char type);
/* Says whether symbol s also takes the value unset (on 1) or not (0). */
void matrix_take_unset(struct matrix *m, int s, int on);
/* Which symbols take unset, replacing matrix.conf's unset line: "all", "none", or symbol names
 * joined by commas (--unset, make's UNSET=). Returns -1 with a message for an unknown name. */
int matrix_set_unset(struct matrix *m, const char *list, char *err, size_t errlen);
/* Makes every symbol a pattern's SYM=unset terms name take unset (ONLY=KCMP=unset asks for
 * cells the matrix.conf at hand may not have); other terms are left to the pattern's parse. */
void matrix_unset_in_pattern(struct matrix *m, const char *text);

#endif
