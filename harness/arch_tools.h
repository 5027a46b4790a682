/* arch_tools: what the preflight (preflight.c) prepared for each arch and the run stage uses:
 * the packed guest and the hashes that key its kernels and boots. A header of its own, so the
 * run stage needs no part of the preflight and the preflight no part of the run.
 */
#ifndef KCMPM_ARCH_TOOLS_H
#define KCMPM_ARCH_TOOLS_H

#include "matrix.h"

struct arch_tools {
	char *initramfs;		/* the guest, packed; NULL for an arch the run does not use */
	char *guest_init;		/* the guest program it packs (guest_prepare_selftest packs it
					 * again beside a tree's selftest) */
	char *cc_version;		/* the arch's compiler's --version line */
	char guest_hash[17];		/* of the initramfs */
	char toolchain[17];		/* of the compiler's version and the make program */
	char emulator[17];		/* of QEMU's version and the QEMU program */
	char **tests;			/* the guest's tests in order (guest_tests), which every
					 * boot must report */
	long syscall_nr[MAX_SYSCALLS];	/* [i]: the number of the matrix's syscalls[i] in the
					 * arch's C library headers (syscalls.h) */
};

/* Frees what preflight() filled in for narch arches (preflight.c). */
void arch_tools_free(struct arch_tools *tools, int narch);

#endif
