/* lexer.h - tokens, and the token stream the parser reads: raw lexing
 * plus the preprocessor (command-line arguments $N/@N, @define macros,
 * %( cond %? ... %: ... %) conditionals).
 */
#ifndef TAPIR_LEXER_H
#define TAPIR_LEXER_H

#include "ast.h"

#include <string.h>

enum tok_kind {
	TK_EOF,
	TK_IDENT,	/* identifiers and keywords; $name and @name too */
	TK_NUMBER,
	TK_STRING,	/* text: C-escaped content without quotes */
	TK_OP,		/* operators and punctuation, incl. %( %? %: %) */
	TK_EMBEDDED,	/* %{ ... %}: text is the code between */
};

struct token {
	enum tok_kind kind;
	const char *text;		/* interned */
	int64_t num;			/* TK_NUMBER */
	bool num_overflow;		/* literal out of range */
	struct loc loc;
	bool adjacent;			/* no whitespace before this token */
	const struct token *expanded_from; /* macro/arg use site */
};

struct lexer;

struct lexer *lex_new(struct session *s, struct srcfile *src, bool tapset);
/* Next token after preprocessing; TK_EOF at the end. */
const struct token *lex_next(struct lexer *lx);
/* Peek n tokens ahead (0 = next) without consuming. */
const struct token *lex_peek(struct lexer *lx, int n);
/* True after a lexical error that ended the file (an unterminated
 * string, comment or embedded block): later errors would be noise.
 */
bool lex_failed(const struct lexer *lx);
/* Warn about command-line arguments the user script never used. */
void lex_warn_unused_args(struct session *s);
/* Macros defined in this file (for .stpm files and -p1). */
struct vec *lex_macros(struct lexer *lx);

/* Raw tokenisation of a whole buffer without preprocessing, for the
 * tapset indexer; calls fn for each token, stops when fn returns false.
 */
typedef bool (*lex_raw_fn)(const struct token *t, void *arg);
void lex_raw_scan(struct session *s, struct srcfile *src, lex_raw_fn fn,
		  void *arg);

/* text is short: comparing beats hashing it to intern on every call */
static inline bool tok_is(const struct token *t, const char *text)
{
	return (t->kind == TK_OP || t->kind == TK_IDENT) &&
	       strcmp(t->text, text) == 0;
}

bool is_keyword(const char *interned);

#endif
