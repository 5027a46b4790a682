/* make_cmd: see make_cmd.h. */
#define _GNU_SOURCE
#include "make_cmd.h"
#include "matrix.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int make_cmd(const struct build_ctx *b, const char **argv, char **own, int nextra,
		     char **extra)
{
	int n = 0, k = 0;

	argv[n++] = b->make;
	argv[n++] = "-C";
	argv[n++] = b->src;
	argv[n++] = own[k++] = xasprintf("O=%s", b->build_dir);
	argv[n++] = own[k++] = xasprintf("ARCH=%s", b->arch->kernel_arch);
	argv[n++] = own[k++] = xasprintf("CROSS_COMPILE=%s", b->arch->cross_compile);
	if (b->cc_wrapper)
		argv[n++] = own[k++] = xasprintf("CC=%s %sgcc", b->cc_wrapper, b->arch->cross_compile);
	for (int i = 0; i < nextra; i++)
		argv[n++] = own[k++] = extra[i];
	argv[n] = NULL;
	own[k] = NULL;
	return n;
}

void make_cmd_free(char **own)
{
	for (int i = 0; own[i]; i++)
		free(own[i]);
}

void make_cmd_cannot_run(const struct build_ctx *b, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot run '%s': %s; install make (apt-get install make)", b->make,
		 strerror(errno));
}
