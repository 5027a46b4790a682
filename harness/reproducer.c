/* reproducer: see reproducer.h. */
#define _GNU_SOURCE
#include "reproducer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void write_reproducer(const struct matrix *m, const struct cell *c, const char *kernel_version)
{
	const char *vname = m->variant[c->variant].name, *tname = m->tree[c->tree].name;
	const char *aname = m->arch[c->arch].name;
	char *combo = plan_combo_name(m, c->combo), *out = plan_by_hand_dir(m, c), *text, *path;
	char *cell = xasprintf("TREES=%s ARCH=%s VARIANT=%s COMBO=%s", tname, aname, vname, combo);

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
			 tname, aname, vname, combo, kernel_version, combo, cell, cell, out, out, out,
			 c->by_hand_make ? c->by_hand_make : "", c->by_hand_qemu ? c->by_hand_qemu : "");
	free(cell);
	path = xasprintf("%s/reproduce.sh", c->dir);
	if (write_file_atomic(path, text, strlen(text)) == 0)
		chmod(path, 0755);
	free(path);
	free(text);
	free(out);
	free(combo);
}
