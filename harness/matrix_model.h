/* matrix_model: the types of a loaded matrix (struct matrix and its parts), apart from the
 * functions that load it (matrix.h, matrix_conf.h) and ask it (matrix_values.h), so those
 * files share them without calling each other in a circle.
 */
#ifndef KCMPM_MATRIX_MODEL_H
#define KCMPM_MATRIX_MODEL_H

#include "arches.h"
#include "ktap.h"
#include "rules.h"

#include <stddef.h>

enum { MAX_SYSCALLS = 8 };	/* matrix.conf's syscalls line (syscalls.h) */

enum { MAX_GUEST_CONFIG = 8, MAX_TREES = 8, MAX_FLAVOURS = 8 };

/* A kernel tree the matrix is asked of: a Debian package's tarball (matrix.conf's 'tree NAME
 * PACKAGE TARBALL' lines), or a KSRC directory. version and path are known once the tree is
 * unpacked (or read back from a run's results). */
struct tree_decl {
	char *name;		/* what TREES= and the reports call it: "6.1" */
	char *package;		/* the Debian package that installs the tarball; NULL for KSRC */
	char *tarball;		/* NULL for KSRC */
	char *ksrc;		/* a KSRC tree's directory, else NULL */
	char *version;		/* "6.1.192", from the tree's Makefile; NULL until known */
	char *path;		/* the tree's top; NULL until known */
};

/* One thing this machine needs for kernel builds (host.conf), and the package that brings it. */
struct host_need {
	int header;		/* 1: a header the host compiler must find; 0: a program in PATH */
	char *name;		/* "flex", "gelf.h" */
	char *package;		/* "flex", "libelf-dev" */
};

/* A pattern over the symbols and the arch: "SYM=y|m|n|unset" and "ARCH=name" terms joined by
 * commas, all of which must hold. */
struct pattern {
	char want[MAX_SYMBOLS];	/* the value symbol i must have, or 0 for any */
	int arch;		/* arch index, or -1 for any */
};

/* What a known failure declares fails: only that failure of the cells it covers is XFAIL. */
enum xfail_kind {
	XFAIL_BUILD,		/* build:TEXT    the kernel did not build, its error holds TEXT */
	XFAIL_TEST,		/* test:NAME     that guest test failed, and nothing else did */
	XFAIL_WARNING,		/* warning:TEXT  the kernel warned with a line holding TEXT, and
				 * nothing else failed */
};

/* A known failure, from kernel-patch/<variant>/xfail: lines "xfail PATTERN KIND REASON...". */
struct xfail {
	struct pattern pattern;
	enum xfail_kind kind;
	char *match;		/* TEXT or NAME of the kind word */
	int lineno;
	char *reason;
};

struct variant {
	char *name;
	char *rules_path;
	struct rules rules;
	char *patch_dir;	/* kernel-patch/<name> */
	char *xfail_path;
	int nxfail;
	struct xfail *xfail;
};

/* A flavour (matrix.conf's flavour lines): base fragments a run adds when asked for it by name
 * (--flavour, FLAVOUR=), after the base line's and before the arch's. Its kernels are other
 * kernels (their configs differ) and build in directories of their own (build_dirs.h). */
struct flavour {
	char *name;
	char **fragments;	/* base fragment names, NULL-terminated */
};

struct matrix {
	int ntree;
	struct tree_decl tree[MAX_TREES];	/* matrix.conf's trees, in file order, then KSRC */
	int nsym;
	char *sym[MAX_SYMBOLS + 1];	/* NULL-terminated */
	char values[MAX_SYMBOLS][5];	/* the values symbol i takes, as its Kconfig type allows:
					 * "ny" (bool, the default) or "nmy" (tristate), then
					 * VALUE_UNSET when it takes unset too */
	int takes_unset[MAX_SYMBOLS];	/* matrix.conf's unset line, or --unset */
	int narch;
	struct arch *arch;
	int nvariant;
	struct variant *variant;
	char **base;			/* base fragment names, NULL-terminated: the base line's,
					 * then the flavour's in use */
	int nflavour;
	struct flavour flavour[MAX_FLAVOURS];
	const char *flavour_in_use;	/* the flavour's name (matrix_use_flavour), NULL: none */
	int build_order[MAX_SYMBOLS];	/* symbol indices, slowest-changing first */
	int nsplit;
	int split[MAX_SYMBOLS];		/* build-split: one kernel build directory per combination
					 * of these symbols' resolved values (indices) */
	int nneed;
	struct host_need *need;		/* host.conf, in file order */
	int nobs;
	const char *obs[MAX_OBSERVABLES];	/* what the guest observes, as every variant's rules
						 * declare it (the same names in the same order);
						 * obs[0] is the headline */
	char **guest_config;		/* symbols whose value each guest is told (matrix.conf's
					 * guest-config line), NULL-terminated */
	char *guest_src;		/* the guest test's source (guest) */
	char *selftest_src;		/* the kernel's own test of the question, a path in the
					 * tree (selftest); NULL: none */
	char **selftest_needs;		/* OBS=STATE words the prediction must hold for it to
					 * run, NULL-terminated */
	int selftest_lineno;
	char *patch_root;		/* the variants' series live in patch_root/<variant>/ */
	char *base_dir;			/* base fragments: base_dir/<name>.config, <arch>.config */
	char *arches_file, *host_file;	/* arches.conf and host.conf */
	char **extra_arches;		/* matrix.conf's extra-arches line, or NULL */
	char **syscalls;		/* its syscalls line: the calls the guest makes by
					 * number (syscalls.h); NULL: none */
};

#endif
