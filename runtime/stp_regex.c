/* stp_regex.c - =~ and !~: POSIX extended regular expressions parsed at
 * module init into a position (Glushkov) automaton kept as bitsets, and
 * matched in probe context by stepping a set of positions per byte.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#else
#include "kshim-print.h"
#endif
#include "stp_string.h"

/*
 * A position is one character set or anchor of the pattern; a{3} has
 * three.  The automaton's state is the set of positions that may match
 * the next byte.  first/last are the positions that can begin/end a
 * match, follow[p] those that can come right after p.  Anchors match
 * no byte: ^ is passed at the start of the string, $ at its end.
 *
 * re->sets holds nwords-word sets in this order: first, last, the ^
 * positions, the $ positions, match[nclass] (the positions accepting a
 * byte of each class), follow[npos].
 */
#define STP_RE_WORDS(n)		(((n) + 63) / 64)
#define STP_RE_MAXW		STP_RE_WORDS(STP_REGEX_MAX_POS)
#define STP_RE_FIRST		0
#define STP_RE_LAST		1
#define STP_RE_BOL		2
#define STP_RE_EOL		3
#define STP_RE_MATCH		4

#define STP_RE_MAX_PATTERN	8192	/* bytes of pattern text */
#define STP_RE_MAX_HEIGHT	40	/* nesting of lists, repeats */
#define STP_RE_MAX_GROUPS	16	/* nesting of parentheses */
#define STP_RE_DUP_MAX		255	/* largest count in {m,n} */
#define STP_RE_INF		0xffff	/* {m,} */
#define STP_RE_MAX_STEPS	20000	/* node visits while building */

enum stp_re_op {
	STP_RE_EMPTY,
	STP_RE_CHARS,		/* a byte set: kid is its index */
	STP_RE_BOL_OP,
	STP_RE_EOL_OP,
	STP_RE_CAT,		/* children kid, kid->next, ... */
	STP_RE_ALT,
	STP_RE_STAR,		/* child kid */
	STP_RE_PLUS,
	STP_RE_OPT,
	STP_RE_REP,		/* child kid, {min,max} */
	STP_RE_GROUP,		/* child kid, in parentheses number min */
};

/* Node 0 stands for "none": parse functions return it on error. */
struct stp_re_node {
	unsigned char op;
	unsigned char height;
	unsigned short kid;
	unsigned short next;
	unsigned short min, max;
};

struct stp_re_bytes {
	uint64_t w[4];		/* one bit per byte value */
};

/* pos_bytes[] of an anchor: what is not an index into bytes[]. */
#define STP_RE_POS_BOL		0xfffe
#define STP_RE_POS_EOL		0xffff

/* Everything compiling needs, allocated for the duration. */
struct stp_re_build {
	const unsigned char *p;		/* next pattern byte */
	int depth;			/* open groups */
	const char *error;
	int rc;
	unsigned int ngroups;
	bool groups;			/* build the program of matched() */
	struct stp_re_node *node;
	unsigned int nnode, maxnode;
	struct stp_re_bytes *bytes;
	unsigned int nbytes;
	unsigned long steps;
	/* The automaton under construction. */
	unsigned int npos;
	unsigned short pos_bytes[STP_REGEX_MAX_POS];	/* or an anchor */
	uint64_t follow[STP_REGEX_MAX_POS][STP_RE_MAXW];
	/* Two scratch sets per level of stp_re_eval. */
	uint64_t scratch[2 * (STP_RE_MAX_HEIGHT + 2)][STP_RE_MAXW];
	unsigned int nscratch;
	short refine[256][2];
	unsigned char rep[256];		/* a byte of each class */
};

/* ---- Bitsets ----------------------------------------------------- */

static void stp_re_zero(uint64_t *s, unsigned int w)
{
	memset(s, 0, w * sizeof(*s));
}

static void stp_re_or(uint64_t *d, const uint64_t *s, unsigned int w)
{
	while (w--)
		*d++ |= *s++;
}

static bool stp_re_any(const uint64_t *s, unsigned int w)
{
	while (w--)
		if (*s++)
			return true;
	return false;
}

static bool stp_re_meets(const uint64_t *a, const uint64_t *b,
			 unsigned int w)
{
	while (w--)
		if (*a++ & *b++)
			return true;
	return false;
}

static void stp_re_set(uint64_t *s, unsigned int bit)
{
	s[bit / 64] |= 1ULL << (bit % 64);
}

static bool stp_re_test(const uint64_t *s, unsigned int bit)
{
	return s[bit / 64] >> (bit % 64) & 1;
}

static void stp_re_range(struct stp_re_bytes *b, unsigned int lo,
			 unsigned int hi)
{
	while (lo <= hi)
		stp_re_set(b->w, lo++);
}

/* ---- Parsing ----------------------------------------------------- */

static unsigned int stp_re_fail(struct stp_re_build *bd, int rc,
				const char *msg)
{
	if (!bd->error) {
		bd->error = msg;
		bd->rc = rc;
	}
	return 0;
}

/* The same for functions that return a status. */
static int stp_re_error(struct stp_re_build *bd, int rc, const char *msg)
{
	stp_re_fail(bd, rc, msg);
	return -1;
}

static unsigned int stp_re_new(struct stp_re_build *bd, int op,
			       unsigned int kid)
{
	struct stp_re_node *n;
	unsigned int h = kid ? bd->node[kid].height : 0;

	if (bd->nnode == bd->maxnode)
		return stp_re_fail(bd, -E2BIG, "regex too large");
	if (h + 1 > STP_RE_MAX_HEIGHT)
		return stp_re_fail(bd, -E2BIG, "regex nested too deeply");
	n = &bd->node[bd->nnode];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->kid = kid;
	n->height = h + 1;
	return bd->nnode++;
}

/* Append child k to list node n (CAT or ALT), whose last child is *tail. */
static void stp_re_adopt(struct stp_re_build *bd, unsigned int n,
			 unsigned int *tail, unsigned int k)
{
	if (*tail)
		bd->node[*tail].next = k;
	else
		bd->node[n].kid = k;
	*tail = k;
	if (bd->node[k].height >= bd->node[n].height)
		bd->node[n].height = bd->node[k].height + 1;
	if (bd->node[n].height > STP_RE_MAX_HEIGHT)
		stp_re_fail(bd, -E2BIG, "regex nested too deeply");
}

static unsigned int stp_re_chars(struct stp_re_build *bd,
				 struct stp_re_bytes **set)
{
	unsigned int n = stp_re_new(bd, STP_RE_CHARS, 0);

	if (!n)
		return 0;
	bd->node[n].kid = bd->nbytes;
	*set = &bd->bytes[bd->nbytes++];
	memset(*set, 0, sizeof(**set));
	return n;
}

/* The C locale's classes, by name. */
static bool stp_re_class(struct stp_re_bytes *b, const unsigned char *name,
			 size_t len)
{
	static const char *const names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space",
		"blank", "punct", "print", "graph", "cntrl", "xdigit",
	};
	unsigned int i, c;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			break;
	for (c = 1; c < 256 && i < ARRAY_SIZE(names); c++) {
		bool up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z';
		bool dig = c >= '0' && c <= '9', graph = c > 0x20 && c < 0x7f;
		bool in[] = {
			up || lo, dig, up || lo || dig, up, lo,
			c == ' ' || (c >= '\t' && c <= '\r'),
			c == ' ' || c == '\t',
			graph && !up && !lo && !dig,
			graph || c == ' ', graph, c < 0x20 || c == 0x7f,
			dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'),
		};

		if (in[i])
			stp_re_set(b->w, c);
	}
	return i < ARRAY_SIZE(names);
}

/* After "[x" (x one of : = .), the text up to "x]"; NULL if unclosed. */
static const unsigned char *stp_re_bracket_word(const unsigned char *p,
						 size_t *len)
{
	const unsigned char *q;

	for (q = p + 2; *q; q++) {
		if (q[0] == p[1] && q[1] == ']') {
			*len = q - (p + 2);
			return p + 2;
		}
	}
	return NULL;
}

/* One end of a range: a byte or [.c.]; -1 with the error set if bad. */
static int stp_re_bracket_char(struct stp_re_build *bd)
{
	const unsigned char *w;
	size_t len;

	if (bd->p[0] != '[' || bd->p[1] != '.')
		return *bd->p++;
	w = stp_re_bracket_word(bd->p, &len);
	if (!w || len != 1) {
		stp_re_fail(bd, -EINVAL, w ? "invalid collating element" :
					     "unmatched [");
		return -1;
	}
	bd->p = w + len + 2;
	return *w;
}

/* item := '[:' name ':]' | '[=' c '=]' | end ['-' end]
 * end  := '[.' c '.]' | c
 * Returns 1 when the item was a range, 0 if not, -1 on error.
 */
static int stp_re_bracket_item(struct stp_re_build *bd,
			       struct stp_re_bytes *set)
{
	const unsigned char *w;
	size_t len;
	int lo, hi;

	if (bd->p[0] == '[' && (bd->p[1] == ':' || bd->p[1] == '=')) {
		bool cls = bd->p[1] == ':';

		w = stp_re_bracket_word(bd->p, &len);
		if (!w)
			return stp_re_error(bd, -EINVAL, "unmatched [");
		bd->p = w + len + 2;
		if (cls && !stp_re_class(set, w, len))
			return stp_re_error(bd, -EINVAL,
					    "unknown character class");
		if (!cls && len != 1)
			return stp_re_error(bd, -EINVAL,
					    "invalid equivalence class");
		if (!cls)
			stp_re_set(set->w, *w);
		/* A class cannot begin a range. */
		if (bd->p[0] == '-' && bd->p[1] != ']')
			return stp_re_error(bd, -EINVAL, "invalid range");
		return 0;
	}
	lo = stp_re_bracket_char(bd);
	if (lo < 0)
		return -1;
	if (bd->p[0] != '-' || bd->p[1] == ']' || !bd->p[1]) {
		stp_re_set(set->w, lo);
		return 0;
	}
	bd->p++;
	if (bd->p[0] == '[' && (bd->p[1] == ':' || bd->p[1] == '='))
		return stp_re_error(bd, -EINVAL, "invalid range");
	hi = stp_re_bracket_char(bd);
	if (hi < 0)
		return -1;
	if (hi < lo)
		return stp_re_error(bd, -EINVAL, "invalid range");
	stp_re_range(set, lo, hi);
	return 1;
}

/* bracket := '[' '^'? ']'? item* ']'   (bd->p past the '[')
 * Backslash is an ordinary character here, as POSIX says.
 */
static unsigned int stp_re_bracket(struct stp_re_build *bd)
{
	struct stp_re_bytes *set;
	unsigned int n = stp_re_chars(bd, &set), i;
	bool negate = false, first = true, after_range = false;
	int r;

	if (!n)
		return 0;
	if (*bd->p == '^') {
		negate = true;
		bd->p++;
	}
	for (;;) {
		if (!*bd->p)
			return stp_re_fail(bd, -EINVAL, "unmatched [");
		if (*bd->p == ']' && !first)
			break;
		/* a-c-e: a range cannot start where one ended */
		if (after_range && bd->p[0] == '-' && bd->p[1] != ']')
			return stp_re_fail(bd, -EINVAL, "invalid range");
		r = stp_re_bracket_item(bd, set);
		if (r < 0)
			return 0;
		after_range = r;
		first = false;
	}
	bd->p++;
	if (negate)
		for (i = 0; i < 4; i++)
			set->w[i] = ~set->w[i];
	set->w[0] &= ~1ULL;		/* no string holds a NUL */
	return n;
}

static unsigned int stp_re_regex(struct stp_re_build *bd);

/* atom := '(' regex ')' | '[' bracket | '.' | '^' | '$' | '\' c | c */
static unsigned int stp_re_atom(struct stp_re_build *bd)
{
	struct stp_re_bytes *set;
	unsigned int n, group;
	int c = *bd->p++;

	switch (c) {
	case '(':
		/* Parsing recurses per group: bound the stack it takes. */
		if (++bd->depth > STP_RE_MAX_GROUPS)
			return stp_re_fail(bd, -E2BIG,
					   "regex nested too deeply");
		/* Groups are numbered in the order of their '('. */
		group = ++bd->ngroups;
		n = stp_re_regex(bd);
		if (!n)
			return 0;
		if (*bd->p != ')')
			return stp_re_fail(bd, -EINVAL, "unmatched (");
		bd->p++;
		bd->depth--;
		n = stp_re_new(bd, STP_RE_GROUP, n);
		if (n)
			bd->node[n].min = group;
		return n;
	case '[':
		return stp_re_bracket(bd);
	case '^':
		return stp_re_new(bd, STP_RE_BOL_OP, 0);
	case '$':
		return stp_re_new(bd, STP_RE_EOL_OP, 0);
	case '*':
	case '+':
	case '?':
	case '{':
		return stp_re_fail(bd, -EINVAL, "nothing to repeat");
	case '.':
		n = stp_re_chars(bd, &set);
		if (n)
			stp_re_range(set, 1, 255);
		return n;
	case '\\':
		/* GNU's \w, \< and the like are not POSIX: as in the
		 * established tool, an escaped character is itself.
		 */
		c = *bd->p++;
		if (!c)
			return stp_re_fail(bd, -EINVAL, "trailing backslash");
		if (c >= '1' && c <= '9')
			return stp_re_fail(bd, -EINVAL,
					   "backreferences are not supported");
		break;
	}
	n = stp_re_chars(bd, &set);
	if (n)
		stp_re_set(set->w, c);
	return n;
}

/* A count of {m,n}; -1 if there are no digits, -2 if too large. */
static int stp_re_count(struct stp_re_build *bd)
{
	int n = -1;

	while (*bd->p >= '0' && *bd->p <= '9') {
		n = (n < 0 ? 0 : n) * 10 + (*bd->p++ - '0');
		if (n > STP_RE_DUP_MAX)
			return -2;
	}
	return n;
}

/* interval := '{' [m] [',' [n]] '}'   (bd->p past the '{'; one of m or
 * the comma must be there; {,n} is {0,n})
 */
static unsigned int stp_re_interval(struct stp_re_build *bd,
				    unsigned int kid)
{
	int min = stp_re_count(bd), max = min;
	unsigned int n;

	if (*bd->p == ',') {
		bd->p++;
		max = stp_re_count(bd);
		if (max == -1)
			max = STP_RE_INF;
		if (min == -1)
			min = 0;
	}
	if (min == -2 || max == -2)
		return stp_re_fail(bd, -E2BIG, "repeat count too large");
	if (*bd->p != '}')
		return stp_re_fail(bd, -EINVAL, *bd->p ? "invalid interval" :
							 "unmatched {");
	bd->p++;
	if (min < 0 || max < min)
		return stp_re_fail(bd, -EINVAL, "invalid interval");
	n = stp_re_new(bd, STP_RE_REP, kid);
	if (n) {
		bd->node[n].min = min;
		bd->node[n].max = max;
	}
	return n;
}

/* x** is x*; x+? and the like are x*: keeps a*+*?... from nesting. */
static unsigned int stp_re_postfix(struct stp_re_build *bd, int op,
				   unsigned int kid)
{
	int inner = bd->node[kid].op;

	if (inner == STP_RE_STAR || inner == STP_RE_PLUS ||
	    inner == STP_RE_OPT) {
		if (inner != op)
			bd->node[kid].op = STP_RE_STAR;
		return kid;
	}
	return stp_re_new(bd, op, kid);
}

/* piece := atom ('*' | '+' | '?' | interval)* */
static unsigned int stp_re_piece(struct stp_re_build *bd)
{
	bool anchor = *bd->p == '^' || *bd->p == '$';
	unsigned int n = stp_re_atom(bd);
	int c;

	while (n && (c = *bd->p) && strchr("*+?{", c)) {
		/* ^* is an error, (^)* is not: as glibc has it. */
		if (anchor)
			return stp_re_fail(bd, -EINVAL,
					   "repetition of an anchor");
		bd->p++;
		if (c == '{')
			n = stp_re_interval(bd, n);
		else
			n = stp_re_postfix(bd, c == '*' ? STP_RE_STAR :
					   c == '+' ? STP_RE_PLUS : STP_RE_OPT,
					   n);
	}
	return n;
}

/* A branch ends at '|', at the end, or at the ')' of an open group; a
 * ')' with no group open is an ordinary character.
 */
static bool stp_re_branch_end(struct stp_re_build *bd)
{
	return !*bd->p || *bd->p == '|' || (*bd->p == ')' && bd->depth);
}

/* branch := piece*   (an empty branch matches the empty string) */
static unsigned int stp_re_branch(struct stp_re_build *bd)
{
	unsigned int cat, tail = 0, k;

	if (stp_re_branch_end(bd))
		return stp_re_new(bd, STP_RE_EMPTY, 0);
	k = stp_re_piece(bd);
	if (!k || stp_re_branch_end(bd))
		return k;
	cat = stp_re_new(bd, STP_RE_CAT, 0);
	if (!cat)
		return 0;
	stp_re_adopt(bd, cat, &tail, k);
	while (!bd->error && !stp_re_branch_end(bd)) {
		k = stp_re_piece(bd);
		if (!k)
			return 0;
		stp_re_adopt(bd, cat, &tail, k);
	}
	return bd->error ? 0 : cat;
}

/* regex := branch ('|' branch)* */
static unsigned int stp_re_regex(struct stp_re_build *bd)
{
	unsigned int alt, tail = 0, k = stp_re_branch(bd);

	if (!k || *bd->p != '|')
		return k;
	alt = stp_re_new(bd, STP_RE_ALT, 0);
	if (!alt)
		return 0;
	stp_re_adopt(bd, alt, &tail, k);
	while (!bd->error && *bd->p == '|') {
		bd->p++;
		k = stp_re_branch(bd);
		if (!k)
			return 0;
		stp_re_adopt(bd, alt, &tail, k);
	}
	return bd->error ? 0 : alt;
}

/* ---- The position automaton -------------------------------------- */

/* What one subexpression contributes, as the Glushkov construction
 * composes it.
 */
struct stp_re_frag {
	uint64_t *first, *last;
	bool nullable;
};

static int stp_re_eval(struct stp_re_build *bd, unsigned int n,
		       struct stp_re_frag *f);

/* acc = acc followed by f. */
static void stp_re_concat(struct stp_re_build *bd, struct stp_re_frag *acc,
			  const struct stp_re_frag *f)
{
	unsigned int p;

	for (p = 0; p < bd->npos; p++)
		if (stp_re_test(acc->last, p))
			stp_re_or(bd->follow[p], f->first, STP_RE_MAXW);
	if (acc->nullable)
		stp_re_or(acc->first, f->first, STP_RE_MAXW);
	if (!f->nullable)
		stp_re_zero(acc->last, STP_RE_MAXW);
	stp_re_or(acc->last, f->last, STP_RE_MAXW);
	acc->nullable = acc->nullable && f->nullable;
}

/* f may repeat: every end of f may be followed by a start of it. */
static void stp_re_loop(struct stp_re_build *bd, const struct stp_re_frag *f)
{
	unsigned int p;

	for (p = 0; p < bd->npos; p++)
		if (stp_re_test(f->last, p))
			stp_re_or(bd->follow[p], f->first, STP_RE_MAXW);
}

static int stp_re_new_pos(struct stp_re_build *bd, unsigned short what,
			  struct stp_re_frag *f)
{
	if (bd->npos == STP_REGEX_MAX_POS)
		return stp_re_error(bd, -E2BIG,
				    "regex needs too many positions");
	bd->pos_bytes[bd->npos] = what;
	stp_re_set(f->first, bd->npos);
	stp_re_set(f->last, bd->npos);
	bd->npos++;
	f->nullable = false;
	return 0;
}

/* Two zeroed sets for the children of a list or repeat node. */
static void stp_re_scratch(struct stp_re_build *bd, struct stp_re_frag *f)
{
	f->first = bd->scratch[bd->nscratch++];
	f->last = bd->scratch[bd->nscratch++];
}

static void stp_re_clear(struct stp_re_frag *f)
{
	stp_re_zero(f->first, STP_RE_MAXW);
	stp_re_zero(f->last, STP_RE_MAXW);
}

/* CAT and ALT: compose the children left to right. */
static int stp_re_eval_list(struct stp_re_build *bd,
			    const struct stp_re_node *nd,
			    struct stp_re_frag *f)
{
	struct stp_re_frag sub;
	unsigned int k;
	int rc = 0;

	stp_re_scratch(bd, &sub);
	f->nullable = nd->op == STP_RE_CAT;
	for (k = nd->kid; k && !rc; k = bd->node[k].next) {
		stp_re_clear(&sub);
		rc = stp_re_eval(bd, k, &sub);
		if (rc)
			break;
		if (nd->op == STP_RE_CAT) {
			stp_re_concat(bd, f, &sub);
		} else {
			stp_re_or(f->first, sub.first, STP_RE_MAXW);
			stp_re_or(f->last, sub.last, STP_RE_MAXW);
			f->nullable |= sub.nullable;
		}
	}
	bd->nscratch -= 2;
	return rc;
}

/* x{min,max} as min copies of x, then x* (x+ for the last copy when
 * min > 0) or max - min copies of x?.
 */
static int stp_re_repeat(struct stp_re_build *bd,
			 const struct stp_re_node *nd, struct stp_re_frag *f)
{
	unsigned int i, copies = nd->max == STP_RE_INF ? nd->min : nd->max;
	struct stp_re_frag sub;
	int rc = 0;

	if (nd->max == STP_RE_INF && !nd->min)
		copies = 1;
	stp_re_scratch(bd, &sub);
	f->nullable = true;
	for (i = 0; i < copies && !rc; i++) {
		stp_re_clear(&sub);
		rc = stp_re_eval(bd, nd->kid, &sub);
		if (rc)
			break;
		if (nd->max == STP_RE_INF && i == copies - 1)
			stp_re_loop(bd, &sub);
		if (i >= nd->min)
			sub.nullable = true;
		stp_re_concat(bd, f, &sub);
	}
	bd->nscratch -= 2;
	return rc;
}

/* Fill f (first and last zeroed by the caller) for node n with fresh
 * positions: a subexpression evaluated twice (a{2}) gets two copies.
 */
static int stp_re_eval(struct stp_re_build *bd, unsigned int n,
		       struct stp_re_frag *f)
{
	const struct stp_re_node *nd = &bd->node[n];

	if (++bd->steps > STP_RE_MAX_STEPS)
		return stp_re_error(bd, -E2BIG, "regex too complex");
	switch (nd->op) {
	case STP_RE_EMPTY:
		f->nullable = true;
		return 0;
	case STP_RE_CHARS:
		return stp_re_new_pos(bd, nd->kid, f);
	case STP_RE_BOL_OP:
		return stp_re_new_pos(bd, STP_RE_POS_BOL, f);
	case STP_RE_EOL_OP:
		return stp_re_new_pos(bd, STP_RE_POS_EOL, f);
	case STP_RE_CAT:
	case STP_RE_ALT:
		return stp_re_eval_list(bd, nd, f);
	case STP_RE_REP:
		return stp_re_repeat(bd, nd, f);
	case STP_RE_GROUP:
		return stp_re_eval(bd, nd->kid, f);
	}
	/* STAR, PLUS, OPT */
	if (stp_re_eval(bd, nd->kid, f))
		return -1;
	if (nd->op != STP_RE_OPT)
		stp_re_loop(bd, f);
	if (nd->op != STP_RE_PLUS)
		f->nullable = true;
	return 0;
}

/* Bytes that every position treats alike share a class, so match[] has
 * one set per class rather than per byte: split the classes by each
 * position's byte set in turn.
 */
static unsigned int stp_re_classes(struct stp_re_build *bd,
				   unsigned char *cls)
{
	unsigned int nclass = 1, p, b;

	memset(cls, 0, 256);
	for (p = 0; p < bd->npos; p++) {
		const struct stp_re_bytes *set;
		unsigned int n = 0;

		if (bd->pos_bytes[p] >= STP_RE_POS_BOL)
			continue;
		set = &bd->bytes[bd->pos_bytes[p]];
		memset(bd->refine, 0xff, sizeof(bd->refine));
		for (b = 0; b < 256; b++) {
			short *k = &bd->refine[cls[b]][stp_re_test(set->w, b)];

			if (*k < 0)
				*k = n++;
			cls[b] = *k;
		}
		nclass = n;
	}
	for (b = 256; b--;)
		bd->rep[cls[b]] = b;
	return nclass;
}

static uint64_t *stp_re_table(const struct stp_regex *re, unsigned int i)
{
	return re->sets + (size_t)i * re->nwords;
}

/* Lay the automaton out in re->sets (see the top of this file). */
static int stp_re_finish(struct stp_re_build *bd, struct stp_regex *re,
			 const struct stp_re_frag *root)
{
	unsigned int w, p, c;
	size_t n;

	re->npos = bd->npos;
	re->nwords = w = bd->npos ? STP_RE_WORDS(bd->npos) : 1;
	re->nclass = stp_re_classes(bd, re->byte_class);
	re->nullable = root->nullable;
	n = (size_t)(STP_RE_MATCH + re->nclass + re->npos) * w;
	re->sets = kvzalloc(n * sizeof(uint64_t), GFP_KERNEL);
	if (!re->sets) {
		stp_re_fail(bd, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	memcpy(stp_re_table(re, STP_RE_FIRST), root->first, w * 8);
	memcpy(stp_re_table(re, STP_RE_LAST), root->last, w * 8);
	for (p = 0; p < bd->npos; p++) {
		unsigned short what = bd->pos_bytes[p];

		memcpy(stp_re_table(re, STP_RE_MATCH + re->nclass + p),
		       bd->follow[p], w * 8);
		if (what == STP_RE_POS_BOL || what == STP_RE_POS_EOL) {
			stp_re_set(stp_re_table(re, what == STP_RE_POS_BOL ?
						STP_RE_BOL : STP_RE_EOL), p);
			continue;
		}
		for (c = 0; c < re->nclass; c++) {
			if (stp_re_test(bd->bytes[what].w, bd->rep[c]))
				stp_re_set(stp_re_table(re, STP_RE_MATCH + c),
					   p);
		}
	}
	/* Only ^ can begin a match: no use trying after the start. */
	re->anchored = true;
	for (p = 0; p < bd->npos; p++)
		if (stp_re_test(root->first, p) &&
		    bd->pos_bytes[p] != STP_RE_POS_BOL)
			re->anchored = false;
	return 0;
}

static void stp_rp_build(struct stp_re_build *bd, struct stp_regex *re,
			 unsigned int top);

static int stp_re_build(struct stp_re_build *bd, struct stp_regex *re)
{
	struct stp_re_frag root;
	unsigned int top = stp_re_regex(bd);
	int rc;

	if (bd->error)
		return bd->rc;
	stp_re_scratch(bd, &root);
	stp_re_clear(&root);
	if (stp_re_eval(bd, top, &root))
		return bd->rc;
	rc = stp_re_finish(bd, re, &root);
	re->ngroups = bd->ngroups;
	if (!rc && bd->groups)
		stp_rp_build(bd, re, top);
	return rc;
}

static int stp_re_compile(struct stp_regex *re, const char *pattern,
			  bool groups)
{
	size_t len = strnlen(pattern, STP_RE_MAX_PATTERN + 1);
	struct stp_re_build *bd;
	int rc;

	memset(re, 0, sizeof(*re));
	if (len > STP_RE_MAX_PATTERN) {
		re->error = "regex too long";
		return -E2BIG;
	}
	bd = kvzalloc(sizeof(*bd), GFP_KERNEL);
	if (!bd) {
		re->error = "out of memory";
		return -ENOMEM;
	}
	/* Each pattern byte adds at most two nodes; node 0 is "none". */
	bd->maxnode = 2 * len + 2;
	bd->node = kvzalloc(bd->maxnode * sizeof(*bd->node), GFP_KERNEL);
	bd->bytes = kvzalloc((len + 1) * sizeof(*bd->bytes), GFP_KERNEL);
	if (bd->node && bd->bytes) {
		bd->p = (const unsigned char *)pattern;
		bd->nnode = 1;
		bd->groups = groups;
		rc = stp_re_build(bd, re);
	} else {
		stp_re_fail(bd, -ENOMEM, "out of memory");
		rc = -ENOMEM;
	}
	if (rc) {
		re->error = bd->error;
		kvfree(re->sets);
		re->sets = NULL;
	}
	if (!re->bytes)
		kvfree(bd->bytes);
	kvfree(bd->node);
	kvfree(bd);
	return rc;
}

int _stp_regex_compile(struct stp_regex *re, const char *pattern)
{
	return stp_re_compile(re, pattern, false);
}

int _stp_regex_compile_groups(struct stp_regex *re, const char *pattern)
{
	return stp_re_compile(re, pattern, true);
}

void _stp_regex_free(struct stp_regex *re)
{
	kvfree(re->sets);
	re->sets = NULL;
	kvfree(re->prog);
	re->prog = NULL;
	kvfree(re->bytes);
	re->bytes = NULL;
	kvfree(re->work);
	re->work = NULL;
}

/* ---- Matching ---------------------------------------------------- */

/* into |= follow[p] for every p in from (which is consumed). */
static void stp_re_follow(const struct stp_regex *re, uint64_t *from,
			  uint64_t *into)
{
	const uint64_t *follow = stp_re_table(re, STP_RE_MATCH + re->nclass);
	unsigned int w = re->nwords, i;

	for (i = 0; i < w; i++) {
		while (from[i]) {
			unsigned int p = i * 64 + __builtin_ctzll(from[i]);

			from[i] &= from[i] - 1;
			stp_re_or(into, follow + (size_t)p * w, w);
		}
	}
}

/* Pass the anchors in cur that hold here (^ at the start, $ at the
 * end), adding what may follow them, until none is left; 1 when one of
 * them ends a match.
 */
static int stp_re_anchors(const struct stp_regex *re, uint64_t *cur,
			  bool bol, bool eol)
{
	const uint64_t *last = stp_re_table(re, STP_RE_LAST);
	const uint64_t *bols = stp_re_table(re, STP_RE_BOL);
	const uint64_t *eols = stp_re_table(re, STP_RE_EOL);
	unsigned int w = re->nwords, i, round;
	uint64_t done[STP_RE_MAXW] = { 0 };

	/* Each round passes at least one new anchor. */
	for (round = 0; round <= re->npos; round++) {
		uint64_t t[STP_RE_MAXW];
		bool any = false;

		for (i = 0; i < w; i++) {
			t[i] = cur[i] & ((bol ? bols[i] : 0) |
					 (eol ? eols[i] : 0)) & ~done[i];
			done[i] |= t[i];
			any |= t[i] != 0;
		}
		if (!any)
			return 0;
		if (stp_re_meets(t, last, w))
			return 1;
		stp_re_follow(re, t, cur);
	}
	return 0;
}

/* A match may start at any byte, so first joins the state at each
 * step; the work per byte is bounded by the number of positions.
 */
int _stp_regex_exec(const struct stp_regex *re, const char *s)
{
	const uint64_t *first, *last;
	uint64_t cur[STP_RE_MAXW] = { 0 }, a[STP_RE_MAXW];
	unsigned int w = re->nwords, i;
	size_t at;

	if (unlikely(!re->sets))
		return 0;
	if (re->nullable)
		return 1;
	first = stp_re_table(re, STP_RE_FIRST);
	last = stp_re_table(re, STP_RE_LAST);
	for (at = 0;; at++) {
		unsigned char c = s[at];

		if (!at || !re->anchored)
			stp_re_or(cur, first, w);
		if ((!at || !c) && stp_re_anchors(re, cur, !at, !c))
			return 1;
		if (!c)
			return 0;
		for (i = 0; i < w; i++) {
			a[i] = cur[i] & stp_re_table(re, STP_RE_MATCH +
						     re->byte_class[c])[i];
			cur[i] = 0;
		}
		if (stp_re_meets(a, last, w))
			return 1;
		stp_re_follow(re, a, cur);
		if (re->anchored && !stp_re_any(cur, w))
			return 0;
	}
}

/* ---- Subexpressions (matched()) ----------------------------------
 *
 * The automaton above says where the leftmost-longest match ends; a
 * Pike machine (threads in order of preference, each with the ends of
 * its groups) then finds the preferred way to match exactly that text.
 */
enum stp_rp_op {
	STP_RP_CHAR,		/* a byte of set x */
	STP_RP_SPLIT,		/* go on at x, else at y */
	STP_RP_JMP,		/* go on at x */
	STP_RP_SAVE,		/* group end x = here */
	STP_RP_BOL,
	STP_RP_EOL,
	STP_RP_MATCH,
};

struct stp_rp_insn {
	unsigned char op;
	unsigned short x, y;
};

#define STP_RP_MAX_PROG		4096	/* instructions */
#define STP_RP_MAX_WORK		65536	/* bytes of work area per CPU */
#define STP_RP_NONE		0xffff

struct stp_rp_build {
	struct stp_rp_insn *prog;	/* STP_RP_MAX_PROG + 1: one spare */
	unsigned int n;
	bool over;
};

static unsigned int stp_rp_emit(struct stp_rp_build *pb, int op,
				unsigned int x, unsigned int y)
{
	struct stp_rp_insn *in = &pb->prog[pb->n];

	if (pb->n == STP_RP_MAX_PROG) {
		pb->over = true;
		return pb->n;
	}
	in->op = op;
	in->x = x;
	in->y = y;
	return pb->n++;
}

/* Point the chain of y fields from i (linked through y) at to. */
static void stp_rp_patch(struct stp_rp_build *pb, unsigned int i,
			 unsigned int to, bool x)
{
	while (i != STP_RP_NONE && !pb->over) {
		unsigned short *f = x ? &pb->prog[i].x : &pb->prog[i].y;
		unsigned int next = *f;

		*f = to;
		i = next;
	}
}

static void stp_rp_gen(struct stp_re_build *bd, struct stp_rp_build *pb,
		       unsigned int n)
{
	const struct stp_re_node *nd = &bd->node[n];
	unsigned int k, i, at, chain = STP_RP_NONE;

	switch (nd->op) {
	case STP_RE_EMPTY:
		return;
	case STP_RE_CHARS:
		stp_rp_emit(pb, STP_RP_CHAR, nd->kid, 0);
		return;
	case STP_RE_BOL_OP:
	case STP_RE_EOL_OP:
		stp_rp_emit(pb, nd->op == STP_RE_BOL_OP ? STP_RP_BOL :
			    STP_RP_EOL, 0, 0);
		return;
	case STP_RE_CAT:
		for (k = nd->kid; k; k = bd->node[k].next)
			stp_rp_gen(bd, pb, k);
		return;
	case STP_RE_ALT:
		/* Each branch but the last: split, branch, jump out. */
		for (k = nd->kid; bd->node[k].next && !pb->over;
		     k = bd->node[k].next) {
			at = stp_rp_emit(pb, STP_RP_SPLIT, 0, 0);
			pb->prog[at].x = at + 1;
			stp_rp_gen(bd, pb, k);
			chain = stp_rp_emit(pb, STP_RP_JMP, chain, 0);
			pb->prog[at].y = pb->n;
		}
		stp_rp_gen(bd, pb, k);
		stp_rp_patch(pb, chain, pb->n, true);
		return;
	case STP_RE_GROUP:
		stp_rp_emit(pb, STP_RP_SAVE, 2 * nd->min, 0);
		stp_rp_gen(bd, pb, nd->kid);
		stp_rp_emit(pb, STP_RP_SAVE, 2 * nd->min + 1, 0);
		return;
	case STP_RE_PLUS:
		at = pb->n;
		stp_rp_gen(bd, pb, nd->kid);
		stp_rp_emit(pb, STP_RP_SPLIT, at, pb->n + 1);
		return;
	case STP_RE_REP:
		for (i = 0; i < nd->min && !pb->over; i++)
			stp_rp_gen(bd, pb, nd->kid);
		if (nd->max != STP_RE_INF) {
			/* The optional copies, each a way out. */
			for (; i < nd->max && !pb->over; i++) {
				at = stp_rp_emit(pb, STP_RP_SPLIT, 0, chain);
				pb->prog[at].x = at + 1;
				chain = at;
				stp_rp_gen(bd, pb, nd->kid);
			}
			stp_rp_patch(pb, chain, pb->n, false);
			return;
		}
		break;		/* then x* */
	}
	/* STAR, OPT, and the loop of x{m,} */
	at = stp_rp_emit(pb, STP_RP_SPLIT, 0, 0);
	pb->prog[at].x = at + 1;
	stp_rp_gen(bd, pb, nd->kid);
	if (nd->op != STP_RE_OPT)
		stp_rp_emit(pb, STP_RP_JMP, at, 0);
	pb->prog[at].y = pb->n;
}

/* The work area of one CPU: two thread lists, the mark of the step
 * that last added each instruction, the stack of stp_rp_add, the
 * group ends being built. */
struct stp_rp_layout {
	size_t pcs, caps, mark, stack, cur, size;
};

struct stp_rp_frame {
	unsigned short pc;
	short slot;		/* >= 0: put val back in cur[slot] */
	int val;
};

static void stp_rp_layout(const struct stp_regex *re,
			  struct stp_rp_layout *l)
{
	size_t np = re->nprog, nc = 2 * (re->ngroups + 1);

	l->pcs = 0;				/* 2 lists: count + pcs */
	l->caps = l->pcs + 2 * (np + 1) * sizeof(int);
	l->mark = l->caps + 2 * np * nc * sizeof(int);
	l->stack = l->mark + np * sizeof(int);
	l->cur = l->stack + (2 * np + 2) * sizeof(struct stp_rp_frame);
	l->size = l->cur + nc * sizeof(int);
}

static void stp_rp_build(struct stp_re_build *bd, struct stp_regex *re,
			 unsigned int top)
{
	struct stp_rp_build pb = { 0 };
	struct stp_rp_layout l;

	pb.prog = kvzalloc((STP_RP_MAX_PROG + 1) * sizeof(*pb.prog),
			   GFP_KERNEL);
	if (!pb.prog)
		return;
	stp_rp_gen(bd, &pb, top);
	stp_rp_emit(&pb, STP_RP_MATCH, 0, 0);
	re->nprog = pb.n;
	stp_rp_layout(re, &l);
	if (pb.over || l.size > STP_RP_MAX_WORK) {
		kvfree(pb.prog);
		re->nprog = 0;
		return;
	}
	re->work = kvzalloc(l.size * nr_cpu_ids, GFP_KERNEL);
	if (!re->work) {
		kvfree(pb.prog);
		re->nprog = 0;
		return;
	}
	re->work_size = l.size;
	re->prog = pb.prog;
	re->bytes = bd->bytes;
}

/* The end of the longest match that starts at st, or -1. */
static int stp_re_longest(const struct stp_regex *re, const char *s,
			  size_t st)
{
	const uint64_t *first = stp_re_table(re, STP_RE_FIRST);
	const uint64_t *last = stp_re_table(re, STP_RE_LAST);
	const uint64_t *bols = stp_re_table(re, STP_RE_BOL);
	const uint64_t *eols = stp_re_table(re, STP_RE_EOL);
	uint64_t cur[STP_RE_MAXW] = { 0 }, a[STP_RE_MAXW], t[STP_RE_MAXW];
	unsigned int w = re->nwords, i, round;
	int best = re->nullable ? (int)st : -1;
	size_t at;

	stp_re_or(cur, first, w);
	for (at = st;; at++) {
		unsigned char c = s[at];
		uint64_t done[STP_RE_MAXW] = { 0 };

		/* Pass the anchors that hold here, each once. */
		for (round = 0; (!at || !c) && round <= re->npos; round++) {
			bool any = false;

			for (i = 0; i < w; i++) {
				t[i] = cur[i] & ((!at ? bols[i] : 0) |
						 (!c ? eols[i] : 0)) & ~done[i];
				done[i] |= t[i];
				any |= t[i] != 0;
			}
			if (!any)
				break;
			if (stp_re_meets(t, last, w))
				best = at;
			stp_re_follow(re, t, cur);
		}
		if (!c)
			return best;
		for (i = 0; i < w; i++) {
			a[i] = cur[i] & stp_re_table(re, STP_RE_MATCH +
						     re->byte_class[c])[i];
			cur[i] = 0;
		}
		if (stp_re_meets(a, last, w))
			best = at + 1;
		stp_re_follow(re, a, cur);
		if (!stp_re_any(cur, w))
			return best;
	}
}

struct stp_rp_run {
	const struct stp_regex *re;
	const unsigned char *s;
	size_t len;
	unsigned int nc;
	int *count[2], *pcs[2], *caps[2], *mark, *cur;
	struct stp_rp_frame *stack;
};

/* Add the thread at pc (at string position pos, step mark) to list l,
 * following splits, jumps, saves and anchors depth first in order of
 * preference; each instruction once per step. */
static void stp_rp_add(struct stp_rp_run *r, int l, unsigned int pc,
		       int pos, int mark)
{
	const struct stp_rp_insn *prog = r->re->prog;
	int sp = 0;

	r->stack[sp].pc = pc;
	r->stack[sp++].slot = -1;
	while (sp) {
		struct stp_rp_frame f = r->stack[--sp];

		if (f.slot >= 0) {
			r->cur[f.slot] = f.val;
			continue;
		}
		for (pc = f.pc; r->mark[pc] != mark;) {
			const struct stp_rp_insn *in = &prog[pc];

			r->mark[pc] = mark;
			if (in->op == STP_RP_JMP) {
				pc = in->x;
			} else if (in->op == STP_RP_SPLIT) {
				r->stack[sp].pc = in->y;
				r->stack[sp++].slot = -1;
				pc = in->x;
			} else if (in->op == STP_RP_SAVE) {
				r->stack[sp].slot = in->x;
				r->stack[sp++].val = r->cur[in->x];
				r->cur[in->x] = pos;
				pc++;
			} else if (in->op == STP_RP_BOL) {
				if (pos != 0)
					break;
				pc++;
			} else if (in->op == STP_RP_EOL) {
				if ((size_t)pos != r->len)
					break;
				pc++;
			} else {
				int n = r->count[l][0]++;

				r->pcs[l][n] = pc;
				memcpy(r->caps[l] + (size_t)n * r->nc, r->cur,
				       r->nc * sizeof(int));
				break;
			}
		}
	}
}

/* The preferred way to match s[st, en) exactly: group g's ends into
 * se. */
static void stp_rp_run(struct stp_rp_run *r, int st, int en, unsigned int g,
		       int *se)
{
	const struct stp_rp_insn *prog = r->re->prog;
	const struct stp_re_bytes *bytes = r->re->bytes;
	int pos, l = 0, i;

	for (i = 0; i < (int)r->nc; i++)
		r->cur[i] = -1;
	memset(r->mark, 0, r->re->nprog * sizeof(int));
	r->count[0][0] = r->count[1][0] = 0;
	stp_rp_add(r, 0, 0, st, st + 1);
	for (pos = st; pos <= en; pos++, l ^= 1) {
		r->count[l ^ 1][0] = 0;
		for (i = 0; i < r->count[l][0]; i++) {
			const struct stp_rp_insn *in = &prog[r->pcs[l][i]];
			int *caps = r->caps[l] + (size_t)i * r->nc;

			if (in->op == STP_RP_MATCH) {
				if (pos != en)
					continue;
				se[0] = caps[2 * g];
				se[1] = caps[2 * g + 1];
				return;
			}
			if (pos == en ||
			    !stp_re_test(bytes[in->x].w, r->s[pos]))
				continue;
			memcpy(r->cur, caps, r->nc * sizeof(int));
			stp_rp_add(r, l ^ 1, r->pcs[l][i] + 1, pos + 1,
				   pos + 2);
		}
	}
}

int _stp_regex_submatch(const struct stp_regex *re, const char *s,
			unsigned int g, int *se)
{
	struct stp_rp_layout lay;
	struct stp_rp_run r = { .re = re, .s = (const unsigned char *)s };
	char *w;
	size_t st;
	int en = -1;

	if (unlikely(!re->sets) || !_stp_regex_exec(re, s))
		return 0;
	r.len = strlen(s);
	for (st = 0; st <= r.len; st++) {
		en = stp_re_longest(re, s, st);
		if (en >= 0 || re->anchored)
			break;
	}
	if (en < 0)
		return 0;
	se[0] = st;
	se[1] = en;
	if (!g)
		return 1;
	se[0] = se[1] = -1;
	if (g > re->ngroups)
		return 1;
	if (!re->prog)
		return -E2BIG;
	stp_rp_layout(re, &lay);
	w = (char *)re->work + re->work_size * smp_processor_id();
	r.nc = 2 * (re->ngroups + 1);
	r.count[0] = (int *)(w + lay.pcs);
	r.pcs[0] = r.count[0] + 1;
	r.count[1] = r.pcs[0] + re->nprog;
	r.pcs[1] = r.count[1] + 1;
	r.caps[0] = (int *)(w + lay.caps);
	r.caps[1] = r.caps[0] + (size_t)re->nprog * r.nc;
	r.mark = (int *)(w + lay.mark);
	r.stack = (struct stp_rp_frame *)(w + lay.stack);
	r.cur = (int *)(w + lay.cur);
	stp_rp_run(&r, (int)st, en, g, se);
	return 1;
}

int _stp_regex_exec_keep(const struct stp_regex *re, const char *s,
			 const struct stp_regex **kre, char *ks)
{
	int rc = _stp_regex_exec(re, s);

	*kre = rc ? re : NULL;
	if (rc && ks != s)
		strscpy(ks, s, MAXSTRINGLEN);
	return rc;
}
