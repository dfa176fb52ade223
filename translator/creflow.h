/* creflow.h - line breaking for the C that pass 3 writes. */
#ifndef TAPIR_CREFLOW_H
#define TAPIR_CREFLOW_H

#include "util.h"

/* Appends in to out with every line that holds a statement expression
 * or is wider than 80 columns (other than preprocessor lines and
 * comments) broken at its blocks and statements and indented with
 * tabs, and a line still wider broken after the commas of its calls.
 * Only whitespace between tokens changes.
 */
void c_reflow(const char *in, struct strbuf *out);

/* Appends one line (no newline in it) to out broken at its blocks and
 * statements whatever its width (c_reflow later breaks what is still
 * too wide).
 */
void c_reflow_line(const char *line, struct strbuf *out);

#endif
