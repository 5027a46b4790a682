/* syscalls: see syscalls.h. */
#define _GNU_SOURCE
#include "syscalls.h"
#include "arch_tools.h"
#include "matrix.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number as headers spell it: "312", or a sum such as "(0+378)" (arm's __NR_SYSCALL_BASE).
 * -1 when it is anything else. */
static long header_number(const char *s)
{
	long sum = 0;
	int terms = 0;

	while (*s) {
		char *end;

		if (strchr("()+ \t", *s)) {
			s++;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return -1;
		sum += strtol(s, &end, 0);
		s = end;
		terms++;
	}
	return terms ? sum : -1;
}

long syscalls_libc_number(const char *cc, const char *name, const char *scratch_dir, char *err,
			  size_t errlen)
{
	char *src = xasprintf("%s/syscall-%s.c", scratch_dir, name);
	char *out = xasprintf("%s/syscall-%s.i", scratch_dir, name);
	char *text = xasprintf("#include <sys/syscall.h>\nkcmpm_nr = SYS_%s ;\n", name), *got;
	const char *argv[] = { cc, "-E", "-P", src, NULL };
	struct spawn_result res;
	long nr = -1;

	if (write_file_atomic(src, text, strlen(text)) ||
	    spawn_run(&(struct spawn_req){ .argv = argv, .log_path = out, .timeout = 60 }, &res) ||
	    res.status != 0) {
		snprintf(err, errlen, "cannot preprocess <sys/syscall.h> with '%s' (see %s)", cc, out);
	} else if ((got = read_file(out, NULL))) {
		char *at = strstr(got, "kcmpm_nr = "), *end = at ? strchr(at, ';') : NULL;

		if (end) {
			*end = 0;
			nr = header_number(at + strlen("kcmpm_nr = "));
		}
		if (nr < 0)
			snprintf(err, errlen, "the C library's headers of '%s' give no number for "
				 "SYS_%s (see %s)", cc, name, out);
		free(got);
	}
	free(text);
	free(out);
	free(src);
	return nr;
}

/* "#define __NR_<name> NR" in a header. */
static long define_number(const char *text, const char *name)
{
	char *want = xasprintf("#define __NR_%s", name);
	size_t n = strlen(want);
	long nr = -1;

	for (const char *l = text; l && *l && nr < 0; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, want, n) && (l[n] == ' ' || l[n] == '\t')) {
			char *line = xasprintf("%.*s", (int)strcspn(l + n, "\n"), l + n);

			nr = header_number(line);
			free(line);
		}
	free(want);
	return nr;
}

long syscalls_table_number(const char *text, char *const *abis, const char *name)
{
	if (!abis || !abis[0])
		return define_number(text, name);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char nr[32], abi[64], sys[128];

		if (*l == '#' || sscanf(l, "%31s %63s %127s", nr, abi, sys) != 3 || strcmp(sys, name))
			continue;
		for (int i = 0; abis[i]; i++)
			if (!strcmp(abi, abis[i]))
				return header_number(nr);
	}
	return -1;
}

/* One arch's numbers against one tree's table. */
static int check_arch_tree(const struct matrix *m, const struct arch *a,
			   const struct arch_tools *t, const struct tree *tree, char *err,
			   size_t errlen)
{
	char *path = xasprintf("%s/%s", tree->path, a->syscall_table[0]);
	char *text = read_file(path, NULL);
	int rc = 0;

	if (!text) {
		snprintf(err, errlen, "arch %s: cannot read its syscall table '%s' (arches.conf's "
			 "syscall-table) in %s", a->name, a->syscall_table[0], tree->tag);
		rc = -1;
	}
	for (int i = 0; rc == 0 && m->syscalls[i]; i++) {
		long nr = syscalls_table_number(text, a->syscall_table + 1, m->syscalls[i]);

		if (nr != t->syscall_nr[i]) {
			char found[64];

			if (nr < 0)
				snprintf(found, sizeof(found), "no %s", m->syscalls[i]);
			else
				snprintf(found, sizeof(found), "%ld", nr);
			snprintf(err, errlen, "arch %s: SYS_%s is %ld in the C library's headers but "
				 "%s in %s's %s (arches.conf's syscall-table); the guest would call "
				 "another system call", a->name, m->syscalls[i], t->syscall_nr[i],
				 found, tree->tag, a->syscall_table[0]);
			rc = -1;
		}
	}
	free(text);
	free(path);
	return rc;
}

int syscalls_check(const struct matrix *m, const struct tree *trees, const int *tree_used,
		   const int *arch_used, const struct arch_tools *tools, char *err, size_t errlen)
{
	for (int a = 0; a < m->narch; a++) {
		if (!arch_used[a] || !m->syscalls || !m->syscalls[0])
			continue;
		for (int t = 0; t < m->ntree; t++)
			if (tree_used[t] && check_arch_tree(m, &m->arch[a], &tools[a], &trees[t], err,
							    errlen))
				return -1;
	}
	return 0;
}
