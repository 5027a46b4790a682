/* syscalls: the numbers the guest calls system calls by. The guest makes some calls with
 * syscall(SYS_<name>, ...) (matrix.conf's syscalls line names them); the number comes from
 * the arch's C library headers, and the kernel answers by its own table. Where the two
 * disagree the guest calls another system call, and every verdict of that arch means nothing;
 * so before any build each number is read from the headers (syscalls_libc_number, the
 * preflight) and checked against each tree's table for the arch (syscalls_check; arches.conf's
 * syscall-table: a syscall.tbl of "NR ABI NAME ENTRY" lines and the ABIs the arch's kernel
 * takes from it, or a header of "#define __NR_NAME NR" lines).
 */
#ifndef KCMPM_SYSCALLS_H
#define KCMPM_SYSCALLS_H

#include <stddef.h>

struct arch;
struct arch_tools;
struct matrix;
struct tree;

/* The number the C library's headers give SYS_<name>, as the compiler cc sees them (its
 * preprocessor on <sys/syscall.h>; scratch_dir holds the source and the output). Returns it,
 * or -1 with why in err. */
long syscalls_libc_number(const char *cc, const char *name, const char *scratch_dir, char *err,
			  size_t errlen);
/* The number a table's text gives name: a syscall.tbl line of one of the ABIs abis
 * (NULL-terminated), or a "#define __NR_<name> NR" line when abis is empty. -1 when it has
 * none. */
long syscalls_table_number(const char *text, char *const *abis, const char *name);
/* Each of the matrix's syscalls on each arch used (arch_used[a]), as tools[a] found it in the
 * C library, against the table of each tree used: 0, or -1 with the first that differs (or a
 * table that cannot be read) in err, naming the arch, the tree, the file and both numbers. */
int syscalls_check(const struct matrix *m, const struct tree *trees, const int *tree_used,
		   const int *arch_used, const struct arch_tools *tools, char *err, size_t errlen);

#endif
