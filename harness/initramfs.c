/* initramfs: see initramfs.h. Format: the kernel's Documentation/driver-api/early-userspace/
 * buffer-format.rst ("newc": magic 070701, thirteen 8-digit hex fields, name, data, each
 * padded to 4 bytes). */
#define _GNU_SOURCE
#include "initramfs.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void pad4(struct strbuf *sb)
{
	static const char zeros[4];

	sb_add(sb, zeros, (4 - sb->len % 4) % 4);
}

static void add_entry(struct strbuf *sb, unsigned ino, unsigned mode, unsigned rmajor,
		      unsigned rminor, const char *name, const char *data, size_t len)
{
	char hdr[111];
	size_t namesize = strlen(name) + 1;

	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u, 0u,
		 S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)len, 0u, 0u, rmajor, rminor,
		 (unsigned)namesize, 0u);
	sb_add(sb, hdr, 110);
	sb_add(sb, name, namesize);
	pad4(sb);
	if (len) {
		sb_add(sb, data, len);
		pad4(sb);
	}
}

char *initramfs_build_files(const struct initramfs_file *files, int n, size_t *out_len)
{
	struct strbuf sb = { 0 };
	unsigned ino = 4;	/* after dev, dev/console and proc */

	add_entry(&sb, 1, S_IFDIR | 0755, 0, 0, "dev", NULL, 0);
	add_entry(&sb, 2, S_IFCHR | 0600, 5, 1, "dev/console", NULL, 0);
	add_entry(&sb, 3, S_IFDIR | 0755, 0, 0, "proc", NULL, 0);
	for (int i = 0; i < n; i++) {
		const char *slash = strchr(files[i].path, '/');

		if (files[i].chardev) {	/* under dev/, made above */
			add_entry(&sb, ino++, S_IFCHR | 0600, files[i].major, files[i].minor,
				  files[i].path, NULL, 0);
			continue;
		}
		if (slash) {
			char *dir = xasprintf("%.*s", (int)(slash - files[i].path), files[i].path);

			add_entry(&sb, ino++, S_IFDIR | 0755, 0, 0, dir, NULL, 0);
			free(dir);
		}
		add_entry(&sb, ino++, S_IFREG | 0755, 0, 0, files[i].path, files[i].data,
			  files[i].len);
	}
	add_entry(&sb, ino, 0, 0, 0, "TRAILER!!!", NULL, 0);
	*out_len = sb.len;
	return sb.s;
}

char *initramfs_build_at(const char *path, const char *prog, size_t len, size_t *out_len)
{
	struct initramfs_file f = { .path = path, .data = prog, .len = len };

	return initramfs_build_files(&f, 1, out_len);
}

char *initramfs_build(const char *init, size_t init_len, size_t *out_len)
{
	return initramfs_build_at("init", init, init_len, out_len);
}

int initramfs_write_files(const char *const *paths, const char *const *programs,
			  const struct initramfs_file *nodes, const char *out_path)
{
	struct initramfs_file f[16] = { { 0 } };
	size_t out_len;
	char *cpio;
	int n = 0, nprog, r = -1;

	for (; paths[n] && n < 8; n++) {
		f[n].path = paths[n];
		f[n].data = read_file(programs[n], &f[n].len);
		if (!f[n].data)
			goto out;
	}
	nprog = n;
	for (int i = 0; nodes && nodes[i].path && n < 16; i++)
		f[n++] = nodes[i];
	cpio = initramfs_build_files(f, n, &out_len);
	r = write_file_atomic(out_path, cpio, out_len);
	free(cpio);
	n = nprog;
out:
	while (n-- > 0)
		free((char *)f[n].data);
	return r;
}

int initramfs_write(const char *init_path, const char *out_path)
{
	const char *paths[] = { "init", NULL }, *programs[] = { init_path, NULL };

	return initramfs_write_files(paths, programs, NULL, out_path);
}
