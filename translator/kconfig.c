/* kconfig.c - the CONFIG_* settings of a kernel build tree's .config,
 * read once into a small hash table for the preprocessor's CONFIG_X
 * conditions and for the passes that depend on kernel features.
 */
#include "session.h"

#include <string.h>
#include <stdlib.h>

/* Name ("CONFIG_X") to value, NULL when "is not set". */
struct kconfig {
	struct htab settings;
};

static void kc_set(struct arena *a, struct kconfig *kc, const char *name,
		   size_t n, const char *value)
{
	/* The key is copied out of the file's text, which is freed.  A
	 * later line wins, as when kconfig itself reads the file.
	 */
	htab_put(&kc->settings, arena_strndup(a, name, n), n, (void *)value);
}

/* The text of a quoted value: kconfig escapes only '"' and '\'. */
static const char *unquote(struct arena *a, const char *p, const char *end)
{
	char *out = arena_alloc(a, (size_t)(end - p) + 1), *o = out;

	for (p++; p < end && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

static size_t name_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (*q == '_' || (*q >= 'A' && *q <= 'Z') ||
			   (*q >= 'a' && *q <= 'z') ||
			   (*q >= '0' && *q <= '9')))
		q++;
	return (size_t)(q - p);
}

/* "CONFIG_X=value" or "# CONFIG_X is not set"; anything else is noise. */
static void parse_line(struct arena *a, struct kconfig *kc, const char *p,
		       const char *end)
{
	static const char unset[] = " is not set";
	size_t n;

	while (end > p && (end[-1] == '\r' || end[-1] == ' ' ||
			   end[-1] == '\t'))
		end--;
	if (end - p > 2 && p[0] == '#' && p[1] == ' ') {
		p += 2;
		n = name_len(p, end);
		if (n > 7 && strncmp(p, "CONFIG_", 7) == 0 &&
		    (size_t)(end - p - n) == sizeof(unset) - 1 &&
		    strncmp(p + n, unset, sizeof(unset) - 1) == 0)
			kc_set(a, kc, p, n, NULL);
		return;
	}
	n = name_len(p, end);
	if (n <= 7 || strncmp(p, "CONFIG_", 7) != 0 || p + n >= end ||
	    p[n] != '=')
		return;
	if (p[n + 1] == '"')
		kc_set(a, kc, p, n, unquote(a, p + n + 1, end));
	else
		kc_set(a, kc, p, n, arena_strndup(a, p + n + 1,
						  (size_t)(end - p - n - 1)));
}

struct kconfig *kconfig_load(struct arena *a, const char *path)
{
	struct kconfig *kc;
	size_t len, lines = 1;
	char *text = read_file(path, &len);
	const char *p, *nl, *end;

	if (!text)
		return NULL;
	end = text + len;
	for (p = text; p < end; p++)
		lines += *p == '\n';
	kc = arena_alloc(a, sizeof(*kc));
	kc->settings.arena = a;
	htab_reserve(&kc->settings, lines);
	for (p = text; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		parse_line(a, kc, p, nl);
	}
	free(text);
	return kc;
}

const char *kconfig_get(const struct kconfig *kc, const char *name)
{
	if (!kc || !name)
		return NULL;
	return htab_get(&kc->settings, name, strlen(name));
}
