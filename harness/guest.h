/* guest: the per-arch guest program (guest-tests/kcmp_init.c, built static with the arch's
 * compiler) and the initramfs around it. The program is compiled again whenever what it is
 * made from changes (see guest_prepare), and only then: a static link takes more than a second
 * per arch on a slow machine, most of a warm run. The initramfs is packed every run.
 */
#ifndef KCMPM_GUEST_H
#define KCMPM_GUEST_H

#include "matrix.h"

#include <stddef.h>

/* Compiles src for the arch into dir/init, unless dir/init.key says the one there was made
 * from the same inputs: the compiler command, cc_version (its --version line), its static C
 * library, and every file in src's folder (the guest's headers and test list). Then wraps it
 * into dir/initramfs.cpio. Returns the initramfs path (caller frees), or NULL with a message
 * in err. */
char *guest_prepare(const struct arch *a, const char *src, const char *cc_version,
		    const char *dir, char *err, size_t errlen);

/* The question's kernel selftest (src, a path in the tree at tree_path; matrix.conf's selftest
 * line) compiled static for the arch into dir/selftest, unless dir/selftest.key says the one
 * there was made from the same inputs (the compiler command, cc_version, its C library, the
 * files of the selftest's folder and its parent's kselftest.h), then packed with the guest's
 * compiled init (guest_prepare's dir/init) into dir/initramfs.cpio as /init and /selftest.
 * Returns the initramfs path (caller frees), or NULL with a message in err. */
char *guest_prepare_selftest(const struct arch *a, const char *init, const char *tree_path,
			     const char *src, const char *cc_version, const char *dir, char *err,
			     size_t errlen);

/* The tests the guest runs, in order: its list, beside the source as <name>_tests.h
 * (kcmp_init.c: kcmp_init_tests.h), one "KCMPM_TEST(name)" per line; comments and blank lines
 * are skipped. The guest includes the same file. Returns a NULL-terminated array (free with
 * free_strings), or NULL with "path:line: what is wrong" in err. */
char **guest_tests(const char *src, char *err, size_t errlen);

#endif
