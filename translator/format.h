/* format.h - printf-style format strings of the script language:
 * %[flag][width|*][.prec|.*][l]conv with one flag from "0+- #" and conv
 * one of d i u o x X c s p b m M (and %%).
 */
#ifndef TAPIR_FORMAT_H
#define TAPIR_FORMAT_H

#include "ast.h"

/* One value a format consumes: a conversion, or a '*' width/precision. */
struct fmt_slot {
	enum type type;
	const char *spec;		/* the directive's text in the format */
	int len;
};

/* The number of values fmt consumes (filling at most max slots), or -1
 * with *bad pointing at the malformed directive.
 */
int fmt_slots(const char *fmt, struct fmt_slot *slots, int max,
	      const char **bad);

#endif
