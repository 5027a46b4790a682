/* initramfs: the guest's root file system, an uncompressed "newc" cpio archive.
 *
 * It holds /dev, /dev/console (so /init has a console for stdio before any devtmpfs), /proc
 * (a mount point) and /init, the static guest test. Written without root: device nodes are
 * just archive entries. Every timestamp is 0, so the same /init gives the same bytes.
 */
#ifndef KCMPM_INITRAMFS_H
#define KCMPM_INITRAMFS_H

#include <stddef.h>

/* Builds the archive in memory around the /init program given; caller frees. */
char *initramfs_build(const char *init, size_t init_len, size_t *out_len);
/* The same layout with the program at another path, like "bin/sh" (one directory level at
 * most), for a kernel booted with rdinit=/bin/sh. */
char *initramfs_build_at(const char *path, const char *prog, size_t len, size_t *out_len);

/* Reads the program at init_path and writes the archive to out_path atomically. */
int initramfs_write(const char *init_path, const char *out_path);

#endif
