/* creflow.h - line breaking for the C that pass 3 writes. */
#ifndef TAPIR_CREFLOW_H
#define TAPIR_CREFLOW_H

#include "util.h"

/* Appends in to out with every line wider than 100 columns (other than
 * preprocessor lines) broken at its blocks and statements and indented
 * with tabs.  Only whitespace between tokens changes.
 */
void c_reflow(const char *in, struct strbuf *out);

#endif
