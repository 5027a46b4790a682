/* arches: see arches.h. */
#define _GNU_SOURCE
#include "arches.h"
#include "conf_file.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What arches.conf may add to a QEMU line: the machine and how fast it runs, nothing else.
 * The harness composes the rest itself (boot.c: no defaults, no user config, no network, no
 * display or monitor, the serial console on stdio, no reboot, and only -kernel, -initrd and
 * -append), so no line of data can give a guest a network or the host's files. QEMU reads
 * --opt as -opt: both are checked alike. */
static const char *const qemu_allowed[] = { "-machine", "-M", "-accel", "-cpu", "-m", "-smp",
					    NULL };

/* Sub-options that name a host file or program (-machine virt,dumpdtb=..., firmware=...). */
static const char *const qemu_host_words[] = { "file", "path", "dtb", "firmware", "bios",
					       "pflash", "kernel", "initrd", "append", "script",
					       "splash", NULL };

/* What a -machine value may set after its type: how the board is built, never a file it
 * reads (boot.splash=, dumpdtb=, firmware= ... are not here). */
static const char *const qemu_machine_keys[] = { "accel", "gic-version", "virtualization",
						 "secure", "mte", "its", "iommu", "kernel-irqchip",
						 "vmport", "smm", "pit", "pic", "hpet", "sata", "usb",
						 "acpi", "highmem", "ras", "graphics", "i8042", NULL };

/* Why a -machine value is refused (into why), or NULL: its type, then only key=value
 * parts with a key of qemu_machine_keys. */
static const char *machine_refused(const char *opt, const char *v, char *why, size_t len)
{
	char *copy = xstrdup(v), *save = NULL, *part = strtok_r(copy, ",", &save);

	while ((part = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(part, '=');
		int known = 0;

		if (eq)
			*eq = 0;
		for (int k = 0; qemu_machine_keys[k]; k++)
			known |= !strcmp(part, qemu_machine_keys[k]);
		if (!known || !eq) {
			snprintf(why, len, "qemu option '%s %s' sets '%s', which is not one arches.conf "
				 "may set (the machine's type, then only how the board is built: %s ...); "
				 "guests get only the kernel and the initramfs", opt, v, part,
				 "accel=, gic-version=, virtualization=, secure=, mte=, iommu=");
			free(copy);
			return why;
		}
	}
	free(copy);
	return NULL;
}

/* Why a QEMU line from arches.conf is refused (written into why), or NULL when it is safe.
 * Its first word is the QEMU program, a plain qemu-system-NAME found in PATH. */
static const char *qemu_refused(char **qemu, char *why, size_t len)
{
	if (qemu && qemu[0] && (strncmp(qemu[0], "qemu-system-", 12) || !qemu[0][12] ||
				strspn(qemu[0] + 12, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
					strlen(qemu[0] + 12))) {
		snprintf(why, len, "qemu program '%s' is not a plain qemu-system-NAME (a program "
			 "in PATH: QEMU's system emulator for the arch)", qemu[0]);
		return why;
	}
	for (int i = 1; qemu && qemu[i]; i += 2) {
		const char *opt = qemu[i] + (!strncmp(qemu[i], "--", 2) ? 1 : 0), *v = qemu[i + 1];
		int known = 0;

		for (int k = 0; qemu_allowed[k]; k++)
			known |= !strcmp(opt, qemu_allowed[k]);
		if (!known) {
			snprintf(why, len, "qemu option '%s' is not one arches.conf may give (only "
				 "-machine, -accel, -cpu, -m and -smp; the harness adds the rest, "
				 "with no network and no host files)", qemu[i]);
			return why;
		}
		if (!v || !*v || v[0] == '-' || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
						   "QRSTUVWXYZ0123456789_.,=:+-") != strlen(v)) {
			snprintf(why, len, "qemu option '%s' needs a plain value (letters, digits and "
				 "_.,=:+-), not '%s'", qemu[i], v ? v : "");
			return why;
		}
		if ((!strcmp(opt, "-machine") || !strcmp(opt, "-M")) &&
		    machine_refused(qemu[i], v, why, len))
			return why;
		for (int k = 0; qemu_host_words[k]; k++)
			if (strstr(v, qemu_host_words[k])) {
				snprintf(why, len, "qemu option '%s %s' names a host file or program "
					 "('%s'); guests get only the kernel and the initramfs", qemu[i],
					 v, qemu_host_words[k]);
				return why;
			}
	}
	return NULL;
}

/* Appends the rest of a "crash TEXT" or "warning TEXT" line to the arch's console marks. */
static void add_console_mark(struct arch *a, const struct conf_line *l)
{
	char ***list = l->word[0][0] == 'c' ? &a->marks.crash : &a->marks.warning;
	int n = 0;

	while (*list && (*list)[n])
		n++;
	*list = xrealloc(*list, sizeof(**list) * (size_t)(n + 2));
	(*list)[n] = xstrdup(conf_rest(l, 1));
	(*list)[n + 1] = NULL;
}

static int is_console_mark(const struct conf_line *l)
{
	return l->nword >= 2 && (!strcmp(l->word[0], "crash") || !strcmp(l->word[0], "warning"));
}

/* "guest-channel KIND MAJOR:MINOR": how QEMU gives the guest its own console (serial: a second
 * serial port; virtio-mmio: a virtio console) and the device's numbers in the guest. */
static int guest_channel(struct arch *a, const struct conf_line *l, const char *where, char *err,
			 size_t errlen)
{
	static const struct { const char *name; enum guest_channel kind; } kinds[] = {
		{ "serial", CHANNEL_SERIAL }, { "virtio-mmio", CHANNEL_VIRTIO_MMIO },
	};
	unsigned major, minor;
	char tail;

	a->channel = CHANNEL_NONE;
	for (size_t i = 0; l->nword == 3 && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(l->word[1], kinds[i].name))
			a->channel = kinds[i].kind;
	if (a->channel == CHANNEL_NONE ||
	    sscanf(l->word[2], "%u:%u%c", &major, &minor, &tail) != 2 || major > 4095 ||
	    minor > 1048575) {
		snprintf(err, errlen, "%s: expected 'guest-channel serial|virtio-mmio MAJOR:MINOR' "
			 "(the device's numbers in the guest, e.g. 4:65 for ttyS1)", where);
		return -1;
	}
	a->channel_major = major;
	a->channel_minor = minor;
	return 0;
}

/* "kconfig NAME=VALUE...": the arch's values of the rules' arch symbols (rules.h). */
static int arch_kconfig(struct arch *a, const struct conf_line *l, const char *where, char *err,
			size_t errlen)
{
	for (int i = 1; i < l->nword; i++) {
		const char *w = l->word[i], *eq = strchr(w, '=');

		if (!eq || eq == w || !eq[1] || eq[2] || !strchr("ymn", eq[1])) {
			snprintf(err, errlen, "%s: expected 'kconfig SYMBOL=y|m|n ...', got '%s'", where,
				 w);
			return -1;
		}
	}
	free_strings(a->kconfig);
	a->kconfig = conf_words(l, 1);
	return 0;
}

/* Sets one attribute of an arch from an indented line. */
static int arch_attribute(struct arch *a, const struct conf_line *l, const char *where, char *err,
			  size_t errlen)
{
	const char *kw = l->word[0];
	char **one = NULL;

	if (is_console_mark(l)) {
		add_console_mark(a, l);
		return 0;
	}
	if (!strcmp(kw, "qemu") || !strcmp(kw, "append") || !strcmp(kw, "packages")) {
		char ***slot = kw[0] == 'q' ? &a->qemu : kw[0] == 'a' ? &a->append : &a->packages;

		free_strings(*slot);
		*slot = conf_words(l, 1);
		if (kw[0] == 'q') {
			char why[512];

			if (qemu_refused(*slot, why, sizeof(why))) {
				snprintf(err, errlen, "%s: %s", where, why);
				return -1;
			}
		}
		return 0;
	}
	if (!strcmp(kw, "guest-channel"))
		return guest_channel(a, l, where, err, errlen);
	if (!strcmp(kw, "kconfig"))
		return arch_kconfig(a, l, where, err, errlen);
	if (!strcmp(kw, "syscall-table")) {
		if (l->nword < 2 || l->word[1][0] == '/' || strstr(l->word[1], "..")) {
			snprintf(err, errlen, "%s: expected 'syscall-table PATH [ABI...]', PATH in "
				 "the kernel tree", where);
			return -1;
		}
		free_strings(a->syscall_table);
		a->syscall_table = conf_words(l, 1);
		return 0;
	}
	if (l->nword != 2) {
		snprintf(err, errlen, "%s: '%s' takes exactly one value", where, kw);
		return -1;
	}
	if (!strcmp(kw, "kernel-arch"))
		one = &a->kernel_arch;
	else if (!strcmp(kw, "cross-compile"))
		one = &a->cross_compile;
	else if (!strcmp(kw, "make-target"))
		one = &a->make_target;
	else if (!strcmp(kw, "image"))
		one = &a->image;
	else if (!strcmp(kw, "console"))
		one = &a->console;
	if (one) {
		free(*one);
		*one = xstrdup(strcmp(l->word[1], "-") ? l->word[1] : "");
		return 0;
	}
	if (!strcmp(kw, "boot-timeout") || !strcmp(kw, "build-timeout")) {
		double *slot = kw[1] == 'o' ? &a->boot_timeout : &a->build_timeout;
		if (arches_timeout_seconds(l->word[1], slot)) {
			snprintf(err, errlen, "%s: %s must be a number of seconds from 0 to %d (a day)",
				 where, kw, MAX_TIMEOUT_SECONDS);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "%s: unknown arch attribute '%s'", where, kw);
	return -1;
}

/* An arch block names everything a build and a boot of it need. */
static int arch_complete(const struct arch *a, const char *path, char *err, size_t errlen)
{
	const char *missing = !a->kernel_arch ? "kernel-arch" : !a->cross_compile ? "cross-compile"
			    : !a->make_target ? "make-target" : !a->image ? "image"
			    : !a->qemu || !a->qemu[0] ? "qemu" : !a->console ? "console"
			    : a->boot_timeout <= 0 ? "boot-timeout"
			    : a->build_timeout <= 0 ? "build-timeout" : NULL;

	if (!missing)
		return 0;
	snprintf(err, errlen, "%s: arch '%s' has no '%s' line", path, a->name, missing);
	return -1;
}

/* The index of the wanted arch called name, or -1. */
static int wanted_index(char **wanted, const char *name)
{
	for (int i = 0; wanted[i]; i++)
		if (!strcmp(wanted[i], name))
			return i;
	return -1;
}

int arches_load(const char *path, char **wanted, struct arch **arch, int *narch, char *err,
		size_t errlen)
{
	struct conf_file cf;
	struct arch *cur = NULL, *all;
	int n = 0;

	while (wanted[n])
		n++;
	*arch = all = xcalloc((size_t)n, sizeof(*all));
	*narch = n;
	for (int i = 0; i < n; i++)
		all[i].name = xstrdup(wanted[i]);
	if (conf_load(path, &cf, err, errlen))
		return -1;
	for (int i = 1; i < cf.nline; i++) {
		const struct conf_line *l = &cf.line[i];
		char where[512];

		snprintf(where, sizeof(where), "%s:%d", path, l->lineno);
		if (!l->indented && is_console_mark(l)) {	/* every arch's */
			for (int a = 0; a < n; a++)
				add_console_mark(&all[a], l);
			continue;
		}
		if (!l->indented) {
			int a = l->nword == 2 && !strcmp(l->word[0], "arch")
				? wanted_index(wanted, l->word[1]) : -2;

			if (a == -2) {
				snprintf(err, errlen, "%s: expected 'arch NAME', 'crash TEXT' or "
					 "'warning TEXT'", where);
				goto fail;
			}
			cur = a >= 0 ? &all[a] : NULL;	/* an arch the matrix does not use */
			continue;
		}
		if (cur && arch_attribute(cur, l, where, err, errlen))
			goto fail;
	}
	for (int i = 0; i < n; i++)
		if (arch_complete(&all[i], path, err, errlen))
			goto fail;
	conf_free(&cf);
	return 0;
fail:
	conf_free(&cf);
	return -1;
}

int arches_timeout_seconds(const char *s, double *seconds)
{
	char *end;

	*seconds = strtod(s, &end);
	return *end || end == s || !isfinite(*seconds) || *seconds <= 0 ||
	       *seconds > MAX_TIMEOUT_SECONDS ? -1 : 0;
}
