/* Loading the matrix description, and what a broken one says. */
#define _GNU_SOURCE
#include "check.h"
#include "conf_file.h"
#include "matrix.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(matrix_loads_the_repository_data)
{
	struct matrix m;
	char err[512] = "";

	CHECK(matrix_load("matrix", NULL, &m, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(m.nsym >= 1 && m.narch >= 1 && m.nvariant >= 1 && m.nobs >= 1);
	CHECK(m.guest_src && path_exists(m.guest_src));	/* matrix.conf's guest, from its folder */
	CHECK_STR(m.sym[1], "KCMP");
	CHECK_STR(m.arch[matrix_arch_index(&m, "arm64")].cross_compile, "aarch64-linux-gnu-");
	CHECK_STR(m.arch[matrix_arch_index(&m, "x86_64")].cross_compile, "");
	matrix_free(&m);
}

static int has_line(char **list, const char *text)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i], text))
			return 1;
	return 0;
}

/* arches.conf's crash and warning lines: those outside an arch block hold for every arch, an
 * arch's own only for it; a line keeps its spaces. */
TEST(matrix_console_marks_per_arch)
{
	struct matrix m;
	char err[512] = "";
	const struct arch *x86, *arm;

	CHECK(matrix_load("matrix", NULL, &m, err, sizeof(err)) == 0);
	x86 = &m.arch[matrix_arch_index(&m, "x86_64")];
	arm = &m.arch[matrix_arch_index(&m, "arm64")];
	CHECK(has_line(x86->marks.crash, "Kernel panic") && has_line(arm->marks.crash, "Kernel panic"));
	CHECK(has_line(x86->marks.crash, "general protection fault"));
	CHECK(!has_line(arm->marks.crash, "general protection fault"));
	CHECK(has_line(arm->marks.crash, "Unable to handle kernel"));
	CHECK(has_line(x86->marks.warning, "WARNING:") && has_line(arm->marks.warning, "WARNING:"));
	CHECK(has_line(x86->marks.warning, "blocked for more than"));
	CHECK(!has_line(x86->marks.warning, "Kernel panic"));
	matrix_free(&m);
}

/* A known failure names its kind; an old-style line without one is refused, with the kinds. */
TEST(matrix_xfail_declares_a_kind)
{
	char dir[] = "/tmp/kcmpm-xfail-XXXXXX", err[512] = "";
	struct matrix m;
	char *vdir, *xfail;

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	{
		const struct variant *v = &m.variant[matrix_variant_index(&m, "v1")];

		CHECK(v->nxfail == 2 && v->xfail[0].kind == XFAIL_BUILD &&
		      v->xfail[1].kind == XFAIL_WARNING);
		CHECK_STR(v->xfail[0].match, "get_epoll_tfile_raw_ptr");
		CHECK_CONTAINS(v->xfail[0].reason, "v1 calls get_epoll_tfile_raw_ptr()");
	}
	matrix_free(&m);
	CHECK(mkdtemp(dir) != NULL);
	vdir = xasprintf("%s/v1", dir);
	xfail = xasprintf("%s/xfail", vdir);
	mkdir_p(vdir);
	CHECK(write_file_atomic(xfail, "format 1\nxfail KCMP=y it fails\n", 31) == 0);
	CHECK(matrix_load(FIXTURE_MATRIX, dir, &m, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "xfail:2: expected 'xfail PATTERN KIND REASON', KIND one of build:TEXT");
	CHECK(write_file_atomic(xfail, "format 1\nxfail KCMP=y test: it fails\n", 37) == 0);
	CHECK(matrix_load(FIXTURE_MATRIX, dir, &m, err, sizeof(err)) == -1);
	CHECK(write_file_atomic(xfail, "format 1\nxfail KCMP=y warning:WARN it does\n", 43) == 0);
	CHECK(matrix_load(FIXTURE_MATRIX, dir, &m, err, sizeof(err)) == 0);
	if (m.nsym) {
		CHECK(m.variant[matrix_variant_index(&m, "v1")].xfail[0].kind == XFAIL_WARNING);
		matrix_free(&m);
	}
	/* known failures are matched on resolved values, which are never unset */
	CHECK(write_file_atomic(xfail, "format 1\nxfail KCMP=unset build:x it fails\n", 42) == 0);
	CHECK(matrix_load(FIXTURE_MATRIX, dir, &m, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "xfail:2: KCMP=unset: an xfail pattern is matched on the resolved "
		       "values, and a resolved symbol is y, m or n");
	remove_tree(dir);
	free(xfail);
	free(vdir);
}

/* Every package a fresh machine needs is named in the data, the ones a package merely
 * recommends included: the arm64 C library is only a Recommends of the cross compiler. */
TEST(matrix_names_every_package)
{
	struct matrix m;
	char err[512] = "", *arm64, *x86;
	int gelf = 0;

	CHECK(matrix_load("matrix", "kernel-patch", &m, err, sizeof(err)) == 0);
	CHECK(m.ntree == 2);
	CHECK_STR(m.tree[0].name, "6.1");
	CHECK_STR(m.tree[0].package, "linux-source-6.1");
	CHECK_STR(m.tree[0].tarball, "/usr/src/linux-source-6.1.tar.xz");
	CHECK_STR(m.tree[1].name, "6.12");
	CHECK_STR(m.tree[1].package, "linux-source-6.12");
	CHECK_STR(m.tree[1].tarball, "/usr/src/linux-source-6.12.tar.xz");
	arm64 = matrix_arch_packages(&m.arch[matrix_arch_index(&m, "arm64")]);
	x86 = matrix_arch_packages(&m.arch[matrix_arch_index(&m, "x86_64")]);
	CHECK_STR(arm64, "gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm");
	CHECK_STR(x86, "gcc libc6-dev qemu-system-x86");
	for (int i = 0; i < m.nneed; i++)
		gelf += m.need[i].header && !strcmp(m.need[i].name, "gelf.h") &&
			!strcmp(m.need[i].package, "libelf-dev");
	CHECK(gelf == 1);
	free(arm64);
	free(x86);
	matrix_free(&m);
}

static const char good_conf[] = "format 1\ntree 6.1 linux-source-6.1 /usr/src/linux-source-6.1.tar.xz\n"
				"symbols EXPERT KCMP CHECKPOINT_RESTORE DRM EPOLL\n"
				"arches x86_64\nvariants v3\n";
static const char good_host[] = "format 1\nprogram make make\nheader gelf.h libelf-dev\n";

/* A scratch matrix dir with the given matrix.conf, arches.conf and host.conf; returns the load
 * error. */
static const char *load_with_host(const char *conf, const char *arches, const char *host)
{
	static char err[512];
	char dir[] = "/tmp/kcmpm-matrix-XXXXXX";
	struct matrix m;
	char *p;

	err[0] = 0;
	CHECK(mkdtemp(dir) != NULL);
	p = xasprintf("%s/rules", dir);
	mkdir_p(p);
	free(p);
	p = xasprintf("%s/matrix.conf", dir);
	write_file_atomic(p, conf, strlen(conf));
	free(p);
	p = xasprintf("%s/arches.conf", dir);
	write_file_atomic(p, arches, strlen(arches));
	free(p);
	p = xasprintf("%s/host.conf", dir);
	write_file_atomic(p, host, strlen(host));
	free(p);
	p = xasprintf("%s/rules/v3.rules", dir);
	copy_file("matrix/rules/v3.rules", p);
	free(p);
	if (matrix_load(dir, NULL, &m, err, sizeof(err)) == 0) {
		matrix_free(&m);
		snprintf(err, sizeof(err), "(loaded)");
	}
	remove_tree(dir);
	return err;
}

static const char *load_with(const char *conf, const char *arches)
{
	return load_with_host(conf, arches, good_host);
}

static const char *load_with_arches(const char *arches)
{
	return load_with(good_conf, arches);
}

static const char good_arches[] = "format 1\narch x86_64\n\tkernel-arch x86_64\n"
				  "\tcross-compile -\n\tmake-target bzImage\n"
				  "\timage arch/x86/boot/bzImage\n\tconsole ttyS0\n"
				  "\tboot-timeout 60\n\tbuild-timeout 600\n"
				  "\tqemu qemu-system-x86_64 -machine pc -m 128\n"
				  /* the arch symbols matrix/rules/v3.rules names */
				  "\tkconfig AGP=n EMULATED_CMPXCHG=n HAS_DMA=y HAS_IOMEM=y\n";

TEST(matrix_tree_and_host_errors)
{
	CHECK_CONTAINS(load_with(good_conf, good_arches), "(loaded)");
	/* an arch on both lines is a mistake; one only on extra-arches must be described too */
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /usr/src/l.tar.xz\n"
				 "symbols EXPERT\narches x86_64\nextra-arches x86_64\nvariants v3\n",
				 good_arches),
		       "matrix.conf: arch 'x86_64' is on both the arches and the extra-arches line");
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /usr/src/l.tar.xz\n"
				 "symbols EXPERT\narches x86_64\nextra-arches s390x\nvariants v3\n",
				 good_arches),
		       "s390x");
	CHECK_CONTAINS(load_with("format 1\nsymbols EXPERT\narches x86_64\nvariants v3\n",
				 good_arches),
		       "needs 'tree', 'symbols', 'arches' and 'variants' lines");
	CHECK_CONTAINS(load_with("format 1\ntree linux-source-6.1 /usr/src/linux.tar.xz\n",
				 good_arches),
		       "matrix.conf:2: expected 'tree NAME PACKAGE /path/to/tarball'");
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 linux.tar.xz\n", good_arches),
		       "matrix.conf:2: expected 'tree NAME PACKAGE /path/to/tarball'");
	CHECK_CONTAINS(load_with("format 1\ntree ../6.1 linux-source-6.1 /usr/src/l.tar.xz\n",
				 good_arches),
		       "matrix.conf:2: '../6.1' is not a plain name");
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 a /a.tar.xz\ntree 6.1 b /b.tar.xz\n",
				 good_arches),
		       "matrix.conf:3: tree '6.1' is declared twice");
	{
		char *split = xasprintf("%sbuild-split EPOLL NOSUCH\n", good_conf);
		char *twice = xasprintf("%sbuild-split EPOLL EPOLL\n", good_conf);

		CHECK_CONTAINS(load_with(split, good_arches), "matrix.conf:6: build-split: 'NOSUCH' "
			       "is not a symbol listed once in an earlier 'symbols' line");
		CHECK_CONTAINS(load_with(twice, good_arches), "build-split: 'EPOLL' is not a symbol");
		free(split);
		free(twice);
	}
	CHECK_CONTAINS(load_with_host(good_conf, good_arches, "format 1\nprogram flex\n"),
		       "host.conf:2: expected 'program NAME PACKAGE' or 'header FILE PACKAGE'");
	CHECK_CONTAINS(load_with_host(good_conf, good_arches, "format 1\nlibrary elf libelf-dev\n"),
		       "host.conf:2: expected 'program NAME PACKAGE'");
	CHECK_CONTAINS(load_with_host(good_conf, good_arches, "program make make\n"),
		       "expected 'format 1'");
}

TEST(matrix_arches_errors)
{
	CHECK_CONTAINS(load_with_arches("arch x86_64\n"), "expected 'format 1'");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tkernel-arch x86_64\n"),
		       "arch 'x86_64' has no 'cross-compile' line");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tboot-timeout soon\n"),
		       "arches.conf:3: boot-timeout must be a number of seconds from 0 to 86400");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tbuild-timeout -5\n"),
		       "arches.conf:3: build-timeout must be a number of seconds from 0 to 86400");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tcolour blue\n"),
		       "arches.conf:3: unknown arch attribute 'colour'");
	CHECK_CONTAINS(load_with_arches("format 1\nmachine x86_64\n"),
		       "arches.conf:2: expected 'arch NAME'");
}

/* Guests get no network and no host files: arches.conf may give only the machine, its
 * accelerator, CPU, memory and CPU count, with plain values; QEMU's --opt is -opt. */
TEST(matrix_qemu_lines_keep_guests_isolated)
{
	static const char head[] = "format 1\narch x86_64\n\tkernel-arch x86_64\n\tcross-compile -\n"
				   "\tmake-target bzImage\n\timage arch/x86/boot/bzImage\n\tconsole ttyS0\n"
				   "\tboot-timeout 60\n\tbuild-timeout 600\n"
				   "\tkconfig AGP=n EMULATED_CMPXCHG=n HAS_DMA=y HAS_IOMEM=y\n";
	static const struct {
		const char *qemu, *message;
	} lines[] = {
		{ "qemu-system-x86_64 -machine pc -accel tcg -cpu max,pauth-impdef=on -m 128 -smp 1",
		  "(loaded)" },
		{ "qemu-system-x86_64 --machine pc", "(loaded)" },
		{ "qemu-system-x86_64 -nic user", "qemu option '-nic' is not one arches.conf may give" },
		{ "qemu-system-x86_64 --nic user", "qemu option '--nic' is not one" },
		{ "qemu-system-x86_64 -drive file=/etc/passwd", "qemu option '-drive' is not one" },
		{ "qemu-system-x86_64 --drive file=/etc/passwd", "qemu option '--drive' is not one" },
		{ "qemu-system-x86_64 -virtfs local,path=/", "qemu option '-virtfs'" },
		{ "qemu-system-x86_64 -netdev user,id=n", "qemu option '-netdev'" },
		{ "qemu-system-x86_64 -fw_cfg file=/etc/shadow", "qemu option '-fw_cfg'" },
		{ "qemu-system-x86_64 -serial file:/tmp/x", "qemu option '-serial'" },
		{ "qemu-system-x86_64 -bios /etc/passwd", "qemu option '-bios'" },
		{ "qemu-system-x86_64 -machine virt,dumpdtb=x.dtb", "sets 'dumpdtb', which is not one" },
		{ "qemu-system-x86_64 -machine pc,boot.splash=x.jpg", "sets 'boot.splash', which is not" },
		{ "qemu-system-x86_64 -machine virt,gic-version=3,virtualization=on", "(loaded)" },
		{ "qemu-system-x86_64 -machine virt,highmem", "sets 'highmem', which is not one" },
		{ "qemu-system-x86_64 -cpu max,splash=1", "names a host file or program" },
		{ "/tmp/qemu -machine pc", "qemu program '/tmp/qemu' is not a plain qemu-system-NAME" },
		{ "sh -c", "qemu program 'sh' is not a plain qemu-system-NAME" },
		{ "qemu-system- -machine pc", "is not a plain qemu-system-NAME" },
		{ "qemu-system-x86_64 -machine pc,firmware=/x", "needs a plain value" },
		{ "qemu-system-x86_64 -m", "needs a plain value" },
		{ "qemu-system-x86_64 -m -nic", "needs a plain value" },
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *arches = xasprintf("%s\tqemu %s\n", head, lines[i].qemu);

		CHECK_CONTAINS(load_with_arches(arches), lines[i].message);
		free(arches);
	}
}

/* Names become path parts under results/ and the cache: no way out of them. */
TEST(matrix_names_are_plain_words)
{
	CHECK_CONTAINS(load_with("format 1\nsymbols EXPERT KCMP\narches x86_64\nvariants ../../etc\n",
				 "format 1\n"),
		       "matrix.conf:4: '../../etc' is not a plain name");
	CHECK_CONTAINS(load_with("format 1\nsymbols EXPERT KCMP\narches x86_64/..\nvariants v3\n",
				 "format 1\n"),
		       "matrix.conf:3: 'x86_64/..' is not a plain name");
	CHECK_CONTAINS(load_with("format 1\nsymbols EXPERT KCMP\narches x86_64\nvariants v3\nbase -x\n",
				 "format 1\n"),
		       "'-x' is not a plain name");
}

/* No string from a config, rules file, patch or console reaches a shell: the harness starts
 * programs only through spawn.c, with an argv, never through system(), popen() or sh -c. */
TEST(harness_never_starts_a_shell)
{
	DIR *d = opendir("harness");
	struct dirent *e;
	int files = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		char *path, *text;

		if (!strstr(e->d_name, ".c"))
			continue;
		path = xasprintf("harness/%s", e->d_name);
		text = read_file(path, NULL);
		files++;
		CHECK(text && !strstr(text, "system(") && !strstr(text, "popen(") &&
		      !strstr(text, "\"/bin/sh\"") && !strstr(text, "\"sh\""));
		if (text && strstr(e->d_name, "spawn.c") == NULL)
			CHECK(!strstr(text, "fork(") && !strstr(text, "execv") && !strstr(text, "execl"));
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	CHECK(files > 10);
}

/* '#' starts a comment; "\#" is a '#' of the line (arches.conf's crash mark "[\#"). */
TEST(conf_escaped_hash_is_not_a_comment)
{
	struct conf_file cf;
	char err[256] = "";

	CHECK(conf_parse("t.conf", "format 1\ncrash [\\# a # the comment\nx a\\#b\\#c # d\n", &cf,
			 err, sizeof(err)) == 0);
	CHECK(cf.nline == 3 && cf.line[1].nword == 3);
	CHECK_STR(cf.line[1].word[1], "[#");
	CHECK_STR(cf.line[1].word[2], "a");
	CHECK(cf.line[2].nword == 2);
	CHECK_STR(cf.line[2].word[1], "a#b#c");
	conf_free(&cf);
}

/* "selftest PATH OBS=STATE ...": a .c path inside the tree (no "..", not absolute), needs that
 * name observables of the rules; anything else is refused with its line. */
TEST(matrix_selftest_line)
{
	static const char *const bad[][2] = {
		{ "selftest /etc/passwd.c kcmp=works\n", "must be a .c file's path inside the kernel" },
		{ "selftest tools/../../x.c kcmp=works\n", "must be a .c file's path inside the kernel" },
		{ "selftest tools/testing/selftests/kcmp/Makefile\n", "must be a .c file's path" },
		{ "selftest tools/$(x)/t.c\n", "must be a .c file's path inside the kernel" },
		{ "selftest tools/t.c kcmp\n", "selftest needs OBSERVABLE=STATE words, not 'kcmp'" },
		{ "selftest tools/t.c kcmp=w;rm\n", "selftest needs OBSERVABLE=STATE words" },
		{ "selftest tools/t.c nosuch=works\n", "selftest need 'nosuch=works' names no "
						      "observable of the rules" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *conf = xasprintf("%s%s", good_conf, bad[i][0]);

		CHECK_CONTAINS(load_with(conf, good_arches), bad[i][1]);
		CHECK_CONTAINS(load_with(conf, good_arches), "matrix.conf:6:");
		free(conf);
	}
	{
		char *conf = xasprintf("%sselftest tools/testing/selftests/kcmp/kcmp_test.c "
				       "kcmp=works epoll=works\n", good_conf);

		CHECK_CONTAINS(load_with(conf, good_arches), "(loaded)");
		free(conf);
	}
}

/* "guest-channel KIND MAJOR:MINOR": serial or virtio-mmio, and the device's numbers. */
TEST(matrix_guest_channel)
{
	static const char *const bad[] = { "\tguest-channel usb 4:65\n", "\tguest-channel serial 4\n",
					   "\tguest-channel serial 4:65x\n",
					   "\tguest-channel serial\n", "\tguest-channel serial 9999:1\n" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *arches = xasprintf("%s%s", good_arches, bad[i]);

		CHECK_CONTAINS(load_with_arches(arches), "expected 'guest-channel serial|virtio-mmio "
			       "MAJOR:MINOR'");
		free(arches);
	}
	{
		char *arches = xasprintf("%s\tguest-channel virtio-mmio 229:0\n", good_arches);

		CHECK_CONTAINS(load_with_arches(arches), "(loaded)");
		free(arches);
	}
}

/* "flavour NAME FRAGMENT...": a flavour asked for by name adds its fragments to the base, after
 * the base line's; one not declared is a one-line error naming those there are. */
TEST(matrix_flavour_adds_its_fragments)
{
	static const char *const bad[][2] = {
		{ "flavour debug\n", "matrix.conf:6: a flavour line is 'flavour NAME FRAGMENT...'" },
		{ "flavour d a\nflavour d b\n", "matrix.conf:7: flavour 'd' is declared twice" },
		{ "flavour d ../x\n", "matrix.conf:6:" },
	};
	struct matrix m;
	char err[512] = "";

	CHECK(matrix_load("matrix", NULL, &m, err, sizeof(err)) == 0);
	CHECK(m.flavour_in_use == NULL);
	CHECK(matrix_use_flavour(&m, "nosuch", err, sizeof(err)) == -1);
	CHECK_STR(err, "flavour 'nosuch': matrix.conf declares no such flavour (declared: debug)");
	CHECK(matrix_use_flavour(&m, "debug", err, sizeof(err)) == 0);
	CHECK_STR(m.flavour_in_use, "debug");
	CHECK_STR(m.base[0], "common");
	CHECK_STR(m.base[1], "debug");
	CHECK(m.base[2] == NULL);
	matrix_free(&m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *conf = xasprintf("%s%s", good_conf, bad[i][0]);

		CHECK_CONTAINS(load_with(conf, good_arches), bad[i][1]);
		free(conf);
	}
}

/* An arch or variant listed twice would run its cells twice: refused, naming it. */
TEST(matrix_lists_name_each_once)
{
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /t.tar.xz\nsymbols EXPERT\n"
				 "arches x86_64\nvariants v3 v3\n", good_arches),
		       "matrix.conf:5: variants 'v3' is listed twice; list each once");
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /t.tar.xz\nsymbols EXPERT\n"
				 "arches x86_64 x86_64\nvariants v3\n", good_arches),
		       "matrix.conf:4: arches 'x86_64' is listed twice");
}

/* The syscalls and guest-config lines have room for MAX_SYSCALLS and MAX_GUEST_CONFIG words
 * (the guest's arguments and the tool hashes are sized by them): one more is refused, naming
 * the line and the bound; as many pass the line. */
TEST(matrix_bounded_lists_refuse_one_more)
{
	char *syscalls = xasprintf("%ssyscalls a b c d e f g h i\n", good_conf);
	char *symbols = xasprintf("%sguest-config A B C D E F G H I\n", good_conf);
	char *full = xasprintf("%ssyscalls kcmp a b c d e f g\n", good_conf);

	CHECK_CONTAINS(load_with(syscalls, good_arches), "matrix.conf:6: at most 8 syscalls");
	CHECK_CONTAINS(load_with(symbols, good_arches),
		       "matrix.conf:6: at most 8 guest-config symbols");
	/* eight pass the line: what stops this one is the arch's missing syscall table */
	CHECK_CONTAINS(load_with(full, good_arches), "has no 'syscall-table' line");
	free(syscalls);
	free(symbols);
	free(full);
}

/* The unset line, --unset's list and the name unset in patterns. */
TEST(matrix_unset_values)
{
	struct matrix m;
	struct pattern pat;
	char err[512] = "";

	CHECK(matrix_load("matrix", NULL, &m, err, sizeof(err)) == 0);
	/* the repository's matrix.conf gives unset to KCMP, the symbol the series adds */
	CHECK(m.takes_unset[1] && !m.takes_unset[0] && !m.takes_unset[4]);
	CHECK_STR(m.values[1], "nyu");
	matrix_set_type(&m, 1, 't');	/* a type set later keeps it */
	CHECK_STR(m.values[1], "nmyu");
	matrix_set_type(&m, 1, 'b');
	CHECK(matrix_ncombo(&m) == 2 * 3 * 2 * 2 * 2);
	CHECK(matrix_set_unset(&m, "all", err, sizeof(err)) == 0);
	CHECK(matrix_ncombo(&m) == 3 * 3 * 3 * 3 * 3);
	CHECK(matrix_set_unset(&m, "none", err, sizeof(err)) == 0);
	CHECK(matrix_ncombo(&m) == 32 && !strcmp(m.values[1], "ny"));
	CHECK(matrix_set_unset(&m, "EPOLL,EXPERT", err, sizeof(err)) == 0);
	CHECK(m.takes_unset[0] && !m.takes_unset[1] && m.takes_unset[4]);
	CHECK(matrix_set_unset(&m, "EPOL", err, sizeof(err)) == -1);
	CHECK_STR(err, "--unset: 'EPOL' is not a matrix symbol; give 'all', 'none' or symbols from "
		  "matrix.conf's symbols line, joined by commas");
	matrix_unset_in_pattern(&m, "EXPERT=y,KCMP=unset DRM=unset,ARCH=x86_64 FOO=unset");
	CHECK(m.takes_unset[1] && m.takes_unset[3] && !strcmp(m.values[1], "nyu"));
	CHECK(matrix_parse_pattern(&m, "KCMP=unset,EPOLL=n", "ONLY", &pat, err, sizeof(err)) == 0);
	CHECK(pat.want[1] == VALUE_UNSET && pat.want[4] == 'n');
	CHECK(matrix_parse_pattern(&m, "KCMP=unsetx", "ONLY", &pat, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "ONLY: bad term 'KCMP=unsetx'; expected SYMBOL=y, SYMBOL=m, SYMBOL=n, "
		       "SYMBOL=unset or ARCH=name");
	CHECK_STR(matrix_value_name(VALUE_UNSET), "unset");
	CHECK(matrix_value_from_name("unset") == VALUE_UNSET && matrix_value_from_name("m") == 'm');
	CHECK(matrix_value_from_name("u") == 0 && matrix_value_from_name("") == 0);
	matrix_free(&m);
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /t.tar.xz\nsymbols EXPERT\n"
				 "unset EXPERT EXPERT\narches x86_64\nvariants v3\n", good_arches),
		       "matrix.conf:4: unset: 'EXPERT' is not a symbol listed once in an earlier "
		       "'symbols' line");
	CHECK_CONTAINS(load_with("format 1\ntree 6.1 linux-source-6.1 /t.tar.xz\nunset EXPERT\n"
				 "symbols EXPERT\narches x86_64\nvariants v3\n", good_arches),
		       "matrix.conf:3: unset: 'EXPERT' is not a symbol");
}
