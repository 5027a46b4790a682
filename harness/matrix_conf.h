/* matrix_conf: matrix.conf's lines, each key read into the matrix by a function of its own
 * (the trees, symbols, unset, arches and extra-arches, variants, base and flavours, build order
 * and split, the question's folders, its selftest and syscalls). matrix_load (matrix.h) calls
 * it first, then loads what those lines point at.
 */
#ifndef KCMPM_MATRIX_CONF_H
#define KCMPM_MATRIX_CONF_H

#include "matrix_model.h"

#include <stddef.h>

/* Reads matrix.conf at path (dir: its folder, which relative paths start from) into m; the
 * arches and variants lines into *arches and *variants (NULL-terminated; the caller frees).
 * Returns 0, or -1 with "path:line: what" in err. */
int matrix_conf_load(const char *dir, const char *path, struct matrix *m, char ***arches,
		     char ***variants, char *err, size_t errlen);

#endif
