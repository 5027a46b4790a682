/* dotconfig: reading and editing .config files (the kernel's own format).
 *
 * "CONFIG_FOO=value" sets a symbol; "# CONFIG_FOO is not set" sets it to n; any other line is
 * a comment. A symbol with no line is either n and invisible, or not in the tree at all: the
 * caller tells the two apart (tree_has_symbol).
 */
#ifndef KCMPM_DOTCONFIG_H
#define KCMPM_DOTCONFIG_H

/* The value of CONFIG_<name> in .config text: a malloc'd string ("y", "m", "n" for "is not
 * set", or the raw value), or NULL when the text has no line for it. */
char *dotconfig_get(const char *text, const char *name);

/* Returns a copy of text with every line about the named symbols removed and
 * "CONFIG_<name>=y", "CONFIG_<name>=m" or "# CONFIG_<name> is not set" appended for each
 * (values are 'y'/'m'/'n'); a symbol whose value is VALUE_UNSET (matrix.h) gets no line, so
 * olddefconfig treats it as new and gives it its default. */
char *dotconfig_set(const char *text, int n, const char *const *names, const char *values);

/* Resolved value of a bool symbol as the matrix records it: 'y', 'n', 'm', or 0 when the line
 * is missing and exists is false. A missing line of an existing symbol is 'n'. */
char dotconfig_bool(const char *text, const char *name, int exists);

#endif
