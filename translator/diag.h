/* diag.h - diagnostics: "file:line:col: error: message", the source line
 * and a caret under the column.  A pass reports all its errors, then the
 * driver stops with exit status 1.
 */
#ifndef TAPIR_DIAG_H
#define TAPIR_DIAG_H

#include "session.h"

/* A source file held in memory for the lexer and for diagnostics. */
struct srcfile {
	const char *name;		/* as shown in messages */
	const char *text;		/* NUL-terminated */
	size_t len;
	bool is_tapset;			/* from the library, not the user */
	bool is_macro_file;		/* .stpm */
};

struct loc {
	const struct srcfile *file;
	int line;
	int col;
};

struct srcfile *srcfile_new(struct arena *a, const char *name,
			    const char *text, size_t len);

void diag_init(struct session *s);
void diag_error(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warn(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Errors and warnings that have no source location. */
void diag_error_noloc(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_warn_noloc(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A "note:" line attached to the previous diagnostic. */
void diag_note(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Errors that count only if their code is kept: queued with the other
 * diagnostics between diag_queue_begin and diag_queue_flush, which
 * shows them where they were found if live was set by then (and
 * counts them), or drops them.  Outside a queue they are shown at once.
 */
struct diag_hold {
	bool live;
	int n;			/* errors held */
};

void diag_error_held(struct session *s, struct diag_hold *h, struct loc loc,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_queue_begin(struct session *s);
void diag_queue_flush(struct session *s);

/* Redirect diagnostics into a buffer (tests, fuzzing); NULL = stderr. */
void diag_set_sink(struct strbuf *sb);
/* Cap on errors printed per run before "too many errors" stops the pass. */
#define DIAG_MAX_ERRORS 100

#endif
