/* reproducer: see reproducer.h. */
#define _GNU_SOURCE
#include "reproducer.h"
#include "boot.h"
#include "boot_stage.h"
#include "build.h"
#include "arch_tools.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* cells/.../reproduce.sh: the cell again through make cell, and by hand: its final .config
 * built into a scratch directory with the same make commands, then booted with the same QEMU
 * line. For a person to read and run; the harness never runs it. */
void write_reproducer(const struct group *g, const struct cell *c)
{
	const struct arch *a = &g->m->arch[c->arch];
	const char *vname = g->m->variant[c->variant].name, *tname = g->m->tree[c->tree].name;
	char *combo = plan_combo_name(g->m, c->combo), *args[MAX_GUEST_ARGS];
	char *out = xasprintf("/tmp/kcmpm-repro/%s-%s-%s-%s", tname, vname, a->name, c->config_tag);
	char *make = build_reproducer(&g->b, c->config_tag, g->modules, out);
	char *kernel = xasprintf("%s/%s", out, a->image), *qemu, *text, *path;
	char *cell = xasprintf("TREES=%s ARCH=%s VARIANT=%s COMBO=%s", tname, a->name, vname, combo);

	guest_args(g, c, args);
	qemu = boot_command(&(struct boot_req){ .arch = a, .qemu = g->o->qemu, .kernel = kernel,
						.initramfs = g->tools->initramfs, .guest_args = args });
	text = xasprintf("#!/bin/sh\n"
			 "# kcmp-matrix cell %s %s %s %s (kernel %s)\n"
			 "# requested on top of matrix/base/: %s\n"
			 "#\n"
			 "# The same cell through the harness, from the repository top:\n"
			 "#   make cell %s\n"
			 "# and its kernel with an interactive busybox shell:\n"
			 "#   make shell %s\n"
			 "#\n"
			 "# By hand (this script): the cell's final .config (./config) built into %s,\n"
			 "# then booted as the harness boots it; the guest prints KTAP on the console.\n"
			 "set -eu\ncd \"$(dirname \"$0\")\"\nmkdir -p %s\ncp config %s/.config\n%s%s\n",
			 tname, a->name, vname, combo, g->t->version, combo, cell, cell, out, out, out,
			 make, qemu);
	free(cell);
	path = xasprintf("%s/reproduce.sh", c->dir);
	if (write_file_atomic(path, text, strlen(text)) == 0)
		chmod(path, 0755);
	for (int i = 0; args[i]; i++)
		free(args[i]);
	free(path);
	free(text);
	free(qemu);
	free(kernel);
	free(make);
	free(out);
	free(combo);
}
