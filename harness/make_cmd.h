/* make_cmd: the kernel's make command line for a build context, shared by the config targets
 * (config_targets.h) and the kernel build (build.h): make -C <tree> O=<build directory>
 * ARCH=.. CROSS_COMPILE=.. (and CC= through a compiler wrapper), then the caller's words;
 * and a kernel build's words, which the reproducer's make commands share.
 */
#ifndef KCMPM_MAKE_CMD_H
#define KCMPM_MAKE_CMD_H

#include "build_ctx.h"

#include <stddef.h>

enum { MAKE_MAX_ARGS = 16 };

/* Fills argv (MAKE_MAX_ARGS entries) with the command and the nextra words of extra, which it
 * takes over: every string it made or took is in own, freed with make_cmd_free. Returns how
 * many words argv has. */
int make_cmd(const struct build_ctx *b, const char **argv, char **own, int nextra, char **extra);
void make_cmd_free(char **own);

/* Why make did not run (errno from spawn), and what to install, into err. */
void make_cmd_cannot_run(const struct build_ctx *b, char *err, size_t errlen);

/* The words after make's own of a kernel build: -j (unless jobs come from a jobserver: a -j
 * on make's command line would make it ignore MAKEFLAGS' one), the timestamp and the target
 * words (with "modules" when the config has them, so an m symbol is really built as a
 * module); free each. Returns how many. */
int make_cmd_kernel_words(const struct build_ctx *b, const char *tag, int modules, int own_jobs,
			  char *words[6]);

/* The two make commands that rebuild a kernel by hand into out_dir (whose .config is the
 * cell's final config), as shell lines: olddefconfig, then the image (and the modules, when
 * modules is set) with the same timestamp tag: the reproducer's (reproducer.h). Caller
 * frees. */
char *make_cmd_reproducer(const struct build_ctx *b, const char *tag, int modules,
			  const char *out_dir);

#endif
