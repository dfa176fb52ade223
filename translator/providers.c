/* providers.c - the table of probe providers, the parsing of their
 * pattern strings into struct prov_pattern, helpers for build hooks, and
 * the families that are recognised but not implemented yet.
 */
#include "provider.h"
#include "session.h"
#include "target.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/uelf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Families recognised so that a script using them gets a clear "not
 * supported yet" rather than "no match".  Each becomes a real provider
 * in its own file under providers/ when implemented.
 */
#define DW_ROOTS "{process,process(s),process(n)," \
		 "process.library(s),process(s).library(s)}"

static const char *const dwarf_patterns[] = {
	DW_ROOTS ".function(s).return.maxactive(n)",
	DW_ROOTS ".statement({s,n}).nearest",
	"process(n).statement(n).absolute{,.return}",
	NULL
};

#define UNSUPPORTED(var, nm, pats)	\
	static const struct provider var = {	\
		.name = nm,		\
		.patterns = pats,	\
		.unsupported = true,	\
	}

UNSUPPORTED(dwarf_provider, "dwarf", dwarf_patterns);

static const struct provider *const providers[] = {
	&begin_provider,
	&end_provider,
	&error_provider,
	&never_provider,
	&timer_provider,
	&dwarf_provider,
	&kfunc_provider,
	&tracepoint_provider,
	&uprobe_provider,
	&process_events_provider,
	&syscall_provider,
	&hwbkpt_provider,
	&perf_provider,
	&procfs_provider,
	&netfilter_provider,
};

/* ------------------------------------------------------------------ */
/* Pattern strings                                                    */

/* Index of the '}' or ',' that ends the alternative starting at p. */
static const char *alt_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
	}
	return p;
}

/* Where expanded patterns go. */
struct pattern_sink {
	struct arena *arena;
	struct vec *out;
};

/* One flat pattern ("timer.ms(n).randomize(n)") into the sink. */
static void add_flat(struct pattern_sink *ps, const struct provider *prov,
		     const char *text)
{
	struct prov_pattern *pat = arena_alloc(ps->arena, sizeof(*pat));
	const char *p = text;

	pat->prov = prov;
	while (*p) {
		const char *q = p + strcspn(p, ".(");
		struct pat_comp *c;

		if (pat->n == PROV_MAX_COMPS) {
			fprintf(stderr, "stap: internal: pattern '%s' too "
				"long\n", text);
			return;
		}
		c = &pat->comps[pat->n++];
		c->functor = intern_n(p, (size_t)(q - p));
		c->arg = PAT_NONE;
		if (*q == '(') {
			c->arg = q[1] == 'n' ? PAT_NUM : PAT_STR;
			q += 3;
		}
		p = *q == '.' ? q + 1 : q;
	}
	vec_push(ps->arena, ps->out, pat);
}

/* Expand the first {a,b,...} group of prefix+rest, recursively: the
 * result is the cartesian product of all groups.
 */
static void expand(struct pattern_sink *ps, const struct provider *prov,
		   struct strbuf *prefix, const char *rest)
{
	const char *open = strchr(rest, '{');
	const char *alt, *close;
	size_t keep = prefix->len;

	if (!open) {
		sb_puts(prefix, rest);
		add_flat(ps, prov, prefix->buf);
		prefix->len = keep;
		prefix->buf[keep] = '\0';
		return;
	}
	close = open + 1;
	while (*close != '}')
		close = *close == ',' ? close + 1 : alt_end(close);
	for (alt = open + 1;; alt++) {
		const char *end = alt_end(alt);
		struct strbuf tail;

		sb_init(&tail);
		sb_putn(&tail, alt, (size_t)(end - alt));
		sb_puts(&tail, close + 1);
		sb_putn(prefix, rest, (size_t)(open - rest));
		expand(ps, prov, prefix, tail.buf);
		prefix->len = keep;
		prefix->buf[keep] = '\0';
		sb_free(&tail);
		if (end == close)
			break;
		alt = end;
	}
}

void provider_patterns(struct arena *a, struct vec *out)
{
	struct pattern_sink ps = { a, out };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(providers); i++) {
		const char *const *p;

		for (p = providers[i]->patterns; *p; p++) {
			struct strbuf prefix;

			sb_init(&prefix);
			sb_putn(&prefix, "", 0);
			expand(&ps, providers[i], &prefix, *p);
			sb_free(&prefix);
		}
	}
}

/* ------------------------------------------------------------------ */
int prov_callee_depth(struct prov_ctx *c, const struct pp_comp *cscomp)
{
	int64_t n = 1;

	if (!cscomp || !cscomp->arg)
		return 1;
	if (!pp_arg_num(cscomp->arg, &n) || n < 1 ||
	    n > KDWARF_CALLEE_DEPTH) {
		prov_error(c, cscomp->arg->loc, "the depth of .callees(N) "
			   "must be between 1 and %d", KDWARF_CALLEE_DEPTH);
		return 0;
	}
	return (int)n;
}

void prov_emit_callee_paths(struct strbuf *d, const struct vec *paths,
			    const char *type, const char *prefix, int n)
{
	int i, l, at = 0;

	sb_printf(d, "static const struct %s %s_%d_paths[] = {\n", type,
		  prefix, n);
	for (i = 0; i < paths->n; i++) {
		const struct kcallpath *p = paths->items[i];
		int calls = 0;

		for (l = 0; l < p->depth; l++)
			calls += p->levels[l].n;
		sb_printf(d, "\t{ %s_%d_from + %d, %d, %d },\n", prefix, n,
			  at, calls, p->depth);
		at += calls;
	}
	sb_puts(d, "};\n\n");
}

/* Helpers for hooks                                                  */

void prov_error(struct prov_ctx *c, struct loc loc, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	c->errors++;
	if (c->quiet && !(c->why && !c->why->len))
		return;
	va_start(ap, fmt);
	msg = arena_vprintf(c->s->arena, fmt, ap);
	va_end(ap);
	if (c->quiet) {
		sb_puts(c->why, msg);
		return;
	}
	if (c->held)
		diag_error_held(c->s, c->held, loc, "%s", msg);
	else
		diag_error(c->s, loc, "%s", msg);
}

enum pat_arg pp_arg_kind(const struct expr *arg)
{
	if (!arg)
		return PAT_NONE;
	if (arg->kind == EX_STR)
		return PAT_STR;
	return PAT_NUM;
}

bool pp_arg_num(const struct expr *arg, int64_t *out)
{
	if (!arg)
		return false;
	if (arg->kind == EX_NUM) {
		*out = arg->num;
		return true;
	}
	/* a negative literal may reach us as unary minus on a number */
	if (arg->kind == EX_UNARY && arg->a && arg->a->kind == EX_NUM &&
	    arg->op && strcmp(arg->op, "-") == 0) {
		*out = (int64_t)(0 - (uint64_t)arg->a->num);
		return true;
	}
	return false;
}

void prov_save_at_entry(struct prov_ctx *c, struct derived_probe *dp,
			struct expr *e, struct expr *saved)
{
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	r->base = TRB_ENTRY;
	r->slot = dp->entry_exprs.n;
	r->saved = saved;
	e->tref = r;
	vec_push(c->s->arena, &dp->entry_exprs, e);
}

void prov_snapshot_at_entry(struct prov_ctx *c, struct derived_probe *dp,
			    struct expr *e)
{
	struct expr *inner = arena_alloc(c->s->arena, sizeof(*inner));

	*inner = *e;
	memset(&e->comps, 0, sizeof(e->comps));
	e->kind = EX_ENTRY;
	e->a = inner;
	prov_save_at_entry(c, dp, e, inner);
}

int prov_expand_process(struct prov_ctx *c, const struct probe_point *pp,
			struct vec *out)
{
	const struct pp_comp *proc = pp_comp_of(pp, intern("process"));
	struct arena *a = c->s->arena;
	struct probe_point *np;
	char *path, *err = NULL;
	int i;

	if (!proc || !proc->arg || proc->arg->kind != EX_STR) {
		vec_push(a, out, (void *)pp);
		return 1;
	}
	path = uelf_resolve(proc->arg->str, &err);
	if (!path) {
		if (!c->optional)
			prov_error(c, proc->arg->loc, "%s", err);
		c->errors++;
		free(err);
		return -1;
	}
	np = arena_alloc(a, sizeof(*np));
	*np = *pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (oc == proc) {
			struct expr *e = arena_alloc(a, sizeof(*e));

			*e = *oc->arg;
			e->str = arena_strdup(a, path);
			nc->arg = e;
		}
		vec_push(a, &np->comps, nc);
	}
	free(path);
	vec_push(a, out, np);
	return 1;
}

const struct pp_comp *pp_comp_of(const struct probe_point *pp,
				 const char *functor)
{
	int i;

	for (i = 0; i < pp->comps.n; i++) {
		const struct pp_comp *c = vec_get(&pp->comps, i);

		if (c->functor == functor)
			return c;
	}
	return NULL;
}

bool pp_num(const struct probe_point *pp, const char *functor,
	    int64_t *out)
{
	const struct pp_comp *c = pp_comp_of(pp, functor);

	return c && pp_arg_num(c->arg, out);
}

const char *pp_text(struct arena *a, const struct probe_point *pp)
{
	struct strbuf sb;
	const char *r;
	int i;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	for (i = 0; i < pp->comps.n; i++) {
		const struct pp_comp *c = vec_get(&pp->comps, i);
		int64_t v;

		if (i)
			sb_putc(&sb, '.');
		sb_puts(&sb, c->functor);
		if (!c->arg)
			continue;
		sb_putc(&sb, '(');
		if (c->arg->kind == EX_STR)
			print_string_literal(&sb, c->arg->str);
		else if (pp_arg_num(c->arg, &v))
			sb_printf(&sb, "%" PRId64, v);
		else
			print_expr(&sb, c->arg);
		sb_putc(&sb, ')');
	}
	r = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return r;
}
