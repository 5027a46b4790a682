/* boot: see boot.h. */
#define _GNU_SOURCE
#include "boot.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* console=<dev> panic=-1 <arch append words> <guest words>: panic=-1 turns a panic into an
 * immediate reboot, which -no-reboot turns into QEMU exiting. */
static char *kernel_cmdline(const struct boot_req *r)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "console=%s panic=-1", r->arch->console);
	for (int i = 0; r->arch->append && r->arch->append[i]; i++)
		sb_printf(&sb, " %s", r->arch->append[i]);
	for (int i = 0; r->guest_args[i]; i++)
		sb_printf(&sb, " %s", r->guest_args[i]);
	return sb.s;
}

/* Every guest: no default devices, no user config, no network, no display or monitor, the
 * serial console on QEMU's stdio, and QEMU ends when the guest reboots (arches.conf may add
 * only the machine, its accelerator, CPU, memory and CPU count: matrix.c). */
static const char *const isolated[] = { "-nodefaults", "-no-user-config", "-nic", "none",
					"-display", "none", "-monitor", "none", "-serial", "stdio",
					"-no-reboot" };

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The guest channel's QEMU arguments (arches.conf's guest-channel): a chardev writing the file
 * r->guest_log by its bare name, since QEMU runs in that file's directory (boot_run), so the
 * command line is the same whatever the results directory (commas doubled, as QEMU's option
 * syntax wants); and the device that shows it to the guest. *chardev is what argv points
 * into; the caller frees it. Returns how many. */
static int channel_args(const struct boot_req *r, const char **argv, char **chardev)
{
	struct strbuf sb = { 0 };
	int n = 0;

	*chardev = NULL;
	if (!r->guest_log || r->arch->channel == CHANNEL_NONE)
		return 0;
	sb_printf(&sb, "file,id=kcmpm-guest,path=");
	for (const char *p = base_name(r->guest_log); *p; p++)
		sb_printf(&sb, *p == ',' ? ",," : "%c", *p);
	*chardev = sb.s;
	argv[n++] = "-chardev";
	argv[n++] = *chardev;
	if (r->arch->channel == CHANNEL_SERIAL) {
		argv[n++] = "-serial";	/* the second -serial: ttyS1 */
		argv[n++] = "chardev:kcmpm-guest";
	} else {
		argv[n++] = "-device";
		argv[n++] = "virtio-serial-device";
		argv[n++] = "-device";
		argv[n++] = "virtconsole,chardev=kcmpm-guest";
	}
	return n;
}

const char **boot_argv(const struct boot_req *r, char **cmdline, char **chardev)
{
	int n = 0, nq = 0;
	const char **argv;

	while (r->arch->qemu[nq])
		nq++;
	*cmdline = kernel_cmdline(r);
	argv = xcalloc((size_t)nq + 16 + sizeof(isolated) / sizeof(isolated[0]), sizeof(*argv));
	argv[n++] = r->qemu ? r->qemu : r->arch->qemu[0];
	for (int i = 1; i < nq; i++)
		argv[n++] = r->arch->qemu[i];
	for (size_t i = 0; i < sizeof(isolated) / sizeof(isolated[0]); i++)
		argv[n++] = isolated[i];
	n += channel_args(r, argv + n, chardev);
	argv[n++] = "-kernel";
	argv[n++] = r->kernel;
	argv[n++] = "-initrd";
	argv[n++] = r->initramfs;
	argv[n++] = "-append";
	argv[n++] = *cmdline;
	argv[n] = NULL;
	return argv;
}

char *boot_command(const struct boot_req *r)
{
	char *cmdline, *chardev, *line;
	const char **argv = boot_argv(r, &cmdline, &chardev);

	line = spawn_format_argv(argv);
	free(argv);
	free(cmdline);
	free(chardev);
	return line;
}

int boot_run(const struct boot_req *r, struct boot_outcome *out, char *err, size_t errlen)
{
	char *cmdline, *chardev, *dir = NULL;
	const char **argv = boot_argv(r, &cmdline, &chardev);
	struct spawn_result res;
	int rc = 0;

	*out = (struct boot_outcome){ 0 };
	unlink(r->log_path);
	if (r->guest_log) {
		unlink(r->guest_log);	/* QEMU makes it anew: a missing one means no channel output */
		dir = xasprintf("%.*s", (int)(base_name(r->guest_log) - r->guest_log), r->guest_log);
	}
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = r->log_path,
					   .timeout = r->timeout, .cwd = dir && *dir ? dir : NULL },
		      &res)) {
		char *pkgs = matrix_arch_packages(r->arch);

		snprintf(err, errlen, "cannot run '%s': %s; install it: apt-get install %s", argv[0],
			 strerror(errno), pkgs);
		free(pkgs);
		rc = -1;
	} else {
		out->timed_out = res.timed_out;
		out->status = res.status;
		out->seconds = res.seconds;
	}
	free(cmdline);
	free(chardev);
	free(dir);
	free(argv);
	return rc;
}
