/* reproducer: a cell's reproduce.sh builds in a directory it makes itself (mktemp), never in a
 * name published in the results that another user could have made first. */
#define _GNU_SOURCE
#include "check.h"
#include "fixtures.h"
#include "plan.h"
#include "reproducer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

TEST(reproducer_builds_in_a_directory_of_its_own)
{
	struct matrix m;
	struct plan p;
	struct cell *c;
	char dir[] = "/tmp/kcmpm-repro-test-XXXXXX", *path, *text;
	int status;

	fixture_plan(&m, &p);
	CHECK(mkdtemp(dir) != NULL);
	c = &p.cell[0];
	c->dir = xstrdup(dir);
	snprintf(c->kernel_tag, sizeof(c->kernel_tag), "0123456789abcdef");
	c->repro_make = xstrdup("make -C /t O=" PLAN_REPRO_DIR " olddefconfig\n"
				  "make -C /t O=" PLAN_REPRO_DIR " -j2 bzImage\n");
	c->repro_qemu = xstrdup("qemu-system-x86_64 -kernel " PLAN_REPRO_DIR
				  "/arch/x86/boot/bzImage -append 'console=ttyS0'");
	write_reproducer(&m, c, "6.1.192");
	path = xasprintf("%s/reproduce.sh", dir);
	text = read_file(path, NULL);
	CHECK_CONTAINS(text, "out=$(mktemp -d \"${TMPDIR:-/tmp}/kcmpm-repro-6.1-v3-x86_64-"
		       "0123456789abcdef.XXXXXX\")\n");
	CHECK_CONTAINS(text, "cp config \"$out/.config\"\n");
	CHECK_CONTAINS(text, "make -C /t O=\"$out\" olddefconfig\n");
	CHECK_CONTAINS(text, "-kernel \"$out\"/arch/x86/boot/bzImage -append");
	/* QEMU runs in $out, so the guest channel's guest.log is written there, never over the
	 * cell's own (seen: a run of the script rewrote the results' guest.log) */
	CHECK(text && strstr(text, "cd \"$out\"\n") &&
	      strstr(text, "cd \"$out\"\n") < strstr(text, "qemu-system-x86_64"));
	CHECK(text && !strstr(text, PLAN_REPRO_DIR) && !strstr(text, "/tmp/kcmpm-repro/"));
	/* and it is a shell script sh reads */
	{
		char *cmd = xasprintf("sh -n '%s'", path);

		status = system(cmd);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		free(cmd);
	}
	free(text);
	free(path);
	remove_tree(dir);
	plan_free(&p);
	matrix_free(&m);
}
