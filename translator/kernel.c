/* kernel.c - which kernel a script is built for: its release and base
 * version for %( kernel_v %), the machine name for %( arch %), the build
 * tree kbuild runs in, and the CONFIG_* settings of that tree.
 */
#include "kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* uname's machine names folded to kernel ARCH names, as the established
 * tool spells them for %( arch == "..." %).
 */
static const struct {
	const char *pattern;
	const char *arch;
} machine_map[] = {
	{ "i?86", "i386" },
	{ "aarch64", "arm64" },
	{ "arm*", "arm" },
	{ "sa110", "arm" },
	{ "s390x", "s390" },
	{ "ppc*", "powerpc" },
	{ "mips*", "mips" },
	{ "sh[234]*", "sh" },
	{ "sun4u", "sparc64" },
};

static const char *normalize_machine(const char *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(machine_map); i++)
		if (glob_match(machine_map[i].pattern, m))
			return machine_map[i].arch;
	return m;
}

/* "6.1.0" from "6.1.0-27-amd64" and "6.12.12" from "6.12.12+bpo-amd64":
 * the leading dotted number, without the distribution's suffix.
 */
static const char *base_version(struct arena *a, const char *release)
{
	size_t n = strspn(release, "0123456789.");

	while (n > 0 && release[n - 1] == '.')
		n--;
	if (n == 0)
		n = strcspn(release, "-");
	return arena_strndup(a, release, n);
}

/* The first line of DIR/include/config/kernel.release, which kbuild
 * writes into every build tree, headers-only packages included.
 */
static const char *release_of_tree(struct arena *a, const char *dir)
{
	const char *path = arena_printf(a, "%s/include/config/kernel.release",
					dir);
	char *text = read_file(path, NULL);
	const char *rel;

	if (!text) {
		fprintf(stderr, "stap: cannot tell the kernel release of "
			"build tree '%s': %s: %s\n", dir, path,
			strerror(errno));
		return NULL;
	}
	rel = arena_strndup(a, text, strcspn(text, " \t\r\n"));
	free(text);
	if (!*rel) {
		fprintf(stderr, "stap: cannot tell the kernel release of "
			"build tree '%s': %s is empty\n", dir, path);
		return NULL;
	}
	return rel;
}

/* -r DIR, then -r RELEASE, then --vm=KVER, then the running kernel. */
static const char *target_release(struct session *s, const char *running)
{
	const struct stap_options *o = &s->opt;

	if (o->kernel_build_dir)
		return release_of_tree(s->arena, o->kernel_build_dir);
	if (o->kernel_release)
		return o->kernel_release;
	if (o->use_vm && o->vm_kernel && *o->vm_kernel)
		return o->vm_kernel;
	return arena_strdup(s->arena, running);
}

int kernel_target_init(struct session *s)
{
	struct stap_options *o = &s->opt;
	struct utsname u;
	const char *rel;

	if (uname(&u) != 0) {
		fprintf(stderr, "stap: uname: %s\n", strerror(errno));
		return -1;
	}
	rel = target_release(s, u.release);
	if (!rel)
		return -1;
	s->kernel_vr = rel;
	s->kernel_v = base_version(s->arena, rel);
	s->arch_name = arena_strdup(s->arena,
				    normalize_machine(o->arch ? o->arch :
						      u.machine));
	/* Only a tree named by release moves under --sysroot. */
	if (!o->kernel_build_dir)
		o->kernel_build_dir = arena_printf(s->arena,
						   "%s/lib/modules/%s/build",
						   o->sysroot ? o->sysroot : "",
						   rel);
	s->kconfig = kconfig_load(s->arena,
				  arena_printf(s->arena, "%s/.config",
					       o->kernel_build_dir));
	return 0;
}
