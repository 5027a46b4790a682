/* .config reading and editing. */
#include "check.h"
#include "kconfig.h"

#include <stdlib.h>
#include <string.h>

static const char cfg[] = "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
			  "CONFIG_EXPERT=y\n# CONFIG_KCMP is not set\nCONFIG_LOCALVERSION=\"-x\"\r\n"
			  "CONFIG_DRM=m\nCONFIG_KCMPX=y\n";

TEST(kconfig_get_values)
{
	char *v;

	CHECK_STR(v = kconfig_get(cfg, "EXPERT"), "y");
	free(v);
	CHECK_STR(v = kconfig_get(cfg, "KCMP"), "n");
	free(v);
	CHECK_STR(v = kconfig_get(cfg, "LOCALVERSION"), "\"-x\"");
	free(v);
	CHECK(kconfig_get(cfg, "EPOLL") == NULL);
	CHECK(kconfig_get(cfg, "KCMPX_") == NULL);
	CHECK_STR(v = kconfig_get("CONFIG_A=y", "A"), "y");	/* no trailing newline */
	free(v);
}

TEST(kconfig_bool_existence)
{
	CHECK(kconfig_bool(cfg, "EXPERT", 1) == 'y');
	CHECK(kconfig_bool(cfg, "KCMP", 1) == 'n');
	CHECK(kconfig_bool(cfg, "DRM", 1) == 'm');
	CHECK(kconfig_bool(cfg, "EPOLL", 1) == 'n');	/* invisible n: no line */
	CHECK(kconfig_bool(cfg, "EPOLL", 0) == 0);	/* not in the tree */
	CHECK(kconfig_bool(cfg, "KCMPX", 0) == 'y');
}

TEST(kconfig_set_replaces_lines)
{
	const char *names[] = { "EXPERT", "KCMP", "EPOLL" };
	char *out = kconfig_set(cfg, 3, names, "nyy");

	CHECK(kconfig_bool(out, "EXPERT", 1) == 'n');
	CHECK(kconfig_bool(out, "KCMP", 1) == 'y');
	CHECK(kconfig_bool(out, "EPOLL", 1) == 'y');
	CHECK(kconfig_bool(out, "KCMPX", 1) == 'y');	/* a longer name is another symbol */
	CHECK(strstr(out, "CONFIG_EXPERT=y") == NULL);
	CHECK_CONTAINS(out, "# CONFIG_EXPERT is not set\n");
	CHECK_CONTAINS(out, "CONFIG_DRM=m\n");
	free(out);
	/* a tristate asked for as a module is asked for as one */
	names[2] = "DRM";
	out = kconfig_set(cfg, 3, names, "nym");
	CHECK_CONTAINS(out, "\nCONFIG_DRM=m\n");
	CHECK(kconfig_bool(out, "DRM", 1) == 'm' && kconfig_bool(out, "KCMP", 1) == 'y');
	free(out);
}

/* A symbol left unset gets no line at all, not even "is not set": olddefconfig must find it
 * new, as in a .config from before it existed, and give it its default. */
TEST(kconfig_set_leaves_an_unset_symbol_out)
{
	const char *names[] = { "EXPERT", "KCMP", "DRM" };
	char *out = kconfig_set(cfg, 3, names, "yun");

	CHECK(kconfig_get(out, "KCMP") == NULL);
	CHECK(!strstr(out, "CONFIG_KCMP ") && !strstr(out, "CONFIG_KCMP="));
	CHECK(kconfig_bool(out, "KCMPX", 1) == 'y');	/* only that symbol's lines went */
	CHECK_CONTAINS(out, "CONFIG_EXPERT=y\n# CONFIG_DRM is not set\n");
	free(out);
}
