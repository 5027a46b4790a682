/* guest: see guest.h. */
#define _GNU_SOURCE
#include "guest.h"
#include "digest.h"
#include "build.h"
#include "initramfs.h"
#include "spawn.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder of a source file ("." for a bare name). Caller frees. */
static char *source_dir(const char *src)
{
	const char *slash = strrchr(src, '/');

	return slash ? xasprintf("%.*s", (int)(slash - src), src) : xstrdup(".");
}

/* Hashes the file at path (its name and content; a missing file hashes as its name). */
static void digest_file(struct digest *h, const char *path)
{
	size_t len;
	char *text = read_file(path, &len);

	digest_add_string(h, path);
	if (text)
		digest_add(h, text, len);
	free(text);
}

/* What a static program is made from, hashed: the compiler command and version, the C
 * library it links in statically (its path, size and mtime), every file of the source's
 * folder (the guest's headers and test list), and the extra files (NULL-terminated; NULL:
 * none) it includes from elsewhere. */
static void program_key(const char *const *argv, const char *cc_version, const char *src_dir,
			const char *const *extra, const char *dir, char hex[17])
{
	const char *libc_argv[] = { argv[0], "-print-file-name=libc.a", NULL };
	char *log = xasprintf("%s/libc.log", dir), *libc = spawn_first_line(libc_argv, log);
	char *pattern = xasprintf("%s/*", src_dir);
	struct digest h;
	struct stat st;
	glob_t g;

	digest_init(&h);
	for (int i = 0; argv[i]; i++)
		digest_add_string(&h, argv[i]);
	digest_add_string(&h, cc_version);
	if (libc && stat(libc, &st) == 0) {
		char id[600];

		snprintf(id, sizeof(id), "%s %lld %lld", libc, (long long)st.st_size,
			 (long long)st.st_mtime);
		digest_add_string(&h, id);
	}
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			digest_file(&h, g.gl_pathv[i]);
		globfree(&g);
	}
	for (int i = 0; extra && extra[i]; i++)
		digest_file(&h, extra[i]);
	digest_tag(&h, hex);
	free(log);
	free(libc);
	free(pattern);
}

/* Compiles a static program (argv names out) unless out was compiled from the same inputs
 * (out.key); what names the program in messages. Returns 0, or -1 with why in err. */
static int compile_program(const struct arch *a, const char *const *argv, const char *out,
			   const char *what, const char *cc_version, const char *src_dir,
			   const char *const *extra, const char *dir, char *err, size_t errlen)
{
	char *log = xasprintf("%s/compile.log", dir), *key_path = xasprintf("%s.key", out);
	char key[17], *have = read_file(key_path, NULL);
	struct spawn_result res;
	int rc = -1;

	program_key(argv, cc_version, src_dir, extra, dir, key);
	if (have && !strcmp(have, key) && path_exists(out)) {
		rc = 0;
		goto out;
	}
	remove(log);
	unlink(key_path);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 300 }, &res)) {
		char *pkgs = matrix_arch_packages(a);

		snprintf(err, errlen, "arch %s: cannot run the compiler '%s': %s; install: apt-get "
			 "install %s", a->name, argv[0], strerror(errno), pkgs);
		free(pkgs);
	} else if (res.status) {
		char *text = read_file(log, NULL), first[512], *pkgs = matrix_arch_packages(a);

		build_first_error(text ? text : "", "", first, sizeof(first));
		snprintf(err, errlen, "arch %s: '%s' cannot compile and statically link %s (%s); "
			 "install: apt-get install %s (full log: %s)", a->name, argv[0], what, first,
			 pkgs, log);
		free(pkgs);
		free(text);
	} else if (write_file_atomic(key_path, key, strlen(key))) {
		snprintf(err, errlen, "cannot write '%s': %s", key_path, strerror(errno));
	} else {
		rc = 0;
	}
out:
	free(have);
	free(log);
	free(key_path);
	return rc;
}

/* The arch's guest channel as a device node of the initramfs, /dev/kcmpm-guest, which the
 * guest opens for its KTAP (guest_ktap.h); none for an arch without one. */
static void channel_node(const struct arch *a, struct initramfs_file nodes[2])
{
	nodes[0] = (struct initramfs_file){ .path = "dev/kcmpm-guest", .chardev = 1,
					    .major = a->channel_major, .minor = a->channel_minor };
	nodes[1] = (struct initramfs_file){ 0 };
	if (a->channel == CHANNEL_NONE)
		nodes[0] = nodes[1];
}

char *guest_prepare(const struct arch *a, const char *src, const char *cc_version,
		    const char *dir, char *err, size_t errlen)
{
	char *cc = xasprintf("%sgcc", a->cross_compile);
	char *init = xasprintf("%s/init", dir);
	char *cpio = xasprintf("%s/initramfs.cpio", dir);
	char *src_dir = source_dir(src);
	/* the guest's test list lives beside it, and the shared guest headers include it */
	const char *argv[] = { cc, "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-iquote",
			       src_dir, "-o", init, src, NULL };
	const char *paths[] = { "init", NULL }, *programs[] = { init, NULL };
	struct initramfs_file nodes[2];

	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto fail;
	}
	if (compile_program(a, argv, init, "the guest", cc_version, src_dir, NULL, dir, err,
			    errlen))
		goto fail;
	channel_node(a, nodes);
	if (initramfs_write_files(paths, programs, nodes, cpio)) {
		snprintf(err, errlen, "cannot write initramfs '%s': %s", cpio, strerror(errno));
		goto fail;
	}
	free(cc);
	free(init);
	free(src_dir);
	return cpio;
fail:
	free(src_dir);
	free(cc);
	free(init);
	free(cpio);
	return NULL;
}

static char *tests_path(const char *src)
{
	size_t len = strlen(src);

	if (len > 2 && !strcmp(src + len - 2, ".c"))
		len -= 2;
	return xasprintf("%.*s_tests.h", (int)len, src);
}

/* "KCMPM_TEST(name)" with a C identifier for name: the name, else NULL. */
static char *test_name(const char *line)
{
	static const char head[] = "KCMPM_TEST(";
	const char *name = line + strlen(head), *end = name;

	if (strncmp(line, head, strlen(head)))
		return NULL;
	while (isalnum((unsigned char)*end) || *end == '_')
		end++;
	if (end == name || strcmp(end, ")"))
		return NULL;
	return xasprintf("%.*s", (int)(end - name), name);
}

/* Drops a line's comment parts: "/ *" to "* /" across lines (state in *in_comment), and "//". */
static void strip_comment(char *line, int *in_comment)
{
	char *w = line;

	for (char *r = line; *r;) {
		if (*in_comment) {
			char *end = strstr(r, "*/");

			if (!end)
				break;
			*in_comment = 0;
			r = end + 2;
		} else if (r[0] == '/' && r[1] == '*') {
			*in_comment = 1;
			r += 2;
		} else if (r[0] == '/' && r[1] == '/') {
			break;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}

char **guest_tests(const char *src, char *err, size_t errlen)
{
	char *path = tests_path(src), *text = read_file(path, NULL), *save = NULL;
	char **tests = xcalloc(1, sizeof(*tests));
	int n = 0, lineno = 0, in_comment = 0;

	if (!text) {
		snprintf(err, errlen, "cannot read the guest's test list '%s': %s", path,
			 strerror(errno));
		goto fail;
	}
	for (char *line = text, *nl; line; line = nl) {
		char *word, *name;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		lineno++;
		strip_comment(line, &in_comment);
		word = strtok_r(line, " \t\r", &save);
		if (!word)
			continue;
		name = test_name(word);
		if (!name || strtok_r(NULL, " \t\r", &save)) {
			snprintf(err, errlen, "%s:%d: expected one KCMPM_TEST(name) per line", path,
				 lineno);
			free(name);
			goto fail;
		}
		tests = xrealloc(tests, sizeof(*tests) * (size_t)(n + 2));
		tests[n++] = name;
		tests[n] = NULL;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: lists no test; the guest must run at least one", path);
		goto fail;
	}
	free(path);
	free(text);
	return tests;
fail:
	free(path);
	free(text);
	free_strings(tests);
	return NULL;
}

char *guest_prepare_selftest(const struct arch *a, const char *init, const char *tree_path,
			     const char *src, const char *cc_version, const char *dir, char *err,
			     size_t errlen)
{
	char *cc = xasprintf("%sgcc", a->cross_compile), *path = xasprintf("%s/%s", tree_path, src);
	char *prog = xasprintf("%s/selftest", dir), *cpio = xasprintf("%s/initramfs.cpio", dir);
	char *src_dir = source_dir(path), *parent = source_dir(src_dir);
	/* kselftests include "../kselftest.h" (and friends) from their parent folder */
	char *shared = xasprintf("%s/kselftest.h", parent);
	const char *const extra[] = { shared, NULL };
	const char *argv[] = { cc, "-static", "-O2", "-o", prog, path, NULL };
	const char *paths[] = { "init", "selftest", NULL }, *programs[] = { init, prog, NULL };
	struct initramfs_file nodes[2];
	char what[600];
	int ok = 0;

	snprintf(what, sizeof(what), "the kernel's selftest %s", src);
	if (mkdir_p(dir))
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
	else if (!path_exists(path))
		snprintf(err, errlen, "the kernel tree '%s' has no selftest '%s' (matrix.conf's "
			 "selftest line)", tree_path, src);
	else if (compile_program(a, argv, prog, what, cc_version, src_dir, extra, dir, err,
				 errlen))
		;	/* err says why */
	else if (channel_node(a, nodes), initramfs_write_files(paths, programs, nodes, cpio))
		snprintf(err, errlen, "cannot write initramfs '%s': %s", cpio, strerror(errno));
	else
		ok = 1;
	free(shared);
	free(parent);
	free(src_dir);
	free(prog);
	free(path);
	free(cc);
	if (ok)
		return cpio;
	free(cpio);
	return NULL;
}
