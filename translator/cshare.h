/* cshare.h - probe handlers that differ only in their string literals
 * share one C function: the text of a handler as pass 3 wrote it, with
 * its probe number, temporaries and literals abstracted, is the key of
 * the sharing; the literals then come from the probe's descriptor.
 */
#ifndef TAPIR_CSHARE_H
#define TAPIR_CSHARE_H

#include "util.h"

/* The key of handler text written for probe idx ("stp_probe_IDX",
 * "probe_locals.pIDX"): its first line (a comment naming the probe)
 * dropped, the probe number and the numbered temporaries ("__a12")
 * made positional, each string literal (adjacent ones as one) a mark.
 * The literals, as C source, go to lits (const char *) in order.
 */
char *cshare_key(struct arena *a, const char *text, int idx,
		 struct vec *lits);

/* text with its k-th string literal (adjacent ones as one) replaced by
 * fmt printed with slot[k], e.g. "c->probe->lits[%d]", where slot[k] is
 * not negative.
 */
char *cshare_param(struct arena *a, const char *text, const char *fmt,
		   const int *slot);

#endif
