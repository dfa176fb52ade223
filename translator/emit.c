/* emit.c - pass 3: C for the kernel module, and the pass itself.  Each
 * probe handler and script function becomes a C function over its frame
 * in the per-CPU context, with its locks; providers register their
 * families through their hooks, begin, end and error probes run from
 * stp_probes_start and stp_probes_stop; alike handlers share one
 * function; assemble() lays the module out.  Its parts: expressions
 * (emit-expr.c), statements (emit-stmt.c), target variables
 * (emit-target.c), declarations (emit-decl.c), end-of-run printing
 * (emit-final.c), what they share (emit-int.h).
 */
#include "usyms.h"
#include "lines.h"
#include "emit-int.h"
#include "analyze.h"
#include "limit.h"
#include "creflow.h"
#include "cshare.h"
#include "provider.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The probes of a family that is emitted all at once. */
struct group {
	const struct provider *prov;
	struct vec dps;
};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

struct session *emit_session(struct emitter *em)
{
	return em->s;
}

void emit_error(struct emitter *em, struct loc loc, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(em->s->arena, fmt, ap);
	va_end(ap);
	diag_error(em->s, loc, "%s", msg);
	em->nerrors++;
}

struct strbuf *emit_out(struct emitter *em, enum emit_section sec)
{
	switch (sec) {
	case EMIT_START:
		return em->gstart ? em->gstart : &em->start;
	case EMIT_STOP:
		return em->gstop ? em->gstop : &em->stop;
	default:
		return &em->decls;
	}
}

const char *emit_probe_ref(struct emitter *em, const struct derived_probe *dp)
{
	return arena_printf(em->s->arena, "&stp_probes[%d]", dp->index);
}

int emit_probe_runs(const struct emitter *em, const struct derived_probe *dp)
{
	return em->runs ? em->runs[dp->index] : dp->index;
}

const char *emit_probe_handler(struct emitter *em,
			       const struct derived_probe *dp)
{
	return arena_printf(em->s->arena, "stp_probe_%d",
			    emit_probe_runs(em, dp));
}

/* A line of the current body at the current depth; a preprocessor
 * line starts in the first column.
 */
void line(struct emitter *em, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void line(struct emitter *em, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = arena_vprintf(em->s->arena, fmt, ap);
	va_end(ap);
	if (text[0] != '#')
		sb_indent(&em->b->text, em->depth);
	sb_puts(&em->b->text, text);
	sb_putc(&em->b->text, '\n');
}

/* How generated C names a source file: a tapset file by its path under
 * the tapset directory (or the -I directory) it came from, so that the
 * module does not depend on where the library is installed; the
 * script as the user named it.
 */
static const char *src_name(struct emitter *em, const struct srcfile *f)
{
	const struct session *s = em->s;
	const char *root;
	size_t n;
	int i;

	if (!f)
		return "?";
	if (!f->is_tapset)
		return f->name;
	for (i = -1; i < s->opt.include_dirs.n; i++) {
		root = i < 0 ? s->tapset_dir :
			(const char *)vec_get(&s->opt.include_dirs, i);
		if (!root)
			continue;
		n = strlen(root);
		while (n > 1 && root[n - 1] == '/')
			n--;
		if (strncmp(f->name, root, n) == 0 && f->name[n] == '/')
			return f->name + n + 1;
	}
	return f->name;
}

/* "WHAT at FILE:LINE:COL", the place a run-time error names. */
const char *at_loc(struct emitter *em, const char *what, struct loc loc)
{
	return arena_printf(em->s->arena, "%s at %s:%d:%d", what,
			    src_name(em, loc.file), loc.line, loc.col);
}

/* "identifier 'x' at file:line:col", as run-time errors quote it. */
const char *where(struct emitter *em, const struct expr *e)
{
	const char *kind = "operator";
	const char *tok = e->tok ? e->tok : "?";

	switch (e->kind) {
	case EX_SYM:
	case EX_CALL:
	case EX_PRINT:
	case EX_INDEX:
		kind = "identifier";
		break;
	case EX_TARGET:
		/* an autocast is named by its '->', '[' or '&' */
		if (e->tbase != TB_AUTOCAST)
			kind = "identifier";
		break;
	case EX_NUM:
		kind = "number";
		break;
	case EX_STR:
		kind = "string";
		break;
	default:
		break;
	}
	return at_loc(em, arena_printf(em->s->arena, "%s '%s'", kind, tok),
		      e->loc);
}

/* A fresh string temporary of the current body. */
const char *new_tmp(struct emitter *em)
{
	struct body *b = em->b;
	int n = b->tmp_next++;

	if (b->tmp_next > b->tmp_max)
		b->tmp_max = b->tmp_next;
	b->uses_locals = true;
	return arena_printf(em->s->arena, "l->__tmp[%d]", n);
}

/* The jump that abandons the handler (or enters the catch block). */
const char *fail_jump(struct emitter *em)
{
	em->b->uses_out |= strcmp(em->b->err_label, "out") == 0;
	return arena_printf(em->s->arena, "goto %s", em->b->err_label);
}

void raise_at(struct emitter *em, struct strbuf *o, const char *msg,
	      const struct expr *e)
{
	sb_printf(o, "_stp_error_at(c, ");
	sb_c_string(o, msg);
	sb_puts(o, ", ");
	sb_c_string(o, where(em, e));
	sb_printf(o, "); %s;", fail_jump(em));
}

const char *var_cname(struct emitter *em, const struct vardecl *v)
{
	if (v->priv)
		return v->priv;
	em->b->uses_locals = true;
	return arena_printf(em->s->arena, "l->l_%s", v->name);
}

/* ------------------------------------------------------------------ */
/* Functions and probe handlers                                       */

static void init_locals(struct emitter *em, const struct body *b)
{
	int i;

	for (i = 0; i < b->locals->n; i++) {
		const struct vardecl *v = b->locals->items[i];

		em->b->uses_locals = true;
		if (v->type == TY_STRING)
			line(em, "l->l_%s[0] = '\\0';", v->name);
		else
			line(em, "l->l_%s = 0;", v->name);
	}
}

/* Declare the frame pointer l at the top of b's C function, once the
 * body is written and it is known whether anything uses it.
 */
static void declare_locals(struct body *b, const char *type,
			   const char *init)
{
	const char *p;
	bool seen = false;
	struct strbuf t;

	/* what the body marks; and, should anything else read "l->" (the
	 * text of embedded C, say), l is declared as maybe unused
	 */
	for (p = strstr(b->text.buf + b->locals_at, "l->"); p && !seen;
	     p = strstr(p + 1, "l->")) {
		const char *bol = p;

		while (bol > b->text.buf && bol[-1] != '\n')
			bol--;
		/* the macros of embedded C name l: only their use counts */
		seen = *bol != '#' &&
		       !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
			 (p[-1] >= 'a' && p[-1] <= 'z') ||
			 (p[-1] >= 'A' && p[-1] <= 'Z'));
	}
	if (!b->uses_locals && !seen)
		return;
	sb_init(&t);
	sb_putn(&t, b->text.buf, b->locals_at);
	sb_printf(&t, "\tstruct %s *l%s =", type,
		  b->uses_locals && !b->maybe_locals ? "" : " __maybe_unused");
	/* a line of its own for the initializer when it is too wide */
	if (strlen(type) + strlen(init) + 22 > 80)
		sb_printf(&t, "\n\t\t%s;\n", init);
	else
		sb_printf(&t, " %s;\n", init);
	sb_puts(&t, b->text.buf + b->locals_at);
	sb_free(&b->text);
	b->text = t;
}

static struct body *new_body(struct emitter *em, const char *cname,
			     const char *ltype, struct vec *locals)
{
	struct body *b = arena_alloc(em->s->arena, sizeof(*b));

	b->cname = cname;
	b->locals_type = ltype;
	b->locals = locals;
	b->err_label = "out";
	sb_init(&b->text);
	vec_push(em->s->arena, &em->bodies, b);
	return b;
}


/* STAP_GLOBAL_GET_G() and STAP_GLOBAL_SET_G(v) for a scalar global G
 * that embedded C names in a pragma (the handler holds its lock, taken
 * for the pragma); a string's GET is its buffer, SET copies, cut to
 * MAXSTRINGLEN - 1 bytes.  Both pragmas may name G: defined once.
 */
static void global_macros(struct vardecl *v, void *arg)
{
	struct emitter *em = arg;
	const char *n = v->priv;

	if (is_array(v) || is_stat_var(v) || !n)
		return;
	line(em, "#ifndef STAP_GLOBAL_GET_%s", v->name);
	line(em, "#define STAP_GLOBAL_GET_%s() (%s)", v->name, n);
	if (v->type == TY_STRING)
		line(em, "#define STAP_GLOBAL_SET_%s(v) strscpy(%s, (v), "
		     "MAXSTRINGLEN)", v->name, n);
	else
		line(em, "#define STAP_GLOBAL_SET_%s(v) (%s = (int64_t)(v))",
		     v->name, n);
	line(em, "#endif");
}

static void global_macros_undef(struct vardecl *v, void *arg)
{
	struct emitter *em = arg;

	if (is_array(v) || is_stat_var(v) || !v->priv)
		return;
	line(em, "#undef STAP_GLOBAL_GET_%s", v->name);
	line(em, "#undef STAP_GLOBAL_SET_%s", v->name);
}

/* Embedded C reads through kread(), kderef(), kderef_buffer() or
 * DEREF_FAULT() (runtime/stp_deref.h), which jump to a fault label.
 */
static bool uses_deref(const char *code)
{
	static const char *const names[] = {
		"kread", "kderef", "kderef_buffer", "DEREF_FAULT",
	};
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		for (p = code; (p = strstr(p, names[i])); p += n) {
			const char *q = p + n;

			if (p > code && (isalnum((unsigned char)p[-1]) ||
					 p[-1] == '_'))
				continue;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(')
				return true;
		}
	}
	return false;
}

static void gen_function(struct emitter *em, struct func *f)
{
	const char *id = fn_id(em, f);
	const char *cn = arena_printf(em->s->arena, "stp_fn_%s", id);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_fn_%s_locals", id), &f->locals);
	int i;

	b->params = &f->params;
	b->func = f;
	em->b = b;
	em->depth = 1;
	sb_printf(&b->text, "static void %s(struct context *c)\n{\n", cn);
	b->locals_at = b->text.len;
	if (f->code) {
		/* the macros below name the frame */
		b->uses_locals = f->params.n || f->type == TY_STRING ||
				 f->type == TY_LONG || f->unmangled;
		/* STAP_RETVALUE in a void function's code: maybe */
		b->maybe_locals = !b->uses_locals &&
				  strstr(f->code, "STAP_RET");
		b->uses_locals |= b->maybe_locals;
		/* embedded C: STAP_ARG_x, STAP_RETVALUE and friends */
		for (i = 0; i < f->params.n; i++) {
			const struct vardecl *p = f->params.items[i];

			line(em, "#define STAP_ARG_%s (l->l_%s)", p->name,
			     p->name);
		}
		line(em, "#define STAP_RETVALUE (l->__retvalue)");
		/* 0 or "" from code that sets no value (cond && exit()) */
		if (f->type == TY_STRING)
			line(em, "l->__retvalue[0] = '\\0';");
		else if (f->type == TY_LONG)
			line(em, "l->__retvalue = 0;");
		if (f->unmangled)
			line(em, "#define THIS l");
		elab_pragma_globals(em->s, f->code, "read", global_macros, em);
		elab_pragma_globals(em->s, f->code, "write", global_macros,
				    em);
		line(em, "{");
		sb_puts(&b->text, f->code);
		sb_putc(&b->text, '\n');
		line(em, "}");
		/* kread() and friends without CATCH_DEREF_FAULT() */
		if (uses_deref(f->code) &&
		    !strstr(f->code, "CATCH_DEREF_FAULT"))
			line(em, "_stp_deref_fault: __maybe_unused;");
		b->uses_out = true;
		for (i = 0; i < f->params.n; i++)
			line(em, "#undef STAP_ARG_%s",
			     ((struct vardecl *)f->params.items[i])->name);
		line(em, "#undef STAP_RETVALUE");
		if (f->unmangled)
			line(em, "#undef THIS");
		elab_pragma_globals(em->s, f->code, "read",
				    global_macros_undef, em);
		elab_pragma_globals(em->s, f->code, "write",
				    global_macros_undef, em);
	} else {
		init_locals(em, b);
		b->uses_locals |= f->type == TY_STRING || f->type == TY_LONG;
		if (f->type == TY_STRING)
			line(em, "l->__retvalue[0] = '\\0';");
		else if (f->type == TY_LONG)
			line(em, "l->__retvalue = 0;");
		b->tail = f->body;
		if (f->body->kind == ST_BLOCK)
			b->tail = f->body->stmts.n ?
				f->body->stmts.items[f->body->stmts.n - 1] :
				NULL;
		gen_block_body(em, f->body);
	}
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	sb_puts(&b->text, "}\n\n");
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->func_locals[c->nesting].fn_%s", id));
}

/* Whether dp's handler has lock code: it touches a global that is not
 * a scalar counter it only adds to (analyze.c).
 */
bool takes_locks(const struct derived_probe *dp)
{
	return dp->nlocks && !dp->lockfree;
}

/* A .return probe's entry handler: evaluates the @entry expressions and
 * keeps them for the return handler, where the provider says (the
 * kretprobe instance, a uretprobe's frame).
 */
static void gen_unlock(struct emitter *em, const struct derived_probe *dp);
static void gen_lock(struct emitter *em, const struct derived_probe *dp);

static void gen_entry_body(struct emitter *em, struct derived_probe *dp)
{
	static struct vec no_locals;
	const char *cn = arena_printf(em->s->arena, "stp_probe_%d_entry",
				      dp->index);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_probe_%d_entry_locals", dp->index),
				  &no_locals);
	struct strbuf *d = &em->entry_decls;
	const struct loc *l = &dp->orig->loc;
	int i;

	sb_printf(d, "struct stp_entry_%d {\n", dp->index);
	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];

		if (e->type == TY_STRING)
			sb_printf(d, "\tchar s%d[MAXSTRINGLEN];\n", i);
		else
			sb_printf(d, "\tint64_t s%d;\n", i);
	}
	sb_printf(d, "};\n\nstatic struct stp_probe stp_entry_probe_%d = {\n"
		  "\t.pp = ", dp->index);
	sb_c_string(d, dp->name);
	sb_puts(d, ",\n\t.location = ");
	sb_c_string(d, arena_printf(em->s->arena, "%s:%d:%d",
				src_name(em, l->file), l->line, l->col));
	sb_printf(d, ",\n\t.index = %d,\n\t.type = %s,\n"
		  "\t.handler = %s,\n};\n\n", dp->index,
		  dp->prov && dp->prov->entry_type ? dp->prov->entry_type :
		  "STP_PROBE_KPROBE", cn);
	em->b = b;
	em->depth = 1;
	sb_printf(&b->text, "/* entry of probe %s */\nstatic void %s(struct "
		  "context *c)\n{\n", dp->name, cn);
	b->locals_at = b->text.len;
	line(em, "struct stp_entry_%d *d = (void *)%s;", dp->index,
	     entry_data(dp));
	/* without its locks it saves nothing: the run says so, and the
	 * provider arms no return with the values unset
	 */
	if (takes_locks(dp)) {
		line(em, "if (!stp_probe_%d_lock()) {", dp->index);
		line(em, "\tc->skipped = true;");
		line(em, "\treturn;");
		line(em, "}");
		line(em, "c->locks = &stp_probe_%d_locks;", dp->index);
	}
	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];
		struct strbuf x;

		sb_init(&x);
		gen_expr(em, &x, e->a);
		if (e->type == TY_STRING)
			line(em, "strscpy(d->s%d, %s, MAXSTRINGLEN);", i, x.buf);
		else
			line(em, "d->s%d = %s;", i, x.buf);
		sb_free(&x);
	}
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	em->depth = 1;
	gen_unlock(em, dp);
	sb_puts(&b->text, "}\n\n");
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->probe_locals.p%d_entry", dp->index));
}

bool emit_probe_lean(struct emitter *em, const struct derived_probe *dp)
{
	(void)em;
	return dp->lean;
}

/* The handler's globals, taken at its start (none, no code). */
static void gen_lock(struct emitter *em, const struct derived_probe *dp)
{
	if (!takes_locks(dp))
		return;
	line(em, "if (!stp_probe_%d_lock())", dp->index);
	line(em, "\treturn;");
	if (!em->lean)
		line(em, "c->locks = &stp_probe_%d_locks;", dp->index);
}

/* The release at the handler's end: a handler whose locks a page fault
 * made it let go of and could not take back (stp_mem.c) holds none.
 */
static void gen_unlock(struct emitter *em, const struct derived_probe *dp)
{
	if (!takes_locks(dp))
		return;
	if (em->lean)
		line(em, "stp_probe_%d_unlock();", dp->index);
	else
		line(em, "if (likely(c->locks))\n\t\tstp_probe_%d_unlock();",
		     dp->index);
}

/* The handler's statements between its condition, the locks and the
 * exit label, for both copies.
 */
static void gen_handler_run(struct emitter *em, struct derived_probe *dp)
{
	const struct stmt *body = dp->body;

	if (dp->cond)
		line(em, "if (!(%s))\n\t\treturn;", cond_text(em, dp->cond));
	gen_lock(em, dp);
	/* the probe's one block is the function's: no braces of its own */
	if (body->kind == ST_BLOCK && body->stmts.n == 1 &&
	    ((const struct stmt *)body->stmts.items[0])->kind == ST_BLOCK)
		body = body->stmts.items[0];
	gen_block_body(em, body);
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	em->depth = 1;
	gen_unlock(em, dp);
	sb_puts(&em->b->text, "}\n\n");
}

static void gen_probe_body(struct emitter *em, struct derived_probe *dp)
{
	const char *cn = arena_printf(em->s->arena, "stp_probe_%d",
				      dp->index);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_probe_%d_locals", dp->index),
				  &dp->locals);

	em->b = b;
	em->depth = 1;
	/* inline into the probe's own callback where it has one (kprobes,
	 * tracepoints): a hit then makes no call at all
	 */
	sb_printf(&b->text, "/* probe %s */\nstatic inline void %s(struct context "
		  "*c)\n{\n", dp->name, cn);
	b->locals_at = b->text.len;
	init_locals(em, b);
	gen_handler_run(em, dp);
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->probe_locals.p%d", dp->index));
	/* the lean copy: the same statements, no context and no MAXACTION
	 * account
	 */
	if (!dp->lean)
		return;
	sb_printf(&b->text, "static inline void stp_probe_%d_lean(void)\n{\n",
		  dp->index);
	em->lean = true;
	gen_handler_run(em, dp);
	em->lean = false;
}

/* The flags of the handler's run (stp_probe_inline.h), as C. */
const char *emit_probe_run_flags(struct emitter *em, struct derived_probe *dp)
{
	bool print = dp->may_print;
	bool sampled = dp->bounded;

	(void)em;
	if (print && sampled)
		return "STP_RUN_PRINT | STP_RUN_SAMPLED";
	if (print)
		return "STP_RUN_PRINT";
	return sampled ? "STP_RUN_SAMPLED" : "0";
}

/* ------------------------------------------------------------------ */
/* Locks: every global a probe reads or writes, through the functions */
/* it calls (analyze.c found them), taken in one fixed order (the     */
/* global's index).                                                   */

/* The C of the lock of global g for dp: "write" or "read". */
static const char *lock_kind(const struct derived_probe *dp, int g)
{
	return dp->locks[g] == LOCK_WRITE ? "write" : "read";
}

static const char *lock_name(const struct emitter *em, int g)
{
	return ((const struct vardecl *)em->s->globals.items[g])->priv;
}

/* One lock: nothing to release when it is not had. */
static void gen_lock_one(struct emitter *em, struct strbuf *o,
			 const struct derived_probe *dp, int g)
{
	sb_printf(o, "\treturn _stp_%s_trylock(&%s_lock);\n}\n\n",
		  lock_kind(dp, g), lock_name(em, g));
}

/* Several: taken in order, those had let go again when one is not. */
static void gen_lock_all(struct emitter *em, struct strbuf *o,
			 const struct derived_probe *dp,
			 const struct vec *taken)
{
	int i;

	for (i = 0; i < taken->n; i++) {
		int g = (int)(intptr_t)taken->items[i];

		sb_printf(o, "\tif (!_stp_%s_trylock(&%s_lock))\n"
			  "\t\tgoto fail_%d;\n", lock_kind(dp, g),
			  lock_name(em, g), i);
	}
	sb_puts(o, "\treturn true;\n");
	/* fail_k: lock k could not be had; release the ones before it */
	for (i = taken->n - 1; i >= 0; i--) {
		sb_printf(o, "fail_%d:\n", i);
		if (i > 0) {
			int g = (int)(intptr_t)taken->items[i - 1];

			sb_printf(o, "\t_stp_%s_unlock(&%s_lock);\n",
				  lock_kind(dp, g), lock_name(em, g));
		}
	}
	/* the skip is counted against the lock (stp_probe.c) */
	if (taken->n)
		sb_puts(o, "\treturn false;\n");
	sb_puts(o, "}\n\n");
}

static void gen_unlock_all(struct emitter *em, struct strbuf *o,
			   const struct derived_probe *dp,
			   const struct vec *taken)
{
	int i;

	sb_printf(o, "static void stp_probe_%d_unlock(void)\n{\n", dp->index);
	for (i = taken->n - 1; i >= 0; i--) {
		int g = (int)(intptr_t)taken->items[i];

		sb_printf(o, "\t_stp_%s_unlock(&%s_lock);\n",
			  lock_kind(dp, g), lock_name(em, g));
	}
	sb_puts(o, "}\n\n");
	sb_printf(o, "static const struct stp_lockset stp_probe_%d_locks = {\n"
		  "\t.lock = stp_probe_%d_lock,\n\t.unlock = stp_probe_%d_unlock,"
		  "\n\t.n = %d,\n};\n\n", dp->index, dp->index, dp->index,
		  taken->n);
}

static void gen_locks(struct emitter *em, struct derived_probe *dp)
{
	struct strbuf *o = &em->decls;
	struct vec taken = { 0 };
	int i;

	if (!takes_locks(dp))
		return;
	for (i = 0; i < em->s->globals.n; i++)
		if (dp->locks[i] != LOCK_NONE)
			vec_push(em->s->arena, &taken, (void *)(intptr_t)i);
	/* inline in the callback; the lockset keeps an out-of-line copy */
	sb_printf(o, "static __always_inline bool stp_probe_%d_lock(void)\n"
		  "{\n", dp->index);
	if (taken.n == 1)
		gen_lock_one(em, o, dp, (int)(intptr_t)taken.items[0]);
	else
		gen_lock_all(em, o, dp, &taken);
	gen_unlock_all(em, o, dp, &taken);
}

/* ------------------------------------------------------------------ */
/* Nesting                                                            */

/* MAXNESTING as the module gets it: -D, else the translator's own
 * (analyze.c: the deepest call chain, plus room for recursion),
 * which never asks for more than the stack holds.
 */
static long long module_nesting(const struct emitter *em)
{
	long long most = limit_max_nesting(&em->lim);

	if (em->lim.maxnesting >= 0)
		return em->lim.maxnesting;
	return em->s->max_nesting < most ? em->s->max_nesting : most;
}

/* ------------------------------------------------------------------ */
/* begin, end, error and timers                                        */

static int64_t sequence_of(const struct derived_probe *dp)
{
	const struct pp_comp *c = dp->pp->comps.items[0];
	int64_t v = 0;

	if (c->arg)
		pp_arg_num(c->arg, &v);
	return v;
}

/* Stable order by sequence number, then declaration. */
static void sort_by_sequence(struct vec *v)
{
	int i, j;

	for (i = 1; i < v->n; i++) {
		void *x = v->items[i];

		for (j = i; j > 0 && sequence_of(v->items[j - 1]) >
				     sequence_of(x); j--)
			v->items[j] = v->items[j - 1];
		v->items[j] = x;
	}
}

static void run_list(struct strbuf *o, const struct vec *v,
		     const char *state, int depth)
{
	int i;

	for (i = 0; i < v->n; i++) {
		sb_indent(o, depth);
		sb_printf(o, "_stp_probe_run(&stp_probes[%d], NULL, %s);\n",
			  ((struct derived_probe *)v->items[i])->index, state);
	}
}

static const char *probe_type_of(const struct derived_probe *dp)
{
	if (dp->prov && dp->prov->probe_type)
		return dp->prov->probe_type(dp);
	return "STP_PROBE_BEGIN";
}

static void group_add(struct emitter *em, struct derived_probe *dp)
{
	struct group *g = NULL;
	int i;

	for (i = 0; i < em->groups.n; i++) {
		g = em->groups.items[i];
		if (g->prov == dp->prov)
			break;
	}
	if (i == em->groups.n) {
		g = arena_alloc(em->s->arena, sizeof(*g));
		g->prov = dp->prov;
		vec_push(em->s->arena, &em->groups, g);
	}
	vec_push(em->s->arena, &g->dps, dp);
}

/* Each family's start may fail: a failure undoes the families before
 * it, in reverse, and returns its rc.
 */
static void gen_group_start(struct emitter *em, struct strbuf *o,
			    struct strbuf *fail)
{
	struct strbuf *stops = NULL;
	int i;

	if (!em->groups.n)
		return;
	stops = xmalloc(sizeof(*stops) * (size_t)em->groups.n);
	for (i = 0; i < em->groups.n; i++) {
		struct group *g = em->groups.items[i];
		struct strbuf start, stop;

		sb_init(&start);
		sb_init(&stop);
		em->gstart = &start;
		em->gstop = &stop;
		g->prov->emit_group(em, &g->dps);
		em->gstart = em->gstop = NULL;
		sb_puts(o, start.buf ? start.buf : "");
		sb_printf(o, "\tif (rc)\n\t\tgoto fail_%d;\n", i);
		stops[i] = stop;
		sb_free(&start);
	}
	/* a failure of family k undoes k-1 .. 0 */
	for (i = em->groups.n - 1; i >= 1; i--) {
		sb_printf(fail, "fail_%d:\n", i);
		sb_puts(fail, stops[i - 1].buf ? stops[i - 1].buf : "");
	}
	sb_puts(fail, "fail_0:\n\treturn rc;\n");
	/* and stp_probes_stop undoes them all */
	for (i = em->groups.n - 1; i >= 0; i--) {
		sb_puts(&em->gstops, stops[i].buf ? stops[i].buf : "");
		sb_free(&stops[i]);
	}
	free(stops);
}

/* The provider says which probes the emitter runs itself (begin, end,
 * error: from stp_probes_start and stp_probes_stop; never: not at
 * all); the others register through its hooks.
 */
static void classify_probe(struct emitter *em, struct derived_probe *dp)
{
	switch (dp->prov ? dp->prov->run : PROV_RUN_HOOKS) {
	case PROV_RUN_BEGIN:
		vec_push(em->s->arena, &em->begins, dp);
		return;
	case PROV_RUN_END:
		vec_push(em->s->arena, &em->ends, dp);
		return;
	case PROV_RUN_ERROR:
		vec_push(em->s->arena, &em->errors, dp);
		return;
	case PROV_RUN_NEVER:
		return;
	case PROV_RUN_HOOKS:
		break;
	}
	if (dp->prov && dp->prov->emit_group)
		group_add(em, dp);
	else if (dp->prov && dp->prov->emit)
		dp->prov->emit(em, dp);
	else
		emit_error(em, dp->pp->loc, "probe point '%s' cannot be "
			   "compiled yet", dp->name);
}

/* ------------------------------------------------------------------ */
/* The module                                                          */

/* --monitor: the script's globals as the live view shows them, and
 * their reset to the values they start with (runtime/stp_monitor.h);
 * the tapset's own globals are left alone.
 */
static void gen_monitor_show(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;

	sb_printf(o, "\tif (_stp_monitor_lock(&%s_lock, &flags)) {\n", n);
	if (is_array(v))
		sb_printf(o, "\t\t_stp_map_agg(%s);\n"
			  "\t\t_stp_monitor_array(m, \"%s\", "
			  "_stp_map_size(%s));\n", n, v->name, n);
	else if (is_stat_var(v))
		sb_printf(o, "\t\tconst struct stp_stat_agg *a = "
			  "_stp_stat_get(%s);\n\n"
			  "\t\t_stp_monitor_stat(m, \"%s\", a->count, "
			  "a->sum);\n", n, v->name);
	else if (v->type == TY_STRING)
		sb_printf(o, "\t\t_stp_monitor_str(m, \"%s\", %s);\n",
			  v->name, n);
	else
		sb_printf(o, "\t\t_stp_monitor_long(m, \"%s\", %s);\n",
			  v->name, n);
	sb_printf(o, "\t\t_stp_monitor_unlock(&%s_lock, flags);\n"
		  "\t} else {\n\t\t_stp_monitor_busy(m, \"%s\");\n\t}\n",
		  n, v->name);
}

static void gen_monitor_reset(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;

	sb_printf(o, "\tif (_stp_monitor_lock(&%s_lock, &flags)) {\n", n);
	if (is_array(v)) {
		sb_printf(o, "\t\t_stp_map_clear(%s);\n", n);
	} else if (is_stat_var(v)) {
		sb_printf(o, "\t\t_stp_stat_clear(%s);\n", n);
	} else if (v->type == TY_STRING) {
		sb_printf(o, "\t\tstrscpy(%s, \"%s\", MAXSTRINGLEN);\n", n,
			  v->init && v->init->kind == EX_STR ?
			  v->init->str : "");
	} else {
		sb_printf(o, "\t\t%s = ", n);
		gen_num(o, v->init && v->init->kind == EX_NUM ?
			v->init->num : 0);
		sb_puts(o, ";\n");
	}
	sb_printf(o, "\t\t_stp_monitor_unlock(&%s_lock, flags);\n\t}\n", n);
}

static void gen_monitor(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		sb_puts(o, pass ? "static void stp_monitor_reset(void)\n{\n" :
			"static void stp_monitor_globals(struct seq_file *m)"
			"\n{\n");
		sb_puts(o, "\tunsigned long flags __maybe_unused;\n\n");
		for (i = 0; i < s->globals.n; i++) {
			const struct vardecl *v = s->globals.items[i];

			if (v->from_tapset)
				continue;
			if (pass)
				gen_monitor_reset(o, v);
			else
				gen_monitor_show(o, v);
		}
		sb_puts(o, "}\n\n");
	}
}

/* ------------------------------------------------------------------ */
/* Shared handlers: probes whose handlers differ only in their string  */
/* literals (the syscall.* aliases: name = "read", error locations)   */
/* run one C function, which then takes the literals from the probe's  */
/* descriptor; hundreds of probes compile as one.                      */

struct shared {
	const char *key;
	int index;			/* the probe whose handler runs */
	struct body *b;
	struct vec members;		/* the probes sharing it (intptr_t) */
	struct vec lits;		/* the literals, as C, of each probe
					 * (struct vec *), its own first */
};

/* dp's handler (the last body) and its lock functions (em->decls from
 * mark) go when an earlier probe's handler can run for it.  A lean
 * handler's copy has no context to take literals from: it is shared
 * only with one whose literals are the same.
 */
static void share_handler(struct emitter *em, struct derived_probe *dp,
			  size_t mark)
{
	struct arena *a = em->s->arena;
	struct body *b = vec_last(&em->bodies);
	struct vec *lits = arena_alloc(a, sizeof(*lits));
	struct shared *sh;
	const char *key;
	void **slot;
	bool fresh;
	int i;

	if (dp->not_shareable || !b || b->func || !b->text.buf)
		return;
	key = cshare_key(a, b->text.buf, dp->index, lits);
	if (dp->lean)
		for (i = 0; i < lits->n; i++)
			key = arena_printf(a, "%s\001%s", key,
					   (const char *)lits->items[i]);
	slot = htab_slot(&em->share_index, key, strlen(key), &fresh);
	if (fresh) {
		sh = arena_alloc(a, sizeof(*sh));
		sh->key = key;
		sh->index = dp->index;
		sh->b = b;
		vec_push(a, &sh->lits, lits);
		vec_push(a, &em->shared, sh);
		*slot = sh;
		return;
	}
	sh = *slot;
	vec_push(a, &sh->members, (void *)(intptr_t)dp->index);
	vec_push(a, &sh->lits, lits);
	sb_free(&b->text);
	sb_init(&b->text);
	sb_putn(&b->text, "", 0);
	b->merged = true;
	em->decls.len = mark;
	if (em->decls.buf)
		em->decls.buf[mark] = '\0';
	em->runs[dp->index] = sh->index;
}

/* The k-th probe's table of the literals that differ (slot[i] >= 0),
 * or an earlier probe's with the same ones.
 */
static const char *lit_table(struct emitter *em, struct shared *sh, int k,
			     const int *slot)
{
	const struct vec *mine = sh->lits.items[k];
	int i, j;

	for (j = 0; j < k; j++) {
		const struct vec *other = sh->lits.items[j];

		for (i = 0; i < mine->n; i++)
			if (slot[i] >= 0 &&
			    strcmp(mine->items[i], other->items[i]))
				break;
		if (i == mine->n)
			return em->lits_of[j ? (intptr_t)
					   sh->members.items[j - 1] :
					   sh->index];
	}
	j = k ? (int)(intptr_t)sh->members.items[k - 1] : sh->index;
	sb_printf(&em->lit_tables, "static const char *const "
		  "stp_probe_%d_lits[] = {\n", j);
	for (i = 0; i < mine->n; i++)
		if (slot[i] >= 0)
			sb_printf(&em->lit_tables, "\t%s,\n",
				  (const char *)mine->items[i]);
	sb_puts(&em->lit_tables, "};\n\n");
	return arena_printf(em->s->arena, "stp_probe_%d_lits", j);
}

/* Once every probe is in: a shared handler takes the literals that
 * differ between its probes from the running probe's table.
 */
static void share_finish(struct emitter *em, struct shared *sh)
{
	const struct vec *first = sh->lits.items[0];
	int *slot = arena_alloc(em->s->arena, sizeof(*slot) *
				(size_t)(first->n + 1));
	const char *t;
	int i, k, n = 0;

	for (i = 0; i < first->n; i++) {
		slot[i] = -1;
		for (k = 1; k < sh->lits.n && slot[i] < 0; k++)
			if (strcmp(first->items[i], ((const struct vec *)
				   sh->lits.items[k])->items[i]))
				slot[i] = n++;
	}
	if (!n)
		return;
	t = cshare_param(em->s->arena, sh->b->text.buf, "c->probe->lits[%d]",
			 slot);
	sb_free(&sh->b->text);
	sb_init(&sh->b->text);
	sb_puts(&sh->b->text, t);
	for (k = 0; k < sh->lits.n; k++)
		em->lits_of[k ? (intptr_t)sh->members.items[k - 1] :
			    sh->index] = lit_table(em, sh, k, slot);
}

/* The probes' locations, each once: "static const char stp_loc_N[]". */
static const char *loc_name(struct emitter *em, struct strbuf *o,
			    struct htab *seen, const struct loc *l)
{
	struct session *s = em->s;
	const char *text = arena_printf(s->arena, "%s:%d:%d",
					src_name(em, l->file), l->line,
					l->col);
	bool fresh;
	void **slot = htab_slot(seen, text, strlen(text), &fresh);

	if (fresh) {
		*slot = arena_printf(s->arena, "stp_loc_%zu", seen->n - 1);
		sb_printf(o, "static const char %s[] = ",
			  (const char *)*slot);
		sb_c_string(o, text);
		sb_puts(o, ";\n");
	}
	return *slot;
}

/* stp_probes: a row per probe (STP_PROBE, runtime/stp_probe.h). */
static void gen_probe_table(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	struct htab seen = { .arena = s->arena };
	const char **locs = arena_alloc(s->arena, sizeof(*locs) *
					(size_t)(s->probes.n + 1));
	int i;

	for (i = 0; i < s->probes.n; i++)
		locs[i] = loc_name(em, o, &seen, &((const struct derived_probe *)
				   s->probes.items[i])->orig->loc);
	sb_printf(o, "\nstatic struct stp_probe stp_probes[%d] = {\n",
		  s->probes.n ? s->probes.n : 1);
	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];

		sb_printf(o, "\t%s(%d, %s, stp_probe_%d, ",
			  em->lits_of[i] ? "STP_PROBE_LITS" : "STP_PROBE", i,
			  probe_type_of(dp), em->runs[i]);
		sb_c_string(o, dp->name);
		sb_printf(o, ", %s", locs[i]);
		if (em->lits_of[i])
			sb_printf(o, ", %s", em->lits_of[i]);
		sb_puts(o, "),\n");
	}
	sb_puts(o, "};\n\n");
	if (has_final_print(em))
		sb_puts(o, "static struct stp_probe stp_final_probe = {\n"
			"\t.pp = \"end\",\n\t.type = STP_PROBE_END,\n"
			"\t.handler = stp_final_print,\n};\n\n");
}

static void gen_start_stop(struct emitter *em, struct strbuf *o)
{
	sb_puts(o, "int stp_probes_start(void)\n{\n");
	if (em->groups.n)
		sb_puts(o, "\tint rc = 0;\n\n");
	run_list(o, &em->begins, "STAP_SESSION_STARTING", 1);
	sb_puts(o, "\tif (_stp_session_get_state() != STAP_SESSION_STARTING)\n"
		"\t\treturn STP_PROBES_UNARMED;\n");
	/* a stop signal that came during the begin probes */
	if (em->groups.n || em->start.len)
		sb_puts(o, "\tif (_stp_start_interrupted())\n"
			"\t\treturn -EINTR;\n");
	sb_puts(o, em->gstarts.buf ? em->gstarts.buf : "");
	sb_puts(o, em->start.buf ? em->start.buf : "");
	sb_puts(o, "\tatomic_cmpxchg(&_stp_session_state, "
		"STAP_SESSION_STARTING,\n\t\t       STAP_SESSION_RUNNING);\n"
		"\treturn 0;\n");
	sb_puts(o, em->gfail.buf ? em->gfail.buf : "");
	sb_puts(o, "}\n\n");
	/* what stp_probes_start() armed, all or nothing */
	if (em->gstops.len || em->stop.len) {
		sb_puts(o, "static void stp_probes_unregister(void)\n{\n");
		sb_puts(o, em->gstops.buf ? em->gstops.buf : "");
		sb_puts(o, em->stop.buf ? em->stop.buf : "");
		sb_puts(o, "}\n\n");
	}
	sb_puts(o, "void stp_probes_stop(bool armed)\n{\n");
	if (em->gstops.len || em->stop.len)
		sb_puts(o, "\tif (armed)\n\t\tstp_probes_unregister();\n");
	/* the final print is like an end probe: not after an error */
	if (em->errors.n) {
		sb_puts(o, "\tif (_stp_session_get_state() == "
			"STAP_SESSION_ERROR) {\n");
		run_list(o, &em->errors, "STAP_SESSION_ERROR", 2);
		if (em->ends.n || has_final_print(em))
			sb_puts(o, "\t} else {\n");
	} else if (em->ends.n || has_final_print(em)) {
		sb_puts(o, "\tif (_stp_session_get_state() != "
			"STAP_SESSION_ERROR) {\n");
	}
	run_list(o, &em->ends, "STAP_SESSION_STOPPING", 2);
	if (has_final_print(em))
		sb_puts(o, "\t\t_stp_probe_run(&stp_final_probe, NULL, "
			"STAP_SESSION_STOPPING);\n");
	if (em->errors.n || em->ends.n || has_final_print(em))
		sb_puts(o, "\t}\n");
	sb_puts(o, "}\n\n");
}

/* matched() and ngroups() read the last =~ of the handler: then every
 * =~ keeps its regex and string in the context (STP_NEED_SUBMATCH). */
bool uses_submatch(const struct emitter *em)
{
	int i;

	if (!em->regexes.n)
		return false;
	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (b->func && b->func->code &&
		    (!strcmp(b->func->name, "matched") ||
		     !strcmp(b->func->name, "ngroups")))
			return true;
	}
	return false;
}

static void gen_embedded_macros(struct strbuf *o)
{
	sb_puts(o, "/* The embedded-C interface of functions. */\n"
		"#define CONTEXT c\n"
		"#define STAP_PRINTF(fmt, ...) _stp_printf(fmt, ##__VA_ARGS__)\n"
		"#define STAP_ERROR(...) do { _stp_error_fmt(c, c->last_stmt, "
		"__VA_ARGS__); \\\n\tgoto out; } while (0)\n"
		"#define STAP_RETURN(v) do { STAP_SET_RETURN(v); goto out; } "
		"while (0)\n\n");
}

static void gen_function_bodies(struct emitter *em, struct strbuf *o,
				bool funcs)
{
	int i;

	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (!!b->func != funcs)
			continue;
		if (b->func && b->func->code) {
			sb_printf(o, "#define STAP_SET_RETURN(v) %s\n",
				  b->func->type == TY_STRING ?
				  "strscpy(STAP_RETVALUE, (v), MAXSTRINGLEN)" :
				  "(STAP_RETVALUE = (int64_t)(v))");
			sb_puts(o, b->text.buf);
			sb_puts(o, "#undef STAP_SET_RETURN\n\n");
		} else {
			sb_puts(o, b->text.buf);
		}
	}
}

static void gen_embeds(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	for (i = 0; i < s->embeds.n; i++) {
		const struct embedded *e = s->embeds.items[i];
		const char *code = e->code, *end;

		/* the block's own blank first and last lines go */
		while (*code == '\n')
			code++;
		end = code + strlen(code);
		while (end > code && (end[-1] == '\n' || end[-1] == ' ' ||
				      end[-1] == '\t'))
			end--;
		sb_printf(o, "/* embedded C from %s:%d */\n%.*s\n\n",
			  src_name(em, e->file ? e->file->src : NULL),
			  e->loc.line, (int)(end - code), code);
	}
}

/* What the runtime's core, an object built once for every script,
 * learns of this one (runtime/stp_session.h): the size of its probe
 * context with the locals, and its tables.
 */
static void gen_script_info(struct emitter *em, struct strbuf *o,
			    int nklines, int nuobjs)
{
	sb_puts(o, "const struct stp_script stp_script = {\n"
		"\t.context_size = sizeof(struct context),\n"
		"\t.maxstringlen = MAXSTRINGLEN,\n"
		"\t.maxnesting = MAXNESTING,\n"
		"\tSTP_SCRIPT_LIMITS,\n");
	if (em->s->opt.timing)
		sb_puts(o, "\t.timing = true,\n");
	if (em->s->opt.monitor)
		sb_printf(o, "\t.monitor = true,\n"
			  "\t.probes = stp_probes,\n"
			  "\t.nprobes = %d,\n"
			  "\t.monitor_globals = stp_monitor_globals,\n"
			  "\t.monitor_reset = stp_monitor_reset,\n",
			  em->s->probes.n);
	if (nklines)
		sb_printf(o, "\t.klines = stp_klines,\n"
			  "\t.nklines = %d,\n", nklines);
	if (nuobjs)
		sb_printf(o, "\t.uobjs = stp_uobjs,\n"
			  "\t.uobj_inodes = stp_uobj_inodes,\n"
			  "\t.nuobjs = %d,\n", nuobjs);
	sb_puts(o, "};\n");
}

static void assemble(struct emitter *em, struct strbuf *out)
{
	struct session *s = em->s;
	int nklines, nuobjs;

	sb_printf(out, "/* %s.c - generated by tapir from %s: do not edit. */\n"
		  "\n#ifndef MAXNESTING\n#define MAXNESTING %lld\n#endif\n\n",
		  em->module, s->user_file->src->name, em->nesting);
	if (uses_submatch(em))
		sb_puts(out, "#define STP_NEED_SUBMATCH 1\n\n");
	if (s->opt.compatible) {
		/* for embedded C's #if STAP_COMPAT_VERSION (stp_runtime_pre.h) */
		char *end;
		long major = strtol(s->opt.compatible, &end, 10);
		long minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;

		sb_printf(out, "#define STAP_COMPAT_VERSION STAP_VERSION(%ld, "
			  "%ld)\n\n", major < 0xffff ? major : 0xffff,
			  minor < 0xff ? minor : 0xff);
	}
	sb_puts(out, "#include \"stp_runtime_pre.h\"\n\n");
	limit_emit_guard(&em->lim, em->nesting, out);
	gen_locals_unions(em, out);
	sb_puts(out, "#include \"stp_runtime.h\"\n\n");
	sb_printf(out, "const char stp_module_name[] = \"%s\";\n\n",
		  em->module);
	gen_embeds(em, out);
	gen_global_decls(em, out);
	gen_prototypes(em, out);
	sb_printf(out, "static struct stp_probe stp_probes[%d];\n\n",
		  s->probes.n ? s->probes.n : 1);
	sb_puts(out, em->entry_decls.buf ? em->entry_decls.buf : "");
	sb_puts(out, em->decls.buf ? em->decls.buf : "");
	gen_embedded_macros(out);
	gen_function_bodies(em, out, true);
	gen_function_bodies(em, out, false);
	gen_final_print(em, out);
	sb_puts(out, em->lit_tables.buf ? em->lit_tables.buf : "");
	gen_probe_table(em, out);
	gen_globals_init(em, out);
	if (s->opt.monitor)
		gen_monitor(em, out);
	gen_start_stop(em, out);
	nklines = lines_wanted(s) ? lines_emit_kernel(s, out) : 0;
	nuobjs = usyms_emit(s, out);
	gen_script_info(em, out, nklines, nuobjs);
}

/* The int64_t and MAXSTRINGLEN members of b's locals struct, as
 * gen_locals_struct() writes them.
 */
static unsigned long long body_locals_bytes(const struct emitter *em,
					    const struct body *b)
{
	int i, nlong = 0, nstr = b->tmp_max;

	for (i = 0; b->params && i < b->params->n; i++) {
		const struct vardecl *v = b->params->items[i];

		if (v->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	for (i = 0; i < b->locals->n; i++) {
		const struct vardecl *v = b->locals->items[i];

		if (v->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	if (b->func && b->func->type == TY_STRING)
		nstr++;
	else if (b->func)
		nlong++;
	return limit_locals_bytes(&em->lim, nlong, nstr);
}

/* A node's keys and value, without the links (a lower bound of
 * runtime/stp_map.c stp_map_layout).
 */
static unsigned long long map_node_bytes(const struct emitter *em,
					 const struct vardecl *v)
{
	unsigned long long str = (em->lim.maxstringlen + 7) & ~7ULL;
	unsigned long long n = 0;
	int i;

	for (i = 0; i < v->arity; i++)
		n += v->index_types[i] == TY_STRING ? str : 8;
	if (!is_stat_var(v))
		n += v->type == TY_STRING ? str : 8;
	return n;
}

/* The values a .return probe saves at entry (struct stp_entry_N). */
static unsigned long long entry_bytes(const struct emitter *em,
				      const struct derived_probe *dp)
{
	int i, nlong = 0, nstr = 0;

	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];

		if (e->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	return limit_locals_bytes(&em->lim, nlong, nstr);
}

/* The limits against the kernel stack and memory, before any C. */
static bool check_limits(struct emitter *em)
{
	unsigned long long probe = 0, func = 0, n;
	bool ok = true;
	int i;

	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		n = body_locals_bytes(em, b);
		if (b->func && n > func)
			func = n;
		else if (!b->func && n > probe)
			probe = n;
	}
	/* the translator's own default never asks for more than the
	 * stack holds: a deeper chain meets MAXCALLSTACK at run time
	 */
	em->nesting = module_nesting(em);
	if (!limit_check_context(em->s, &em->lim, em->nesting, probe, func))
		ok = false;
	for (i = 0; i < em->s->probes.n; i++) {
		const struct derived_probe *dp = em->s->probes.items[i];

		if (dp->entry_exprs.n &&
		    !limit_check_entry(em->s, dp->orig->loc,
				       entry_bytes(em, dp)))
			ok = false;
	}
	for (i = 0; i < em->s->globals.n; i++) {
		const struct vardecl *v = em->s->globals.items[i];

		if (is_array(v) &&
		    !limit_check_map(em->s, &em->lim, v->loc, v->name,
				      v->maxsize ? v->maxsize :
				      em->lim.maxmapentries,
				      map_node_bytes(em, v), v->maxsize))
			ok = false;
	}
	return ok;
}

/* Each function's place in its same-arity chain: counted from every
 * function, a member's largest count is its distance from the head.
 */
static void number_overloads(struct session *s)
{
	int i, pos;
	struct func *g;

	for (i = 0; i < s->functions.n; i++) {
		const struct func *f = s->functions.items[i];

		pos = 0;
		for (g = f->next_overload; g; g = g->next_overload)
			if (g->overload_pos < ++pos)
				g->overload_pos = pos;
	}
}

int emit_module(struct session *s, const char *module_name,
		struct strbuf *out)
{
	struct emitter em;
	struct strbuf text;
	size_t mark;
	int i;

	memset(&em, 0, sizeof(em));
	if (!limit_get(s, &em.lim))
		return -1;
	em.s = s;
	em.module = module_name;
	sb_init(&em.decls);
	sb_init(&em.start);
	sb_init(&em.stop);
	sb_init(&em.gstarts);
	sb_init(&em.gfail);
	sb_init(&em.gstops);
	sb_init(&em.entry_decls);
	sb_init(&em.lit_tables);
	em.lits_of = arena_alloc(s->arena, sizeof(*em.lits_of) *
				 (size_t)(s->probes.n + 1));
	em.runs = arena_alloc(s->arena, sizeof(*em.runs) *
			      (size_t)(s->probes.n + 1));
	for (i = 0; i < s->probes.n; i++)
		em.runs[i] = i;
	em.share_index.arena = s->arena;
	name_globals(&em);
	em.nesting = module_nesting(&em);
	number_overloads(s);
	for (i = 0; i < s->functions.n; i++)
		gen_function(&em, s->functions.items[i]);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		em.dp = dp;
		if (dp->entry_exprs.n)
			gen_entry_body(&em, dp);
		gen_probe_body(&em, dp);
		mark = em.decls.len;
		gen_locks(&em, dp);
		share_handler(&em, dp, mark);
		classify_probe(&em, dp);
	}
	em.dp = NULL;
	for (i = 0; i < em.shared.n; i++)
		share_finish(&em, em.shared.items[i]);
	gen_group_start(&em, &em.gstarts, &em.gfail);
	sort_by_sequence(&em.begins);
	sort_by_sequence(&em.ends);
	sort_by_sequence(&em.errors);
	if (!em.nerrors && !check_limits(&em))
		em.nerrors++;
	sb_init(&text);
	if (!em.nerrors) {
		assemble(&em, &text);
		c_reflow(text.buf ? text.buf : "", out);
	}
	sb_free(&text);
	sb_free(&em.decls);
	sb_free(&em.start);
	sb_free(&em.stop);
	sb_free(&em.gstarts);
	sb_free(&em.gfail);
	sb_free(&em.gstops);
	sb_free(&em.entry_decls);
	htab_free(&em.share_index);
	sb_free(&em.lit_tables);
	for (i = 0; i < em.bodies.n; i++)
		sb_free(&((struct body *)em.bodies.items[i])->text);
	return em.nerrors ? -1 : 0;
}
