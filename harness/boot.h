/* boot: one guest boot in QEMU. The guest has no network (-nic none), no host files (only
 * -kernel and -initrd), and two outputs: the kernel's serial console, captured to a log file,
 * and, where the arch has one (arches.conf's guest-channel), the guest's own console, a file
 * QEMU writes, where the guest writes its KTAP.
 * Its expectations travel on the kernel command line (see guest-tests/kcmp_init.c).
 */
#ifndef KCMPM_BOOT_H
#define KCMPM_BOOT_H

#include "matrix.h"

struct boot_req {
	const struct arch *arch;
	const char *qemu;		/* overrides the arch's QEMU program when set */
	const char *kernel;
	const char *initramfs;
	char *const *guest_args;	/* KEY=value words for the guest, NULL-terminated */
	const char *log_path;		/* serial console (and QEMU's own messages) */
	const char *guest_log;		/* where the arch's guest channel goes (a file QEMU writes);
					 * NULL: no channel (a shell's boot). QEMU runs in its
					 * directory, so every other path must be absolute */
	double timeout;
};

struct boot_outcome {
	int timed_out;
	int status;		/* QEMU's exit status, 128+sig if killed */
	double seconds;
};

/* argv for QEMU; its strings belong to r, *cmdline and *chardev. The caller frees the vector,
 * *cmdline and *chardev. */
const char **boot_argv(const struct boot_req *r, char **cmdline, char **chardev);
/* The QEMU command line a boot runs, as one quoted line (caller frees). */
char *boot_command(const struct boot_req *r);

/* Boots and waits (the caller records the command line, boot_command, where it wants it).
 * Returns -1 only when QEMU could not be started (err says why). */
int boot_run(const struct boot_req *r, struct boot_outcome *out, char *err, size_t errlen);

#endif
