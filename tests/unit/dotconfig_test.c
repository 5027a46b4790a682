/* .config reading and editing. */
#include "check.h"
#include "dotconfig.h"

#include <stdlib.h>
#include <string.h>

static const char cfg[] = "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
			  "CONFIG_EXPERT=y\n# CONFIG_KCMP is not set\nCONFIG_LOCALVERSION=\"-x\"\r\n"
			  "CONFIG_DRM=m\nCONFIG_KCMPX=y\n";

TEST(kconfig_get_values)
{
	char *v;

	CHECK_STR(v = dotconfig_get(cfg, "EXPERT"), "y");
	free(v);
	CHECK_STR(v = dotconfig_get(cfg, "KCMP"), "n");
	free(v);
	CHECK_STR(v = dotconfig_get(cfg, "LOCALVERSION"), "\"-x\"");
	free(v);
	CHECK(dotconfig_get(cfg, "EPOLL") == NULL);
	CHECK(dotconfig_get(cfg, "KCMPX_") == NULL);
	CHECK_STR(v = dotconfig_get("CONFIG_A=y", "A"), "y");	/* no trailing newline */
	free(v);
}

TEST(kconfig_bool_existence)
{
	CHECK(dotconfig_bool(cfg, "EXPERT", 1) == 'y');
	CHECK(dotconfig_bool(cfg, "KCMP", 1) == 'n');
	CHECK(dotconfig_bool(cfg, "DRM", 1) == 'm');
	CHECK(dotconfig_bool(cfg, "EPOLL", 1) == 'n');	/* invisible n: no line */
	CHECK(dotconfig_bool(cfg, "EPOLL", 0) == 0);	/* not in the tree */
	CHECK(dotconfig_bool(cfg, "KCMPX", 0) == 'y');
}

TEST(kconfig_set_replaces_lines)
{
	const char *names[] = { "EXPERT", "KCMP", "EPOLL" };
	char *out = dotconfig_set(cfg, 3, names, "nyy");

	CHECK(dotconfig_bool(out, "EXPERT", 1) == 'n');
	CHECK(dotconfig_bool(out, "KCMP", 1) == 'y');
	CHECK(dotconfig_bool(out, "EPOLL", 1) == 'y');
	CHECK(dotconfig_bool(out, "KCMPX", 1) == 'y');	/* a longer name is another symbol */
	CHECK(strstr(out, "CONFIG_EXPERT=y") == NULL);
	CHECK_CONTAINS(out, "# CONFIG_EXPERT is not set\n");
	CHECK_CONTAINS(out, "CONFIG_DRM=m\n");
	free(out);
	/* a tristate asked for as a module is asked for as one */
	names[2] = "DRM";
	out = dotconfig_set(cfg, 3, names, "nym");
	CHECK_CONTAINS(out, "\nCONFIG_DRM=m\n");
	CHECK(dotconfig_bool(out, "DRM", 1) == 'm' && dotconfig_bool(out, "KCMP", 1) == 'y');
	free(out);
}

/* A symbol left unset gets no line at all, not even "is not set": olddefconfig must find it
 * new, as in a .config from before it existed, and give it its default. */
TEST(kconfig_set_leaves_an_unset_symbol_out)
{
	const char *names[] = { "EXPERT", "KCMP", "DRM" };
	char *out = dotconfig_set(cfg, 3, names, "yun");

	CHECK(dotconfig_get(out, "KCMP") == NULL);
	CHECK(!strstr(out, "CONFIG_KCMP ") && !strstr(out, "CONFIG_KCMP="));
	CHECK(dotconfig_bool(out, "KCMPX", 1) == 'y');	/* only that symbol's lines went */
	CHECK_CONTAINS(out, "CONFIG_EXPERT=y\n# CONFIG_DRM is not set\n");
	free(out);
}
