/* stp_string.h - string helpers for generated code: bounded copies and
 * concatenation into MAXSTRINGLEN buffers, fault-safe reads of kernel
 * and user strings, and the regular-expression matcher of =~.
 */
#ifndef STP_STRING_H
#define STP_STRING_H

#include "stp_limits.h"

/* dst = src, truncated to MAXSTRINGLEN - 1; returns dst. */
char *_stp_strcpy(char *dst, const char *src);
/* dst = a . b (dst may alias a); returns dst. */
char *_stp_strcat(char *dst, const char *a, const char *b);
/* Decimal text of v into a MAXSTRINGLEN buffer. */
char *_stp_lltoa(char *dst, int64_t v);

/* s =~ re: re is a POSIX extended regular expression given as a
 * literal; the translator compiles it to a matcher table at build time
 * or passes the pattern here (implementation's choice; see
 * stp_regex.c).  Returns 1 on match.
 */
int _stp_regex_match(const char *re, const char *s);

#endif
