/* limit.c - the limits a module is built with and the bounds that keep
 * a raised limit from taking the kernel down: the kernel stack for
 * MAXNESTING and MAXCALLSTACK, memory for MAXSTRINGLEN, MAXMAPENTRIES
 * and the per-CPU probe context.  doc/safety.md "Limits" explains them.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "limit.h"

/* Every call of a script function takes at least its return address
 * and one saved register (the context pointer, live across the call,
 * sits in a callee-saved register) on the kernel stack: 16 bytes.
 */
#define LIMIT_MIN_CALL_FRAME	16
/* One probe context (per CPU, vmalloc'd at load) at most; a script
 * that needs more has a limit set far beyond any use.
 */
#define LIMIT_CONTEXT_MAX	(64ULL << 20)
/* The most the runtime allocates at once for an array's nodes
 * (runtime/stp_map.c: kvmalloc refuses more).
 */
#define LIMIT_ALLOC_MAX	((unsigned long long)INT_MAX)
/* The values a .return probe saves at entry, per pending return: the
 * kernel allocates each kretprobe instance in one piece.
 */
#define LIMIT_ENTRY_MAX		(256ULL << 10)
/* The links of a map node (runtime/stp_map.c struct stp_map_node). */
#define LIMIT_NODE_HEADER	72

struct limit_def {
	const char *name;
	size_t off;
	long long def, min, max;
};

/* The defaults are runtime/stp_limits.h's; limit_emit_guard() makes a
 * module fail to build if the two ever differ.
 */
static const struct limit_def limit_defs[] = {
	{ "MAXNESTING", offsetof(struct limits, maxnesting), -1, 0, INT_MAX },
	{ "MAXSTRINGLEN", offsetof(struct limits, maxstringlen), 512, 1,
	  1 << 20 },
	{ "MAXMAPENTRIES", offsetof(struct limits, maxmapentries), 2048, 1,
	  INT_MAX },
	{ "MAXCALLSTACK", offsetof(struct limits, maxcallstack), 4096, 256,
	  8192 },
	/* more than the stack only skips every hit in process context */
	{ "MINSTACKSPACE", offsetof(struct limits, minstackspace), 1024, 512,
	  1 << 20 },
	/* a statistic's per-CPU part (48 bytes and 8 a bucket) must stay
	 * within the 32 KiB that the per-CPU allocator takes without a
	 * warning
	 */
	{ "STP_MAX_BUCKETS", offsetof(struct limits, max_buckets), 128, 3,
	  4000 },
	/* frames of up to LIMIT_ENTRY_MAX: one allocation under 2 GiB */
	{ "MAXURETPROBE_FRAMES", offsetof(struct limits, uretprobe_frames),
	  256, 1, 4096 },
};

static long long *limit_slot(struct limits *lim, const struct limit_def *d)
{
	return (long long *)((char *)lim + d->off);
}

/* NAME or NAME=VAL: VAL as the compiler reads an integer constant
 * (decimal, 0x hex, 0 octal); a bare NAME is 1.
 */
static bool limit_value(struct session *s, const struct limit_def *d,
			const char *arg, long long *out)
{
	const char *eq = strchr(arg, '=');
	char *end;
	long long v;

	if (!eq) {
		*out = 1;
	} else {
		errno = 0;
		v = strtoll(eq + 1, &end, 0);
		if (end == eq + 1 || *end) {
			diag_error_noloc(s, "-D %s: %s is not a number", arg,
					 d->name);
			return false;
		}
		*out = errno == ERANGE ? LLONG_MAX : v;
	}
	if (*out < d->min || *out > d->max) {
		diag_error_noloc(s, "-D %s: %s must be %lld to %lld", arg,
				 d->name, d->min, d->max);
		return false;
	}
	return true;
}

bool limit_get(struct session *s, struct limits *lim)
{
	bool ok = true;
	size_t j;
	int i;

	for (j = 0; j < ARRAY_SIZE(limit_defs); j++)
		*limit_slot(lim, &limit_defs[j]) = limit_defs[j].def;
	/* the last -D of a name wins, as in the compiler */
	for (i = 0; i < s->opt.defines.n; i++) {
		const char *arg = s->opt.defines.items[i];
		size_t n = strcspn(arg, "=");

		for (j = 0; j < ARRAY_SIZE(limit_defs); j++) {
			const struct limit_def *d = &limit_defs[j];

			if (strlen(d->name) == n && !strncmp(arg, d->name, n) &&
			    !limit_value(s, d, arg, limit_slot(lim, d)))
				ok = false;
		}
	}
	return ok;
}

static unsigned long long align8(unsigned long long n)
{
	return (n + 7) & ~7ULL;
}

unsigned long long limit_locals_bytes(const struct limits *lim, int nlong,
				       int nstr)
{
	unsigned long long n = 8ULL * nlong +
			       (unsigned long long)lim->maxstringlen * nstr + 1;

	return nlong ? align8(n) : n;
}

long long limit_max_nesting(const struct limits *lim)
{
	return lim->maxcallstack / LIMIT_MIN_CALL_FRAME;
}

bool limit_check_context(struct session *s, const struct limits *lim,
			 long long nesting, unsigned long long probe_bytes,
			 unsigned long long func_bytes)
{
	unsigned long long need;

	if (nesting > limit_max_nesting(lim)) {
		diag_error_noloc(s, "-D MAXNESTING=%lld: more nested calls "
				 "than the kernel stack holds (at most %lld: "
				 "MAXCALLSTACK=%lld bytes, %d or more per "
				 "call)", nesting, limit_max_nesting(lim),
				 lim->maxcallstack, LIMIT_MIN_CALL_FRAME);
		return false;
	}
	need = (unsigned long long)lim->maxstringlen + probe_bytes +
	       (unsigned long long)(nesting + 1) * func_bytes;
	if (need > LIMIT_CONTEXT_MAX) {
		diag_error_noloc(s, "the probe context needs %llu bytes per "
				 "CPU, more than %llu: lower MAXSTRINGLEN "
				 "(%lld) or MAXNESTING (%lld)", need,
				 LIMIT_CONTEXT_MAX, lim->maxstringlen,
				 nesting);
		return false;
	}
	return true;
}

bool limit_check_map(struct session *s, const struct limits *lim,
		      struct loc loc, const char *name, long long entries,
		      unsigned long long node_bytes, bool sized)
{
	node_bytes += LIMIT_NODE_HEADER;
	if (entries > 0 && (unsigned long long)entries <=
	    LIMIT_ALLOC_MAX / node_bytes)
		return true;
	if (sized)
		diag_error(s, loc, "array '%s' of %lld entries of %llu bytes "
			   "or more needs more than the kernel allocates at "
			   "once (%llu bytes)", name, entries, node_bytes,
			   LIMIT_ALLOC_MAX);
	else
		diag_error(s, loc, "array '%s' of MAXMAPENTRIES=%lld entries "
			   "of %llu bytes or more needs more than the kernel "
			   "allocates at once (%llu bytes)", name,
			   lim->maxmapentries, node_bytes, LIMIT_ALLOC_MAX);
	return false;
}

bool limit_check_entry(struct session *s, struct loc loc,
		       unsigned long long entry_bytes)
{
	if (entry_bytes <= LIMIT_ENTRY_MAX)
		return true;
	diag_error(s, loc, "the values saved at entry take %llu bytes per "
		   "pending return, more than %llu: lower MAXSTRINGLEN",
		   entry_bytes, LIMIT_ENTRY_MAX);
	return false;
}

void limit_emit_guard(const struct limits *lim, long long nesting,
		       struct strbuf *o)
{
	sb_printf(o, "#if MAXNESTING != %lld || MAXSTRINGLEN != %lld || \\\n"
		  "    MAXMAPENTRIES != %lld || MAXCALLSTACK != %lld || \\\n"
		  "    MINSTACKSPACE != %lld || STP_MAX_BUCKETS != %lld || \\\n"
		  "    MAXURETPROBE_FRAMES != %lld\n"
		  "#error \"a limit is not what stap checked: set limits with "
		  "-D only\"\n#endif\n\n", nesting, lim->maxstringlen,
		  lim->maxmapentries, lim->maxcallstack, lim->minstackspace,
		  lim->max_buckets, lim->uretprobe_frames);
}
