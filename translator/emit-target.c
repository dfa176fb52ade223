/* emit-target.c - pass 3: the target variables ($var, @cast, @var, the
 * member and index chains pass 2 resolved into a tref, target.h) as
 * fault-safe reads of kernel or user memory, their pretty printing, the
 * values a .return probe saved at entry, and the writes of guru mode.
 */
#include "emit-int.h"
#include "target.h"
#include "provider.h"

#include <inttypes.h>
#include <string.h>

void gen_target_unsupported(struct emitter *em, struct strbuf *o,
			    const struct expr *e, const char *what)
{
	emit_error(em, e->loc, "%s is not supported yet", what);
	sb_puts(o, "0");
}

/* Read size bytes at C address expression addr into the unsigned
 * variable var, or fail the handler naming the address.
 */
static void gen_kread(struct emitter *em, struct strbuf *o, const char *var,
		      const char *addr, unsigned int size, const char *at)
{
	sb_printf(o, "{ u%u __t; if (_stp_%cread(&__t, %s, %u)) { "
		  "_stp_error_fmt(c, ", size * 8, em->uread ? 'u' : 'k', addr,
		  size);
	sb_c_string(o, at);
	sb_printf(o, ", \"%s read fault at 0x%%lx\", (unsigned long)(%s)); "
		  "%s; } %s = __t; } ", em->uread ? "user" : "kernel", addr,
		  fail_jump(em), var);
}

/* The registers a tref reads: a uprobe's are the user's. */
static const char *tregs(const struct tref *r)
{
	return r->user ? "c->uregs" : "c->regs";
}

static unsigned int read_size(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 ? size : 8;
}

/* A target value that is a register, $return, a tracepoint argument or
 * a constant, read as it is and converted to the script's long by a
 * cast: it reads no memory, so it cannot fail.
 */
bool target_simple(const struct expr *e)
{
	const struct tref *r = e->kind == EX_TARGET ? e->tref : NULL;
	unsigned int bits;

	if (!r || r->nsteps || r->in_mem || e->addressof || e->pretty ||
	    r->bit_off || r->bit_size || !r->final || e->type != TY_LONG)
		return false;
	switch (r->base) {
	case TRB_REG:
	case TRB_REGVAL:
	case TRB_RETURN:
	case TRB_TARG:
	case TRB_CONSTV:
		break;
	default:
		return false;
	}
	bits = r->final->size * 8;
	return r->final->kind == KT_PTR || bits == 8 || bits == 16 ||
	       bits == 32 || bits == 64;
}

const char *target_simple_text(struct emitter *em, const struct expr *e)
{
	const struct tref *r = e->tref;
	struct arena *a = em->s->arena;
	const char *x = "0";
	unsigned int bits = r->final->size * 8;

	switch (r->base) {
	case TRB_REG:
		x = arena_printf(a, "%s->%s", tregs(r), r->reg);
		break;
	case TRB_REGVAL:
		x = arena_printf(a, "(%s->%s + (%ldL))", tregs(r), r->reg,
				 r->sp_off);
		break;
	case TRB_RETURN:
		x = arena_printf(a, "regs_return_value(%s)", tregs(r));
		break;
	case TRB_TARG:
		x = arena_printf(a, "c->targs[%d]", r->argno);
		break;
	case TRB_CONSTV:
		x = arena_printf(a, "(u64)%" PRId64 "LL", r->value);
		break;
	default:
		break;
	}
	if (r->final->kind == KT_PTR || bits >= 64)
		return arena_printf(a, "(int64_t)%s", x);
	return arena_printf(a, "(int64_t)(%c%u)%s",
			    r->final->is_signed ? 's' : 'u', bits, x);
}

/* The base of r into __a (memory) or __v (value). */
static void gen_tbase(struct emitter *em, struct strbuf *o,
		      const struct expr *e, const struct tref *r,
		      const char *a, const char *v)
{
	switch (r->base) {
	case TRB_REG:
		sb_printf(o, "%s = (u64)%s->%s; ", v, tregs(r), r->reg);
		break;
	case TRB_MEM:
		sb_printf(o, "%s = %s->%s + (%ldL); ", a, tregs(r), r->reg,
			  r->sp_off);
		break;
	case TRB_REGVAL:
		sb_printf(o, "%s = (u64)(%s->%s + (%ldL)); ", v, tregs(r),
			  r->reg, r->sp_off);
		break;
	case TRB_CONSTV:
		sb_printf(o, "%s = (u64)%" PRId64 "LL; ", v, r->value);
		break;
	case TRB_RETURN:
		sb_printf(o, "%s = (u64)regs_return_value(%s); ", v,
			  tregs(r));
		break;
	case TRB_KENTRY:
		sb_printf(o, "if (_stp_kentry_get(&%s, &%s)) { "
			  "_stp_error_fmt(c, ", r->reg, v);
		sb_c_string(o, where(em, e));
		sb_printf(o, ", \"%s: its value at the function's entry is not "
			  "known: this task entered it before the probes were "
			  "armed\"); %s; } ", e->name ? e->name : "value",
			  fail_jump(em));
		if (r->in_mem)
			sb_printf(o, "%s = %s + (%ldL); ", a, v, r->sp_off);
		else
			sb_printf(o, "%s += (%ldL); ", v, r->sp_off);
		break;
	case TRB_KSTATIC:
		sb_printf(o, "%s = (unsigned long)&jiffies_64 + (%ldL); ", a,
			  r->sp_off);
		break;
	case TRB_CAST:
		sb_printf(o, "%s = (unsigned long)(", a);
		gen_expr(em, o, e->a);
		sb_puts(o, "); ");
		break;
	case TRB_TARG:
		sb_printf(o, "%s = c->targs[%d]; ", v, r->argno);
		break;
	case TRB_VALUE:
		sb_printf(o, "%s = (u64)(", v);
		gen_expr(em, o, e->a);
		sb_puts(o, "); ");
		break;
	default:
		break;
	}
}

static void gen_tsteps(struct emitter *em, struct strbuf *o,
		       const struct tref *r, const char *a, const char *v,
		       const char *at)
{
	int i;

	for (i = 0; i < r->nsteps; i++) {
		const struct tstep *st = &r->steps[i];

		switch (st->kind) {
		case TS_LOAD:
			gen_kread(em, o, v, a, 8, at);
			break;
		case TS_DEREF:
			sb_printf(o, "%s = (unsigned long)%s; ", a, v);
			break;
		case TS_ADD:
			sb_printf(o, "%s += %luUL; ", a, st->off);
			break;
		case TS_INDEX:
			sb_printf(o, "%s += (unsigned long)(", a);
			gen_expr(em, o, st->index);
			sb_printf(o, ") * %luUL; ", st->off);
			break;
		case TS_SHIFT:
			sb_printf(o, "%s >>= %lu; ", v, st->off * 8);
			break;
		}
	}
}

/* Convert the raw bits in v to the script's 64-bit value of type t. */
static void gen_tconvert(struct strbuf *o, const struct ktype *t,
			 unsigned int bit_off, unsigned int bit_size,
			 const char *v)
{
	unsigned int bits = bit_size ? bit_size : t->size * 8;

	if (bit_off)
		sb_printf(o, "%s >>= %u; ", v, bit_off);
	if (t->kind == KT_PTR || !bits || bits >= 64)
		return;
	if (t->is_signed)
		sb_printf(o, "%s = (u64)(((s64)(%s << %u)) >> %u); ", v, v,
			  64 - bits, 64 - bits);
	else
		sb_printf(o, "%s &= %#llxULL; ", v,
			  (unsigned long long)((1ULL << bits) - 1));
}

/* The scalar at the current state (memory at a, or value v) into v. */
static void gen_tload(struct emitter *em, struct strbuf *o,
		      const struct ktype *t, bool in_mem, unsigned int bit_off,
		      unsigned int bit_size, const char *a, const char *v,
		      const char *at)
{
	if (in_mem) {
		unsigned int n = read_size(t->size);

		if (bit_size && bit_off + bit_size > n * 8)
			n = 8;
		gen_kread(em, o, v, a, n, at);
	}
	gen_tconvert(o, t, bit_off, bit_size, v);
}

static bool is_char_ptr(const struct ktype *t)
{
	return t->kind == KT_PTR && t->target && t->target->kind == KT_INT &&
	       t->target->is_char;
}

/* Append the pretty form of type t at the current state to buf; depth
 * counts struct levels still to expand.
 */
static void gen_pretty(struct emitter *em, struct strbuf *o,
		       const struct ktype *t, bool in_mem, const char *a,
		       const char *v, const char *buf, int depth,
		       const char *at, int *budget);

/* Whether text mentions the identifier name (not as part of another). */
static bool mentions(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(text, name); p; p = strstr(p + 1, name)) {
		char next = p[n];

		if (!(next == '_' || (next >= '0' && next <= '9') ||
		      (next >= 'a' && next <= 'z') ||
		      (next >= 'A' && next <= 'Z')))
			return true;
	}
	return false;
}

/* Once the block that tvar_open opened at o[at] is written: declare
 * only the temporaries it uses, without the casts that kept the
 * others quiet.
 */
static void tvar_trim(struct emitter *em, struct strbuf *o, size_t at,
		      const char *a, const char *v)
{
	const char *decl = arena_printf(em->s->arena,
					"{ unsigned long %s = 0; u64 %s = 0; "
					"(void)%s; (void)%s; ", a, v, a, v);
	size_t n = strlen(decl);
	struct strbuf t;

	if (o->len < at + n || strncmp(o->buf + at, decl, n))
		return;
	sb_init(&t);
	sb_putn(&t, o->buf, at);
	sb_puts(&t, "{ ");
	if (mentions(o->buf + at + n, a))
		sb_printf(&t, "unsigned long %s = 0; ", a);
	if (mentions(o->buf + at + n, v))
		sb_printf(&t, "u64 %s = 0; ", v);
	sb_puts(&t, o->buf + at + n);
	sb_free(o);
	*o = t;
}

/* Open a block with a fresh pair of target temporaries, an address that
 * starts at init and a value; *a and *v name them.
 */
static void tvar_open(struct emitter *em, struct strbuf *o, const char *init,
		      const char **a, const char **v)
{
	int n = ++em->tvar;

	*a = arena_printf(em->s->arena, "__a%d", n);
	*v = arena_printf(em->s->arena, "__v%d", n);
	sb_printf(o, "{ unsigned long %s = %s; u64 %s = 0; (void)%s; "
		  "(void)%s; ", *a, init, *v, *a, *v);
}

static void gen_pretty_members(struct emitter *em, struct strbuf *o,
			       const struct ktype *t, const char *a,
			       const char *buf, int depth, const char *at,
			       int *budget, bool *first)
{
	struct kmember m;
	int i;

	for (i = 0; !t->src->ops->member_at(t->src, t, i, &m); i++) {
		const char *init, *ma, *mv;

		if (--*budget < 0)
			break;
		init = arena_printf(em->s->arena, "%s + %luUL", a, m.offset);
		if (!*m.name) {
			/* anonymous members read as if they were ours */
			tvar_open(em, o, init, &ma, &mv);
			gen_pretty_members(em, o, m.type, ma, buf, depth, at,
					   budget, first);
			sb_puts(o, "} ");
			continue;
		}
		sb_printf(o, "_stp_pp_cat(%s, \"%s.%s=\"); ", buf,
			  *first ? "" : ", ", m.name);
		*first = false;
		tvar_open(em, o, init, &ma, &mv);
		if (m.bit_size) {
			gen_tload(em, o, m.type, true, m.bit_offset, m.bit_size,
				  ma, mv, at);
			sb_printf(o, "_stp_pp_num(%s, (s64)%s, 0); ", buf, mv);
		} else {
			gen_pretty(em, o, m.type, true, ma, mv, buf, depth, at,
				   budget);
		}
		sb_puts(o, "} ");
	}
}

static void gen_pretty(struct emitter *em, struct strbuf *o,
		       const struct ktype *t, bool in_mem, const char *a,
		       const char *v, const char *buf, int depth,
		       const char *at, int *budget)
{
	switch (t->kind) {
	case KT_INT:
	case KT_ENUM:
		gen_tload(em, o, t, in_mem, 0, 0, a, v, at);
		sb_printf(o, "_stp_pp_num(%s, (s64)%s, 0); ", buf, v);
		return;
	case KT_PTR:
		gen_tload(em, o, t, in_mem, 0, 0, a, v, at);
		if (is_char_ptr(t))
			sb_printf(o, "_stp_pp_%cstr(%s, (unsigned long)%s, "
				  "MAXSTRINGLEN); ", em->uread ? 'u' : 'k',
				  buf, v);
		else
			sb_printf(o, "_stp_pp_num(%s, (s64)%s, 1); ", buf, v);
		return;
	case KT_ARRAY:
		if (!in_mem)
			break;
		if (t->target && t->target->kind == KT_INT &&
		    t->target->is_char) {
			sb_printf(o, "if (_stp_pp_%carr(%s, %s, %u)) { "
				  "_stp_error_fmt(c, ", em->uread ? 'u' : 'k',
				  buf, a, t->nelem);
			sb_c_string(o, at);
			sb_printf(o, ", \"%s read fault at 0x%%lx\", %s); "
				  "%s; } ", em->uread ? "user" : "kernel", a,
				  fail_jump(em));
			return;
		}
		if (depth <= 0 || !t->nelem || !t->target->size) {
			sb_printf(o, "_stp_pp_cat(%s, \"[...]\"); ", buf);
			return;
		} else {
			unsigned int i, n = t->nelem < 8 ? t->nelem : 8;

			sb_printf(o, "_stp_pp_cat(%s, \"[\"); ", buf);
			for (i = 0; i < n && --*budget >= 0; i++) {
				const char *ea, *ev;

				if (i)
					sb_printf(o, "_stp_pp_cat(%s, \", \"); ",
						  buf);
				tvar_open(em, o, arena_printf(em->s->arena,
					  "%s + %uUL", a, i * t->target->size),
					  &ea, &ev);
				gen_pretty(em, o, t->target, true, ea, ev, buf,
					   depth - 1, at, budget);
				sb_puts(o, "} ");
			}
			sb_printf(o, "_stp_pp_cat(%s, \"%s]\"); ", buf,
				  n < t->nelem ? ", ..." : "");
		}
		return;
	case KT_STRUCT:
	case KT_UNION:
		if (!in_mem || depth <= 0) {
			sb_printf(o, "_stp_pp_cat(%s, \"{...}\"); ", buf);
			return;
		} else {
			bool first = true;

			sb_printf(o, "_stp_pp_cat(%s, \"{\"); ", buf);
			gen_pretty_members(em, o, t, a, buf, depth - 1, at,
					   budget, &first);
			sb_printf(o, "_stp_pp_cat(%s, \"}\"); ", buf);
		}
		return;
	default:
		break;
	}
	sb_printf(o, "_stp_pp_cat(%s, \"?\"); ", buf);
}

/* $x$ / $x$$ of a pointer to a structure prints the structure. */
static void gen_pretty_top(struct emitter *em, struct strbuf *o,
			   const struct ktype *t, bool in_mem, const char *a,
			   const char *v, const char *buf, int pretty,
			   const char *at)
{
	int budget = pretty > 1 ? 400 : 200;
	int depth = pretty > 1 ? 4 : 1;

	if (t->kind == KT_PTR && t->target &&
	    (t->target->kind == KT_STRUCT || t->target->kind == KT_UNION)) {
		gen_tload(em, o, t, in_mem, 0, 0, a, v, at);
		sb_printf(o, "if (!%s) _stp_pp_cat(%s, \"NULL\"); else { "
			  "%s = (unsigned long)%s; ", v, buf, a, v);
		gen_pretty(em, o, t->target, true, a, v, buf, depth, at,
			   &budget);
		sb_puts(o, "} ");
		return;
	}
	gen_pretty(em, o, t, in_mem, a, v, buf, depth, at, &budget);
}

/* $$parms and friends: "name=0x1 name2=0x2", or pretty with '$'. */
static void gen_tlist(struct emitter *em, struct strbuf *o,
		      const struct expr *e, const char *buf, const char *at)
{
	const struct tref *r = e->tref;
	int i;

	for (i = 0; i < r->nlist; i++) {
		const struct tref *t = r->list[i];
		const char *a, *v;

		sb_printf(o, "_stp_pp_cat(%s, \"%s%s=%s\"); ", buf,
			  i ? " " : "", r->list_names[i], t ? "" : "?");
		if (!t)
			continue;	/* not available at this address */
		tvar_open(em, o, "0", &a, &v);
		gen_tbase(em, o, e, t, a, v);
		if (e->pretty) {
			gen_pretty_top(em, o, t->type, t->in_mem, a, v, buf,
				       e->pretty, at);
		} else if (ktype_is_scalar(t->type)) {
			gen_tload(em, o, t->type, t->in_mem, 0, 0, a, v, at);
			/* in hex at the type's own width: int -100 is
			 * 0xffffff9c
			 */
			if (t->type->size && t->type->size < 8)
				sb_printf(o, "%s &= %#llxULL; ", v,
					  (1ULL << (t->type->size * 8)) - 1);
			sb_printf(o, "_stp_pp_num(%s, (s64)%s, 1); ", buf, v);
		} else {
			sb_printf(o, "_stp_pp_cat(%s, \"{...}\"); ", buf);
		}
		sb_puts(o, "} ");
	}
}

static void gen_target_reads(struct emitter *em, struct strbuf *o,
			     const struct expr *e)
{
	const struct tref *r = e->tref;
	const char *at = where(em, e);
	const char *a, *v;
	size_t start;

	if (r->base == TRB_STRING) {
		sb_puts(o, "((const char *)");
		sb_c_string(o, r->reg);
		sb_puts(o, ")");
		return;
	}
	if (r->base == TRB_PROCFS) {
		/* a copy: a read probe's buffer may exceed MAXSTRINGLEN */
		sb_printf(o, "((const char *)_stp_strcpy(%s, "
			  "_stp_procfs_value(c)))", new_tmp(em));
		return;
	}
	if (target_simple(e)) {
		sb_puts(o, target_simple_text(em, e));
		return;
	}
	sb_putc(o, '(');
	start = o->len;
	tvar_open(em, o, "0", &a, &v);
	if (r->base == TRB_LIST || e->pretty) {
		const char *buf = new_tmp(em);

		sb_printf(o, "%s[0] = '\\0'; ", buf);
		if (r->base == TRB_LIST) {
			gen_tlist(em, o, e, buf, at);
		} else {
			gen_tbase(em, o, e, r, a, v);
			gen_tsteps(em, o, r, a, v, at);
			gen_pretty_top(em, o, r->final, r->in_mem, a, v, buf,
				       e->pretty, at);
		}
		sb_printf(o, "(const char *)%s; })", buf);
		return;
	}
	gen_tbase(em, o, e, r, a, v);
	gen_tsteps(em, o, r, a, v, at);
	if (e->addressof || (r->final->kind == KT_ARRAY && r->in_mem))
		sb_printf(o, "%s = %s; ", v, a);
	else
		gen_tload(em, o, r->final, r->in_mem, r->bit_off, r->bit_size,
			  a, v, at);
	sb_printf(o, "(int64_t)%s; })", v);
	tvar_trim(em, o, start, a, v);
}

/* User-space targets (uprobes) read with _stp_uread, kernel ones with
 * _stp_kread; an index expression inside may be either.
 */
void gen_target(struct emitter *em, struct strbuf *o,
		const struct expr *e)
{
	bool old = em->uread;

	em->uread = e->tref->user;
	gen_target_reads(em, o, e);
	em->uread = old;
}

/* Write the n bytes of the unsigned variable var at address addr, or
 * fail the handler naming the address.
 */
static void gen_kwrite(struct emitter *em, struct strbuf *o, const char *var,
		       const char *addr, unsigned int n, const char *at)
{
	sb_printf(o, "{ u%u __w = (u%u)%s; if (_stp_%cwrite(%s, &__w, %u)) { "
		  "_stp_error_fmt(c, ", n * 8, n * 8, var,
		  em->uread ? 'u' : 'k', addr, n);
	sb_c_string(o, at);
	sb_printf(o, ", \"%s write fault at 0x%%lx\", (unsigned long)(%s)); "
		  "%s; } } ", em->uread ? "user" : "kernel", addr,
		  fail_jump(em));
}

/* A bitfield is written by reading the bytes that hold it, replacing
 * its bits and writing them back.
 */
static void gen_bitfield_store(struct emitter *em, struct strbuf *o,
			       const struct tref *r, const char *a,
			       const char *v, const char *value_var,
			       const char *at)
{
	unsigned int n = read_size(r->final->size);
	unsigned long long mask;

	if (r->bit_off + r->bit_size > n * 8)
		n = 8;
	mask = r->bit_size >= 64 ? ~0ULL : (1ULL << r->bit_size) - 1;
	gen_kread(em, o, v, a, n, at);
	sb_printf(o, "%s = (%s & ~(%#llxULL << %u)) | (((u64)%s & %#llxULL) "
		  "<< %u); ", v, v, mask, r->bit_off, value_var, mask,
		  r->bit_off);
	gen_kwrite(em, o, v, a, n, at);
}

/* Store value_var into the target in memory at address a (v is the
 * block's scratch value): a bitfield through its bytes, else the
 * type's width.
 */
static void gen_tmem_store(struct emitter *em, struct strbuf *o,
			   const struct tref *r, const char *a, const char *v,
			   const char *value_var, const char *at)
{
	if (r->bit_size) {
		gen_bitfield_store(em, o, r, a, v, value_var, at);
		return;
	}
	sb_printf(o, "%s = (u64)%s; ", v, value_var);
	gen_kwrite(em, o, v, a, read_size(r->final->size), at);
}

/* lv = value_var (guru mode; pass 2 let only writable targets through):
 * memory through the fault-safe writes, a register in the probe's saved
 * pt_regs, which the probed code gets back when the probe returns.
 */
static void gen_target_write(struct emitter *em, struct strbuf *o,
				   const struct expr *lv,
				   const char *value_var)
{
	const struct tref *r = lv->tref;
	const char *at = where(em, lv);
	const char *a, *v;

	tvar_open(em, o, "0", &a, &v);
	if (r->in_mem) {
		gen_tbase(em, o, lv, r, a, v);
		gen_tsteps(em, o, r, a, v, at);
	}
	if (r->in_mem) {
		gen_tmem_store(em, o, r, a, v, value_var, at);
	} else {
		/* the register takes the value as the type extends it */
		sb_printf(o, "%s = (u64)%s; ", v, value_var);
		gen_tconvert(o, r->final, 0, 0, v);
		if (r->base == TRB_TARG && r->sc_arg)
			sb_printf(o, "_stp_sc_set_arg(c, %d, %s); ", r->argno,
				  v);
		else if (r->base == TRB_RETURN)
			sb_printf(o, "regs_set_return_value(%s, "
				  "(unsigned long)%s); ", tregs(r), v);
		else if (r->base == TRB_TARG)
			sb_printf(o, "((u64 *)c->targs)[%d] = %s; ",
				  r->argno, v);
		else
			sb_printf(o, "%s->%s = (unsigned long)%s; ", tregs(r),
				  r->reg, v);
	}
	sb_puts(o, "} ");
}

void gen_target_store(struct emitter *em, struct strbuf *o,
		      const struct expr *lv, const char *value_var)
{
	bool old = em->uread;

	if (!lv->tref) {
		gen_target_unsupported(em, o, lv, "target variable access");
		sb_puts(o, "; ");
		return;
	}
	if (lv->tref->base == TRB_PROCFS) {
		sb_printf(o, "_stp_procfs_set(c, %s); ", value_var);
		return;
	}
	em->uread = lv->tref->user;
	gen_target_write(em, o, lv, value_var);
	em->uread = old;
}

/* $x OP= v, $x++ on a target in memory (guru mode): its address is
 * computed once, so that a pointer chain read twice or an index with a
 * side effect cannot make the store miss the value that was loaded.
 * The target is read first, then v, as for any binary operator.
 */
bool gen_target_rmw(struct emitter *em, struct strbuf *o,
		    const struct expr *e)
{
	const struct expr *lv = e->a;
	const struct tref *r = lv->tref;
	const char *at = where(em, lv);
	bool old = em->uread;
	const char *a, *v;
	size_t start;

	if (lv->kind != EX_TARGET || !r || !r->in_mem ||
	    r->base == TRB_PROCFS || lv->type != TY_LONG)
		return false;
	em->uread = r->user;
	sb_puts(o, "({ int64_t __old, __v; ");
	start = o->len;
	tvar_open(em, o, "0", &a, &v);
	gen_tbase(em, o, lv, r, a, v);
	gen_tsteps(em, o, r, a, v, at);
	gen_tload(em, o, r->final, true, r->bit_off, r->bit_size, a, v, at);
	sb_printf(o, "__old = (int64_t)%s; ", v);
	if (e->kind == EX_INCDEC) {
		sb_printf(o, "__v = (int64_t)((uint64_t)__old %c 1); ",
			  e->op[0]);
	} else {
		em->uread = old;
		sb_puts(o, "{ int64_t __r = ");
		gen_expr(em, o, e->b);
		sb_puts(o, "; ");
		if (is_divide(e->op))
			gen_zero_check(em, o, "__r", e->b);
		sb_puts(o, "__v = ");
		gen_arith(o, e->op, "__old", "__r");
		sb_puts(o, "; } ");
		em->uread = r->user;
	}
	gen_tmem_store(em, o, r, a, v, "__v", at);
	sb_puts(o, "} ");
	tvar_trim(em, o, start, a, v);
	sb_printf(o, "%s; })", e->kind == EX_INCDEC && e->postfix ?
		  "__old" : "__v");
	em->uread = old;
	return true;
}

/* Where dp's values saved at entry are, from the context c. */
const char *entry_data(const struct derived_probe *dp)
{
	return dp->prov && dp->prov->entry_data ? dp->prov->entry_data :
	       "c->ri->data";
}

/* A value saved at entry, read in the .return handler. */
void gen_entry_slot(struct emitter *em, struct strbuf *o,
		    const struct expr *e)
{
	sb_printf(o, "(((struct stp_entry_%d *)%s)->s%d)",
		  em->dp->index, entry_data(em->dp), e->tref->slot);
}
