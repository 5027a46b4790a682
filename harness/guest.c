/* guest: see guest.h. */
#define _GNU_SOURCE
#include "guest.h"
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

	if (!path_exists(src)) {
		snprintf(err, errlen, "guest source '%s' not found; run from the repository top or "
			 "pass --guest", src);
		goto fail;
	}
	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto fail;
	}
	remove(log);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 300 }, &res)) {
		char *pkgs = a->packages ? spawn_format_argv((const char *const *)a->packages)
					 : xstrdup("gcc");

		snprintf(err, errlen, "cannot run '%s' for arch %s: %s; install it: apt-get install %s",
			 cc, a->name, strerror(errno), pkgs);
		free(pkgs);
		goto fail;
	}
	if (res.status) {
		snprintf(err, errlen, "compiling guest '%s' for %s failed with status %d; see %s", src,
			 a->name, res.status, log);
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
