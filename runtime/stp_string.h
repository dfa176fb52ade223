/* stp_string.h - string helpers for generated code: bounded copies and
 * concatenation into MAXSTRINGLEN buffers, fault-safe reads of kernel
 * and user strings, and the regular-expression matcher of =~ and !~.
 */
#ifndef STP_STRING_H
#define STP_STRING_H

#include "stp_limits.h"

/* dst = src, cut to MAXSTRINGLEN - 1 bytes; returns dst.  dst may be
 * src.
 */
char *_stp_strcpy(char *dst, const char *src);
/* dst = a . b, cut to MAXSTRINGLEN - 1 bytes; returns dst.  dst may be
 * a, b or both (s = s . s); no other overlap is allowed.
 */
char *_stp_strcat(char *dst, const char *a, const char *b);
/* Decimal text of v into a MAXSTRINGLEN buffer; returns dst. */
char *_stp_lltoa(char *dst, int64_t v);

/* s =~ re: POSIX extended regular expressions (C locale, bytes; no
 * backreferences; the groups of a match through _stp_regex_submatch(),
 * for matched()).  Each literal of the script is compiled once, at
 * module init, into a position automaton of at most
 * STP_REGEX_MAX_POS characters and anchors (a{3} counts 3); matching
 * then runs in probe context without allocating, in time linear in the
 * string.  A zeroed struct stp_regex matches nothing.
 */
#ifndef STP_REGEX_MAX_POS
#define STP_REGEX_MAX_POS 256
#endif

struct stp_regex {
	const char *error;	/* why compiling failed, else NULL */
	unsigned short npos;	/* positions of the automaton */
	unsigned short nwords;	/* 64-bit words per position set */
	unsigned short nclass;	/* byte classes */
	unsigned char nullable;	/* matches "" (so every string) */
	unsigned char anchored;	/* every match starts at ^ */
	unsigned char byte_class[256];	/* byte -> class */
	uint64_t *sets;		/* the tables (stp_regex.c) */
	/* For matched(): a program of the pattern for a Pike machine,
	 * its byte sets, and a work area per CPU; NULL when the script
	 * does not use them (STP_NEED_SUBMATCH) or the pattern is too
	 * large for them. */
	unsigned short ngroups;	/* parenthesized subexpressions */
	unsigned short nprog;
	void *prog;
	void *bytes;
	void *work;
	size_t work_size;	/* bytes per CPU */
};

/* Init only (may sleep).  pattern is the regex text itself (a script
 * literal "a\\.b" arrives as a\.b).  Returns 0, -EINVAL for a
 * malformed pattern, -E2BIG when it needs more than STP_REGEX_MAX_POS
 * positions or nests too deeply, -ENOMEM; re->error then names the
 * problem.
 */
int _stp_regex_compile(struct stp_regex *re, const char *pattern);
/* Any context: 1 when some substring of s matches, else 0. */
int _stp_regex_exec(const struct stp_regex *re, const char *s);
/* Exit only; harmless on a regex that is zeroed, failed or freed. */
void _stp_regex_free(struct stp_regex *re);

/* _stp_regex_compile() that also readies re for
 * _stp_regex_submatch(). */
int _stp_regex_compile_groups(struct stp_regex *re, const char *pattern);
/* Probe context, the CPU's work area in use (no other caller on this
 * CPU).  Where s matches re, the leftmost match, the longest there, is
 * group 0; among the ways re matches that text, the one that prefers
 * the earlier alternative and the longer repetition, left to right,
 * gives the other groups (numbered by their '(').  Puts the start and
 * end of group g in se[0] and se[1] (-1 for a group that took no part
 * or does not exist).  Returns 1, 0 when s does not match, -E2BIG when
 * re is too large for groups other than 0.
 */
int _stp_regex_submatch(const struct stp_regex *re, const char *s,
			unsigned int g, int *se);
/* _stp_regex_exec() that also keeps what matched() needs: re and s
 * after a match, NULL after a failure. */
int _stp_regex_exec_keep(const struct stp_regex *re, const char *s,
			 const struct stp_regex **kre, char *ks);

/* What generated code calls: with STP_NEED_SUBMATCH (the script uses
 * matched()), every =~ keeps its match in the context c. */
#ifdef STP_NEED_SUBMATCH
#define STP_REGEX_COMPILE(re, p)	_stp_regex_compile_groups((re), (p))
#define STP_REGEX_EXEC(re, s) \
	_stp_regex_exec_keep((re), (s), &c->match_re, c->match_str)
#else
#define STP_REGEX_COMPILE(re, p)	_stp_regex_compile((re), (p))
#define STP_REGEX_EXEC(re, s)		_stp_regex_exec((re), (s))
#endif

#endif
