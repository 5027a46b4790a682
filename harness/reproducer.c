/* reproducer: see reproducer.h. */
#define _GNU_SOURCE
#include "reproducer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* text with every PLAN_REPRO_DIR replaced by "$out" (the script's mktemp directory). Caller
 * frees. */
static char *with_out_dir(const char *text)
{
	struct strbuf sb = { 0 };
	size_t n = strlen(PLAN_REPRO_DIR);

	for (const char *p = text ? text : ""; *p;) {
		const char *at = strstr(p, PLAN_REPRO_DIR);

		if (!at) {
			sb_printf(&sb, "%s", p);
			break;
		}
		sb_add(&sb, p, (size_t)(at - p));
		sb_printf(&sb, "\"$out\"");
		p = at + n;
	}
	sb_add(&sb, "", 0);
	return sb.s;
}

void write_reproducer(const struct matrix *m, const struct cell *c, const char *kernel_version)
{
	const char *vname = m->variant[c->variant].name, *tname = m->tree[c->tree].name;
	const char *aname = m->arch[c->arch].name;
	char *combo = plan_combo_name(m, c->combo), *template = plan_repro_template(m, c);
	char *make = with_out_dir(c->repro_make), *qemu = with_out_dir(c->repro_qemu);
	char *cell = xasprintf("TREES=%s ARCH=%s VARIANT=%s COMBO=%s", tname, aname, vname, combo);
	char *text, *path;

	text = xasprintf("#!/bin/sh\n"
			 "# kcmp-matrix cell %s %s %s %s (kernel %s)\n"
			 "# requested on top of matrix/base/: %s\n"
			 "#\n"
			 "# The same cell through the harness, from the repository top:\n"
			 "#   make cell %s\n"
			 "# and its kernel with an interactive busybox shell:\n"
			 "#   make shell %s\n"
			 "#\n"
			 "# By hand (this script): the cell's final .config (./config) built into a new\n"
			 "# directory of its own ($TMPDIR or /tmp, %s),\n"
			 "# then booted there as the harness boots it: the kernel's console here, the\n"
			 "# guest's KTAP in that directory's guest.log.\n"
			 "set -eu\ncd \"$(dirname \"$0\")\"\n"
			 "out=$(mktemp -d \"${TMPDIR:-/tmp}/%s\")\n"
			 "echo \"reproduce.sh: building in $out\" >&2\n"
			 "cp config \"$out/.config\"\n%s"
			 "# QEMU in the build directory: the guest channel's file (guest.log) goes\n"
			 "# there, not over the cell's own\n"
			 "cd \"$out\"\n"
			 "echo \"reproduce.sh: the guest's own output goes to $out/guest.log\" >&2\n"
			 "%s\n",
			 tname, aname, vname, combo, kernel_version, combo, cell, cell, template,
			 template, make, qemu);
	free(cell);
	path = xasprintf("%s/reproduce.sh", c->dir);
	if (write_file_atomic(path, text, strlen(text)) == 0)
		chmod(path, 0755);
	free(path);
	free(text);
	free(qemu);
	free(make);
	free(template);
	free(combo);
}
