/* format.c - parsing printf-style formats, shared by the parser (which
 * rejects malformed directives) and type checking (argument types).
 */
#include "format.h"

#include <string.h>

#define FMT_FLAGS "0+- #"

static void fmt_add(struct fmt_slot *slots, int *n, int max, enum type ty,
		    const char *spec, const char *end)
{
	if (*n < max) {
		slots[*n].type = ty;
		slots[*n].spec = spec;
		slots[*n].len = (int)(end - spec);
	}
	(*n)++;
}

/* p is just after the '%'.  Returns the end of the directive, or NULL
 * when it is malformed.
 */
static const char *fmt_directive(const char *p, struct fmt_slot *slots,
				 int *n, int max)
{
	const char *spec = p - 1;
	int first = *n;

	if (*p == '%')
		return p + 1;
	/* One flag, as the established tool reads, then more with C's
	 * meaning; a '0' after a flag starts the width (the runtime reads
	 * "%-05d" as width 5, left-aligned, as that tool does).
	 */
	if (*p && strchr(FMT_FLAGS, *p))
		p++;
	while (*p && strchr("+- #", *p))
		p++;
	if (*p == '*')
		fmt_add(slots, n, max, TY_LONG, spec, ++p);
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		if (*++p == '*')
			fmt_add(slots, n, max, TY_LONG, spec, ++p);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'l')
		p++;
	if (!*p || !strchr("diuoxXcpbmMs", *p))
		return NULL;
	fmt_add(slots, n, max, *p == 's' ? TY_STRING : TY_LONG, spec,
		p + 1);
	for (; first < *n && first < max; first++)
		slots[first].len = (int)(p + 1 - spec);
	return p + 1;
}

int fmt_slots(const char *fmt, struct fmt_slot *slots, int max,
	      const char **bad)
{
	const char *p = fmt;
	int n = 0;

	while (*p) {
		if (*p == '\\' && p[1]) {
			p += 2;
		} else if (*p == '%') {
			*bad = p;
			p = fmt_directive(p + 1, slots, &n, max);
			if (!p)
				return -1;
		} else {
			p++;
		}
	}
	return n;
}
