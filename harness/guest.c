/* guest: see guest.h. */
#define _GNU_SOURCE
#include "guest.h"
#include "build.h"
#include "initramfs.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *guest_prepare(const struct arch *a, const char *src, const char *dir, char *err,
		    size_t errlen)
{
	char *cc = xasprintf("%sgcc", a->cross_compile);
	char *init = xasprintf("%s/init", dir), *log = xasprintf("%s/compile.log", dir);
	char *cpio = xasprintf("%s/initramfs.cpio", dir);
	const char *argv[] = { cc, "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", init, src,
			       NULL };
	struct spawn_result res;

	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto fail;
	}
	remove(log);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 300 }, &res)) {
		char *pkgs = matrix_arch_packages(a);

		snprintf(err, errlen, "arch %s: cannot run the compiler '%s': %s; install: apt-get "
			 "install %s", a->name, cc, strerror(errno), pkgs);
		free(pkgs);
		goto fail;
	}
	if (res.status) {
		char *text = read_file(log, NULL), first[512], *pkgs = matrix_arch_packages(a);

		build_first_error(text ? text : "", "", first, sizeof(first));
		snprintf(err, errlen, "arch %s: '%s' cannot compile and statically link the guest "
			 "(%s); install: apt-get install %s (full log: %s)", a->name, cc, first, pkgs,
			 log);
		free(pkgs);
		free(text);
		goto fail;
	}
	if (initramfs_write(init, cpio)) {
		snprintf(err, errlen, "cannot write initramfs '%s': %s", cpio, strerror(errno));
		goto fail;
	}
	free(cc);
	free(init);
	free(log);
	return cpio;
fail:
	free(cc);
	free(init);
	free(log);
	free(cpio);
	return NULL;
}
