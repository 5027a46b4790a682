/* arches: matrix/arches.conf, the per-arch build and boot facts (its format is described in
 * that file): compiler, image, QEMU line, console, timeouts, packages, the guest's channel
 * and the console lines that are a crash or a warning. A QEMU line may add only the machine
 * and how fast it runs (qemu_refused): the harness composes the rest itself (boot.c).
 */
#ifndef KCMPM_ARCHES_H
#define KCMPM_ARCHES_H

#include "ktap.h"

#include <stddef.h>

/* The longest boot or build timeout (arches.conf, --boot-timeout, --build-timeout): a limit
 * past a day is no limit (1e300 s would never fire, and overflows a timespec). */
enum { MAX_TIMEOUT_SECONDS = 86400 };
/* A timeout's text as seconds: a finite number above 0 and at most MAX_TIMEOUT_SECONDS ("nan"
 * would turn the limit off). Returns 0, or -1 when s is not one. */
int arches_timeout_seconds(const char *s, double *seconds);

/* How QEMU gives the guest a console of its own, apart from the kernel's (arches.conf's
 * guest-channel): a second serial port, or a virtio console on virtio-mmio (machines with no
 * second UART, like arm64's virt). */
enum guest_channel {
	CHANNEL_NONE,		/* the guest writes its KTAP to the kernel's console */
	CHANNEL_SERIAL,
	CHANNEL_VIRTIO_MMIO,
};

struct arch {
	char *name;
	int extra;		/* matrix.conf's extra-arches: in a run when named, or with --arch
				 * all; not by default */
	char *kernel_arch;	/* ARCH= */
	char *cross_compile;	/* CROSS_COMPILE=, "" for native */
	char *make_target;
	char *image;		/* path of the image inside the build directory */
	char **qemu;		/* QEMU program and fixed arguments, NULL-terminated */
	char *console;
	char **append;		/* extra kernel command line words, NULL-terminated */
	double boot_timeout;
	double build_timeout;	/* seconds one kernel build may take */
	char **packages;	/* Debian packages of its compiler, C library and QEMU; NULL-terminated */
	char **syscall_table;	/* the tree's file that numbers its system calls, then the
				 * ABIs its kernel takes from it (syscalls.h); NULL: none */
	char **kconfig;		/* its values of the rules' arch symbols, "NAME=VALUE";
				 * NULL-terminated, or NULL */
	enum guest_channel channel;	/* the guest's own console for its KTAP (guest-channel) */
	unsigned channel_major, channel_minor;	/* its device in the guest */
	struct console_marks marks;	/* the console lines that are a crash or a kernel
					 * warning: arches.conf's lines for every arch, then its own */
};

/* Loads the arches named in wanted (matrix.conf's arches line, in its order) from path: a
 * vector of them in *arch, *narch long (NULL-free: the caller frees them with the matrix).
 * Returns -1 with a "file:line: what" message in err. */
int arches_load(const char *path, char **wanted, struct arch **arch, int *narch, char *err,
		size_t errlen);

#endif
