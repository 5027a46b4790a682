/* initramfs: the guest's root file system, an uncompressed "newc" cpio archive.
 *
 * It holds /dev, /dev/console (so /init has a console for stdio before any devtmpfs), /proc
 * (a mount point) and /init, the static guest test (and, where the question has one,
 * /selftest, the kernel's own test). Written without root: device nodes are
 * just archive entries. Every timestamp is 0, so the same /init gives the same bytes.
 */
#ifndef KCMPM_INITRAMFS_H
#define KCMPM_INITRAMFS_H

#include <stddef.h>

/* A file of the archive: its path ("init", "bin/sh", "dev/kcmpm-guest": one directory level
 * at most), a program (mode 0755), or with chardev a character device node (mode 0600, data
 * unused). */
struct initramfs_file {
	const char *path;
	const char *data;
	size_t len;
	int chardev;
	unsigned major, minor;
};

/* The archive with these files (each a program); caller frees. */
char *initramfs_build_files(const struct initramfs_file *files, int n, size_t *out_len);
/* Builds the archive in memory around the /init program given; caller frees. */
char *initramfs_build(const char *init, size_t init_len, size_t *out_len);
/* The same layout with the program at another path, like "bin/sh" (one directory level at
 * most), for a kernel booted with rdinit=/bin/sh. */
char *initramfs_build_at(const char *path, const char *prog, size_t len, size_t *out_len);

/* Reads the program at init_path and writes the archive to out_path atomically. */
int initramfs_write(const char *init_path, const char *out_path);
/* The same with several programs: paths[i] (NULL-terminated, at most 8) in the archive, read
 * from the file programs[i], and the device nodes of nodes (NULL: none; a list ending with a
 * NULL path). 0, or -1 with errno. */
int initramfs_write_files(const char *const *paths, const char *const *programs,
			  const struct initramfs_file *nodes, const char *out_path);

#endif
