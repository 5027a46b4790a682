/* guest: the per-arch guest program (guest-tests/kcmp_init.c, built static with the arch's
 * compiler) and the initramfs around it. Both are rebuilt every run: it takes well under a
 * second, and a stale /init could otherwise judge a cell with old expectations.
 */
#ifndef KCMPM_GUEST_H
#define KCMPM_GUEST_H

#include "matrix.h"

#include <stddef.h>

/* Compiles src for the arch into dir/init and wraps it into dir/initramfs.cpio. Returns the
 * initramfs path (caller frees), or NULL with a message in err. */
char *guest_prepare(const struct arch *a, const char *src, const char *dir, char *err,
		    size_t errlen);

/* The tests the guest runs, in order: its list, beside the source as <name>_tests.h
 * (kcmp_init.c: kcmp_init_tests.h), one "KCMPM_TEST(name)" per line; comments and blank lines
 * are skipped. The guest includes the same file. Returns a NULL-terminated array (free with
 * free_strings), or NULL with "path:line: what is wrong" in err. */
char **guest_tests(const char *src, char *err, size_t errlen);

#endif
