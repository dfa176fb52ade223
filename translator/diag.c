/* diag.c - error and warning reporting with the source line and a caret.
 * Warnings honour -w (dropped) and -W (promoted to errors).
 */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct strbuf *sink;

/* Diagnostics queued between diag_queue_begin and diag_queue_flush. */
struct queued {
	char *text;
	struct diag_hold *hold;	/* NULL: always shown */
};

static struct queued *queue;
static size_t nqueue, queue_cap;
static bool queuing;
static struct diag_hold *holding;	/* owner of the report in progress */

void diag_set_sink(struct strbuf *sb)
{
	sink = sb;
}

struct srcfile *srcfile_new(struct arena *a, const char *name,
			    const char *text, size_t len)
{
	struct srcfile *f = arena_alloc(a, sizeof(*f));

	f->name = arena_strdup(a, name);
	f->text = text;
	f->len = len;
	return f;
}

void diag_init(struct session *s)
{
	s->errors = 0;
	s->warnings = 0;
}

static void emit(const char *text)
{
	if (queuing) {
		if (nqueue == queue_cap) {
			queue_cap = queue_cap ? queue_cap * 2 : 16;
			queue = xrealloc(queue, queue_cap * sizeof(*queue));
		}
		queue[nqueue].text = xstrdup(text);
		queue[nqueue++].hold = holding;
		return;
	}
	if (sink)
		sb_puts(sink, text);
	else
		fputs(text, stderr);
}

/* The source line of loc, then a caret under its column.  Tabs in the
 * line are kept in the caret line so the caret lines up on any tab
 * width.
 */
static void show_line(struct strbuf *out, struct loc loc)
{
	const char *p, *start, *end;
	int line = 1, col;

	if (!loc.file || !loc.file->text || loc.line <= 0)
		return;
	for (p = loc.file->text; *p && line < loc.line; p++)
		if (*p == '\n')
			line++;
	if (line != loc.line)
		return;
	start = p;
	end = strchr(start, '\n');
	if (!end)
		end = start + strlen(start);
	if (end > start && end[-1] == '\r')
		end--;
	sb_printf(out, "    %.*s\n    ", (int)(end - start), start);
	/* one space per character: UTF-8 continuation bytes take none */
	for (col = 1, p = start; col < loc.col && p < end; col++, p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			sb_putc(out, *p == '\t' ? '\t' : ' ');
	sb_puts(out, "^\n");
}

static void report(struct session *s, struct loc *loc, const char *kind,
		   const char *fmt, va_list ap)
{
	struct strbuf out;

	(void)s;
	sb_init(&out);
	if (loc && loc->file)
		sb_printf(&out, "%s:%d:%d: ", loc->file->name, loc->line,
			  loc->col);
	else
		sb_puts(&out, "stap: ");
	sb_printf(&out, "%s: ", kind);
	{
		va_list ap2;
		int n;
		char *msg;

		va_copy(ap2, ap);
		n = vsnprintf(NULL, 0, fmt, ap2);
		va_end(ap2);
		msg = xmalloc((size_t)n + 1);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		sb_puts(&out, msg);
		free(msg);
	}
	sb_putc(&out, '\n');
	if (loc)
		show_line(&out, *loc);
	emit(out.buf);
	sb_free(&out);
}

/* Count an error; past the cap say so once and print no more. */
static bool too_many(struct session *s)
{
	s->errors++;
	if (s->errors == DIAG_MAX_ERRORS + 1)
		emit(arena_printf(s->arena, "stap: error: too many errors "
				  "(more than %d); stopping\n",
				  DIAG_MAX_ERRORS));
	return s->errors > DIAG_MAX_ERRORS;
}

void diag_error(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	if (too_many(s))
		return;
	va_start(ap, fmt);
	report(s, &loc, "error", fmt, ap);
	va_end(ap);
}

void diag_error_held(struct session *s, struct diag_hold *h, struct loc loc,
		     const char *fmt, ...)
{
	va_list ap;

	h->n++;
	if (!queuing && too_many(s))
		return;
	holding = queuing ? h : NULL;
	va_start(ap, fmt);
	report(s, &loc, "error", fmt, ap);
	va_end(ap);
	holding = NULL;
}

void diag_queue_begin(struct session *s)
{
	(void)s;
	queuing = true;
}

void diag_queue_flush(struct session *s)
{
	size_t i;

	queuing = false;
	for (i = 0; i < nqueue; i++) {
		if (!queue[i].hold ||
		    (queue[i].hold->live && !too_many(s)))
			emit(queue[i].text);
		free(queue[i].text);
	}
	nqueue = 0;
}

void diag_error_noloc(struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (too_many(s))
		return;
	va_start(ap, fmt);
	report(s, NULL, "error", fmt, ap);
	va_end(ap);
}

/* Warnings from tapset files are the library's business, not the
 * user's: they are never shown.
 */
static bool warning_wanted(struct session *s, struct loc *loc)
{
	if (s->opt.no_warnings && !s->opt.warnings_as_errors)
		return false;
	if (loc && loc->file && loc->file->is_tapset)
		return false;
	return true;
}

void diag_warn(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	if (!warning_wanted(s, &loc))
		return;
	va_start(ap, fmt);
	if (s->opt.warnings_as_errors) {
		s->errors++;
		report(s, &loc, "error", fmt, ap);
	} else {
		s->warnings++;
		report(s, &loc, "warning", fmt, ap);
	}
	va_end(ap);
}

void diag_warn_noloc(struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (!warning_wanted(s, NULL))
		return;
	va_start(ap, fmt);
	if (s->opt.warnings_as_errors) {
		s->errors++;
		report(s, NULL, "error", fmt, ap);
	} else {
		s->warnings++;
		report(s, NULL, "warning", fmt, ap);
	}
	va_end(ap);
}

void diag_note(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(s, &loc, "note", fmt, ap);
	va_end(ap);
}
