/* cshare.c - the keys under which probe handlers share one C function,
 * and the rewriting of a shared handler's literals (cshare.h).  A small
 * scanner of the C that pass 3 writes: comments and character literals
 * pass through, identifiers and string literals are seen whole.
 */
#include "cshare.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct scan {
	struct arena *a;
	struct strbuf out;
	int idx;			/* key: the probe's number */
	struct vec *lits;		/* key: the literals */
	const char *fmt;		/* param: what replaces literal k */
	const int *slot;		/* param: and with what number */
	int nlit;
	struct vec temps;		/* key: temporaries, by first use */
	char prev;			/* last character output, not space */
};

/* The end of the literal (string or character) opening at p. */
static const char *literal_end(const char *p)
{
	char q = *p++;

	while (*p && *p != q)
		p += p[0] == '\\' && p[1] ? 2 : 1;
	return *p ? p + 1 : p;
}

/* Adjacent string literals are one ("a" "b"): the end of the group. */
static const char *string_group_end(const char *p)
{
	const char *end = literal_end(p), *q;

	for (;;) {
		for (q = end; *q == ' ' || *q == '\t' || *q == '\n'; q++)
			;
		if (*q != '"')
			return end;
		end = literal_end(q);
	}
}

static bool is_temp(const char *id, size_t n)
{
	size_t i = 2;

	if (n < 4 || id[0] != '_' || id[1] != '_' || !isalpha(id[2]))
		return false;
	while (i < n && isalpha((unsigned char)id[i]))
		i++;
	if (i == n)
		return false;
	while (i < n && isdigit((unsigned char)id[i]))
		i++;
	return i == n;
}

/* An identifier in a key: the probe's number and temporaries made
 * positional.
 */
static void key_ident(struct scan *sc, const char *id, size_t n)
{
	char num[32];
	size_t k = (size_t)snprintf(num, sizeof(num), "%d", sc->idx);
	int i;

	if (n >= 10 + k && !strncmp(id, "stp_probe_", 10) &&
	    !strncmp(id + 10, num, k) && (n == 10 + k || id[10 + k] == '_')) {
		sb_puts(&sc->out, "stp_probe_#");
		sb_putn(&sc->out, id + 10 + k, n - 10 - k);
		return;
	}
	if (sc->prev == '.' && n == 1 + k && id[0] == 'p' &&
	    !strncmp(id + 1, num, k)) {
		sb_puts(&sc->out, "p#");
		return;
	}
	if (!is_temp(id, n)) {
		sb_putn(&sc->out, id, n);
		return;
	}
	for (i = 0; i < sc->temps.n; i++)
		if (strlen(sc->temps.items[i]) == n &&
		    !strncmp(sc->temps.items[i], id, n))
			break;
	if (i == sc->temps.n)
		vec_push(sc->a, &sc->temps, arena_strndup(sc->a, id, n));
	sb_printf(&sc->out, "__@%d", i);
}

static void string_lit(struct scan *sc, const char *p, const char *end)
{
	if (sc->lits) {
		vec_push(sc->a, sc->lits,
			 arena_strndup(sc->a, p, (size_t)(end - p)));
		sb_printf(&sc->out, "\001%d", sc->nlit);
	} else if (sc->slot[sc->nlit] < 0) {
		sb_putn(&sc->out, p, (size_t)(end - p));
	} else {
		sb_printf(&sc->out, sc->fmt, sc->slot[sc->nlit]);
	}
	sc->nlit++;
}

static char *scan(struct scan *sc, const char *p)
{
	char *r;

	sb_init(&sc->out);
	sb_putn(&sc->out, "", 0);
	while (*p) {
		const char *q = p;

		if (p[0] == '/' && p[1] == '*') {
			q = strstr(p + 2, "*/");
			q = q ? q + 2 : p + strlen(p);
			sb_putn(&sc->out, p, (size_t)(q - p));
		} else if (*p == '"') {
			q = string_group_end(p);
			string_lit(sc, p, q);
		} else if (*p == '\'') {
			q = literal_end(p);
			sb_putn(&sc->out, p, (size_t)(q - p));
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (sc->lits)
				key_ident(sc, p, (size_t)(q - p));
			else
				sb_putn(&sc->out, p, (size_t)(q - p));
		} else {
			q = p + 1;
			sb_putc(&sc->out, *p);
		}
		if (!isspace((unsigned char)q[-1]))
			sc->prev = q[-1];
		p = q;
	}
	r = arena_strdup(sc->a, sc->out.buf);
	sb_free(&sc->out);
	return r;
}

char *cshare_key(struct arena *a, const char *text, int idx,
		 struct vec *lits)
{
	struct scan sc;
	const char *nl = strchr(text, '\n');

	memset(&sc, 0, sizeof(sc));
	sc.a = a;
	sc.idx = idx;
	sc.lits = lits;
	return scan(&sc, nl ? nl + 1 : text);
}

char *cshare_param(struct arena *a, const char *text, const char *fmt,
		   const int *slot)
{
	struct scan sc;

	memset(&sc, 0, sizeof(sc));
	sc.a = a;
	sc.fmt = fmt;
	sc.slot = slot;
	return scan(&sc, text);
}
