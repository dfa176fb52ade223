/* limit.h - the limits a module is built with (-D NAME=VAL, else the
 * runtime's defaults), and their checks against the kernel stack and
 * the memory they take, made before any C is written (pass 3).
 */
#ifndef TAPIR_LIMIT_H
#define TAPIR_LIMIT_H

#include "diag.h"

/* The values the module will see; maxnesting is -1 when no -D gives
 * it (the translator's own default then, from analyze.c).
 */
struct limits {
	long long maxnesting;
	long long maxstringlen;
	long long maxmapentries;
	long long maxcallstack;
	long long minstackspace;
	long long max_buckets;
	long long uretprobe_frames;
};

/* Read -D for the limits; false after reporting a value that is not
 * a number or out of its range.
 */
bool limit_get(struct session *s, struct limits *lim);

/* Bytes of a locals struct of the generated module with nlong int64_t
 * and nstr MAXSTRINGLEN members (emit-decl.c gen_locals_struct).
 */
unsigned long long limit_locals_bytes(const struct limits *lim, int nlong,
				       int nstr);

/* The most nested calls MAXCALLSTACK can hold. */
long long limit_max_nesting(const struct limits *lim);

/* MAXNESTING (effective) against the kernel stack, and the context
 * one CPU needs: the probe locals and MAXNESTING + 1 function frames.
 */
bool limit_check_context(struct session *s, const struct limits *lim,
			  long long nesting, unsigned long long probe_bytes,
			  unsigned long long func_bytes);

/* An array of entries nodes of node_bytes (a lower bound), declared at
 * loc; sized is false when MAXMAPENTRIES gives its size.
 */
bool limit_check_map(struct session *s, const struct limits *lim,
		      struct loc loc, const char *name, long long entries,
		      unsigned long long node_bytes, bool sized);

/* The values a .return probe at loc saves at its entry, entry_bytes
 * per pending return (kretprobe instances, uretprobe frames).
 */
bool limit_check_entry(struct session *s, struct loc loc,
		       unsigned long long entry_bytes);

/* The C that makes a module whose limits are not the ones checked here
 * fail to build: a limit set some other way (-B KCFLAGS=-D...) or a
 * runtime whose defaults differ from this table.
 */
void limit_emit_guard(const struct limits *lim, long long nesting,
		       struct strbuf *o);

#endif
