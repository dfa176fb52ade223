/* providers/fspec.h - the FUNCTION[@FILE][:LINE|:FIRST-LAST|:*|+REL]
 * argument of .function and .statement, for the kernel (kernel.,
 * module(M).) and for user space (process(P).), parsed one way.
 */
#ifndef TAPIR_PROVIDERS_FSPEC_H
#define TAPIR_PROVIDERS_FSPEC_H

#include "../util.h"

#include <stdbool.h>

struct fspec {
	const char *func;		/* a name or a glob */
	const char *file;		/* NULL: any */
	bool lines;			/* a line part was given */
	int lo, hi;			/* :LINE, :FIRST-LAST, :* */
	int rel;			/* +REL: lines after the declaration */
};

/* Parse text into sp; false when it is not of that form.  scoped:
 * FUNCTION may be a C++ name, whose "::" is not a line part.
 */
bool fspec_parse(struct arena *a, const char *text, bool scoped,
		 struct fspec *sp);

/* Whether a declaring file matches the FILE glob (NULL: any) as given
 * or as its trailing components (so "fs/x.c" matches "/src/linux/fs/x.c").
 */
bool fspec_file_matches(struct arena *a, const char *glob, const char *file);

#endif
