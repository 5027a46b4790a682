/* shell: see shell.h. */
#define _GNU_SOURCE
#include "shell.h"
#include "cache_layout.h"
#include "boot.h"
#include "initramfs.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cache/shell/<arch>/initramfs.cpio around the busybox; NULL with a message printed. */
static char *shell_initramfs(const struct run_opts *o, const struct arch *a, const char *busybox)
{
	size_t len, cpio_len;
	char *prog = read_file(busybox, &len), *cpio, *dir, *path = NULL;

	if (!prog) {
		warn("cannot read busybox '%s': %s; %s", busybox, strerror(errno),
		     a->cross_compile[0] ? "pass BUSYBOX= a static busybox built for this arch"
					 : "install it: apt-get install busybox-static");
		return NULL;
	}
	if (len < 20 || memcmp(prog, "\177ELF", 4)) {
		warn("'%s' is not an ELF program; pass BUSYBOX= a static busybox", busybox);
		free(prog);
		return NULL;
	}
	cpio = initramfs_build_at("bin/sh", prog, len, &cpio_len);
	dir = cache_shell_dir(o->cache_dir, a->name);
	if (mkdir_p(dir) == 0) {
		path = xasprintf("%s/initramfs.cpio", dir);
		if (write_file_atomic(path, cpio, cpio_len)) {
			warn("cannot write '%s': %s", path, strerror(errno));
			free(path);
			path = NULL;
		}
	} else {
		warn("cannot create '%s': %s", dir, strerror(errno));
	}
	free(dir);
	free(prog);
	free(cpio);
	return path;
}

int shell_boot(const struct run_opts *o, const struct matrix *m, const struct tree *t,
	       const struct cell *c, const char *busybox)
{
	const struct arch *a = &m->arch[c->arch];
	char *rdinit[] = { "rdinit=/bin/sh", NULL }, *kernel, *initramfs, *cmdline, *line, *chardev;
	const char **argv;

	if (!c->built) {
		warn("shell: this cell's kernel did not build (%s); nothing to boot", c->reason);
		return EXIT_HARNESS;
	}
	if (!busybox && a->cross_compile[0]) {
		warn("shell: no static busybox for %s here (Debian's busybox-static is for this "
		     "machine's arch); pass BUSYBOX=/path/to/a/static/%s/busybox", a->name, a->name);
		return EXIT_HARNESS;
	}
	initramfs = shell_initramfs(o, a, busybox ? busybox : "/bin/busybox");
	if (!initramfs)
		return EXIT_HARNESS;
	kernel = run_kernel_image(o, m, t, c);
	struct boot_req req = { .arch = a, .qemu = o->qemu, .kernel = kernel,
				.initramfs = initramfs, .guest_args = rdinit };

	argv = boot_argv(&req, &cmdline, &chardev);	/* no guest_log: the shell needs no channel */
	line = spawn_format_argv(argv);
	fprintf(stderr, "kcmp-matrix: booting %s with a busybox shell on the console; leave with "
		"'exit' (or Ctrl-A X)\n%s\n", kernel, line);
	spawn_exec(argv);
	warn("cannot run '%s': %s", argv[0], strerror(errno));
	free(line);
	free(argv);
	free(cmdline);
	free(chardev);
	free(kernel);
	free(initramfs);
	return EXIT_HARNESS;
}
