/* providers/fspec.c - the FUNCTION[@FILE][:LINES|+REL] argument of
 * .function and .statement (fspec.h).
 */
#include "fspec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Where the line part starts: after "@FILE", at its first ':' or '+';
 * without a file, at the first of them, or, for a scoped (C++) name,
 * at the last ':' or '+' followed by a digit or '*' that is not half
 * of a "::".  The end of text when there is none.
 */
static const char *line_part(const char *text, const char *at, bool scoped)
{
	const char *p;

	if (at)
		return at + 1 + strcspn(at + 1, ":+");
	if (!scoped)
		return text + strcspn(text, ":+");
	for (p = text + strlen(text); p > text; p--) {
		if ((p[-1] == ':' || p[-1] == '+') &&
		    (isdigit((unsigned char)*p) || *p == '*') &&
		    (p - 1 == text || p[-2] != ':'))
			return p - 1;
	}
	return text + strlen(text);
}

/* ":LINE", ":FIRST-LAST", ":*" or "+REL" at p. */
static bool parse_lines(const char *p, struct fspec *sp)
{
	char *rest;

	sp->lines = true;
	if (*p == '+') {
		sp->rel = (int)strtol(p + 1, &rest, 10);
		return !*rest && sp->rel > 0 && !has_wildcard(sp->func);
	}
	if (!strcmp(p + 1, "*")) {
		sp->lo = 1;
		sp->hi = 1 << 30;
		return true;
	}
	sp->lo = (int)strtol(p + 1, &rest, 10);
	sp->hi = sp->lo;
	if (*rest == '-')
		sp->hi = (int)strtol(rest + 1, &rest, 10);
	return !*rest && sp->lo > 0 && sp->hi >= sp->lo;
}

bool fspec_parse(struct arena *a, const char *text, bool scoped,
		 struct fspec *sp)
{
	const char *at = strchr(text, '@');
	const char *lp = line_part(text, at, scoped);
	const char *fend = at ? at : lp;

	memset(sp, 0, sizeof(*sp));
	sp->func = arena_strndup(a, text, (size_t)(fend - text));
	if (at)
		sp->file = arena_strndup(a, at + 1, (size_t)(lp - at - 1));
	if (!*sp->func || (sp->file && !*sp->file))
		return false;
	return !*lp || parse_lines(lp, sp);
}

bool fspec_file_matches(struct arena *a, const char *glob, const char *file)
{
	if (!glob)
		return true;
	if (!file)
		return false;
	return glob_match(glob, file) ||
	       glob_match(arena_printf(a, "*/%s", glob), file);
}
