/* lines.h - pass 3: the line tables (runtime/stp_lines.h) a module
 * carries for symline(), usymline() and their kin, written only when
 * the script uses one of them: the probed kernel functions, from the
 * kernel's DWARF, the whole of each probed kernel module, from its
 * DWARF, and each user object of usyms.h, from its DWARF.
 */
#ifndef TAPIR_LINES_H
#define TAPIR_LINES_H

#include <stdbool.h>

struct session;
struct strbuf;
struct uelf;

/* Whether a function the script uses asks for lines (its embedded C
 * says "pragma:lines").
 */
bool lines_wanted(const struct session *s);

/* "static const struct stp_lines stp_ulines_I" for the whole of u,
 * by file offset; false (nothing written) when u has no DWARF.
 */
bool lines_emit_user(struct session *s, struct strbuf *out, struct uelf *u,
		     int i);

/* stp_klines[] for the kernel functions the script probes, when the
 * kernel's DWARF is the session's type source, and for every function
 * of each module a module("M") probe is placed in, when the module's
 * DWARF is its type source; returns its length (0: nothing written).
 */
int lines_emit_kernel(struct session *s, struct strbuf *out);

#endif
