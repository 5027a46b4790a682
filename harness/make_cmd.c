/* make_cmd: see make_cmd.h. */
#define _GNU_SOURCE
#include "make_cmd.h"
#include "matrix.h"
#include "spawn.h"
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

int make_cmd_kernel_words(const struct build_ctx *b, const char *tag, int modules, int own_jobs,
			  char *words[6])
{
	int n = 0;

	if (own_jobs)
		words[n++] = xasprintf("-j%d", b->jobs);
	words[n++] = xasprintf("KBUILD_BUILD_TIMESTAMP=kcmpm-%s", tag);
	words[n++] = xstrdup("KBUILD_BUILD_USER=kcmp-matrix");
	words[n++] = xstrdup("KBUILD_BUILD_HOST=kcmp-matrix");
	words[n++] = xstrdup(b->arch->make_target);
	if (modules)
		words[n++] = xstrdup("modules");
	return n;
}

char *make_cmd_reproducer(const struct build_ctx *b, const char *tag, int modules,
			  const char *out_dir)
{
	struct build_ctx there = *b;
	char *config[] = { xstrdup("olddefconfig") }, *kernel[6];
	const char *argv[MAKE_MAX_ARGS];
	char *own[MAKE_MAX_ARGS], *lines[2];
	int nword;

	there.build_dir = (char *)out_dir;
	nword = make_cmd_kernel_words(b, tag, modules, 1, kernel);
	make_cmd(&there, argv, own, 1, config);
	lines[0] = spawn_format_argv(argv);
	make_cmd_free(own);
	make_cmd(&there, argv, own, nword, kernel);
	lines[1] = spawn_format_argv(argv);
	make_cmd_free(own);
	char *text = xasprintf("%s\n%s\n", lines[0], lines[1]);

	free(lines[0]);
	free(lines[1]);
	return text;
}
